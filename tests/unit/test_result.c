/* The result model: statistics, lookups, ownership (its exit code is
 * finish's: test_finish_exit). */
#include "testsupport.h"
#include "result/result.h"
#include "sample_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double samples[16];

static struct metric_result metric_of(const double *v, size_t n)
{
	struct metric_result m = { 0 };
	if (n)
		memcpy(samples, v, n * sizeof(*v));
	m.samples = samples;
	m.n_samples = n;
	metric_result_summarize(&m);
	return m;
}

static void test_stats_odd(void **state)
{
	const double v[] = { 5, 1, 4, 2, 3 };
	struct metric_result m = metric_of(v, 5);
	assert_float_equal(m.median, 3, 1e-12);
	assert_float_equal(m.min, 1, 1e-12);
	assert_float_equal(m.max, 5, 1e-12);
	assert_float_equal(m.mean, 3, 1e-12);
	assert_float_equal(m.stddev, sqrt(2.5), 1e-12);   /* n-1 in the denominator */
	assert_float_equal(metric_result_rsd_pct(&m), sqrt(2.5) / 3 * 100, 1e-9);
	/* the samples stay in run order */
	assert_float_equal(m.samples[0], 5, 0);
}

static void test_stats_even(void **state)
{
	const double v[] = { 10, 2, 8, 4 };
	struct metric_result m = metric_of(v, 4);
	assert_float_equal(m.median, 6, 1e-12);
	assert_float_equal(m.mean, 6, 1e-12);
	assert_float_equal(m.stddev, sqrt(40.0 / 3), 1e-12);
	const double two[] = { 1.5, 2.5 };
	m = metric_of(two, 2);
	assert_float_equal(m.median, 2, 1e-12);
}

static void test_stats_one_and_none(void **state)
{
	const double v[] = { -7.25 };
	struct metric_result m = metric_of(v, 1);
	assert_float_equal(m.median, -7.25, 0);
	assert_float_equal(m.min, -7.25, 0);
	assert_float_equal(m.max, -7.25, 0);
	assert_float_equal(m.stddev, 0, 0);
	m = metric_of(NULL, 0);
	assert_float_equal(m.median, 0, 0);
	assert_float_equal(m.stddev, 0, 0);
	assert_float_equal(metric_result_rsd_pct(&m), 0, 0);
}

static void test_add_sample(void **state)
{
	struct run_result run = { 0 };
	struct test_result *tr = run_result_add(&run, "rpi1", "memory");
	assert_int_equal(tr->exit_code, -1);
	assert_int_equal(tr->status, STATUS_PASS);
	test_result_add_sample(tr, "mem.memcpy", "MiB/s", true, 20);
	test_result_add_sample(tr, "lat", "us", false, 3);
	struct metric_result *m = test_result_add_sample(tr, "mem.memcpy", "ignored", false, 30);
	assert_int_equal(tr->n_metrics, 2);
	assert_int_equal(m->n_samples, 2);
	assert_string_equal(m->unit, "MiB/s");
	assert_true(m->higher_is_better);
	assert_float_equal(m->median, 25, 1e-12);
	assert_ptr_equal(test_result_find_metric(tr, "lat"), &tr->metrics[1]);
	assert_null(test_result_find_metric(tr, "nope"));
	test_result_set_message(tr, "exit %d", 3);
	test_result_set_message(tr, "exit %d", 4);
	assert_string_equal(tr->message, "exit 4");
	run_result_release(&run);
	run_result_release(NULL);
	test_result_release(NULL);
}

static void test_find_take_copy(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	const struct test_result *tr = run_result_find(&run, "rpi1", "boot");
	assert_non_null(tr);
	assert_int_equal(tr->status, STATUS_FAIL);
	assert_null(run_result_find(&run, "rpi1", "nope"));

	struct test_result copy;
	test_result_copy(&copy, tr);
	assert_ptr_not_equal(copy.phases, tr->phases);
	assert_string_equal(copy.phases[1].line, tr->phases[1].line);
	size_t n = run.n_results;
	run_result_take(&run, &copy);
	assert_int_equal(run.n_results, n + 1);
	assert_null(copy.board);
	assert_string_equal(run.results[n].board, "rpi1");
	run_result_release(&run);
	assert_int_equal(run.n_results, 0);
}

static void test_status_names(void **state)
{
	enum result_status st;
	const char *names[] = { "pass", "fail", "error", "skip" };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(result_status_name((enum result_status)i), names[i]);
		assert_int_equal(result_status_parse(names[i], &st), 0);
		assert_int_equal(st, i);
	}
	assert_int_equal(result_status_parse("PASS", &st), -1);
	assert_int_equal(result_status_parse(NULL, &st), -1);
}

TS_MAIN(NULL, NULL, test_stats_odd, test_stats_even, test_stats_one_and_none, test_add_sample,
	test_find_take_copy, test_status_names)
