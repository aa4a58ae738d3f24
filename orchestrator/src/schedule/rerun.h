#ifndef ORCH_SCHEDULE_RERUN_H
#define ORCH_SCHEDULE_RERUN_H
/*
 * Rerunning what failed (orch run --rerun RUN_DIR --only failed|error|both):
 * the board x test pairs of an earlier run folder whose result is wanted
 * again, and a plan cut down to them. "failed" is a test's fault (status
 * fail, or regressed against the baseline); "error" the infrastructure's
 * (status error, or a skip because the board was offline); "both" either.
 */
#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"

enum rerun_only { RERUN_BOTH = 0, RERUN_FAILED, RERUN_ERROR };

/* "both", "failed", "error" <-> the enum; parse returns 0 or -1. */
const char *rerun_only_name(enum rerun_only only);
int rerun_only_parse(const char *name, enum rerun_only *only);

struct rerun_pair {
	char *board;
	char *test;
};

struct rerun_set {
	char *run_dir;            /* the folder read, as given */
	struct rerun_pair *pairs;
	size_t n;
	size_t n_results;         /* results the folder held */
};

/* Reads RUN_DIR/results.json and keeps the pairs only selects. 0, or -1
 * with the reason in err (not a run folder, unreadable). */
int rerun_load(const char *run_dir, enum rerun_only only, struct rerun_set *set, char *err,
	       size_t errlen);
void rerun_set_release(struct rerun_set *set);

/* Cuts p down to the pairs of set (boards left with no item are dropped);
 * the pairs the plan does not have (a test or board since removed, or
 * outside -l/-t) are counted in *missing (may be NULL). */
void rerun_filter_plan(struct plan *p, const struct rerun_set *set, size_t *missing);

#endif
