#ifndef ORCH_PLAN_CLAIMS_H
#define ORCH_PLAN_CLAIMS_H
/*
 * The claims interface between the scheduler (schedule/, which calls it)
 * and coord/ (which implements it: run locks, joined runs). It lives below
 * both, so coord/ needs nothing of the scheduler to offer it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"

struct board_facts;
struct test_result;

/*
 * Who else may use a board, and which boards this process runs: what
 * coord/ (run locks, joined runs) gives the scheduler. Every member may
 * be NULL.
 * acquire: called by a worker before a board's first item with the board
 * itself (role false), and before each item of a multi-host test with the
 * boards of its fixed roles (role true: the iperf3 server, held only while
 * the item runs); 0, or -1 with a message (the holder) in msg: the board's
 * items, or that item, then end as error with it. release: after the
 * board's last item, or after the item, when acquire returned 0.
 * next_board: the plan board to run next (index into plan->boards), or -1
 * when there is none; default: each board once, in plan order.
 * item_wanted: false when an item is not to run here (it ran elsewhere).
 * held: false (with why) once a board acquire took is no longer held (a
 * lock lost with its database session): no item starts on it, and an item
 * that ran while it was lost ends as error with why. NULL: always held.
 * board_done: after a board from next_board ran (interrupted: Ctrl-C came
 * before all its items ran). orphans: after an acquire, true (once) with
 * the board tokens (space-separated) of runs that died holding the board
 * and who they were: the board's link stops their processes before its
 * first command (board_link_set_orphans). item_done: an item's result, once stored
 * (also an error from acquire, or a skip after Ctrl-C), with the board's
 * facts when they are new (the board's first result), else NULL. Called
 * unserialized, from worker threads.
 */
struct plan_claims {
	int (*acquire)(void *ctx, const struct board *const *boards, size_t n, bool role,
		       char *msg, size_t msglen);
	void (*release)(void *ctx, const struct board *const *boards, size_t n);
	long (*next_board)(void *ctx);
	bool (*item_wanted)(void *ctx, const struct plan_item *item);
	bool (*held)(void *ctx, const struct board *board, char *why, size_t len);
	bool (*orphans)(void *ctx, const struct board *board, char *tokens, size_t tlen,
			char *from, size_t flen);
	void (*board_done)(void *ctx, size_t board_index, bool interrupted);
	void (*item_done)(void *ctx, const struct plan_item *item, const struct test_result *tr,
			  const struct board_facts *facts);
	void *ctx;
};

#endif
