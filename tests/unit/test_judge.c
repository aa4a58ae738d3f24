/* judge: the t distribution, the rule's edges, and a simulation of its
 * error rates (fixed seed, thousands of pairs): false alarms with no change,
 * with and without the outlier rule (trimming adds none, under normal,
 * uniform and lognormal noise), power against a 10% drop, an outlier that
 * must not hide a 20% drop, and power growing with the number of samples.
 * docs/compare.md quotes the figures this prints with ORCH_JUDGE_SIM=1. */
#include "testsupport.h"

#include "compare/judge.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRS 4000

/* ---- a fixed-seed generator (splitmix64) ------------------------------ */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rng_uniform(void)   /* (0, 1) */
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_gauss(void)
{
	return sqrt(-2.0 * log(rng_uniform())) * cos(2.0 * M_PI * rng_uniform());
}

enum noise { GAUSS, UNIFORM, LOGNORMAL };

static const char *const noise_names[] = { "normal", "uniform", "lognormal" };

struct model {
	enum noise noise;
	double level;      /* GAUSS: relative SD; UNIFORM: relative half-width;
			    * LOGNORMAL: SD of log(sample) */
};

static double draw(const struct model *m, double mu)
{
	switch (m->noise) {
	case GAUSS: return mu * (1.0 + m->level * rng_gauss());
	case UNIFORM: return mu * (1.0 + m->level * (2.0 * rng_uniform() - 1.0));
	case LOGNORMAL: return mu * exp(m->level * rng_gauss());
	}
	return mu;
}

/* B_WILD40: one B sample 40% above B's level */
enum outlier { NO_OUTLIER, B_AT_A_LEVEL, B_HIGH, A_LOW, B_WILD40 };

/* The share of PAIRS pairs, A at 100 and B at 100 * ratio, n samples a
 * side, that judge flags as a regression (higher is better); keep: with
 * no sample dropped as an outlier. */
static const char *const rule_names[] = { "", " untrimmed", " k by n (before)" };

static double flagged_by(const struct model *m, double ratio, size_t n, enum outlier out,
			 enum judge_outliers how)
{
	struct judge_rule rule = { .threshold_pct = 5.0, .outliers = how };
	double a[64], b[64];
	size_t hits = 0;
	rng_state = 20261203;
	for (int p = 0; p < PAIRS; p++) {
		for (size_t i = 0; i < n; i++) {
			a[i] = draw(m, 100.0);
			b[i] = draw(m, 100.0 * ratio);
		}
		if (out == B_AT_A_LEVEL)
			b[n / 2] = draw(m, 100.0);
		else if (out == B_HIGH)
			b[n / 2] = 150.0;
		else if (out == A_LOW)
			a[n / 2] = draw(m, 100.0 * ratio);
		else if (out == B_WILD40)
			b[n / 2] = 140.0 * ratio;
		struct judgement j;
		assert_int_equal(judge_samples(a, n, b, n, true, &rule, &j), 0);
		hits += j.outcome == JUDGE_REGRESSION;
	}
	double rate = (double)hits / PAIRS;
	if (getenv("ORCH_JUDGE_SIM"))
		printf("sim %-9s %4.1f%%  ratio %.2f  n=%-2zu outlier %d%s: %5.2f%% flagged\n",
		       noise_names[m->noise], m->level * 100, ratio, n, (int)out,
		       rule_names[how], rate * 100);
	return rate;
}

static double flagged(const struct model *m, double ratio, size_t n, enum outlier out)
{
	return flagged_by(m, ratio, n, out, JUDGE_OUTLIERS_DROP);
}

/* ---- Student's t against tabulated values ----------------------------- */

static void test_t_distribution(void **state)
{
	/* two-sided 5% and 1% critical values (any statistics table) */
	static const struct { double df, p, t; } tab[] = {
		{ 1, 0.05, 12.706 }, { 4, 0.05, 2.776 }, { 8, 0.05, 2.306 },
		{ 8, 0.01, 3.355 }, { 30, 0.01, 2.750 }, { 1000, 0.05, 1.962 },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		double q = judge_t_quantile_two_sided(tab[i].p, tab[i].df);
		if (fabs(q - tab[i].t) > 0.002)
			fail_msg("t(%g, %g) = %g, want %g", tab[i].p, tab[i].df, q, tab[i].t);
		assert_true(fabs(judge_t_two_sided_p(tab[i].t, tab[i].df) - tab[i].p) < 1e-3);
	}
	assert_true(judge_t_two_sided_p(0, 5) > 0.999);
	assert_true(judge_t_two_sided_p(INFINITY, 5) == 0.0);
	assert_true(isnan(judge_t_two_sided_p(1, 0)));
}

/* ---- the rule's edges ------------------------------------------------- */

static struct judgement judge(const double *a, size_t na, const double *b, size_t nb, bool hib,
			      double thr, bool single)
{
	struct judge_rule rule = { .threshold_pct = thr, .judge_single = single };
	struct judgement j;
	judge_samples(a, na, b, nb, hib, &rule, &j);
	return j;
}

static void test_single_samples(void **state)
{
	double a = 100, b = 80, same = 100;
	struct judgement j = judge(&a, 1, &b, 1, true, 5, false);
	assert_int_equal(j.outcome, JUDGE_NOT_JUDGED);
	assert_true(fabs(j.change_pct + 20.0) < 1e-9);
	j = judge(&a, 1, &same, 1, true, 5, false);
	assert_int_equal(j.outcome, JUDGE_SAME);
	/* opted in: one against one is the threshold alone */
	j = judge(&a, 1, &b, 1, true, 5, true);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	assert_int_equal(j.method, JUDGE_METHOD_THRESHOLD);
	/* one new sample against five: not judged, or a prediction when asked */
	const double five[] = { 100, 101, 99, 100.5, 99.5 };
	j = judge(five, 5, &b, 1, true, 5, false);
	assert_int_equal(j.outcome, JUDGE_NOT_JUDGED);
	j = judge(five, 5, &b, 1, true, 5, true);
	assert_int_equal(j.method, JUDGE_METHOD_PREDICTION);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	double near = 98.0;
	j = judge(five, 5, &near, 1, true, 5, true);
	assert_int_equal(j.outcome, JUDGE_NOISE);
}

static void test_threshold_boundary(void **state)
{
	/* 0.3 -> 0.285 is exactly 5%: not beyond a 5% threshold */
	const double a[] = { 0.3, 0.3, 0.3 }, at[] = { 0.285, 0.285, 0.285 },
		     past[] = { 0.2849, 0.2849, 0.2849 };
	struct judgement j = judge(a, 3, at, 3, true, 5, false);
	assert_false(j.beyond_threshold);
	assert_int_equal(j.outcome, JUDGE_WORSE);
	j = judge(a, 3, past, 3, true, 5, false);
	assert_true(j.beyond_threshold);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	/* 1000 -> 950 likewise */
	const double k[] = { 1000, 1000 }, k95[] = { 950, 950 };
	assert_int_equal(judge(k, 2, k95, 2, true, 5, false).outcome, JUDGE_WORSE);
	/* a change from 0 is beyond any threshold */
	const double z[] = { 0, 0, 0 }, nz[] = { 1, 1, 1 };
	j = judge(z, 3, nz, 3, false, 5, false);
	assert_true(isnan(j.change_pct));
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
}

static void test_direction_and_evidence(void **state)
{
	const double a[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
	const double up[] = { 12.0, 12.1, 11.9, 12.05, 11.95 };
	/* a latency that rises is a regression; a rate that rises is better */
	assert_int_equal(judge(a, 5, up, 5, false, 5, false).outcome, JUDGE_REGRESSION);
	struct judgement j = judge(a, 5, up, 5, true, 5, false);
	assert_int_equal(j.outcome, JUDGE_BETTER);
	assert_true(j.log_scale);
	assert_true(j.p < 0.001);
	assert_true(j.ci_lo > 1.15 && j.ci_hi < 1.25);
	/* wide spread, 10% apart: within noise */
	const double wa[] = { 100, 70, 130, 90, 110 }, wb[] = { 90, 60, 120, 80, 100 };
	assert_int_equal(judge(wa, 5, wb, 5, true, 5, false).outcome, JUDGE_NOISE);
	/* identical reruns */
	assert_int_equal(judge(a, 5, a, 5, true, 5, false).outcome, JUDGE_SAME);
	/* values <= 0: the test runs on the values themselves */
	const double na[] = { -1, 0, 1, -0.5, 0.5 }, nb[] = { 9, 10, 11, 9.5, 10.5 };
	j = judge(na, 5, nb, 5, false, 5, false);
	assert_false(j.log_scale);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	/* zero spread on both sides */
	const double c1[] = { 7, 7, 7 }, c2[] = { 8, 8, 8 };
	assert_int_equal(judge(c1, 3, c2, 3, true, 5, false).outcome, JUDGE_BETTER);
	/* bad input */
	const double bad[] = { 1, NAN };
	struct judge_rule rule = { .threshold_pct = 5 };
	assert_int_equal(judge_samples(bad, 2, a, 5, true, &rule, &j), -1);
	assert_int_equal(judge_samples(a, 0, a, 5, true, &rule, &j), -1);
}

static void test_outlier_cannot_hide(void **state)
{
	const double a[] = { 100, 101, 99, 100.5, 99.5 };
	const double b[] = { 80, 81, 79, 80.5, 150 };     /* 20% drop, one wild sample */
	struct judgement j = judge(a, 5, b, 5, true, 5, false);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	assert_int_equal(j.dropped_b, 1);
	const double b10[] = { 90, 91, 89, 90.5, 101 };   /* 10% drop, one sample at A's level */
	assert_int_equal(judge(a, 5, b10, 5, true, 5, false).outcome, JUDGE_REGRESSION);
	/* the wild sample on the worse side, or on A's side either way */
	const double blow[] = { 80, 81, 79, 80.5, 40 };
	assert_int_equal(judge(a, 5, blow, 5, true, 5, false).outcome, JUDGE_REGRESSION);
	const double ahigh[] = { 100, 101, 99, 100.5, 150 }, alow[] = { 100, 101, 99, 100.5, 80 };
	const double b20[] = { 80, 81, 79, 80.5, 79.5 };
	assert_int_equal(judge(ahigh, 5, b20, 5, true, 5, false).outcome, JUDGE_REGRESSION);
	assert_int_equal(judge(alow, 5, b20, 5, true, 5, false).outcome, JUDGE_REGRESSION);
	/* nor can one make a change: the same runs, one wild sample in B */
	const double bsame[] = { 100.2, 100.8, 99.4, 100.1, 60 };
	struct judgement j2 = judge(a, 5, bsame, 5, true, 5, false);
	assert_int_not_equal(j2.outcome, JUDGE_REGRESSION);
	assert_int_equal(j2.dropped_b, 1);
}

/* Quantized samples (a ms timer, a count): each side's one odd sample is
 * no outlier when the rest do not vary; the test sees all of them and the
 * change stays within noise (untrimmed p is about 0.07), never p = 0. */
static void test_quantized_sides_keep_their_spread(void **state)
{
	const double a[] = { 10, 10, 10, 10, 11 }, b[] = { 11, 11, 11, 11, 10 };
	struct judgement j = judge(a, 5, b, 5, false, 5, false);
	assert_int_equal(j.dropped_a, 0);
	assert_int_equal(j.dropped_b, 0);
	assert_true(j.p > 0.01);
	assert_int_equal(j.outcome, JUDGE_NOISE);
}

/* Ordinary samples are no outliers: B's 112.50 lies 14.5% above B's
 * median, far for 4 samples' spread but ordinary for 5% noise at n=5;
 * dropping it made p 0.009 (a regression) of what is p 0.37 whole. */
static void test_ordinary_sample_kept(void **state)
{
	const double a[] = { 103.65, 101.64, 105.19, 98.53, 106.71 };
	const double b[] = { 98.19, 97.99, 93.66, 97.32, 112.50 };
	struct judgement j = judge(a, 5, b, 5, true, 5, false);
	assert_int_equal(j.dropped_a, 0);
	assert_int_equal(j.dropped_b, 0);
	if (!(j.p > 0.3 && j.p < 0.45))
		fail_msg("p %g, want the untrimmed test's 0.37", j.p);
	assert_int_equal(j.outcome, JUDGE_NOISE);
	/* 5 a side: t of 7 df past 1 in 10000 two-sided */
	assert_true(isinf(judge_outlier_cutoff(3)));
	assert_true(fabs(judge_outlier_cutoff(10) - judge_t_quantile_two_sided(0.0001, 7)) < 1e-9);
}

/* A wild sample at n=5 (the 130 lies 43% above B's other four, 12 of their
 * deviations) is dropped, and the 10% drop is a regression; at n=10 too. */
static void test_wild_sample_dropped(void **state)
{
	const double a[] = { 100, 104, 96, 102, 98 }, b[] = { 90, 93.6, 86.4, 91.8, 130 };
	struct judgement j = judge(a, 5, b, 5, true, 5, false);
	assert_int_equal(j.dropped_b, 1);
	assert_int_equal(j.dropped_a, 0);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	const double a10[] = { 100, 104, 96, 102, 98, 101, 99, 103, 97, 100 };
	const double b10[] = { 90, 93.6, 86.4, 91.8, 130, 90.9, 89.1, 92.7, 87.3, 90 };
	j = judge(a10, 10, b10, 10, true, 5, false);
	assert_int_equal(j.dropped_b, 1);
	assert_int_equal(j.outcome, JUDGE_REGRESSION);
	/* the rule before kept it: within noise */
	struct judge_rule before = { .threshold_pct = 5, .outliers = JUDGE_OUTLIERS_K_BY_N };
	judge_samples(a, 5, b, 5, true, &before, &j);
	assert_int_equal(j.dropped_b, 0);
	assert_int_equal(j.outcome, JUDGE_NOISE);
}

/* ---- the simulation --------------------------------------------------- */

/* The outlier rule adds no false alarms: on clean data (no change) it flags
 * at most what the untrimmed test flags, plus TRIM_TOLERANCE pairs of
 * PAIRS (0.1 percentage point; the same draws for both, so only the pairs
 * it trimmed differ), in every cell of docs/compare.md's table. The rule
 * before (k by n) is measured beside it for that table. */
#define TRIM_TOLERANCE 4

static void test_sim_trimming_adds_no_false_alarms(void **state)
{
	const struct model models[] = { { GAUSS, 0.05 }, { UNIFORM, 0.05 }, { LOGNORMAL, 0.05 } };
	static const size_t ns[] = { 2, 3, 5, 10, 20 };
	bool ok = true;
	for (size_t i = 0; i < 3; i++) {
		for (size_t k = 0; k < 5; k++) {
			double trimmed = flagged_by(&models[i], 1.0, ns[k], NO_OUTLIER, JUDGE_OUTLIERS_DROP);
			double whole = flagged_by(&models[i], 1.0, ns[k], NO_OUTLIER, JUDGE_OUTLIERS_KEEP);
			if (getenv("ORCH_JUDGE_SIM"))
				flagged_by(&models[i], 1.0, ns[k], NO_OUTLIER, JUDGE_OUTLIERS_K_BY_N);
			if (trimmed * PAIRS > whole * PAIRS + TRIM_TOLERANCE + 0.5) {
				printf("%s 5%%, n=%zu: %.2f%% flagged, untrimmed %.2f%%\n",
				       noise_names[models[i].noise], ns[k], trimmed * 100, whole * 100);
				ok = false;
			}
			assert_true(trimmed <= 0.01);
		}
	}
	assert_true(ok);
}

/* One sample 40% above the rest does not hide a 10% drop (normal noise of
 * SD 2.5%), at n=5 and n=10; the rule before kept it at n=5. */
static void test_sim_wild_sample(void **state)
{
	const struct model m = { GAUSS, 0.025 };
	assert_true(flagged(&m, 0.9, 5, B_WILD40) >= 0.90);
	assert_true(flagged(&m, 0.9, 10, B_WILD40) >= 0.90);
	assert_true(flagged(&m, 1.0, 5, B_WILD40) <= 0.01);
	if (getenv("ORCH_JUDGE_SIM")) {
		flagged_by(&m, 0.9, 5, B_WILD40, JUDGE_OUTLIERS_K_BY_N);
		flagged_by(&m, 0.9, 5, B_WILD40, JUDGE_OUTLIERS_KEEP);
	}
}

static void test_sim_targets(void **state)
{
	/* "5% noise" read as samples within +-5% of the true value (uniform),
	 * or a normal whose 95% range is +-5% (SD 2.5%) */
	const struct model models[] = { { UNIFORM, 0.05 }, { GAUSS, 0.025 } };
	for (size_t i = 0; i < 2; i++) {
		const struct model *m = &models[i];
		assert_true(flagged(m, 1.0, 5, NO_OUTLIER) <= 0.01);
		assert_true(flagged(m, 0.9, 5, NO_OUTLIER) >= 0.90);
		/* a wild sample (150) neither hides a change nor makes one */
		assert_true(flagged(m, 0.8, 5, B_HIGH) >= 0.90);
		assert_true(flagged(m, 1.0, 5, B_HIGH) <= 0.01);
		/* a sample at the other side's level is ordinary noise for 5
		 * samples; 10 tell it from the rest */
		assert_true(flagged(m, 0.8, 10, B_AT_A_LEVEL) >= 0.90);
		assert_true(flagged(m, 0.8, 10, A_LOW) >= 0.90);
	}
}

static void test_sim_false_alarms(void **state)
{
	/* no change: at most 1% flagged whatever the noise and n */
	static const double levels[] = { 0.01, 0.025, 0.05, 0.1, 0.2 };
	static const size_t ns[] = { 2, 3, 5, 10, 20 };
	for (size_t l = 0; l < 5; l++) {
		const struct model m = { GAUSS, levels[l] };
		for (size_t k = 0; k < 5; k++)
			assert_true(flagged(&m, 1.0, ns[k], NO_OUTLIER) <= 0.01);
	}
}

static void test_sim_power_grows(void **state)
{
	/* SD 5%: at n=5 no test with 1% false alarms passes 80% power (the
	 * Neyman-Pearson bound); more samples buy it back */
	const struct model m = { GAUSS, 0.05 };
	double prev = 0;
	static const size_t ns[] = { 3, 5, 8, 10, 20 };
	for (size_t k = 0; k < 5; k++) {
		double r = flagged(&m, 0.9, ns[k], NO_OUTLIER);
		assert_true(r >= prev);
		prev = r;
	}
	assert_true(flagged(&m, 0.9, 10, NO_OUTLIER) >= 0.80);
	assert_true(flagged(&m, 0.9, 20, NO_OUTLIER) >= 0.95);
}

TS_MAIN(NULL, NULL, test_t_distribution, test_single_samples, test_threshold_boundary,
	test_direction_and_evidence, test_outlier_cannot_hide,
	test_quantized_sides_keep_their_spread, test_ordinary_sample_kept, test_wild_sample_dropped,
	test_sim_trimming_adds_no_false_alarms, test_sim_wild_sample, test_sim_targets,
	test_sim_false_alarms, test_sim_power_grows)
