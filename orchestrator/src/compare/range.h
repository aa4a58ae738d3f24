#ifndef ORCH_COMPARE_RANGE_H
#define ORCH_COMPARE_RANGE_H
/*
 * The verdict in words, as every output of a run and orch compare say it:
 * per metric its change against the baseline ("-12.0% regression",
 * "+3.1% not judged: one sample"), and one range line per test x metric
 * over the boards ("memory.mem.memcpy: v2 ranges from 17.0% slower
 * (client3) to 31.1% faster (client2) than v1 over 6 boards"). The words
 * are made here only: summary.txt, report.html, junit.xml and orch compare
 * call these functions. They read the change each metric carries
 * (metric_result.change / change_pct, set by the judge against a baseline
 * run or the history), never judge themselves.
 */
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct strbuf;

/* One board's change of a metric, what a range line is made of. */
struct range_entry {
	const char *board;
	double change_pct;         /* (B - A) / |A| * 100; NAN when unknown */
	enum metric_change change; /* never METRIC_CHANGE_NONE */
	bool beyond;               /* beyond the threshold (more digits when it would read as it) */
	const char *reason;        /* why not judged ("2 earlier runs, needs 3"); NULL: one sample */
};

/* What a range line is about: test x metric, its direction and the names
 * of the two sides. unit_changed counts boards where it did not convert. */
struct range_subject {
	const char *test;
	const char *metric;        /* "mem.memcpy", "phase:kernel" shown as " phase kernel" */
	bool phase;
	const char *unit;
	bool higher_is_better;
	const char *name_a, *name_b;
	double threshold_pct;      /* NAN: unknown */
	size_t unit_changed;
};

/* Appends the range line (no indent, no newline) for n >= 0 entries of one
 * metric: "TEST.METRIC: B is 12.0% slower than A on b1" ("B is the same as
 * A on b1", "B shows no change against A on b1" when a change of 0 was not
 * judged the same), "... ranges from
 * ... over N boards", then "; regression on K boards", "; not judged: one
 * sample on M boards" (their % still in the range), "; unit changed on U
 * boards, not compared". Nothing when n == 0 and no unit change. */
void range_line_put(struct strbuf *sb, const struct range_subject *s,
		    const struct range_entry *e, size_t n);

/* The names two sides go by in words: a and b themselves, or when they
 * are equal (two runs with the same label) "run A (label X)" and "run B
 * (label X)", so no line reads "X is 2.6% slower than X". Caller frees
 * both. */
void range_side_names(const char *a, const char *b, char **out_a, char **out_b);

/* Appends a metric's change against the baseline: "-12.0% regression",
 * "+7.5% better", "+0.4% within noise", "0.0% no change", "-3.0% worse",
 * "+3.1% not judged: one sample"; nothing when it has no baseline value.
 * threshold_pct may be NAN. */
void range_metric_change(struct strbuf *sb, const struct metric_result *m,
			 double threshold_pct);
/* Appends the evidence of a metric's verdict when there is some:
 * " (baseline 29.1 MiB/s, threshold 5%, p 0.0021, accepted at RUN: NOTE)". */
void range_metric_evidence(struct strbuf *sb, const struct metric_result *m);
/* The CSS class of a change: "better", "worse", "noise" or "" (none). */
const char *range_change_class(enum metric_change c);

/* The history a metric was judged against, in words: "the last 10 runs"
 * ("the last run"), or, when its level starts at an acknowledged change
 * (orch history ack) of run ack_run, "the 4 runs since the acknowledged
 * change of ACK_RUN". Every output and the judge's own text take it from
 * here. Caller frees. */
char *range_history_name(size_t n_runs, const char *ack_run);
/* The same for a run of a step that began earlier, at run `before`: the
 * level before it, "the 6 runs before v5" (before NULL: range_history_name). */
char *range_history_name_before(size_t n_runs, const char *ack_run, const char *before);

/* A step against the history in words, as the run's every output and orch
 * history say it: "20.0% lower since v0.0.20180106 (4 runs), not
 * acknowledged" (change_pct: the level now against the level before it;
 * since: the label or id of its first run; runs: its runs so far), or
 * "..., the new normal from now on" once it settled. */
void range_step_put(struct strbuf *sb, double change_pct, const char *since, size_t runs,
		    bool settled, double threshold_pct);
/* The same step on several boards whose changes span lo_pct..hi_pct (one
 * direction): "19.6% to 20.4% lower since v5 (4 runs), not acknowledged";
 * one figure when both read the same. */
void range_step_span_put(struct strbuf *sb, double lo_pct, double hi_pct, const char *since,
			 size_t runs, bool settled, double threshold_pct);

/* The name the run's baseline goes by in words: run->baseline_name (the
 * baseline run's label or id, "the last 10 runs"), else "the history" or the
 * baseline run folder's last component, else "the baseline". */
const char *range_baseline_name(const struct run_result *run);

/* The range lines of a run against its baseline: one per test x metric
 * that carries a change on some board (orch's own figures left out), in
 * order of first appearance. Computed once per output (sorting, not a
 * scan per line: a night has thousands of results). */
struct range_line {
	char *test, *metric;
	char *text;                /* the sentence, as range_line_put() writes it */
	size_t order;
};
struct range_lines {
	struct range_line *lines;
	size_t n;
};
void range_lines_of_run(const struct run_result *run, struct range_lines *out);
void range_lines_release(struct range_lines *l);
/* Appends each line (of only_test's, when not NULL) as INDENT TEXT '\n';
 * returns how many. */
size_t range_lines_put(struct strbuf *sb, const struct range_lines *l, const char *only_test,
		       const char *indent);

#endif
