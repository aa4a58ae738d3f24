/*
 * A command's output cut into lines (execute/output.h): a line is whole
 * however many writes it took, up to OUTPUT_MAX_LINE bytes (a line of
 * exactly the cap is handed on); a longer one is counted, never handed on
 * whole or in pieces, and the next line is whole again; the buffer grows
 * to the cap and not beyond (a 64 MiB line costs no 64 MiB); a file read
 * with output_each_line is cut the same way.
 */
#include "testsupport.h"
#include "execute/output.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct seen {
	int n;
	size_t len[8];
	char head[8][16];
	int longs;
	uint64_t long_len;         /* the last long line's whole length */
	size_t head_len;           /* and the length of its head */
	char head_start;
};

static int on_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct seen *s = ctx;
	(void)stream;
	assert_true(s->n < 8);
	s->len[s->n] = strlen(line);
	snprintf(s->head[s->n], sizeof(s->head[0]), "%s", line);
	s->n++;
	return 0;
}

static void on_long(void *ctx, enum transport_stream stream, const char *head, uint64_t len)
{
	struct seen *s = ctx;
	(void)stream;
	s->longs++;
	s->long_len = len;
	s->head_len = strlen(head);
	s->head_start = head[0];
}

static long hwm_kib(void)
{
	char *st = ts_read_file("/proc/self/status");
	long kib = -1;
	char *p = st ? strstr(st, "VmHWM:") : NULL;
	if (p)
		kib = strtol(p + 6, NULL, 10);
	free(st);
	return kib;
}

static void write_n(struct output_sink *s, char c, size_t n)
{
	char buf[65536];
	memset(buf, c, sizeof(buf));
	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);
		assert_int_equal(output_sink_write(s, TRANSPORT_STDOUT, buf, k), 0);
		n -= k;
	}
}

static void test_cap_and_beyond(void **state)
{
	char *dir = ts_mkdtemp("outlines");
	char err[256];
	struct output_sink *s = output_sink_open(dir, NULL, NULL, err, sizeof(err));
	assert_non_null(s);
	struct seen seen = { 0 };
	output_sink_set_line_fn(s, on_line, &seen);
	output_sink_set_long_fn(s, on_long);

	/* 12000 bytes in 7-byte writes: one line */
	for (int i = 0; i < 12000; i += 6)
		assert_int_equal(output_sink_write(s, TRANSPORT_STDOUT, "abcdef", 6), 0);
	assert_int_equal(output_sink_write(s, TRANSPORT_STDOUT, "\r\n", 2), 0);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.len[0], 12000);

	/* exactly the cap: whole */
	write_n(s, 'c', OUTPUT_MAX_LINE);
	output_sink_write(s, TRANSPORT_STDOUT, "\n", 1);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.len[1], OUTPUT_MAX_LINE);

	/* 64 MiB in one line: counted, not handed on, memory stays bounded */
	long before = hwm_kib();
	write_n(s, 'x', 64u << 20);
	output_sink_write(s, TRANSPORT_STDOUT, "\nnext\n", 6);
	long after = hwm_kib();
	assert_int_equal(seen.n, 3);
	assert_string_equal(seen.head[2], "next");
	assert_int_equal(seen.longs, 1);
	assert_int_equal(seen.long_len, 64u << 20);        /* its whole length, */
	assert_int_equal(seen.head_len, OUTPUT_MAX_LINE);  /* its head up to the cap */
	assert_int_equal(seen.head_start, 'x');
	assert_int_equal(output_sink_long_lines(s), 1);
	if (before > 0 && after - before > 8 * 1024)
		fail_msg("VmHWM grew by %ld KiB for a 64 MiB line", after - before);

	/* one byte over the cap (a NUL counts two, C0 80), unterminated at close */
	write_n(s, 'y', OUTPUT_MAX_LINE - 1);
	output_sink_write(s, TRANSPORT_STDOUT, "\0", 1);
	assert_int_equal(output_sink_close(s, err, sizeof(err)), 0);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.longs, 2);

	/* the same cut for a file */
	char *path = xasprintf("%s/f.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < OUTPUT_MAX_LINE + 5; i++)
		fputc('z', f);
	fputs(" tput=5\ntput=7\n", f);
	fclose(f);
	struct seen fs = { 0 };
	uint64_t longs = 0;
	assert_int_equal(output_each_line(path, on_line, &fs, &longs), 0);
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.head[0], "tput=7");
	assert_int_equal(longs, 1);
	free(path);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_cap_and_beyond)
