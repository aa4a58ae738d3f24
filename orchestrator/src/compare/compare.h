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
 * Verdicts come from judge.h (the decision rule, with its error rates in
 * docs/compare.md): B's samples against A's, Welch's t-test at alpha on
 * the log of the samples, outliers dropped, AND the change of the medians
 * beyond the threshold. A metric or phase with one sample on a side is
 * "not judged" unless the rule says judge_single. Boot phases are one
 * sample per run.
 * When A and B give a metric in different units of one family (MiB/s and
 * Mbit/s, s and ms, kB and KiB), B is converted into A's unit and the words
 * say so; units that do not convert make the row "unit changed", counted
 * apart from status changes. When the sides disagree on which way is
 * better, B's (the newer file) is used. orch's own figures (ssh.push of
 * older runs, link.*: metric_is_orch_own) are not the board's and are left
 * out.
 * Status rows: pass -> fail is a regression, fail/error -> pass is better,
 * any other change (pass -> error: infrastructure, pass -> skip, ...) is
 * "changed" and not a regression.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "compare/judge.h"
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
	COMPARE_NOISE,            /* changed, but not beyond the runs' noise */
	COMPARE_BETTER,
	COMPARE_WORSE,            /* worse, within the threshold */
	COMPARE_REGRESSION,
	COMPARE_CHANGED,          /* a status change that is neither better nor worse */
	COMPARE_ONLY_A,
	COMPARE_ONLY_B,
	COMPARE_NOT_JUDGED,       /* one sample on a side: no spread to judge against */
	COMPARE_UNIT_CHANGED,     /* the units do not convert into each other */
};

/* One side of a metric or phase row. */
struct compare_side {
	bool present;
	double median;            /* the value compared; a phase's duration_s */
	double min;
	double max;
	double stddev;
	size_t n;                 /* samples (1 for a phase) */
	double *samples;          /* n values, in A's unit for both sides */
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
	struct judgement judged;  /* the evidence (metric and phase rows with both sides) */
	char *unit_b;             /* B's unit when it differed from A's, else NULL */
	enum result_status status_a;   /* status rows (and test rows: the present side) */
	enum result_status status_b;
	char *words;              /* "2.9% faster", "0.7% slower, within noise", "only in A" */
};

struct compare_result {
	struct judge_rule rule;
	double threshold_pct;     /* rule.threshold_pct */
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
	size_t n_not_judged;
	size_t n_unit_changed;
};

/*
 * Compares every board x test of a and b into out (which the caller
 * releases with compare_result_release). Rows in natural order of board,
 * then test (b2 before b10), whichever side has them; a board x test's rows
 * as its status, metrics (A's order, then B's own) and phases. Returns the
 * number of regressions.
 */
size_t compare_runs(const struct run_result *a, const struct run_result *b,
		    const struct judge_rule *rule, struct compare_result *out);
void compare_result_release(struct compare_result *cr);

/* "regression", "better", "noise", "only in A", ... */
const char *compare_verdict_name(enum compare_verdict v);
/* Whether a change of a metric in unit is told as "faster"/"slower" (a
 * rate better higher, a time better lower) rather than "higher (better)". */
bool compare_unit_is_speed(const char *unit, bool higher_is_better);
/* A change in percent as the words show it: one decimal, more when that
 * would hide that the change is beyond the threshold ("5.03%", not "5.0%"). */
struct strbuf;
void compare_put_pct(struct strbuf *sb, double pct, bool beyond, double threshold_pct);
/* Whether a row is a change worth showing with --only-changes (not same/noise). */
bool compare_row_is_change(const struct compare_row *row);

/*
 * The table for people: one line per row (only changes when only_changes),
 * then a one-line tally. ANSI colour when color. Caller frees.
 */
char *compare_format_table(const struct compare_result *cr, bool only_changes, bool color);
/* The same as JUnit XML (junit-10 structure): a testsuite per board, a
 * testcase per row, a regression a <failure>, a row not judged or on one
 * side only <skipped>. NAME_A and NAME_B name the runs; WHEN_US (wall
 * clock, microseconds) is the suites' timestamp. Caller frees. */
/* The testsuites of a comparison, one per board named BOARD SUFFIX (suffix
 * may be NULL), appended to sb: what compare_format_junit() and the N-run
 * JUnit (compare/compare_multi.h) put in their <testsuites>. */
struct strbuf;
void compare_junit_suites(struct strbuf *sb, const struct compare_result *cr, const char *suffix,
			  const char *stamp);
char *compare_format_junit(const struct compare_result *cr, const char *name_a,
			   const char *name_b, int64_t when_us);
/*
 * The words before the table (summary.c): "LABEL_B vs LABEL_A" (labels, or
 * run ids), one executive line per metric across boards ("iperf.tput:
 * v0.0.20180202 ranges from 0.7% slower (apu2) to 2.9% faster (alix) than
 * v0.0.20171211, over 3 boards"), with metrics measured once on a side
 * flagged as not judged; then the boards' facts that changed between the
 * runs, and orch's own figures (metric_is_orch_own) apart. With
 * only_changes, metrics with no change on any board are left out. Caller
 * frees.
 */
char *compare_format_summary(const struct compare_result *cr, const struct run_result *a,
			     const struct run_result *b, bool only_changes);
/* The same as JSON (new reference; caller decrefs). */
json_t *compare_to_json(const struct compare_result *cr, bool only_changes);

/*
 * Baselines. Compares run against baseline (same board x test) and marks
 * each test result with at least one regressed metric or phase: regressed =
 * true, status FAIL if it was PASS, and comparison = "mem.memcpy 12.0%
 * slower than baseline (25.6 -> 22.5 MiB/s)" (several joined with "; ");
 * message is left alone (reports show comparison beside it). Metrics and
 * phases left unjudged (one sample on a side) are named in comparison
 * too ("not judged (one sample a side): cpu.loop, phase kernel") without
 * marking the result. Only pass and fail results are looked at. Returns the
 * number of test results marked regressed.
 */
int compare_apply_baseline(struct run_result *run, const struct run_result *baseline,
			   const struct judge_rule *rule);

/*
 * The evidence of judgement j into v (released first): the baseline's
 * median converted from baseline_unit into unit (the run's metric's), the
 * threshold, p, the method and, when not judged, the reason. compare and
 * the history judge fill results.json's per-metric "verdict" with it.
 */
void compare_set_verdict(struct metric_verdict *v, const struct judgement *j,
			 const char *baseline_unit, const char *unit);

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
