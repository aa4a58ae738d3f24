/* The history's decision rule (history.h): below 3 earlier runs a run is
 * not judged, with the reason; units are converted first; a step is
 * reported from the run it begins at until it settles (3 runs), then it is
 * the new normal; one bad night is not a new level. */
#include "testsupport.h"
#include "history/history.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A series of runs, each given its samples (nvals per run) in unit. */
static void series_make(struct history_series *s, const double *v, size_t runs, size_t per,
			const char *unit)
{
	memset(s, 0, sizeof(*s));
	s->board = xstrdup("b");
	s->test = xstrdup("t");
	s->metric = xstrdup("m");
	s->unit = xstrdup(unit);
	s->higher_is_better = true;
	s->points = xcalloc(runs ? runs : 1, sizeof(*s->points));
	s->n = runs;
	for (size_t i = 0; i < runs; i++) {
		struct history_point *p = &s->points[i];
		p->run_id = xasprintf("run%zu", i + 1);
		p->unit = xstrdup(unit);
		p->samples = xmalloc(per * sizeof(double));
		memcpy(p->samples, v + i * per, per * sizeof(double));
		p->n_samples = per;
		p->n = (int)per;
		p->value = v[i * per];
	}
}

static const struct history_rule rule5 = { .threshold_pct = 5 };

/* The reported case: 100, then 100.5, then 94: two earlier runs are
 * below the data the rule needs; the third is "not judged", with why. */
static void series_release(struct history_series *s)
{
	history_series_free(s, 1);   /* frees the array too: s is one malloc'ed below */
}

static struct history_series *series_new(const double *v, size_t runs, size_t per,
					 const char *unit)
{
	struct history_series *s = xmalloc(sizeof(*s));
	series_make(s, v, runs, per, unit);
	return s;
}

static void test_two_earlier_runs_not_judged(void **state)
{
	const double v[] = { 100, 100.5 };
	struct history_series *s = series_new(v, 2, 1, "ms");
	struct history_verdict hv;
	const double b[] = { 94 };
	assert_int_equal(history_judge_samples(s, b, 1, "ms", false, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_NOT_JUDGED);
	assert_string_equal(hv.reason, "2 earlier runs, needs 3");
	assert_true(fabs(hv.j.change_pct - (94 - 100.25) / 100.25 * 100) < 1e-9);
	assert_int_equal(hv.n_runs, 2);
	series_release(s);
}

/* 2048000 kB three times, then 2000 MiB: the same amount, no change. */
static void test_units_converted_first(void **state)
{
	const double v[] = { 2048000, 2048000, 2048000 };
	struct history_series *s = series_new(v, 3, 1, "kB");
	struct history_verdict hv;
	const double b[] = { 2000 };
	assert_int_equal(history_judge_samples(s, b, 1, "MiB", true, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_SAME);
	assert_true(hv.j.change_pct == 0);
	assert_true(fabs(hv.j.median_a - 2000) < 1e-9);   /* in the run's unit */
	series_release(s);
	/* a unit that does not convert starts a new level: nothing to judge against */
	s = series_new(v, 3, 1, "kB");
	assert_int_equal(history_judge_samples(s, b, 1, "ops/s", true, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_NOT_JUDGED);
	TS_ASSERT_HAS(hv.reason, "0 earlier runs");
	series_release(s);
}

/* A -20% step at run 6: with settle 3 (the opt-in) reported there and at
 * runs 7 and 8 against the level before it; from run 9 on judged against
 * the runs since it. */
static void test_step_settles_when_asked(void **state)
{
	const double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 78.9, 80.7, 81.3, 79.2, 80.3 };
	const struct history_rule settle3 = { .threshold_pct = 5, .settle = 3 };
	struct history_verdict hv;
	for (size_t n = 5; n < 10; n++) {
		struct history_series *s = series_new(v, n, 1, "MiB/s");
		assert_int_equal(history_judge_samples(s, &v[n], 1, "MiB/s", true, &settle3, &hv), 0);
		if (n < 8) {
			assert_int_equal(hv.j.outcome, JUDGE_REGRESSION);
			assert_true(hv.step);
			assert_int_equal(hv.step_at, 5);
			assert_int_equal(hv.step_run, n - 4);
			assert_int_equal(hv.settled, n == 7);
			assert_int_equal(hv.n_runs, 5);
		} else {
			assert_int_not_equal(hv.j.outcome, JUDGE_REGRESSION);
			assert_false(hv.step);
			assert_int_equal(hv.level_at, 5);
			assert_int_equal(hv.n_runs, n - 5);
		}
		/* every earlier point's verdict, in one walk, is the one it got
		 * when it ran */
		struct history_verdict *all = xcalloc(n, sizeof(*all));
		history_judge_series(s, &settle3, all);
		for (size_t k = 0; k < n; k++) {
			struct history_series *pre = series_new(v, k, 1, "MiB/s");
			struct history_verdict one;
			assert_int_equal(history_judge_samples(pre, &v[k], 1, "MiB/s", true, &settle3, &one), 0);
			assert_int_equal(all[k].j.outcome, one.j.outcome);
			assert_int_equal(all[k].step, one.step);
			assert_int_equal(all[k].step_at, one.step_at);
			assert_int_equal(all[k].settled, one.settled);
			assert_int_equal(all[k].n_runs, one.n_runs);
			assert_string_equal(all[k].reason, one.reason);
			series_release(pre);
		}
		free(all);
		series_release(s);
	}
}

/* The same step without settle: a regression at every run after it,
 * against the level before it, never the new normal by itself; the series
 * walk says the same at every point. */
static void test_regression_never_settles(void **state)
{
	const double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 78.9, 80.7, 81.3, 79.2, 80.3,
			     79.9, 80.8, 79.4, 80.1, 80.6 };
	enum { N = sizeof(v) / sizeof(v[0]) };
	struct history_verdict hv;
	struct history_series *s = series_new(v, N, 1, "MiB/s");
	struct history_verdict all[N];
	history_judge_series(s, &rule5, all);
	for (size_t n = 5; n < N; n++) {
		struct history_series *pre = series_new(v, n, 1, "MiB/s");
		assert_int_equal(history_judge_samples(pre, &v[n], 1, "MiB/s", true, &rule5, &hv), 0);
		assert_int_equal(hv.j.outcome, JUDGE_REGRESSION);
		assert_true(hv.step);
		assert_false(hv.settled);
		assert_int_equal(hv.step_at, 5);
		assert_int_equal(hv.step_run, n - 4);
		assert_int_equal(hv.n_runs, 5);   /* the level before the step */
		assert_int_equal(all[n].j.outcome, hv.j.outcome);
		assert_int_equal(all[n].step_run, hv.step_run);
		series_release(pre);
	}
	series_release(s);
}

/* The ten nights (200 .. 200, then 160 .. 160 Mbit/s, one sample a
 * night): the tenth is still a regression, run 4 of the step. */
static void test_ten_nights(void **state)
{
	const double v[] = { 200, 201, 199, 200.5, 199.5, 200, 160, 161, 159, 160 };
	struct history_series *s = series_new(v, 9, 1, "Mbit/s");
	struct history_verdict hv;
	assert_int_equal(history_judge_samples(s, &v[9], 1, "Mbit/s", true, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_REGRESSION);
	assert_int_equal(hv.step_at, 6);
	assert_int_equal(hv.step_run, 4);
	assert_false(hv.settled);
	assert_true(fabs(hv.j.change_pct + 20.0) < 0.2);
	series_release(s);
}

/* A step for the better becomes the new normal by itself after 3 runs. */
static void test_better_step_settles(void **state)
{
	const double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 120.9, 119.7, 121.3, 120.2 };
	struct history_series *s = series_new(v, 9, 1, "MiB/s");
	struct history_verdict all[9];
	history_judge_series(s, &rule5, all);
	for (size_t k = 5; k < 8; k++) {
		assert_int_equal(all[k].j.outcome, JUDGE_BETTER);
		assert_true(all[k].step);
		assert_int_equal(all[k].step_run, k - 4);
		assert_int_equal(all[k].settled, k == 7);
	}
	assert_false(all[8].step);
	assert_int_equal(all[8].level_at, 5);
	series_release(s);
}

/* One bad night among good ones is reported at that night and is not a new
 * level: the next night is judged against the level before it. */
static void test_one_bad_night(void **state)
{
	const double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 79.0, 100.5, 99.1 };
	struct history_verdict hv;
	struct history_series *s = series_new(v, 5, 1, "MiB/s");
	assert_int_equal(history_judge_samples(s, &v[5], 1, "MiB/s", true, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_REGRESSION);
	series_release(s);
	s = series_new(v, 6, 1, "MiB/s");
	assert_int_equal(history_judge_samples(s, &v[6], 1, "MiB/s", true, &rule5, &hv), 0);
	assert_int_not_equal(hv.j.outcome, JUDGE_REGRESSION);
	assert_false(hv.step);
	assert_int_equal(hv.level_at, 0);
	assert_int_equal(hv.n_runs, 5);   /* against the level before the bad night */
	series_release(s);
	s = series_new(v, 7, 1, "MiB/s");
	assert_int_equal(history_judge_samples(s, &v[7], 1, "MiB/s", true, &rule5, &hv), 0);
	assert_int_not_equal(hv.j.outcome, JUDGE_REGRESSION);
	assert_int_equal(hv.level_at, 0);
	assert_int_equal(hv.n_runs, 6);   /* the bad night stays out of the level */
	series_release(s);
}

/* An acknowledged run starts a level at once: the runs after it are judged
 * against it alone (and need 3 of them). */
static void test_acknowledged(void **state)
{
	const double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 90.1, 89.7, 90.4, 89.9 };
	struct history_verdict hv;
	struct history_series *s = series_new(v, 7, 1, "MiB/s");
	s->points[5].ack_note = xstrdup("kernel 6.6, slower by design");
	assert_int_equal(history_judge_samples(s, &v[7], 1, "MiB/s", true, &rule5, &hv), 0);
	assert_int_equal(hv.j.outcome, JUDGE_NOT_JUDGED);
	assert_string_equal(hv.reason, "2 earlier runs at this level, needs 3");
	assert_true(hv.level_acked);
	series_release(s);
	s = series_new(v, 8, 1, "MiB/s");
	s->points[5].ack_note = xstrdup("kernel 6.6, slower by design");
	assert_int_equal(history_judge_samples(s, &v[8], 1, "MiB/s", true, &rule5, &hv), 0);
	assert_int_not_equal(hv.j.outcome, JUDGE_REGRESSION);
	assert_int_not_equal(hv.j.outcome, JUDGE_NOT_JUDGED);
	assert_int_equal(hv.level_at, 5);
	assert_true(hv.level_acked);
	/* the page's marks: the acknowledged run is no step, it starts the level */
	struct history_verdict all[8];
	history_judge_series(s, &rule5, all);
	assert_int_equal(all[5].j.outcome, JUDGE_NOT_JUDGED);
	assert_string_equal(all[5].reason, "acknowledged change");
	assert_false(all[5].step || all[6].step || all[7].step);
	series_release(s);
	/* without the ack, the same runs are a step, regressions that never settle */
	s = series_new(v, 8, 1, "MiB/s");
	history_judge_series(s, &rule5, all);
	assert_int_equal(all[5].j.outcome, JUDGE_REGRESSION);
	assert_int_equal(all[6].j.outcome, JUDGE_REGRESSION);
	assert_int_equal(all[7].j.outcome, JUDGE_REGRESSION);
	assert_false(all[7].settled);
	series_release(s);
}

TS_MAIN(NULL, NULL, test_two_earlier_runs_not_judged, test_units_converted_first,
	test_step_settles_when_asked, test_regression_never_settles, test_ten_nights,
	test_better_step_settles, test_one_bad_night, test_acknowledged)
