#ifndef ORCH_SCHEDULE_SCHEDULE_H
#define ORCH_SCHEDULE_SCHEDULE_H
/*
 * The scheduler: runs a plan with up to `jobs` boards at once. Each board's
 * tests run in order on one worker, over one connection; a board's trouble
 * (unreachable, a test that fails) never stops the other boards. A board
 * that holds a fixed role of a multi-host test (the iperf3 server) serves
 * one client at a time, and not while it runs a test of its own: every item
 * locks its own board and its role boards first.
 * After every item the result is stored (result.json, results.json), so an
 * interrupted run keeps everything that finished. On Ctrl-C the running
 * items stop their commands and the rest are recorded as skipped.
 */
#include <stdbool.h>

#include "plan/plan.h"
#include "result/result.h"
#include "store/store.h"

struct schedule_hooks {
	/* Called (serialized) when an item starts and when it has a result. */
	void (*item_started)(void *ctx, const struct plan_item *item);
	void (*item_finished)(void *ctx, const struct plan_item *item, const struct test_result *tr);
	/* Called (serialized) about once a second while the run goes on. */
	void (*tick)(void *ctx);
	void *ctx;
};

struct schedule_options {
	int jobs;                      /* boards at once; <= 0: all (capped) */
	const char *bench_dir;         /* remote-bench binaries */
	const char *inventory_dir;     /* power commands run there */
	const struct inventory *inventory;
	struct schedule_hooks hooks;
};

#define SCHEDULE_MAX_JOBS 64

/* Runs every item of p, appending results to run and storing each. Returns
 * 0, or -1 when results could not be stored (err says why). */
int schedule_run(const struct plan *p, struct store *st, struct run_result *run,
		 const struct schedule_options *opts, char *err, size_t errlen);

#endif
