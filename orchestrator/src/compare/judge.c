#include "compare/judge.h"
#include "util/stats.h"
#include "util/strbuf.h"
#include "util/threshold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double median_of(const double *v, size_t n)
{
	return stats_median(v, n);
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	stats_mean_var(v, n, mean, var);
}

/* ---- Student's t ------------------------------------------------------ */

/* Continued fraction of the regularized incomplete beta (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		for (int k = 0; k < 2; k++) {
			d = 1.0 + num * d;
			c = 1.0 + num / c;
			if (fabs(d) < tiny)
				d = tiny;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1.0 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		}
		if (fabs(d * c - 1.0) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double inc_beta(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

double judge_t_two_sided_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return inc_beta(df / 2.0, 0.5, df / (df + t * t));
}

double judge_t_quantile_two_sided(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	double lo = 0.0, hi = 1.0;
	while (judge_t_two_sided_p(hi, df) > p && hi < 1e12)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2.0;
		if (judge_t_two_sided_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

/* ---- outliers --------------------------------------------------------- */

/* The index of the sample farthest from m. */
static size_t farthest(const double *v, size_t n, double m)
{
	size_t far = 0;
	for (size_t i = 1; i < n; i++)
		if (fabs(v[i] - m) > fabs(v[far] - m))
			far = i;
	return far;
}

/* Sum of squares of v[0..n) about its mean, leaving out v[skip] (skip >= n:
 * none); adds it and its degrees of freedom to *ss and *df. */
static void ss_without(const double *v, size_t n, size_t skip, double *ss, double *df)
{
	double s = 0, sq = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (i != skip) {
			s += v[i];
			k++;
		}
	if (k < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (i != skip)
			sq += (v[i] - s / (double)k) * (v[i] - s / (double)k);
	*ss += sq;
	*df += (double)k - 1.0;
}

/* ---- the rule before: k by n on the deviation without each side's
 * farthest sample (JUDGE_OUTLIERS_K_BY_N, kept to measure against) ---- */

double judge_outlier_k(size_t n)
{
	static const double k[] = { 13.0, 9.5, 8.0, 7.5, 7.0, 6.5, 6.5 };   /* n = 5..11 */
	if (n < 5)
		return INFINITY;
	return n - 5 < sizeof(k) / sizeof(k[0]) ? k[n - 5] : 6.0;
}

static size_t drop_k_by_n(double *v, size_t n, double m, double sd)
{
	if (n < 5 || !(sd > 0))
		return n;
	size_t max_drop = n / 5, kept = n;
	for (size_t d = 0; d < max_drop; d++) {
		size_t far = farthest(v, kept, m);
		if (!(fabs(v[far] - m) > judge_outlier_k(n) * sd))
			break;
		v[far] = v[--kept];
	}
	return kept;
}

static void trim_k_by_n(double *x, size_t *nx, double *y, size_t *ny)
{
	double mx = stats_median(x, *nx), my = stats_median(y, *ny), ss = 0, df = 0;
	ss_without(x, *nx, *nx >= 5 ? farthest(x, *nx, mx) : *nx, &ss, &df);
	ss_without(y, *ny, *ny >= 5 ? farthest(y, *ny, my) : *ny, &ss, &df);
	double sd = df > 0 ? sqrt(ss / df) : 0.0;
	*nx = drop_k_by_n(x, *nx, mx, sd);
	*ny = drop_k_by_n(y, *ny, my, sd);
}

/* ---- the rule: the externally studentized sample --------------------- */

double judge_outlier_cutoff(size_t n_total)
{
	if (n_total < 4)
		return INFINITY;
	return judge_t_quantile_two_sided(JUDGE_OUTLIER_ALPHA / (double)n_total,
					  (double)n_total - 3.0);
}

/* How far v[i] (of v[0..n), the other side o[0..no)) lies from the mean of
 * the rest of its side, in the standard error of that distance measured on
 * both sides without v[i]: Student's t with n + no - 3 degrees of freedom
 * when v[i] is an ordinary sample. 0 when there is no spread to measure in. */
static double studentized(const double *v, size_t n, size_t i, const double *o, size_t no)
{
	double ss = 0, df = 0, rest = 0;
	ss_without(v, n, i, &ss, &df);
	ss_without(o, no, no, &ss, &df);
	for (size_t k = 0; k < n; k++)
		rest += k == i ? 0 : v[k];
	rest /= (double)(n - 1);
	if (!(df > 0) || !(ss > 0))
		return 0.0;
	double se = sqrt(ss / df * (1.0 + 1.0 / (double)(n - 1)));
	return fabs(v[i] - rest) / se;
}

/* The candidate of a side: its sample farthest from its median, when the
 * side of n (started with n0) may still lose one; its t in *t. */
static bool candidate(const double *v, size_t n, size_t n0, const double *o, size_t no,
		      size_t *at, double *t)
{
	if (n0 < 5 || n0 - n >= n0 / 5)
		return false;
	*at = farthest(v, n, stats_median(v, n));
	*t = studentized(v, n, *at, o, no);
	return true;
}

/* Whether a studentized distance t with n_total samples on both sides
 * passes judge_outlier_cutoff(n_total) (by its tail: one evaluation). */
static bool past_cutoff(double t, size_t n_total)
{
	return n_total >= 4 && t > 0 &&
	       judge_t_two_sided_p(t, (double)n_total - 3.0) * (double)n_total < JUDGE_OUTLIER_ALPHA;
}

/* Drops from x and y, one at a time and the farthest first, each sample
 * whose studentized distance passes judge_outlier_cutoff: up to one in five
 * of a side of 5 or more. */
static void trim_studentized(double *x, size_t *nx, double *y, size_t *ny)
{
	size_t nx0 = *nx, ny0 = *ny;
	for (;;) {
		size_t ax = 0, ay = 0;
		double tx = 0, ty = 0;
		bool cx = candidate(x, *nx, nx0, y, *ny, &ax, &tx);
		bool cy = candidate(y, *ny, ny0, x, *nx, &ay, &ty);
		if (cx && (!cy || tx >= ty) && past_cutoff(tx, *nx + *ny))
			x[ax] = x[--*nx];
		else if (cy && (!cx || ty > tx) && past_cutoff(ty, *nx + *ny))
			y[ay] = y[--*ny];
		else
			break;
	}
}

/* ---- the rule --------------------------------------------------------- */

/* The test on x (side A) and y (side B), already on the tested scale:
 * fills p and the (1 - alpha) interval of mean(y) - mean(x). */
static void welch(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		  bool pooled, struct judgement *out, double *lo, double *hi)
{
	double mx, vx, my, vy;
	mean_var(x, nx, &mx, &vx);
	mean_var(y, ny, &my, &vy);
	double diff = my - mx, se, df;
	if (pooled && nx + ny > 2) {
		df = (double)(nx + ny - 2);
		double sp2 = ((double)(nx - 1) * vx + (double)(ny - 1) * vy) / df;
		se = sqrt(sp2 * (1.0 / (double)nx + 1.0 / (double)ny));
		out->method = JUDGE_METHOD_STUDENT;
	} else if (nx == 1 || ny == 1) {
		/* one sample against the other side's spread: a prediction */
		double v = nx == 1 ? vy : vx;
		size_t n = nx == 1 ? ny : nx;
		se = sqrt(v * (1.0 / (double)nx + 1.0 / (double)ny));
		df = (double)n - 1.0;
		out->method = JUDGE_METHOD_PREDICTION;
	} else {
		double qx = vx / (double)nx, qy = vy / (double)ny;
		se = sqrt(qx + qy);
		double den = qx * qx / (double)(nx - 1) + qy * qy / (double)(ny - 1);
		df = den > 0 ? (qx + qy) * (qx + qy) / den : (double)(nx + ny - 2);
	}
	if (se == 0.0) {
		out->p = diff == 0.0 ? 1.0 : 0.0;
		*lo = *hi = diff;
		return;
	}
	out->p = judge_t_two_sided_p(diff / se, df);
	double q = judge_t_quantile_two_sided(alpha, df);
	*lo = diff - q * se;
	*hi = diff + q * se;
}

/* Runs the test on the (log) samples with outliers dropped. */
static void test_samples(const double *a, size_t na, const double *b, size_t nb,
			 const struct judge_rule *rule, struct judgement *out)
{
	bool logs = true;
	for (size_t i = 0; i < na; i++)
		logs = logs && a[i] > 0;
	for (size_t i = 0; i < nb; i++)
		logs = logs && b[i] > 0;
	double *x = xmalloc(na * sizeof(*x)), *y = xmalloc(nb * sizeof(*y));
	for (size_t i = 0; i < na; i++)
		x[i] = logs ? log(a[i]) : a[i];
	for (size_t i = 0; i < nb; i++)
		y[i] = logs ? log(b[i]) : b[i];
	size_t kx = na, ky = nb;
	if (rule->outliers == JUDGE_OUTLIERS_DROP)
		trim_studentized(x, &kx, y, &ky);
	else if (rule->outliers == JUDGE_OUTLIERS_K_BY_N)
		trim_k_by_n(x, &kx, y, &ky);
	out->dropped_a = na - kx;
	out->dropped_b = nb - ky;
	out->method = JUDGE_METHOD_WELCH;
	out->log_scale = logs;
	double lo, hi;
	welch(x, kx, y, ky, out->alpha, rule->pooled, out, &lo, &hi);
	out->ci_lo = logs ? exp(lo) : lo;
	out->ci_hi = logs ? exp(hi) : hi;
	free(x);
	free(y);
}

static bool all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

/* Sets worse / beyond_threshold / change_pct from the medians. */
static void judge_change(struct judgement *out, bool higher_is_better, double threshold_pct)
{
	double ma = out->median_a, mb = out->median_b, delta = mb - ma;
	out->change_pct = ma != 0.0 ? delta / fabs(ma) * 100.0 : NAN;
	out->worse = higher_is_better ? delta < 0 : delta > 0;
	out->beyond_threshold = threshold_beyond(ma, mb, threshold_pct);
}

int judge_samples(const double *a, size_t na, const double *b, size_t nb,
		  bool higher_is_better, const struct judge_rule *rule, struct judgement *out)
{
	memset(out, 0, sizeof(*out));
	out->alpha = rule->alpha > 0 && rule->alpha < 1 ? rule->alpha : JUDGE_DEFAULT_ALPHA;
	out->p = out->ci_lo = out->ci_hi = out->change_pct = NAN;
	out->median_a = out->median_b = NAN;
	out->n_a = na;
	out->n_b = nb;
	out->outcome = JUDGE_NOT_JUDGED;
	out->threshold_pct = rule->threshold_pct;
	if (!na || !nb) {
		out->reason = "no samples";
		return -1;
	}
	if (!all_finite(a, na) || !all_finite(b, nb)) {
		out->reason = "a value is not finite";
		return -1;
	}
	out->median_a = median_of(a, na);
	out->median_b = median_of(b, nb);
	judge_change(out, higher_is_better, rule->threshold_pct);
	if (out->median_a == out->median_b) {
		out->change_pct = 0.0;
		out->outcome = JUDGE_SAME;
		return 0;
	}
	if ((na < 2 || nb < 2) && !rule->judge_single) {
		out->reason = na < 2 && nb < 2 ? "one sample a side"
			      : na < 2	       ? "one sample in A" : "one sample in B";
		return 0;
	}
	bool significant;
	if (na < 2 && nb < 2) {
		out->method = JUDGE_METHOD_THRESHOLD;
		significant = true;
	} else {
		test_samples(a, na, b, nb, rule, out);
		significant = out->p < out->alpha;
		/* the test's direction must agree with the medians' */
		bool mean_up = out->log_scale ? out->ci_lo * out->ci_hi > 1
					      : out->ci_lo + out->ci_hi > 0;
		significant = significant && mean_up == (out->median_b > out->median_a);
	}
	if (!significant)
		out->outcome = JUDGE_NOISE;
	else if (!out->worse)
		out->outcome = JUDGE_BETTER;
	else
		out->outcome = out->beyond_threshold ? JUDGE_REGRESSION : JUDGE_WORSE;
	return 0;
}

const char *judge_outcome_name(enum judge_outcome o)
{
	switch (o) {
	case JUDGE_SAME: return "same";
	case JUDGE_NOT_JUDGED: return "not judged";
	case JUDGE_NOISE: return "noise";
	case JUDGE_BETTER: return "better";
	case JUDGE_WORSE: return "worse";
	case JUDGE_REGRESSION: return "regression";
	}
	return "?";
}

const char *judge_method_name(enum judge_method m)
{
	switch (m) {
	case JUDGE_METHOD_NONE: return "none";
	case JUDGE_METHOD_WELCH: return "welch";
	case JUDGE_METHOD_PREDICTION: return "prediction";
	case JUDGE_METHOD_THRESHOLD: return "threshold";
	case JUDGE_METHOD_STUDENT: return "student";
	}
	return "?";
}
