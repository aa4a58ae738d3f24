#ifndef ORCH_REPORT_SUMMARY_INT_H
#define ORCH_REPORT_SUMMARY_INT_H
/*
 * The parts of the bounded summary (report_summary.c), internal to the
 * report module: each appends its lines (none when it has nothing to say)
 * for a run whose test names and boards are listed once, in natural order.
 */
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct strbuf;

struct summary_run {
	const struct run_result *run;
	const char *run_dir;       /* may be NULL: no log is read */
	const char **tests;        /* distinct, natural order, borrowed */
	size_t n_tests;
	const char **boards;
	size_t n_boards;
};

void summary_run_init(struct summary_run *s, const struct run_result *run, const char *run_dir);
void summary_run_release(struct summary_run *s);
/* names folded as a node set, cleaned for a terminal; caller frees. */
char *summary_fold_names(const char *const *names, size_t n);

/* A line per test x metric across its boards (report_summary_metrics.c). */
void summary_metrics(struct strbuf *sb, const struct summary_run *s, bool color);
/* Implementation, warnings, missing metrics, offline boards: each distinct
 * line once with the boards it applies to (report_summary_notes.c). */
void summary_notes(struct strbuf *sb, const struct summary_run *s, bool color);

#endif
