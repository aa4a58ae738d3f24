/* compare_multi: N runs side by side, every later run against the first. */
#include "testsupport.h"

#include "compare/compare_multi.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void tight(struct test_result *tr, const char *name, const char *unit, double v)
{
	test_result_add_sample(tr, name, unit, true, v * 0.999);
	test_result_add_sample(tr, name, unit, true, v);
	test_result_add_sample(tr, name, unit, true, v * 1.001);
}

/* v1, v2, v3 of two boards: memcpy 100 -> 80 (regression) -> 120 (better) on
 * b1; b2 steady; b3 only in v3. */
static void make(struct run_result runs[3])
{
	static const char *const labels[] = { "v1", "v2", "v3" };
	static const double memcpy_b1[] = { 100, 80, 120 };
	memset(runs, 0, 3 * sizeof(*runs));
	for (size_t k = 0; k < 3; k++) {
		runs[k].label = xstrdup(labels[k]);
		runs[k].run_id = xasprintf("2026120%zu-010000", k + 1);
		struct test_result *t = run_result_add(&runs[k], "b1", "memory");
		t->status = STATUS_PASS;
		tight(t, "mem.memcpy", "MB/s", memcpy_b1[k]);
		t = run_result_add(&runs[k], "b2", "memory");
		t->status = STATUS_PASS;
		tight(t, "mem.memcpy", "MB/s", 2500);
		if (k == 2) {
			t = run_result_add(&runs[k], "b3", "memory");
			t->status = STATUS_PASS;
			tight(t, "mem.memcpy", "MB/s", 50);
		}
	}
}

static void test_three_runs(void **state)
{
	struct run_result runs[3];
	make(runs);
	const struct judge_rule rule = { .threshold_pct = 5.0 };
	struct compare_multi m;
	compare_multi_run(runs, 3, &rule, &m);
	assert_int_equal(m.n_regressions, 1);
	char *t = compare_multi_table(&m, false, false);
	/* one column per run, its label as the header */
	const char *hdr = strstr(t, "BOARD");
	assert_non_null(hdr);
	assert_true(strstr(hdr, "v1") && strstr(hdr, "v2") && strstr(hdr, "v3"));
	assert_true(strstr(hdr, "v1") < strstr(hdr, "v2") && strstr(hdr, "v2") < strstr(hdr, "v3"));
	/* the change of each against the first, with the verdict */
	if (!strstr(t, "b1     memory  mem.memcpy  100 MB/s  80 MB/s -20.0% regression  "
		       "120 MB/s +20.0% better"))
		fail_msg("table:\n%s", t);
	TS_ASSERT_HAS(t, "2.5 GB/s");
	assert_non_null(strstr(t, "\nb3     memory  (test)"));  /* b3 in v3 alone */
	/* the range lines of each run against the first */
	TS_ASSERT_HAS(t, "v2 vs v1\n", "v3 vs v1\n",
		"memory.mem.memcpy: v2 ranges from 20.0% slower (b1) to ");
	free(t);

	json_t *j = compare_multi_json(&m, (const char *const[]){ "r1", "r2", "r3" }, false);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 3);
	assert_int_equal(json_array_size(json_object_get(j, "comparisons")), 2);
	json_t *row = json_array_get(json_object_get(j, "rows"), 0);
	json_t *cells = json_object_get(row, "cells");
	assert_int_equal(json_array_size(cells), 3);
	assert_true(json_real_value(json_object_get(json_array_get(cells, 1), "change_pct")) < -19.9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cells, 2), "verdict")),
			    "better");
	json_decref(j);

	char *x = compare_multi_junit(&m);
	TS_ASSERT_HAS(x, "<testsuite name=\"b1 (v2 vs v1)\"", "<testsuite name=\"b1 (v3 vs v1)\"",
		"type=\"regression\"", "failures=\"1\"");
	free(x);

	char *h = compare_multi_html(&m, (const char *const[]){ "r1", "r2", "r3" }, false);
	TS_ASSERT_HAS(h, "<th>v1</th><th>v2</th><th>v3</th>",
		"<td class=\"v reg\">80 MB/s -20.0% regression</td>");
	assert_null(strstr(h, "http"));                      /* self-contained */
	free(h);
	compare_multi_release(&m);
	for (size_t k = 0; k < 3; k++)
		run_result_release(&runs[k]);
}

/* Two runs with the same label: the words tell them apart, never "X is
 * 20.0% slower than X". */
static void test_same_label_worded_apart(void **state)
{
	struct run_result runs[3];
	make(runs);
	free(runs[1].label);
	runs[1].label = xstrdup("v1");
	const struct judge_rule rule = { .threshold_pct = 5.0 };
	struct compare_multi m;
	compare_multi_run(runs, 2, &rule, &m);
	char *t = compare_multi_table(&m, false, false);
	if (!strstr(t, "run B (label v1) vs run A (label v1)\n") ||
	    !strstr(t, "memory.mem.memcpy: run B (label v1) ranges from 20.0% slower (b1) to ") ||
	    !strstr(t, " than run A (label v1) over 2 boards") || strstr(t, "than v1 "))
		fail_msg("table:\n%s", t);
	free(t);
	compare_multi_release(&m);
	for (size_t k = 0; k < 3; k++)
		run_result_release(&runs[k]);
}

TS_MAIN(NULL, NULL, test_three_runs, test_same_label_worded_apart)
