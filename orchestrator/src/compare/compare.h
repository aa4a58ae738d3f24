#ifndef ORCH_COMPARE_COMPARE_H
#define ORCH_COMPARE_COMPARE_H
/*
 * compare: two runs, A (old) and B (new), side by side. For every board x
 * test present in either run it lists each metric (median of the samples),
 * each boot phase (duration_s, lower is better) and a status change
 * (pass -> fail), and says in words what changed. Boards, tests, metrics and
 * phases present on one side only are listed as "only in A" / "only in B",
 * never dropped. It reads only the result model.
 *
 * Words. The percentage is always the size of the change relative to A,
 * |B - A| / |A| * 100 (so a time that halves is "50.0% faster").
 *   - "faster" / "slower" when the metric is a rate that is better higher
 *     (unit ending in "/s", like "MiB/s", "Mbit/s", "ops/s") or a duration
 *     that is better lower (unit "s", "ms", "us", "ns", "min"); boot
 *     phases are durations.
 *   - otherwise "higher (better)", "lower (worse)", "higher (worse)", ...
 *   - "no change" when the medians are equal.
 *
 * Verdicts, in order of precedence:
 *   - within noise: the change is no larger than the runs' own spread. With
 *     at least one side repeated (2+ samples), a change is noise when
 *     |B - A| <= 2 * sqrt(sA^2 + sB^2) (sample standard deviations) or the
 *     [min, max] ranges of the two sides overlap. With a single sample on
 *     each side the spread is unknown and only the threshold applies.
 *   - regression: worse, outside noise, and more than threshold_pct percent
 *     (a change from 0 counts as beyond any threshold).
 *   - worse / better: outside noise; worse but within the threshold is not a
 *     regression.
 * When A and B give a metric in different units of one family (MiB/s and
 * Mbit/s, s and ms), B is converted into A's unit; units that do not
 * convert make the row "changed" ("unit changed (MiB/s -> ops/s)").
 * Status rows: pass -> fail is a regression, fail/error -> pass is better,
 * any other change (pass -> error: infrastructure, pass -> skip, ...) is
 * "changed" and not a regression.
 */
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "result/result.h"

#define COMPARE_DEFAULT_THRESHOLD_PCT 5.0

enum compare_kind {
	COMPARE_KIND_TEST = 0,    /* a whole board x test on one side only */
	COMPARE_KIND_STATUS,      /* the test's status changed */
	COMPARE_KIND_METRIC,
	COMPARE_KIND_PHASE,
};

enum compare_verdict {
	COMPARE_SAME = 0,         /* equal medians */
	COMPARE_NOISE,            /* changed, but within the runs' spread */
	COMPARE_BETTER,
	COMPARE_WORSE,            /* worse, within the threshold */
	COMPARE_REGRESSION,
	COMPARE_CHANGED,          /* a status change that is neither better nor worse */
	COMPARE_ONLY_A,
	COMPARE_ONLY_B,
};

/* One side of a metric or phase row. */
struct compare_side {
	bool present;
	double median;            /* the value compared; a phase's duration_s */
	double min;
	double max;
	double stddev;
	size_t n;                 /* samples (1 for a phase) */
};

struct compare_row {
	enum compare_kind kind;
	enum compare_verdict verdict;
	char *board;
	char *test;
	char *name;               /* metric or phase name; NULL for test/status rows */
	char *unit;               /* "" when unitless; "s" for phases */
	bool higher_is_better;
	struct compare_side a;
	struct compare_side b;
	double change_pct;        /* (B - A) / |A| * 100, signed; NAN when A is 0 */
	enum result_status status_a;   /* status rows (and test rows: the present side) */
	enum result_status status_b;
	char *words;              /* "2.9% faster", "0.7% slower, within noise", "only in A" */
};

struct compare_result {
	double threshold_pct;
	struct compare_row *rows;
	size_t n_rows;
	size_t cap_rows;
	/* counts over rows, by verdict */
	size_t n_regressions;
	size_t n_worse;
	size_t n_better;
	size_t n_noise;
	size_t n_same;
	size_t n_changed;
	size_t n_only_a;
	size_t n_only_b;
};

/*
 * Compares every board x test of a and b into out (which the caller
 * releases with compare_result_release). Rows follow A's order, then what
 * only B has. Returns the number of regressions.
 */
size_t compare_runs(const struct run_result *a, const struct run_result *b,
		    double threshold_pct, struct compare_result *out);
void compare_result_release(struct compare_result *cr);

/* "regression", "better", "noise", "only in A", ... */
const char *compare_verdict_name(enum compare_verdict v);
/* Whether a row is a change worth showing with --only-changes (not same/noise). */
bool compare_row_is_change(const struct compare_row *row);

/*
 * The table for people: one line per row (only changes when only_changes),
 * then a one-line tally. ANSI colour when color. Caller frees.
 */
char *compare_format_table(const struct compare_result *cr, bool only_changes, bool color);
/* The same as JSON (new reference; caller decrefs). */
json_t *compare_to_json(const struct compare_result *cr, bool only_changes);

/*
 * A number for people with four significant digits (whole numbers from
 * 1000 up), no exponent, no trailing zeros: 25.6, 102.9, 0.0123, 1235.
 * buf >= 32 bytes.
 */
void compare_format_number(double v, char *buf, size_t len);

/*
 * Baselines. Compares run against baseline (same board x test) and marks
 * each test result with at least one regressed metric or phase: regressed =
 * true, status FAIL if it was PASS, and comparison = "mem.memcpy 12.0%
 * slower than baseline (25.6 -> 22.5 MiB/s)" (several joined with "; ");
 * message is left alone (reports show comparison beside it). Only pass and
 * fail results are looked at. Returns the number of test results marked.
 */
int compare_apply_baseline(struct run_result *run, const struct run_result *baseline,
			   double threshold_pct);

/*
 * Turns a --baseline / scenario `baseline:` value into a run folder (caller
 * frees). "latest" means the latest finished run of the scenario:
 * RUNS_DIR/SCENARIO/latest when that link exists, else the newest
 * YYYYMMDD-HHMMSS[-N] folder there holding a results.json; call it before
 * the current run's folder is created. Returns NULL when "latest" finds no
 * run. Anything else is a path, returned as given.
 */
char *compare_resolve_baseline(const char *runs_dir, const char *scenario, const char *spec);

#endif
