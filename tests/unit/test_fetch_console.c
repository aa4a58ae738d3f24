/* execute/fetch_console: decoding a board's od dump, fed in odd pieces. */
#include "testsupport.h"
#include "execute/fetch_console.h"

#include <stdlib.h>
#include <string.h>

struct dec {
	FILE *file;
	char *bytes;
	size_t len;
	struct cksum ck;
	struct strbuf text;
	struct console_fetch cf;
};

static void dec_start(struct dec *d)
{
	memset(d, 0, sizeof(*d));
	d->file = open_memstream(&d->bytes, &d->len);
	assert_non_null(d->file);
	cksum_init(&d->ck);
	console_fetch_init(&d->cf, d->file, &d->ck, &d->text);
}

/* Feeds text a piece at a time; returns console_fetch_finish's result. */
static int dec_feed(struct dec *d, const char *text, size_t piece, char *err, size_t errlen)
{
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i += piece)
		assert_int_equal(console_fetch_output(&d->cf, TRANSPORT_STDOUT, text + i,
						      n - i < piece ? n - i : piece), 0);
	int r = console_fetch_finish(&d->cf, err, errlen);
	fclose(d->file);
	return r;
}

static void dec_end(struct dec *d)
{
	free(d->bytes);
	strbuf_release(&d->text);
}

static void test_dump_decoded(void **state)
{
	const char *board = "ORCH-FETCH-BEGIN 18\r\n"
			    " 00 01 7f 80 ff 0a 0d 25 27 5c 2d 30 31 32 33 34\n"
			    " fe 20\n"
			    "ORCH-FETCH-END\n"
			    "ORCH-CHECK cksum 123 18\n";
	const unsigned char want[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x0d, 0x25, 0x27,
				       0x5c, 0x2d, 0x30, 0x31, 0x32, 0x33, 0x34, 0xfe, 0x20 };
	for (size_t piece = 1; piece < 40; piece += 7) {
		struct dec d;
		char err[128];
		dec_start(&d);
		assert_int_equal(dec_feed(&d, board, piece, err, sizeof(err)), 0);
		assert_int_equal(d.len, sizeof(want));
		assert_memory_equal(d.bytes, want, sizeof(want));
		assert_string_equal(strbuf_str(&d.text), "ORCH-CHECK cksum 123 18\n");
		dec_end(&d);
	}
}

static void test_board_message_kept(void **state)
{
	struct dec d;
	char err[128];
	dec_start(&d);
	assert_int_equal(dec_feed(&d, "no such file\n", 5, err, sizeof(err)), 0);
	assert_int_equal(d.len, 0);
	assert_string_equal(strbuf_str(&d.text), "no such file\n");
	dec_end(&d);
}

static void test_garbled_and_cut_dumps_refused(void **state)
{
	struct dec d;
	char err[128];
	dec_start(&d);
	assert_int_equal(dec_feed(&d, "ORCH-FETCH-BEGIN 2\n 00 0\nORCH-FETCH-END\n", 64, err,
				  sizeof(err)), -1);
	TS_ASSERT_HAS(err, "garbled");
	dec_end(&d);
	dec_start(&d);
	assert_int_equal(dec_feed(&d, "ORCH-FETCH-BEGIN 2\n 00 01 x\n", 64, err, sizeof(err)),
			 -1);
	TS_ASSERT_HAS(err, "garbled");
	dec_end(&d);
	dec_start(&d);
	assert_int_equal(dec_feed(&d, "ORCH-FETCH-BEGIN 32\n 00 01\n", 3, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "ended early");
	dec_end(&d);
}

static void test_cap_from_environment(void **state)
{
	unsetenv("ORCH_CONSOLE_FETCH_MAX");
	assert_true(console_fetch_max() == CONSOLE_FETCH_MAX_DEFAULT);
	setenv("ORCH_CONSOLE_FETCH_MAX", "4096", 1);
	assert_true(console_fetch_max() == 4096);
	setenv("ORCH_CONSOLE_FETCH_MAX", "4k", 1);
	assert_true(console_fetch_max() == CONSOLE_FETCH_MAX_DEFAULT);
	unsetenv("ORCH_CONSOLE_FETCH_MAX");
}

TS_MAIN(NULL, NULL, test_dump_decoded, test_board_message_kept, test_garbled_and_cut_dumps_refused,
	test_cap_from_environment)
