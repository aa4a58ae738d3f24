#ifndef ORCH_PLAN_PLAN_H
#define ORCH_PLAN_PLAN_H
/*
 * The plan: which board runs which test, in what order, with which boards
 * in which roles. Built from a validated scenario and inventory; pure (no
 * I/O), so --dry-run prints exactly what a run would do.
 *
 * Each selected board gets its tests in scenario order. A multi-host test
 * (roles:) gets one item per board of its `each` role, run in that board's
 * queue; its other roles are bound to the boards they name, which need not
 * be selected themselves. A board that is only a role target (the VM
 * serving iperf3) gets no items of its own for that test. A test with its
 * own boards: runs only on the selected boards that also match it. A test
 * a board cannot run (a boot test without a console) is planned as a skip
 * with its reason, so validate and --dry-run show it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/model.h"

struct role_binding {
	const struct role *role;
	const struct board **boards;   /* the boards playing this role, owned by the item */
	size_t n_boards;
};

struct plan_item {
	const struct board *board;     /* the board this result is for */
	const struct test *test;
	struct role_binding *roles;    /* multi-host tests only; index = role index */
	size_t n_roles;
	const char *skip_reason;       /* the board lacks what the test needs (config/caps.h):
					* recorded as skip, never run; NULL otherwise */
};

struct plan_board {
	const struct board *board;
	struct plan_item *items;
	size_t n_items;
};

struct plan {
	struct plan_board *boards;     /* selected boards, in inventory order */
	size_t n_boards;
	size_t n_items;
	size_t n_skips;                /* items planned as skips */
};

struct plan_options {
	const char *const *limits;     /* -l selectors, may be NULL */
	size_t n_limits;
	int shard_k;                   /* --shard K/N: 1-based K; 0 = no sharding */
	int shard_n;
	const char *const *tests;      /* -t: NAME, tag:TAG, globs, !NAME, !tag:TAG, "a,b";
					  NULL: all */
	size_t n_tests;
};

/* 0 and *out (caller frees with plan_free), or -1 with the reason in err
 * (an invalid selector, nothing selected, a test that would run nowhere,
 * e.g. a multi-host test whose roles are all fixed boards). */
int plan_build(const struct scenario *sc, const struct inventory *inv,
	       const struct plan_options *opts, struct plan **out, char *err, size_t errlen);
/* "--shard K/N" text -> k, n; 0 or -1. */
int plan_parse_shard(const char *text, int *k, int *n);
/* The plan for people: board by board, test by test, with roles. */
void plan_print(const struct plan *p, FILE *out);
/* orch run/validate --list: one line per planned run, "BOARD<TAB>TEST",
 * then the test's tags (a,b) and "skip: REASON" when it is planned as one. */
void plan_print_list(const struct plan *p, FILE *out);
void plan_free(struct plan *p);

#endif
