#ifndef ORCH_HISTORY_HISTORY_FOLD_H
#define ORCH_HISTORY_HISTORY_FOLD_H
/*
 * orch history at rack scale: the series of one test x metric folded over
 * the boards that measured it into one row, which the text and the page
 * both show (neither computes it again): the boards as a node set, the
 * median of their last values, the range of every value shown, the last
 * run's change across the boards, and the boards that differ, in words:
 * each step the judge found with the boards that have it ("b[10-13]:
 * 19.6% to 20.4% lower since v6 (5 runs), not acknowledged"), each
 * accepted change with its boards, and the boards whose last value is far
 * from the others' ("low b17 902 MB/s").
 */
#include <stdbool.h>
#include <stddef.h>

#include "history/history.h"

/* One run of a folded row: its figure on each board that ran it. */
struct history_fold_run {
	const struct history_point *p;   /* the first board's point of this run */
	double median, lo, hi;           /* across those boards */
	size_t n;                        /* boards */
};

struct history_fold_row {
	const char *test, *metric, *unit;        /* borrowed from the series */
	bool higher_is_better;
	const struct history_series **series;    /* the boards', natural order */
	size_t n;
	char *boards;                            /* node set: "b[1-64]" */
	size_t runs_lo, runs_hi;                 /* runs shown per board */
	const struct history_point *first, *last;/* the earliest shown, the latest */
	double median;                           /* of the boards' last values */
	double lo, hi;                           /* of every value shown */
	double change_lo, change_hi;             /* the last run's change against the one
						    before, percent, across boards; NAN: none */
	char *differ;                            /* the boards that differ in words, or NULL */
	struct history_fold_run *runs;           /* the runs shown, oldest first */
	size_t n_runs;
};

/* Folds s[0..n) (series as history_load gives them, shown_from set) by
 * test x metric x unit, in natural order of test and metric, each judged
 * with w. *out (history_fold_free) and *n_out. */
void history_fold(const struct history_series *s, size_t n, const struct history_walk_opts *w,
		  struct history_fold_row **out, size_t *n_out);
void history_fold_free(struct history_fold_row *rows, size_t n);

#endif
