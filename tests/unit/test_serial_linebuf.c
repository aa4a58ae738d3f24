/*
 * The console line cutter: line ends (LF, CR, CRLF, CRCRLF), lines split
 * across reads, the stamp of a line is the one of its first byte, escape
 * sequences and control characters are removed, partial lines are shown
 * while short, a line is whole up to the cap (a 12000-byte line is one
 * line) and a longer one comes in pieces flagged too long; and the
 * boot.log stamp format.
 */
#include "testsupport.h"
#include "transport/serial_capture.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct got {
	char *text[64];
	int64_t stamp[64];
	int n;
	char partial[256];
	int n_partial;
	int n_long;                /* pieces flagged too_long */
	int n_cont;
};

static void on_line(void *ctx, const struct serial_line *l)
{
	struct got *g = ctx;
	assert_int_equal(strlen(l->text), l->len);
	g->n_long += l->too_long;
	g->n_cont += l->cont;
	if (l->partial) {
		snprintf(g->partial, sizeof(g->partial), "%s", l->text);
		g->n_partial++;
		return;
	}
	assert_true(g->n < 64);
	g->text[g->n] = l->len > 200 ? xasprintf("%zu:%.20s", l->len, l->text) : xstrdup(l->text);
	g->stamp[g->n++] = l->mono_us;
}

static void got_free(struct got *g)
{
	for (int i = 0; i < g->n; i++)
		free(g->text[i]);
}

static void feed(struct serial_linebuf *lb, const char *s, int64_t t, struct got *g)
{
	serial_linebuf_feed(lb, s, strlen(s), t, t + 1000000000, on_line, g);
}

static void test_line_ends(void **state)
{
	struct serial_linebuf lb;
	struct got g = { 0 };
	serial_linebuf_init(&lb);
	feed(&lb, "lf\ncrlf\r\ncr\rcrcrlf\r\r\nend\n\nafter-blank\n", 1, &g);
	assert_int_equal(g.n, 7);
	assert_string_equal(g.text[0], "lf");
	assert_string_equal(g.text[1], "crlf");
	assert_string_equal(g.text[2], "cr");
	assert_string_equal(g.text[3], "crcrlf");
	assert_string_equal(g.text[4], "end");
	assert_string_equal(g.text[5], "");
	assert_string_equal(g.text[6], "after-blank");
	got_free(&g);
	serial_linebuf_release(&lb);
}

static void test_split_reads_first_byte_stamp(void **state)
{
	struct serial_linebuf lb;
	struct got g = { 0 };
	serial_linebuf_init(&lb);
	feed(&lb, "hel", 100, &g);
	assert_int_equal(g.n, 0);
	assert_string_equal(g.partial, "hel");
	feed(&lb, "lo wor", 200, &g);
	assert_string_equal(g.partial, "hello wor");
	feed(&lb, "ld\r", 300, &g);
	/* the LF of this CRLF comes in the next read with the next line */
	feed(&lb, "\nsecond\n", 400, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.text[0], "hello world");
	assert_int_equal(g.stamp[0], 100);
	assert_string_equal(g.text[1], "second");
	assert_int_equal(g.stamp[1], 400);
	got_free(&g);
	serial_linebuf_release(&lb);
}

static void test_escapes_removed(void **state)
{
	struct serial_linebuf lb;
	struct got g = { 0 };
	serial_linebuf_init(&lb);
	feed(&lb, "\033[1;31mred\033[0m \033[?2004hpaste\033[200~x\033[201~ "
		  "\033]0;title\007ti\ttab\b\bb\001\n", 5, &g);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.text[0], "red pastex ti\ttb");
	/* an escape sequence split across reads */
	feed(&lb, "a\033[3", 6, &g);
	feed(&lb, "2mb\n", 7, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.text[1], "ab");
	got_free(&g);
	serial_linebuf_release(&lb);
}

/* A 12000-byte console line fed in reads of 100 bytes is one line: a
 * pattern at offset 8192 is not at a line start, one across 8192 is whole. */
static void test_12000_byte_line_whole(void **state)
{
	struct serial_linebuf lb;
	struct got g = { 0 };
	serial_linebuf_init(&lb);
	char *big = xmalloc(12001);
	memset(big, 'y', 12000);
	memcpy(big + 8192, "login:", 6);
	memcpy(big + 8190, "Run /init", 9);
	big[12000] = '\0';
	for (int off = 0; off < 12000; off += 100)
		serial_linebuf_feed(&lb, big + off, 100, 5 + off, 5 + off, on_line, &g);
	feed(&lb, "\n", 200, &g);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.text[0], "12000:yyyyyyyyyyyyyyyyyyyy");
	assert_int_equal(g.stamp[0], 5);
	assert_int_equal(g.n_long, 0);
	assert_int_equal(lb.lines, 1);
	assert_int_equal(lb.long_lines, 0);
	/* partial lines stop being shown once the line is long */
	assert_true(g.n_partial <= SERIAL_CAPTURE_MAX_PARTIAL / 100);
	free(big);
	got_free(&g);
	serial_linebuf_release(&lb);
}

static void test_long_line_pieces_flagged(void **state)
{
	struct serial_linebuf lb;
	struct got g = { 0 };
	serial_linebuf_init(&lb);
	char *big = xmalloc(SERIAL_CAPTURE_MAX_LINE + 11);
	memset(big, 'x', SERIAL_CAPTURE_MAX_LINE + 10);
	big[SERIAL_CAPTURE_MAX_LINE + 10] = '\0';
	feed(&lb, big, 9, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.n_cont, 1);
	feed(&lb, "login: ", 10, &g);
	serial_linebuf_flush(&lb, on_line, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.text[1], "xxxxxxxxxxlogin: ");
	assert_int_equal(g.stamp[1], 9);
	assert_int_equal(g.n_long, 2);     /* both pieces: never matched */
	assert_int_equal(g.n_cont, 1);
	assert_int_equal(lb.lines, 1);
	assert_int_equal(lb.long_lines, 1);
	/* the next line is an ordinary one again */
	feed(&lb, "login: ", 11, &g);
	assert_string_equal(g.partial, "login: ");
	feed(&lb, "\n", 12, &g);
	assert_int_equal(g.n_long, 2);
	free(big);
	got_free(&g);
	serial_linebuf_release(&lb);
}

static void test_stamp_format(void **state)
{
	char buf[96];
	/* the wall-clock part depends on the time zone: check its shape */
	serial_capture_format_stamp(1764694201123456LL, 12345678, buf, sizeof(buf));
	assert_int_equal(buf[0], '[');
	assert_int_equal(buf[5], '-');
	assert_int_equal(buf[11], ' ');
	TS_ASSERT_HAS(buf, ".123456 12.345678] ");
	serial_capture_format_stamp(1764694201000001LL, -1500000, buf, sizeof(buf));
	TS_ASSERT_HAS(buf, ".000001 -1.500000] ");
	serial_capture_format_stamp(1764694201000001LL, 123, buf, sizeof(buf));
	TS_ASSERT_HAS(buf, " 0.000123] ");
}

TS_MAIN(NULL, NULL, test_line_ends, test_split_reads_first_byte_stamp, test_escapes_removed,
	test_12000_byte_line_whole, test_long_line_pieces_flagged, test_stamp_format)
