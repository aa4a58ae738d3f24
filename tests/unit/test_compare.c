/* compare: direction, percent, words, noise, threshold, one-sided rows,
 * status changes, phases, table/JSON output, baselines. */
#include "testsupport.h"

#include "compare/compare.h"
#include "finish/finish.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct test_result *add_test(struct run_result *run, const char *board, const char *test,
				    enum result_status st)
{
	struct test_result *tr = run_result_add(run, board, test);
	tr->status = st;
	return tr;
}

static void add_samples(struct test_result *tr, const char *name, const char *unit, bool hib,
			const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		test_result_add_sample(tr, name, unit, hib, v[i]);
}

#define SAMPLES(tr, name, unit, hib, ...) do { \
	const double v_[] = { __VA_ARGS__ }; \
	add_samples(tr, name, unit, hib, v_, sizeof(v_) / sizeof(v_[0])); \
} while (0)

/* Three repeats within 0.1% of v (median v): tight enough to judge. */
#define TIGHT(tr, name, unit, hib, v) SAMPLES(tr, name, unit, hib, (v) * 0.999, (v), (v) * 1.001)

static const struct judge_rule rule5 = { .threshold_pct = 5.0 };
static const struct judge_rule rule5_single = { .threshold_pct = 5.0, .judge_single = true };

static void add_phase(struct test_result *tr, const char *name, bool reached, double dur)
{
	struct phase_result *ph = test_result_add_phase(tr, name);
	ph->reached = reached;
	ph->duration_s = dur;
}

/*
 * A (old) and B (new):
 *   biff          three tight repeats a metric:
 *   biff/memory   mem.memcpy 25.6 -> 22.5 MiB/s (regression), mem.loop 100 -> 102.9 (faster),
 *                 mem.block only in B
 *   biff/cpuinfo  bogomips 100 -> 97 "" higher (3% lower, worse), errors 10 -> 12 lower better
 *   biff/timing   t 10 -> 9.5 s lower better (faster)
 *   rpi/memory    repeats: mem.memcpy noisy 10% drop, mem.loop tight 10% drop
 *   rpi/kernel    pass -> fail
 *   rpi/boot      phases kernel 5 -> 6 s (slower, one sample: not judged), udev 2 -> not
 *                 reached, services only in B
 *   apu/kernel    only in A        vm/kernel only in B
 */
static void make_runs(struct run_result *a, struct run_result *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	struct test_result *t;

	t = add_test(a, "biff", "memory", STATUS_PASS);
	TIGHT(t, "mem.memcpy", "MiB/s", true, 25.6);
	TIGHT(t, "mem.loop", "ops/s", true, 100.0);
	t = add_test(b, "biff", "memory", STATUS_PASS);
	TIGHT(t, "mem.memcpy", "MiB/s", true, 22.5);
	TIGHT(t, "mem.loop", "ops/s", true, 102.9);
	SAMPLES(t, "mem.block", "MiB/s", true, 40.0);

	t = add_test(a, "biff", "cpuinfo", STATUS_PASS);
	TIGHT(t, "bogomips", "", true, 100.0);
	TIGHT(t, "errors", "", false, 10.0);
	t = add_test(b, "biff", "cpuinfo", STATUS_PASS);
	TIGHT(t, "bogomips", "", true, 97.0);
	TIGHT(t, "errors", "", false, 12.0);

	t = add_test(a, "biff", "timing", STATUS_PASS);
	TIGHT(t, "t", "s", false, 10.0);
	t = add_test(b, "biff", "timing", STATUS_PASS);
	TIGHT(t, "t", "s", false, 9.5);

	t = add_test(a, "rpi", "memory", STATUS_PASS);
	SAMPLES(t, "mem.memcpy", "MiB/s", true, 100, 80, 120);
	SAMPLES(t, "mem.loop", "MiB/s", true, 100, 99, 101);
	t = add_test(b, "rpi", "memory", STATUS_PASS);
	SAMPLES(t, "mem.memcpy", "MiB/s", true, 90, 70, 110);
	SAMPLES(t, "mem.loop", "MiB/s", true, 90, 89, 91);

	add_test(a, "rpi", "kernel", STATUS_PASS);
	add_test(b, "rpi", "kernel", STATUS_FAIL);

	t = add_test(a, "rpi", "boot", STATUS_PASS);
	add_phase(t, "kernel", true, 5.0);
	add_phase(t, "udev", true, 2.0);
	t = add_test(b, "rpi", "boot", STATUS_PASS);
	add_phase(t, "kernel", true, 6.0);
	add_phase(t, "udev", false, 0.0);
	add_phase(t, "services", true, 1.0);

	add_test(a, "apu", "kernel", STATUS_PASS);
	add_test(b, "vm", "kernel", STATUS_ERROR);
}

static const struct compare_row *find_row(const struct compare_result *cr, const char *board,
					  const char *test, enum compare_kind kind,
					  const char *name)
{
	for (size_t i = 0; i < cr->n_rows; i++) {
		const struct compare_row *r = &cr->rows[i];
		if (strcmp(r->board, board) == 0 && strcmp(r->test, test) == 0 && r->kind == kind &&
		    (name ? r->name && strcmp(r->name, name) == 0 : r->name == NULL))
			return r;
	}
	fail_msg("no row %s/%s %s", board, test, name ? name : "(none)");
	return NULL;
}

static void assert_row(const struct compare_result *cr, const char *board, const char *test,
		       enum compare_kind kind, const char *name, enum compare_verdict verdict,
		       const char *words)
{
	const struct compare_row *r = find_row(cr, board, test, kind, name);
	if (r->verdict != verdict || strcmp(r->words, words) != 0)
		fail_msg("%s/%s %s: got %s '%s', want %s '%s'", board, test, name ? name : "",
			 compare_verdict_name(r->verdict), r->words,
			 compare_verdict_name(verdict), words);
}

static void test_metric_words_and_verdicts(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	make_runs(&a, &b);
	size_t regressions = compare_runs(&a, &b, &rule5, &cr);

	assert_row(&cr, "biff", "memory", COMPARE_KIND_METRIC, "mem.memcpy", COMPARE_REGRESSION,
		   "12.1% slower");
	const struct compare_row *r = find_row(&cr, "biff", "memory", COMPARE_KIND_METRIC, "mem.memcpy");
	assert_true(fabs(r->change_pct - (22.5 - 25.6) / 25.6 * 100) < 1e-9);
	assert_true(r->a.present && r->b.present);
	assert_true(r->a.median == 25.6 && r->b.median == 22.5);

	assert_row(&cr, "biff", "memory", COMPARE_KIND_METRIC, "mem.loop", COMPARE_BETTER,
		   "2.9% faster");
	assert_row(&cr, "biff", "memory", COMPARE_KIND_METRIC, "mem.block", COMPARE_ONLY_B,
		   "metric only in B");
	assert_row(&cr, "biff", "cpuinfo", COMPARE_KIND_METRIC, "bogomips", COMPARE_WORSE,
		   "3.0% lower (worse)");
	assert_row(&cr, "biff", "cpuinfo", COMPARE_KIND_METRIC, "errors", COMPARE_REGRESSION,
		   "20.0% higher (worse)");
	assert_row(&cr, "biff", "timing", COMPARE_KIND_METRIC, "t", COMPARE_BETTER,
		   "5.0% faster");

	/* 10% drop inside overlapping ranges: noise, not a regression */
	assert_row(&cr, "rpi", "memory", COMPARE_KIND_METRIC, "mem.memcpy", COMPARE_NOISE,
		   "10.0% slower, within noise");
	/* the same drop with tight repeats is real */
	assert_row(&cr, "rpi", "memory", COMPARE_KIND_METRIC, "mem.loop", COMPARE_REGRESSION,
		   "10.0% slower");
	r = find_row(&cr, "rpi", "memory", COMPARE_KIND_METRIC, "mem.memcpy");
	assert_int_equal(r->a.n, 3);
	assert_true(r->a.median == 100 && r->a.min == 80 && r->a.max == 120);
	assert_true(fabs(r->a.stddev - 20.0) < 1e-9);

	r = find_row(&cr, "rpi", "memory", COMPARE_KIND_METRIC, "mem.loop");
	assert_int_equal(r->judged.method, JUDGE_METHOD_WELCH);
	assert_true(r->judged.p < 0.01 && r->judged.ci_hi < 0.95);

	/* biff memcpy, biff errors, rpi loop, rpi kernel pass->fail */
	assert_int_equal(regressions, 4);
	assert_int_equal(cr.n_regressions, 4);
	assert_int_equal(cr.n_not_judged, 1);   /* the boot phase */
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

static void test_status_phases_one_sided(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	make_runs(&a, &b);
	compare_runs(&a, &b, &rule5, &cr);

	assert_row(&cr, "rpi", "kernel", COMPARE_KIND_STATUS, NULL, COMPARE_REGRESSION,
		   "pass -> fail");
	assert_row(&cr, "rpi", "boot", COMPARE_KIND_PHASE, "kernel", COMPARE_NOT_JUDGED,
		   "20.0% slower, not judged (one sample a side)");
	assert_row(&cr, "rpi", "boot", COMPARE_KIND_PHASE, "udev", COMPARE_ONLY_A,
		   "not reached in B");
	assert_row(&cr, "rpi", "boot", COMPARE_KIND_PHASE, "services", COMPARE_ONLY_B,
		   "phase only in B");
	assert_row(&cr, "apu", "kernel", COMPARE_KIND_TEST, NULL, COMPARE_ONLY_A, "test only in A");
	assert_row(&cr, "vm", "kernel", COMPARE_KIND_TEST, NULL, COMPARE_ONLY_B, "test only in B");
	assert_int_equal(cr.n_only_a, 2);
	assert_int_equal(cr.n_only_b, 3);
	/* no status row when the status did not change */
	for (size_t i = 0; i < cr.n_rows; i++)
		if (cr.rows[i].kind == COMPARE_KIND_STATUS)
			assert_string_equal(cr.rows[i].board, "rpi");
	/* B-only rows come after A's */
	assert_string_equal(cr.rows[cr.n_rows - 1].board, "vm");
	compare_result_release(&cr);

	/* opted in, one against one is judged by the threshold alone */
	compare_runs(&a, &b, &rule5_single, &cr);
	assert_row(&cr, "rpi", "boot", COMPARE_KIND_PHASE, "kernel", COMPARE_REGRESSION,
		   "20.0% slower");
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

/* One sample on a side: not judged, said in the words, the tally and JSON. */
static void test_not_judged(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	struct test_result *ta = add_test(&a, "x", "t", STATUS_PASS);
	struct test_result *tb = add_test(&b, "x", "t", STATUS_PASS);
	SAMPLES(ta, "one", "MiB/s", true, 100);
	SAMPLES(tb, "one", "MiB/s", true, 80);
	TIGHT(ta, "five_one", "MiB/s", true, 100);
	SAMPLES(tb, "five_one", "MiB/s", true, 80);
	SAMPLES(ta, "equal", "MiB/s", true, 100);
	SAMPLES(tb, "equal", "MiB/s", true, 100);
	assert_int_equal(compare_runs(&a, &b, &rule5, &cr), 0);
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "one", COMPARE_NOT_JUDGED,
		   "20.0% slower, not judged (one sample a side)");
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "five_one", COMPARE_NOT_JUDGED,
		   "20.0% slower, not judged (one sample in B)");
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "equal", COMPARE_SAME, "no change");
	assert_int_equal(cr.n_not_judged, 2);
	char *table = compare_format_table(&cr, true, false);
	TS_ASSERT_HAS(table, "2 not judged,", "--judge-single");
	free(table);
	json_t *j = compare_to_json(&cr, false);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"),
							    "not_judged")), 2);
	json_t *row = json_array_get(json_object_get(j, "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "verdict")), "not judged");
	assert_true(json_is_false(json_object_get(json_object_get(row, "judgement"), "judged")));
	json_decref(j);
	compare_result_release(&cr);

	/* opted in: one against one by the threshold; one against three by their spread */
	assert_int_equal(compare_runs(&a, &b, &rule5_single, &cr), 2);
	assert_int_equal(find_row(&cr, "x", "t", COMPARE_KIND_METRIC, "five_one")->judged.method,
			 JUDGE_METHOD_PREDICTION);
	compare_result_release(&cr);
	run_result_release(&a);
	run_result_release(&b);
}

static void test_status_words(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	add_test(&a, "x", "fixed", STATUS_FAIL);
	add_test(&b, "x", "fixed", STATUS_PASS);
	add_test(&a, "x", "infra", STATUS_PASS);
	add_test(&b, "x", "infra", STATUS_ERROR);
	assert_int_equal(compare_runs(&a, &b, &rule5, &cr), 0);
	assert_row(&cr, "x", "fixed", COMPARE_KIND_STATUS, NULL, COMPARE_BETTER, "fail -> pass");
	assert_row(&cr, "x", "infra", COMPARE_KIND_STATUS, NULL, COMPARE_CHANGED, "pass -> error");
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

static void test_threshold(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	make_runs(&a, &b);
	/* bogomips -3%: worse at 5%, a regression at 2% */
	const struct judge_rule rule2 = { .threshold_pct = 2.0 }, rule15 = { .threshold_pct = 15.0 };
	compare_runs(&a, &b, &rule2, &cr);
	assert_row(&cr, "biff", "cpuinfo", COMPARE_KIND_METRIC, "bogomips", COMPARE_REGRESSION,
		   "3.0% lower (worse)");
	compare_result_release(&cr);
	/* memcpy -12.1%: worse (not a regression) at 15% */
	compare_runs(&a, &b, &rule15, &cr);
	assert_row(&cr, "biff", "memory", COMPARE_KIND_METRIC, "mem.memcpy", COMPARE_WORSE,
		   "12.1% slower");
	/* the noisy one stays noise at any threshold */
	assert_row(&cr, "rpi", "memory", COMPARE_KIND_METRIC, "mem.memcpy", COMPARE_NOISE,
		   "10.0% slower, within noise");
	compare_result_release(&cr);
	run_result_release(&a);
	run_result_release(&b);
}

static void test_same_and_from_zero(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	struct test_result *ta = add_test(&a, "x", "t", STATUS_PASS);
	struct test_result *tb = add_test(&b, "x", "t", STATUS_PASS);
	SAMPLES(ta, "same", "MiB/s", true, 5.0);
	SAMPLES(tb, "same", "MiB/s", true, 5.0);
	SAMPLES(ta, "drops", "", false, 0.0, 0.0, 0.0);
	SAMPLES(tb, "drops", "", false, 3.0, 3.0, 3.0);
	assert_int_equal(compare_runs(&a, &b, &rule5, &cr), 1);
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "same", COMPARE_SAME, "no change");
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "drops", COMPARE_REGRESSION,
		   "higher (worse)");
	assert_true(isnan(find_row(&cr, "x", "t", COMPARE_KIND_METRIC, "drops")->change_pct));
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

static void test_units(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	struct test_result *ta = add_test(&a, "x", "t", STATUS_PASS);
	struct test_result *tb = add_test(&b, "x", "t", STATUS_PASS);
	TIGHT(ta, "net", "MiB/s", true, 100.0);
	TIGHT(tb, "net", "Mbit/s", true, 922.74688);   /* 110 MiB/s */
	TIGHT(ta, "lat", "s", false, 2.0);
	TIGHT(tb, "lat", "ms", false, 2500.0);
	SAMPLES(ta, "odd", "MiB/s", true, 1.0);
	SAMPLES(tb, "odd", "ops/s", true, 1.0);
	/* the kernel's kB is 1024 bytes: 2048 kB is 2 MiB, no change */
	TIGHT(ta, "MemFree", "kB", true, 2048.0);
	TIGHT(tb, "MemFree", "MiB", true, 2.0);
	assert_int_equal(compare_runs(&a, &b, &rule5, &cr), 1);
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "net", COMPARE_BETTER,
		   "10.0% faster (B in Mbit/s, converted)");
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "lat", COMPARE_REGRESSION,
		   "25.0% slower (B in ms, converted)");
	assert_row(&cr, "x", "t", COMPARE_KIND_METRIC, "odd", COMPARE_UNIT_CHANGED,
		   "unit changed (MiB/s -> ops/s)");
	const struct compare_row *mf = find_row(&cr, "x", "t", COMPARE_KIND_METRIC, "MemFree");
	if (mf->verdict != COMPARE_SAME && mf->verdict != COMPARE_NOISE)
		fail_msg("kB -> MiB: %s '%s'", compare_verdict_name(mf->verdict), mf->words);
	assert_true(fabs(mf->change_pct) < 1e-9);
	/* a unit change is counted as such, not as a status change */
	assert_int_equal(cr.n_unit_changed, 1);
	assert_int_equal(cr.n_changed, 0);
	char *table = compare_format_table(&cr, false, false);
	assert_non_null(strstr(table, "2.5 s"));   /* shown in A's unit */
	free(table);
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

static void test_table_and_json(void **state)
{
	struct run_result a, b;
	struct compare_result cr;
	make_runs(&a, &b);
	compare_runs(&a, &b, &rule5, &cr);

	char *table = compare_format_table(&cr, false, false);
	TS_ASSERT_HAS(table, "BOARD", "25.6 MiB/s", "22.5 MiB/s", "12.1% slower", "phase:kernel",
		"10.0% slower, within noise", "4 regressions");
	TS_ASSERT_LACKS(table, "\033[", " \n");
	free(table);

	table = compare_format_table(&cr, true, true);
	assert_null(strstr(table, "within noise\n"));   /* the row is left out... */
	assert_non_null(strstr(table, "1 within noise"));  /* ...but counted */
	TS_ASSERT_HAS(table, "\033[1;31mregression\033[0m");
	free(table);

	json_t *j = compare_to_json(&cr, true);
	json_t *rows = json_object_get(j, "rows");
	assert_true(json_is_array(rows));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"),
							    "regression")), 4);
	bool seen = false;
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		assert_string_not_equal(json_string_value(json_object_get(row, "verdict")), "noise");
		if (strcmp(json_string_value(json_object_get(row, "board")), "biff") == 0 &&
		    strcmp(json_string_value(json_object_get(row, "test")), "memory") == 0 &&
		    json_is_string(json_object_get(row, "name")) &&
		    strcmp(json_string_value(json_object_get(row, "name")), "mem.memcpy") == 0) {
			seen = true;
			assert_true(json_is_true(json_object_get(row, "regression")));
			assert_true(json_real_value(json_object_get(json_object_get(row, "a"),
								    "median")) == 25.6);
			assert_true(json_real_value(json_object_get(row, "change_pct")) < -12.0);
		}
	}
	assert_true(seen);
	json_decref(j);
	run_result_release(&a);
	run_result_release(&b);
	compare_result_release(&cr);
}

static void test_apply_baseline(void **state)
{
	struct run_result base, run;
	make_runs(&base, &run);
	/* rpi/kernel is already failing: its status is not a baseline regression */
	int marked = compare_apply_baseline(&run, &base, &rule5);

	const struct test_result *t = run_result_find(&run, "biff", "memory");
	assert_true(t->regressed);
	assert_int_equal(t->status, STATUS_FAIL);
	assert_string_equal(t->comparison,
			    "mem.memcpy 12.1% slower than baseline (25.6 -> 22.5 MiB/s)");
	assert_null(t->message);

	t = run_result_find(&run, "biff", "cpuinfo");
	assert_true(t->regressed);
	assert_string_equal(t->comparison,
			    "errors 20.0% higher (worse) than baseline (10 -> 12)");

	/* a phase is one sample: said, not judged */
	t = run_result_find(&run, "rpi", "boot");
	assert_false(t->regressed);
	assert_string_equal(t->comparison, "not judged (one sample on a side, no spread to judge "
			    "against): phase kernel");

	t = run_result_find(&run, "rpi", "memory");
	assert_true(t->regressed);
	assert_string_equal(t->comparison, "mem.loop 10.0% slower than baseline (100 -> 90 MiB/s)");

	t = run_result_find(&run, "biff", "timing");
	assert_false(t->regressed);
	assert_int_equal(t->status, STATUS_PASS);
	assert_null(t->comparison);

	t = run_result_find(&run, "rpi", "kernel");
	assert_false(t->regressed);
	assert_null(t->comparison);

	assert_int_equal(marked, 3);
	assert_int_equal(finish_exit_code(&run, NULL), 3);   /* vm/kernel errored: the rack */
	run_result_release(&base);
	run_result_release(&run);

	make_runs(&base, &run);
	assert_int_equal(compare_apply_baseline(&run, &base, &rule5_single), 4);
	t = run_result_find(&run, "rpi", "boot");
	assert_true(t->regressed);
	assert_string_equal(t->comparison, "phase kernel 20.0% slower than baseline (5 -> 6 s)");
	run_result_release(&base);
	run_result_release(&run);
}

static void test_apply_baseline_clean(void **state)
{
	struct run_result base, run;
	memset(&base, 0, sizeof(base));
	memset(&run, 0, sizeof(run));
	SAMPLES(add_test(&base, "x", "t", STATUS_PASS), "m", "MiB/s", true, 100);
	SAMPLES(add_test(&run, "x", "t", STATUS_PASS), "m", "MiB/s", true, 97);
	SAMPLES(add_test(&run, "y", "t", STATUS_PASS), "m", "MiB/s", true, 1);
	assert_int_equal(compare_apply_baseline(&run, &base, &rule5), 0);
	assert_int_equal(finish_exit_code(&run, NULL), 0);
	assert_false(run.results[0].regressed);
	assert_string_equal(run.results[0].comparison, "not judged (one sample on a side, no "
			    "spread to judge against): m");
	run_result_release(&base);
	run_result_release(&run);
}

static void mkrun(const char *dir, const char *name, bool with_results)
{
	char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	if (with_results)
		free(ts_write_file(path, "results.json", "{}\n"));
	free(path);
}

static void test_resolve_baseline(void **state)
{
	char *runs = ts_mkdtemp("compare-runs");
	char *scen = xasprintf("%s/nightly", runs);
	char *got;

	assert_null(compare_resolve_baseline(runs, "nightly", "latest"));
	assert_int_equal(mkdir(scen, 0755), 0);
	assert_null(compare_resolve_baseline(runs, "nightly", "latest"));

	mkrun(scen, "20260101-000000", true);
	mkrun(scen, "20260102-000000", true);
	mkrun(scen, "20260102-000000-2", true);
	mkrun(scen, "20260102-000000-10", true);
	mkrun(scen, "20260103-000000", false);   /* the current run, unfinished */
	mkrun(scen, "notes", true);
	got = compare_resolve_baseline(runs, "nightly", "latest");
	char *want = xasprintf("%s/20260102-000000-10", scen);
	assert_string_equal(got, want);
	TS_FREE(got, want);

	/* the latest link wins over the scan */
	char *link = xasprintf("%s/latest", scen);
	assert_int_equal(symlink("20260101-000000", link), 0);
	got = compare_resolve_baseline(runs, "nightly", "latest");
	want = xasprintf("%s/20260101-000000", scen);
	assert_string_equal(got, want);
	TS_FREE(got, want, link);

	got = compare_resolve_baseline(runs, "nightly", "runs/nightly/20250101-000000");
	assert_string_equal(got, "runs/nightly/20250101-000000");
	free(got);
	assert_null(compare_resolve_baseline(runs, "nightly", NULL));

	ts_rmrf(runs);
	TS_FREE(scen, runs);
}

TS_MAIN(NULL, NULL, test_metric_words_and_verdicts, test_status_phases_one_sided, test_status_words,
	test_not_judged, test_threshold, test_same_and_from_zero, test_units, test_table_and_json,
	test_apply_baseline, test_apply_baseline_clean, test_resolve_baseline)
