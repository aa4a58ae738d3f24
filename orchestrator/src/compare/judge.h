#ifndef ORCH_COMPARE_JUDGE_H
#define ORCH_COMPARE_JUDGE_H
/*
 * judge: the decision rule behind every "regression" orch prints. Given the
 * samples of one metric on side A (old: a baseline run, or a window of past
 * values) and side B (new), and which way is better, it says whether B is
 * the same, better, worse within the threshold, a regression, within noise,
 * or not judged -- with the evidence (p-value, confidence interval of B/A).
 *
 * The rule (docs/compare.md has the error rates):
 *   1. The change is B's median against A's median, (mB - mA) / |mA|,
 *      computed on the exact values; "beyond the threshold" means strictly
 *      more than threshold_pct (a change of exactly the threshold is not).
 *      A change from a median of 0 is beyond any threshold.
 *   2. Evidence beyond noise: Welch's t-test at two-sided level alpha
 *      (default 1%) on log(sample) when every sample is > 0 (so the
 *      interval is one of the ratio B/A), else on the samples themselves.
 *      Before the test, a side of 5+ samples loses up to one sample in five,
 *      farthest first, whose distance from the mean of the rest of its side,
 *      in the standard error of that distance measured on both sides
 *      without it (Student's t, nA + nB - 3 df), passes the point that an
 *      ordinary sample passes in JUDGE_OUTLIER_ALPHA / (nA + nB) of cases:
 *      one wild sample can neither hide a change nor make one, and an
 *      ordinary pair loses a sample in at most 1 of 1000.
 *   3. A regression needs both: worse beyond the threshold AND significant
 *      in the worse direction. Significant and better is "better";
 *      significant, worse, within the threshold is "worse"; anything not
 *      significant is "within noise".
 *   4. A side with one sample has no spread: the metric is "not judged"
 *      unless rule->judge_single. Then one sample against 2+ is a
 *      prediction test (the spread of the larger side, df = n - 1), and one
 *      against one is judged by the threshold alone.
 *
 * It is pure arithmetic: no result model, no I/O, so a history window can
 * call it with past values as side A. Against a window, set judge_single:
 * "judged against the history window when one exists" is the
 * prediction test of one new sample against the window's spread (needs 2+
 * past values; more give more power: df = window - 1).
 */
#include <stdbool.h>
#include <stddef.h>

#define JUDGE_DEFAULT_ALPHA 0.01
/* The outlier rule's level: an ordinary pair loses a sample this rarely */
#define JUDGE_OUTLIER_ALPHA 0.001

/* What is done with outliers before the test. */
enum judge_outliers {
	JUDGE_OUTLIERS_DROP = 0,   /* the rule (2. above) */
	JUDGE_OUTLIERS_KEEP,       /* drop none: the untrimmed test (to measure the rule) */
	/* the rule before: k(n) deviations from the median, the deviation without
	 * each side's farthest sample (to measure against, docs/compare.md) */
	JUDGE_OUTLIERS_K_BY_N,
};

enum judge_outcome {
	JUDGE_SAME = 0,        /* equal medians */
	JUDGE_NOT_JUDGED,      /* one sample on a side, and judge_single is off */
	JUDGE_NOISE,           /* not significant at alpha */
	JUDGE_BETTER,
	JUDGE_WORSE,           /* significant, worse, within the threshold */
	JUDGE_REGRESSION,
};

struct judge_rule {
	double threshold_pct;  /* a regression is worse by strictly more than this */
	double alpha;          /* two-sided level of the test; <= 0: JUDGE_DEFAULT_ALPHA */
	bool judge_single;     /* judge sides with one sample (see 4. above) */
	/* Student's t on the pooled variance (df = nA + nB - 2) instead of
	 * Welch's: for side A a history window, whose many samples measure the
	 * spread that side B (a run's few) shares when nothing changed; with
	 * one sample on B it is the prediction test on A's spread */
	bool pooled;
	enum judge_outliers outliers;
};

enum judge_method {
	JUDGE_METHOD_NONE = 0,     /* nothing tested (same, not judged) */
	JUDGE_METHOD_WELCH,        /* Welch's t-test */
	JUDGE_METHOD_PREDICTION,   /* one sample against the other side's spread */
	JUDGE_METHOD_THRESHOLD,    /* one sample a side: the threshold alone */
	JUDGE_METHOD_STUDENT,      /* Student's t on the pooled variance (rule.pooled) */
};

struct judgement {
	enum judge_outcome outcome;
	enum judge_method method;
	double median_a, median_b;
	double change_pct;     /* (mB - mA) / |mA| * 100, signed; NAN when mA is 0 */
	bool worse;            /* the median moved the worse way */
	bool beyond_threshold;
	double p;              /* two-sided p-value; NAN when no test ran */
	bool log_scale;        /* tested on log(sample): the interval is of the ratio B/A */
	double ci_lo, ci_hi;   /* (1 - alpha) interval of B/A (log_scale) or of B - A; NAN if none */
	double alpha;          /* the level used */
	double threshold_pct;  /* the threshold used (the rule's) */
	/* why the outcome is JUDGE_NOT_JUDGED ("one sample in A", "one sample a
	 * side", "a side is empty", "a value is not finite"), else NULL; static text */
	const char *reason;
	size_t n_a, n_b;       /* samples given */
	size_t dropped_a, dropped_b;  /* outliers left out of the test */
};

/*
 * Judges b against a (na, nb >= 1; the arrays are not changed) and fills
 * out. Returns 0, or -1 (out->outcome JUDGE_NOT_JUDGED) when a side is
 * empty or holds a non-finite value.
 */
int judge_samples(const double *a, size_t na, const double *b, size_t nb,
		  bool higher_is_better, const struct judge_rule *rule, struct judgement *out);

/* "same", "not judged", "noise", "better", "worse", "regression". */
const char *judge_outcome_name(enum judge_outcome o);
/* "welch", "prediction", "threshold", "student", "none". */
const char *judge_method_name(enum judge_method m);

/*
 * Student's t distribution: the two-sided tail P(|T| >= |t|) with df
 * degrees of freedom (df > 0, need not be whole), and its inverse: the t
 * with that two-sided tail p (0 < p < 1).
 */
double judge_t_two_sided_p(double t, double df);
double judge_t_quantile_two_sided(double p, double df);

/* The outlier rule's cutoff with n_total samples on both sides: the
 * studentized distance an ordinary sample passes with probability
 * JUDGE_OUTLIER_ALPHA / n_total (Student's t, n_total - 3 degrees of
 * freedom), so that a pair of ordinary sides loses a sample in at most
 * JUDGE_OUTLIER_ALPHA of pairs (INFINITY below 4 samples). */
double judge_outlier_cutoff(size_t n_total);
/* The rule before's cutoff for a side of n, in deviations (INFINITY below 5). */
double judge_outlier_k(size_t n);

#endif
