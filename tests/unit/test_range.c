/* The range line (compare/range.h) in every case, for orch compare's names
 * (run against run) and the history's ("the last 3 runs"): every board the
 * same, one change on all, all one way, mixed, and some or all boards not
 * judged. The exact words of each kind, then every combination of up to
 * three boards' verdicts read for its grammar. */
#include "testsupport.h"

#include "compare/range.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One board's verdict, as the judge leaves it. */
struct kind {
	enum metric_change change;
	double pct;
	const char *reason;
};

static const struct kind kinds[] = {
	{ METRIC_CHANGE_SAME, 0, NULL },
	{ METRIC_CHANGE_NOISE, 0, NULL },          /* judged, a change of 0 (rounded medians) */
	{ METRIC_CHANGE_NOISE, -2.0, NULL },
	{ METRIC_CHANGE_NOISE, 3.0, NULL },
	{ METRIC_CHANGE_REGRESSION, -12.0, NULL },
	{ METRIC_CHANGE_BETTER, 9.0, NULL },
	{ METRIC_CHANGE_NOT_JUDGED, -7.0, "one sample" },
	{ METRIC_CHANGE_NOT_JUDGED, 0, "2 earlier runs, needs 3" },
};
enum { NK = sizeof(kinds) / sizeof(kinds[0]) };

static const char *const boards[] = { "rb1", "rb2", "rb3" };

static char *line(const char *name_a, const int *k, size_t n, bool higher, const char *unit)
{
	struct range_entry e[3];
	for (size_t i = 0; i < n; i++)
		e[i] = (struct range_entry){ boards[i], kinds[k[i]].pct, kinds[k[i]].change,
					     kinds[k[i]].change == METRIC_CHANGE_REGRESSION ||
					     kinds[k[i]].change == METRIC_CHANGE_BETTER,
					     kinds[k[i]].reason };
	struct range_subject s = { .test = "thru", .metric = "thr", .unit = unit,
				   .higher_is_better = higher, .name_a = name_a,
				   .name_b = "v0.0.20180109", .threshold_pct = 5 };
	struct strbuf sb = STRBUF_INIT;
	range_line_put(&sb, &s, e, n);
	return strbuf_detach(&sb);
}

static void expect(const char *name_a, const int *k, size_t n, const char *want)
{
	char *got = line(name_a, k, n, true, "Mbit/s");
	if (strcmp(got, want) != 0)
		fail_msg("got  '%s'\nwant '%s'", got, want);
	free(got);
}

static void test_each_kind_of_line(void **state)
{
	const char *h = "the last 3 runs";
	expect(h, (int[]){ 1, 1, 1 }, 3,
	       "thru.thr: v0.0.20180109 shows no change on all 3 boards against the last 3 runs");
	expect("v1", (int[]){ 0, 0 }, 2, "thru.thr: v0.0.20180109 is the same as v1 on both boards");
	expect(h, (int[]){ 4, 4, 4 }, 3,
	       "thru.thr: v0.0.20180109 is 12.0% slower than the last 3 runs on all 3 boards; "
	       "regression on all 3 boards");
	expect("v1", (int[]){ 2, 4 }, 2,
	       "thru.thr: v0.0.20180109 is 2.0% (rb1) to 12.0% slower (rb2) than v1 on both boards; "
	       "regression on 1 board");
	expect("v1", (int[]){ 3, 5 }, 2,
	       "thru.thr: v0.0.20180109 is 3.0% (rb1) to 9.0% faster (rb2) than v1 on both boards");
	expect("v1", (int[]){ 4, 1, 5 }, 3,
	       "thru.thr: v0.0.20180109 ranges from 12.0% slower (rb1) to 9.0% faster (rb3) than v1 "
	       "over 3 boards; regression on 1 board");
	expect("v1", (int[]){ 1, 2 }, 2,
	       "thru.thr: v0.0.20180109 ranges from 2.0% slower (rb2) to no change (rb1) than v1 "
	       "over 2 boards");
	expect(h, (int[]){ 7, 7, 7 }, 3,
	       "thru.thr: v0.0.20180109 shows no change on all 3 boards against the last 3 runs; "
	       "not judged on all 3 boards: 2 earlier runs, needs 3");
	expect("v1", (int[]){ 6, 2 }, 2,
	       "thru.thr: v0.0.20180109 is 2.0% (rb2) to 7.0% slower (rb1) than v1 on both boards; "
	       "not judged: one sample on 1 board");
	expect("v1", (int[]){ 6, 7 }, 2,
	       "thru.thr: v0.0.20180109 ranges from 7.0% slower (rb1) to no change (rb2) than v1 "
	       "over 2 boards; not judged on both boards");
	expect(h, (int[]){ 1 }, 1,
	       "thru.thr: v0.0.20180109 shows no change against the last 3 runs on rb1");
	expect(h, (int[]){ 2 }, 1,
	       "thru.thr: v0.0.20180109 is 2.0% slower than the last 3 runs on rb1, within noise");
}

/* The words a line may never hold, whatever the boards say. */
static void check_grammar(const char *l, const int *k, size_t n)
{
	static const char *const never[] = { "1 boards", "over 1 board", "  ", " ;", ";;",
					     "from no change (rb1) to no change",
					     "all 1 board", "all 2 boards" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strstr(l, never[i]))
			fail_msg("'%s' in '%s'", never[i], l);
	/* no range from a board to itself, no range between equal words */
	const char *from = strstr(l, "ranges from ");
	if (from) {
		char a[64], ba[16], b[64], bb[16];
		if (sscanf(from, "ranges from %63[^(](%15[^)]) to %63[^(](%15[^)])", a, ba, b, bb) != 4)
			fail_msg("unreadable range in '%s'", l);
		if (!strcmp(ba, bb) || !strcmp(a, b))
			fail_msg("a range from one thing to itself: '%s'", l);
	}
	/* the regressions counted are those there are */
	size_t want = 0, got = 0;
	for (size_t i = 0; i < n; i++)
		want += kinds[k[i]].change == METRIC_CHANGE_REGRESSION;
	const char *r = strstr(l, "regression on ");
	if (r && !strncmp(r + 14, "both ", 5))
		got = 2;
	else if (r && !strncmp(r + 14, "all ", 4))
		got = strtoul(r + 18, NULL, 10);
	else if (r)
		got = strtoul(r + 14, NULL, 10);
	if (got != want)
		fail_msg("%zu regressions said, %zu there: '%s'", got, want, l);
	/* one comparison, named once */
	const char *t = strstr(l, " than ");
	const char *g = strstr(l, " against ");
	if ((t != NULL) == (g != NULL) && !strstr(l, "is the same as"))
		fail_msg("neither or both of 'than' and 'against': '%s'", l);
}

static void every_combination(const char *name_a, bool higher, const char *unit)
{
	int k[3];
	size_t lines = 0;
	for (size_t n = 1; n <= 3; n++) {
		size_t total = 1;
		for (size_t i = 0; i < n; i++)
			total *= NK;
		for (size_t c = 0; c < total; c++) {
			size_t x = c;
			for (size_t i = 0; i < n; i++, x /= NK)
				k[i] = (int)(x % NK);
			char *l = line(name_a, k, n, higher, unit);
			check_grammar(l, k, n);
			free(l);
			lines++;
		}
	}
	assert_int_equal(lines, NK + NK * NK + NK * NK * NK);
}

static void test_every_combination_compare(void **state)
{
	every_combination("v0.0.20180108", true, "Mbit/s");
	every_combination("v0.0.20180108", false, "ms");
	every_combination("v0.0.20180108", true, "");
}

static void test_every_combination_history(void **state)
{
	every_combination("the last 3 runs", true, "Mbit/s");
	every_combination("the 6 runs before v0.0.20180106", false, "ms");
}

/* A step in words, on one board and spanning several (orch history's
 * folded rows): one figure when both ends read the same. */
static void test_step_words(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	range_step_put(&sb, -20.0, "v6", 3, false, 5);
	assert_string_equal(strbuf_str(&sb), "20.0% lower since v6 (3 runs), not acknowledged");
	strbuf_reset(&sb);
	range_step_span_put(&sb, -19.94, -20.0, "v6", 1, false, 5);
	assert_string_equal(strbuf_str(&sb), "19.9% to 20.0% lower since v6 (1 run), not acknowledged");
	strbuf_reset(&sb);
	range_step_span_put(&sb, 8.02, 7.98, "n4", 3, true, 5);
	assert_string_equal(strbuf_str(&sb), "8.0% higher since n4 (3 runs), the new normal from now on");
	strbuf_release(&sb);
}

TS_MAIN(NULL, NULL, test_each_kind_of_line, test_every_combination_compare,
	test_every_combination_history, test_step_words)
