#ifndef ORCH_UTIL_STATS_H
#define ORCH_UTIL_STATS_H
/*
 * The one statistics module: the summary figures of a sample (median,
 * mean, variance, quantiles) that the result model, the judge and the
 * history all use. Pure arithmetic on doubles; no input is changed.
 */
#include <stdbool.h>
#include <stddef.h>

/* Median of v[0..n): the middle value, the mean of the two middle ones
 * for an even n; NAN for n == 0. */
double stats_median(const double *v, size_t n);
/* Arithmetic mean; NAN for n == 0. */
double stats_mean(const double *v, size_t n);
/* Sample variance (divides by n - 1); 0 for n < 2. */
double stats_variance(const double *v, size_t n);
/* Mean and sample variance in one pass over the data twice. */
void stats_mean_var(const double *v, size_t n, double *mean, double *var);
/* Sample standard deviation: sqrt(stats_variance). */
double stats_stddev(const double *v, size_t n);
/* The q-quantile (0 <= q <= 1) by linear interpolation between order
 * statistics (R's type 7, numpy's default); NAN for n == 0. */
double stats_quantile(const double *v, size_t n, double q);
/* min and max of v (n >= 1). */
void stats_min_max(const double *v, size_t n, double *min, double *max);
/* The values far from the others (the boards outside the others, named
 * by the summary and orch history): beyond 3 scaled median absolute
 * deviations of the median med (a spread one wild value does not widen)
 * and beyond 1% of med. Writes to idx up to max indexes of one side (high:
 * above med, else below), the farthest first; returns how many. */
size_t stats_outliers(const double *v, size_t n, double med, bool high, size_t *idx, size_t max);
/* Sorts v[0..n) ascending, in place. */
void stats_sort(double *v, size_t n);

#endif
