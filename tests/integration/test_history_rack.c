/*
 * orch history of a rack: 64 local boards x 3 tests (4 metrics), four
 * nights, one board always low on t01 and a step on b[10-13] at the last
 * night of t02. By default a line per test x metric with the boards
 * folded (their node set, the step named with the boards that have it, the
 * board far from the others named); --per-board and -l give a line per
 * board x metric, boards in natural order, -l taking node sets. The page
 * (--format html) has the same rows, each board's chart under its row.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define N_NIGHTS 4
#define N_METRICS 4

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_rack_dir("history-rack");
	/* n: the board's number; the step file is there from the last night */
	static const char sc[] =
		TS_RACK_HEAD("rack")
		"  - name: t01\n"
		"    run: 'n=$(echo {board.name} | tr -dc 0-9); v=$((1000 + n % 5));"
		" [ $n = 17 ] && v=902; echo rate $v'\n"
		"    metrics: [ { name: rate, regex: 'rate (\\d+)', unit: MB/s, better: higher } ]\n"
		"  - name: t02\n"
		"    run: 'n=$(echo {board.name} | tr -dc 0-9); v=$((1000 + n % 5));"
		" [ -f {vars.dir}/step ] && [ $n -ge 10 ] && [ $n -le 13 ] && v=$((v - 200));"
		" echo rate $v'\n"
		"    metrics: [ { name: rate, regex: 'rate (\\d+)', unit: MB/s, better: higher } ]\n"
		"  - name: t03\n"
		"    run: 'echo rate 500; echo lat 3'\n"
		"    metrics:\n"
		"      - { name: rate, regex: 'rate (\\d+)', unit: MB/s, better: higher }\n"
		"      - { name: lat, regex: 'lat (\\d+)', unit: ms, better: lower }\n";
	char *text = xasprintf("%svars: { dir: '%s' }\n", sc, tmp);
	free(ts_write_file(tmp, "rack.yaml", text));
	free(text);
	char *in_tmp = xasprintf("cd %s &&", tmp);
	for (int night = 1; night <= N_NIGHTS; night++) {
		if (night == N_NIGHTS)
			free(ts_write_file(tmp, "step", ""));
		char *args = xasprintf("run rack.yaml -q -o runs --label n%d", night);
		free(ts_orch_want(0, in_tmp, args));
		free(args);
	}
	free(in_tmp);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

static char *history(const char *args)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd %s && %s history rack -o runs %s 2>&1", tmp, ORCH_BIN, args);
	if (rc != 0)
		fail_msg("orch history rack %s: exit %d\n%s", args, rc, out);
	return out;
}

/* The line of out that starts with start, or NULL. */
static char *line_of(const char *out, const char *start)
{
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (!strncmp(l, start, strlen(start)))
			return xstrndup(l, len);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void test_folded_by_default(void **state)
{
	char *out = history("");
	if (count_lines(out) != 1 + N_METRICS)
		fail_msg("%zu lines, want a header and %d:\n%s", count_lines(out), N_METRICS, out);
	TS_ASSERT_HAS(out, "TEST  METRIC");
	char *t01 = line_of(out, "t01 ");
	char *t02 = line_of(out, "t02 ");
	char *lat = line_of(out, "t03   lat");
	assert_non_null(t01);
	assert_non_null(t02);
	assert_non_null(lat);
	/* the boards folded, the runs, the first and last night */
	TS_ASSERT_HAS(t01, " b[1-64] ", " 4  n1 ", " n4 ");
	/* the board far from the others, named with its value */
	if (!strstr(t01, "low b17 902 MB/s") || strstr(t01, "b10"))
		fail_msg("t01: %s", t01);
	/* the step with the boards that have it, the span of their changes */
	if (!strstr(t02, "b[10-13]: 19.9% to 20.0% lower since n4 (1 run), not acknowledged") ||
	    strstr(t02, "low b10"))
		fail_msg("t02: %s", t02);
	assert_non_null(strstr(t02, "-20.0% to 0.0%"));   /* the last change across boards */
	TS_ASSERT_HAS(lat, "lat (lower better)", "3 ms");
	/* t03's two metrics, in natural order after t02 */
	assert_true(strstr(out, "t02 ") < strstr(out, "t03   lat"));
	assert_true(strstr(out, "t03   lat") < strstr(out, "t03   rate"));
	TS_FREE(t01, t02, lat, out);
}

static void test_per_board_and_limit(void **state)
{
	char *out = history("--per-board");
	if (count_lines(out) != 1 + TS_RACK_BOARDS * N_METRICS)
		fail_msg("%zu lines with --per-board:\n%.2000s", count_lines(out), out);
	TS_ASSERT_HAS(out, "BOARD  TEST");
	/* natural order: b2 right after b1's rows, b10 after b9 */
	const char *b2 = strstr(out, "\nb2 "), *b9 = strstr(out, "\nb9 "), *b10 = strstr(out, "\nb10 ");
	assert_non_null(b2);
	assert_true(b2 < b9 && b9 < b10);
	assert_true(strstr(out, "\nb1 ") < b2);
	free(out);

	out = history("-l b10 --metric t02.rate");
	if (count_lines(out) != 2 || !strstr(out, "\nb10    t02 ") ||
	    !strstr(out, "20.0% lower since n4 (1 run), not acknowledged"))
		fail_msg("-l b10:\n%s", out);
	free(out);

	/* a node set, as orch run's -l takes it */
	out = history("-l 'b[9-11],b20'");
	if (count_lines(out) != 1 + 4 * N_METRICS || !strstr(out, "\nb9 ") ||
	    !strstr(out, "\nb20 ") || strstr(out, "\nb12 "))
		fail_msg("-l 'b[9-11],b20':\n%s", out);
	free(out);
}

static size_t count_of(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The page folds as the text does: a row per test x metric, whatever the
 * number of boards, with the node set, the boards that differ and each
 * board's chart on request, boards in natural order. */
static void test_page_folded(void **state)
{
	char *out = history("--format html");
	if (count_of(out, "<tr class=\"row\">") != N_METRICS)
		fail_msg("%zu rows in the page, want %d", count_of(out, "<tr class=\"row\">"),
			 N_METRICS);
	assert_int_equal(count_of(out, "<summary>each board (64)</summary>"), N_METRICS);
	assert_int_equal(count_of(out, "<div class=\"bd\">"), TS_RACK_BOARDS * N_METRICS);
	/* a folded chart per row and a chart per board, every point a link */
	assert_int_equal(count_of(out, "<svg class=\"trend\""), N_METRICS * (1 + TS_RACK_BOARDS));
	assert_int_equal(count_of(out, "/report.html\">"), N_METRICS * (1 + TS_RACK_BOARDS) * N_NIGHTS);
	TS_ASSERT_HAS(out, "b[1-64] \u00b7 4 runs (n1 to n4) \u00b7 median ");
	assert_non_null(strstr(out, "b[10-13]: 19.9% to 20.0% lower since n4 (1 run), "
				    "not acknowledged"));
	TS_ASSERT_HAS(out, "low b17 902 MB/s");
	const char *b2 = strstr(out, "<b>b2</b>"), *b10 = strstr(out, "<b>b10</b>");
	assert_true(b2 && b10 && b2 < b10);
	TS_ASSERT_LACKS(out, "<script");
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_folded_by_default, test_per_board_and_limit,
	test_page_folded)
