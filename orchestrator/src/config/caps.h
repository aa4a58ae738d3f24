#ifndef ORCH_CONFIG_CAPS_H
#define ORCH_CONFIG_CAPS_H
/*
 * What a board can do, read from its inventory entry alone, and whether a
 * test needs something a board lacks. A test that cannot run on a board
 * (a boot test on a board with no console, a power-cycle without power
 * commands) is skipped with the reason, before anything runs: the planner
 * marks it, `orch validate` and `--dry-run` show it, and the run records it
 * as `skip`, never as an error.
 */
#include <stdbool.h>

#include "config/model.h"

struct board_caps {
	bool ssh;                 /* an ssh: section (commands over SSH) */
	bool local;               /* runs on the controller */
	bool console;             /* a serial: console (boot timing, serial shell) */
	bool power;               /* power: cycle, or on (boot tests, reviving a down board) */
	bool commands;            /* some way to run commands (ssh, local or serial shell) */
	bool arch_known;          /* arch: in the inventory (else `uname -m` when needed) */
};

void board_caps_of(const struct board *b, struct board_caps *caps);

/* Why test cannot run on b ("the board has no serial console to time the
 * boot on"), or NULL when it can. A static string. */
const char *test_unsupported(const struct board *b, const struct test *t);

#endif
