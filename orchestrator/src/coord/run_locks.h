#ifndef ORCH_COORD_RUN_LOCKS_H
#define ORCH_COORD_RUN_LOCKS_H
/*
 * The boards a run holds: the lock folder's flock (always) plus the
 * database's advisory lock (when there is a database), counted per board
 * so a board several workers use (an iperf3 server) is locked once. A
 * board that is held makes run_locks_acquire wait up to wait_ms, polling; Ctrl-C
 * ends the wait. The board lock is always taken before anything on the
 * board (its console, its ssh session) is opened.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord/db.h"
#include "plan/claims.h"

struct run_locks;

/* note: says what this run is (shown by orch who); db may be NULL. A held
 * board is waited for wait_ms, a role board (a test's server, which other
 * controllers of a joined run take turns on) role_wait_ms. Returns the set
 * (run_locks_free) or NULL with err (no usable lock folder). */
struct run_locks *run_locks_new(const char *note, int64_t wait_ms, int64_t role_wait_ms,
		      struct coord_db *db, char *err, size_t errlen);
/* Takes every board of boards, all or none. 0, or BOARD_LOCK_HELD with the
 * holder named in msg ("board rpi1 is held by alice@lab1 pid 42 since ...")
 * after waiting, or BOARD_LOCK_ERROR with why in msg. */
int run_locks_acquire(struct run_locks *h, const char *const *boards, size_t n, bool role, char *msg,
		 size_t msglen);
void run_locks_release(struct run_locks *h, const char *const *boards, size_t n);
/* Whether board (taken by run_locks_acquire) is still held: false, with
 * "board NAME lost its database lock: ..." in why, once its database lock
 * was lost (coord_db_board_held); the flock cannot be lost. */
bool run_locks_held(struct run_locks *h, const char *board, char *why, size_t len);
/* The board tokens (space-separated) of runs that died holding board, as
 * run_locks_acquire found them in the lock folder and the database, and
 * who those runs were ("alice@lab1 pid 42 since ... (local)"): true once,
 * after the acquire that found them; false when there were none. The
 * processes carrying them are to be stopped before board is used. */
bool run_locks_orphans(struct run_locks *h, const char *board, char *tokens, size_t tlen,
		       char *from, size_t flen);
/* Sets the scheduler's acquire/release/held/orphans to run_locks_acquire/
 * run_locks_release/run_locks_held/run_locks_orphans on h. */
void run_locks_schedule_claims(struct run_locks *h, struct plan_claims *cl);
/* Releases everything still held; accepts NULL. */
void run_locks_free(struct run_locks *h);

#endif
