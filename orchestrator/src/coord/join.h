#ifndef ORCH_COORD_JOIN_H
#define ORCH_COORD_JOIN_H
/*
 * One run spread over several controllers (orch run --db URL --join NAME).
 * The first controller to join queues the plan in PostgreSQL, once: one
 * unit per board (its tests run in order, so a board's order holds) and
 * one item per board x test. Every controller claims the next queued unit
 * it may take (the inventory's `controllers:`), with FOR UPDATE SKIP
 * LOCKED, so fast controllers take more. A claim names the claimer's
 * database session; a unit whose session is gone (the controller died) is
 * queued again and its unfinished tests run elsewhere, marked retried. A
 * result is recorded once (with the test's log files) when it finishes.
 * When every unit is done the last controller to finish merges: it reads
 * every result back, has the store write the logs of the others' tests into
 * its own run folder, ends the run through the finish stage (as orch run
 * does), and publishes the run's exit code, which every controller then
 * exits with.
 */
#include <stdbool.h>
#include <stdint.h>

#include "coord/db.h"
#include "coord/run_locks.h"
#include "plan/claims.h"
#include "plan/plan.h"
#include "result/result.h"

struct store;

struct join;

/* Boards a joined controller runs at once unless -j says otherwise: few, so
 * that the queue is shared out by speed instead of all taken at the start. */
#define JOIN_DEFAULT_JOBS 2
/* How long a joined controller waits for a role board (the server of a
 * multi-host test) that another controller's test is using, at least. */
#define JOIN_ROLE_WAIT_MS (60 * 60 * 1000)

struct join_options {
	const char *name;              /* --join NAME: the same on every controller */
	const char *controller;        /* this controller's name (hostname by default) */
	bool name_given;               /* --controller: else a second controller of
					  the same host becomes HOST-2, HOST-3... */
	const char *folder;            /* this controller's run folder */
	int64_t join_wait_ms;          /* how long a board may wait for a controller
					  that may take it to join */
};

#define JOIN_EDB (-1)              /* the database failed: err says why */
#define JOIN_EUSAGE (-2)           /* a different plan, or the name is taken */

/* Joins (or starts) run o->name for plan. 0 and *out (join_free), or
 * JOIN_EDB / JOIN_EUSAGE with err. */
int join_open(struct coord_db *db, const struct plan *p, const char *scenario,
	      const struct join_options *o, struct join **out, char *err, size_t errlen);

/* The scheduler's claims: units from the queue, boards held through h
 * (board locks still apply: another run or a reservation is not a joined
 * controller), results recorded as they finish. */
void join_schedule_claims(struct join *j, struct run_locks *h, struct plan_claims *cl);

enum join_state {
	JOIN_MORE,          /* there are units to claim again: schedule once more */
	JOIN_MERGE,         /* everything is done and this controller merges */
	JOIN_DONE,          /* another controller merged: *exit_code is the run's */
	JOIN_INTERRUPTED,   /* Ctrl-C while waiting */
	JOIN_FAILED,        /* the database failed: err says why */
};

/* After a schedule round: waits until there is work again or the run is
 * complete (every unit done); meanwhile queues again the units of lost
 * controllers and gives up on boards no live controller may take once
 * join_wait_ms have passed since the run began (their tests: error). */
enum join_state join_wait(struct join *j, int *exit_code, char *err, size_t errlen);

/* The merger: every result of the run into merged (appended, in plan
 * order), the logs of tests that ran elsewhere written into st's folder
 * by the store (BOARD/TEST/, as it names them). 0, or -1 with err. */
int join_collect(struct join *j, struct store *st, struct run_result *merged, char *err,
		 size_t errlen);
/* The merger publishes the run's exit code and where the merged folder is. */
int join_publish(struct join *j, int exit_code, const char *folder, char *err, size_t errlen);
/* Where the merged folder is ("HOST:PATH" of the merger; caller frees), or NULL. */
char *join_merged_folder(struct join *j);
/* This controller's name in the run (HOST-2 when HOST was taken). */
const char *join_controller_name(const struct join *j);
/* The controllers that took part, comma-separated (caller frees). */
char *join_controllers(struct join *j);
void join_free(struct join *j);

#endif
