#include "util/stats.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

void stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *c = xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	stats_sort(c, n);
	return c;
}

double stats_quantile(const double *v, size_t n, double q)
{
	if (!n || isnan(q))
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	double *c = sorted_copy(v, n);
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	double r = lo + 1 < n ? c[lo] + (h - (double)lo) * (c[lo + 1] - c[lo]) : c[lo];
	free(c);
	return r;
}

double stats_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double *c = sorted_copy(v, n);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
	free(c);
	return m;
}

double stats_mean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

void stats_mean_var(const double *v, size_t n, double *mean, double *var)
{
	double m = stats_mean(v, n), sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - m) * (v[i] - m);
	if (mean)
		*mean = m;
	if (var)
		*var = n > 1 ? sq / (double)(n - 1) : 0.0;
}

double stats_variance(const double *v, size_t n)
{
	double var;
	stats_mean_var(v, n, NULL, &var);
	return var;
}

double stats_stddev(const double *v, size_t n)
{
	return sqrt(stats_variance(v, n));
}

void stats_min_max(const double *v, size_t n, double *min, double *max)
{
	double lo = n ? v[0] : NAN, hi = lo;
	for (size_t i = 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	*min = lo;
	*max = hi;
}

size_t stats_outliers(const double *v, size_t n, double med, bool high, size_t *idx, size_t max)
{
	if (!n)
		return 0;
	double *dev = xcalloc(n, sizeof(*dev));
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - med);
	double limit = fmax(3 * 1.4826 * stats_median(dev, n), 0.01 * fabs(med));
	bool *used = xcalloc(n, sizeof(*used));
	size_t k = 0;
	while (k < max) {
		size_t best = n;
		for (size_t i = 0; i < n; i++) {
			if (used[i] || (v[i] > med) != high || !(dev[i] > limit))
				continue;
			if (best == n || dev[i] > dev[best])
				best = i;
		}
		if (best == n)
			break;
		used[best] = true;
		idx[k++] = best;
	}
	free(used);
	free(dev);
	return k;
}
