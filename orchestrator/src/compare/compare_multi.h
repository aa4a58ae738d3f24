#ifndef ORCH_COMPARE_COMPARE_MULTI_H
#define ORCH_COMPARE_COMPARE_MULTI_H
/*
 * N runs side by side (orch compare RUN1 RUN2 RUN3 ...): the first run is
 * the reference, every other run is compared with it by compare_runs()
 * (the one judge), and the rows of all the comparisons are joined by
 * board x test x metric: one column per run, labelled by the run's name,
 * each later column with its change against the first and its verdict.
 * Rendered as a table, JSON, JUnit or a self-contained HTML page.
 */
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "compare/compare.h"

struct compare_multi_row {
	enum compare_kind kind;
	const char *board, *test, *name, *unit;   /* borrowed from the rows */
	const struct compare_row **cells;         /* n_runs - 1: the row of comparison k, or NULL */
	size_t order;
};

struct compare_multi {
	size_t n_runs;
	const struct run_result *runs;            /* borrowed, n_runs */
	struct compare_result *crs;               /* n_runs - 1: runs[k + 1] against runs[0] */
	struct compare_multi_row *rows;
	size_t n_rows;
	size_t n_regressions;
};

/* Compares runs[1..n-1] with runs[0] (n >= 2) into m; release with
 * compare_multi_release(). */
void compare_multi_run(const struct run_result *runs, size_t n, const struct judge_rule *rule,
		       struct compare_multi *m);
void compare_multi_release(struct compare_multi *m);

/* The renderings (caller frees / decrefs). only_changes leaves out rows
 * with no change beyond noise in any column. */
char *compare_multi_table(const struct compare_multi *m, bool only_changes, bool color);
json_t *compare_multi_json(const struct compare_multi *m, const char *const *paths,
			   bool only_changes);
char *compare_multi_junit(const struct compare_multi *m);
char *compare_multi_html(const struct compare_multi *m, const char *const *paths,
			 bool only_changes);

#endif
