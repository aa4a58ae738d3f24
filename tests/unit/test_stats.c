/* util/stats: the one statistics module (median, mean, variance, quantiles). */
#include "testsupport.h"
#include "util/stats.h"

#include <math.h>

static void test_median_mean_var(void **state)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	assert_true(stats_median(odd, 3) == 3);
	assert_true(stats_median(even, 4) == 2.5);
	assert_true(isnan(stats_median(odd, 0)));
	assert_true(odd[0] == 5);   /* not sorted in place */
	double m, v;
	stats_mean_var(even, 4, &m, &v);
	assert_true(m == 2.5);
	assert_true(fabs(v - 5.0 / 3.0) < 1e-15);
	assert_true(stats_variance(odd, 1) == 0);
	assert_true(fabs(stats_stddev(even, 4) - sqrt(5.0 / 3.0)) < 1e-15);
	double lo, hi;
	stats_min_max(odd, 3, &lo, &hi);
	assert_true(lo == 1 && hi == 5);
}

static void test_quantile(void **state)
{
	const double v[] = { 10, 40, 20, 30 };
	assert_true(stats_quantile(v, 4, 0) == 10);
	assert_true(stats_quantile(v, 4, 1) == 40);
	assert_true(stats_quantile(v, 4, 0.5) == 25);
	assert_true(fabs(stats_quantile(v, 4, 0.25) - 17.5) < 1e-12);   /* type 7 */
	assert_true(stats_quantile(v, 1, 0.9) == 10);
	assert_true(isnan(stats_quantile(v, 0, 0.5)));
}

/* The values far from the others: one wild value does not widen the
 * spread that finds it; within 1% of the median nothing is named. */
static void test_outliers(void **state)
{
	const double v[] = { 1000, 1001, 1002, 902, 1003, 1004, 1100, 1001 };
	size_t idx[4];
	assert_int_equal(stats_outliers(v, 8, 1001.5, false, idx, 4), 1);
	assert_int_equal(idx[0], 3);
	assert_int_equal(stats_outliers(v, 8, 1001.5, true, idx, 4), 1);
	assert_int_equal(idx[0], 6);
	assert_int_equal(stats_outliers(v, 8, 1001.5, true, idx, 0), 0);
	const double close[] = { 1000, 1000, 1000, 1009 };   /* beyond 3 MADs, within 1% */
	assert_int_equal(stats_outliers(close, 4, 1000, true, idx, 4), 0);
	const double far[] = { 1000, 1000, 900, 800, 1000 };   /* farthest first */
	assert_int_equal(stats_outliers(far, 5, 1000, false, idx, 4), 2);
	assert_true(idx[0] == 3 && idx[1] == 2);
	assert_int_equal(stats_outliers(far, 0, 1000, false, idx, 4), 0);
}

TS_MAIN(NULL, NULL, test_median_mean_var, test_quantile, test_outliers)
