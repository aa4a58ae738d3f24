#ifndef ORCH_PLAN_PREFLIGHT_H
#define ORCH_PLAN_PREFLIGHT_H
/*
 * What orch validate, --dry-run and orch run check against this machine's
 * files before anything is contacted, for the boards and tests the plan
 * runs: the boards' identity files exist, and every bench: program exists
 * in the bench folder (with a did-you-mean). The plan itself stays pure;
 * this is the one place that looks at the file system for it.
 */
#include "plan/plan.h"
#include "util/diag.h"

/* Adds every problem, at the place it was written, to diags. bench_dir:
 * the bench folder in use (not checked when it is not a folder). Returns
 * 0, or -1 when it added any. */
int plan_preflight(const struct scenario *sc, const struct plan *plan, const char *bench_dir,
		   struct diag_list *diags);

#endif
