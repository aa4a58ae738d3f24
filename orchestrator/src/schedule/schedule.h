#ifndef ORCH_SCHEDULE_SCHEDULE_H
#define ORCH_SCHEDULE_SCHEDULE_H
/*
 * The scheduler: runs a plan with up to `jobs` boards at once. It owns one
 * board link per inventory board for the whole run (link/board_link.h: the
 * board's session, console, power and background connections), released
 * only after every worker ended, so nothing the run opened or started
 * outlives it. Each board's tests run in order on one worker, through its
 * link; a board's trouble
 * (unreachable, a test that fails) never stops the other boards. A board
 * that holds a fixed role of a multi-host test (the iperf3 server) serves
 * one client at a time, and not while it runs a test of its own: every item
 * locks its own board and its role boards first.
 * After every item the result is stored (a journal line, result.json), so
 * an interrupted or killed run keeps everything that finished. On Ctrl-C the running
 * items stop their commands and the rest are recorded as skipped.
 */
#include <stdbool.h>

#include "plan/claims.h"
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

/*
 * Optional: a board's health state shared with every controller (board
 * health, docs/orch-inventory.5.md health:). offline: 1 with the reason
 * (and since_us, 0 unknown) when the board is offline, else 0; its items
 * then end as skip "board offline (REASON)" and it is not contacted.
 * set_offline: the board failed a health check, or had its offline_after
 * infrastructure errors in a row. count: after each of the board's
 * results when it has offline_after, one more infrastructure error (infra)
 * or any other result; the errors in a row after it (-1: unknown).
 * Called unserialized, from worker threads.
 */
struct schedule_health {
	int (*offline)(void *ctx, const struct board *b, char *reason, size_t len,
		       int64_t *since_us);
	void (*set_offline)(void *ctx, const struct board *b, const char *reason);
	int (*count)(void *ctx, const struct board *b, bool infra);
	void *ctx;
};

struct schedule_options {
	int jobs;                      /* boards at once; <= 0: all (capped) */
	const char *bench_dir;         /* remote-bench binaries */
	const char *inventory_dir;     /* power commands run there */
	const struct inventory *inventory;
	struct schedule_hooks hooks;
	struct plan_claims claims;      /* plan/claims.h */
	/* gather each board's facts at its first connection (into run->facts) */
	bool gather_facts;
	const struct fact_spec *facts;   /* the scenario's facts: */
	size_t n_facts;
	/* --max-fail N (-x: 1): after N tests failed or errored no new test
	 * starts; the rest end as skip saying so. 0: no limit. */
	int max_fail;
	struct schedule_health health;
};

#define SCHEDULE_MAX_JOBS 64

/* Runs every item of p, appending results to run and storing each. Returns
 * 0, or -1 when results could not be stored (err says why). */
int schedule_run(const struct plan *p, struct store *st, struct run_result *run,
		 const struct schedule_options *opts, char *err, size_t errlen);

#endif
