#ifndef ORCH_CLI_ADHOC_H
#define ORCH_CLI_ADHOC_H
/*
 * What the ad-hoc verbs (orch exec, copy, fetch) share: the boards -l
 * selects (node sets included), each taken in turn by one of up to -j
 * workers (its offline state, its lock, its board link, then the verb's
 * work over the link's transport), the outcomes folded into groups of
 * identical ones under their node set, and the exit code:
 *   0   the work ran on every board and ended well there
 *   1   it failed on some board (a non-zero exit status), every board reached
 *   3   some board was not worked on (unreachable, timed out, held,
 *       offline) and none failed
 *   4   both
 *   130 interrupted
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/model.h"
#include "link/board_link.h"
#include "util/fold.h"

enum adhoc_state {
	ADHOC_PENDING = 0,     /* not started */
	ADHOC_RAN,             /* the work ran: failed says whether it went wrong */
	ADHOC_TIMED_OUT,       /* stopped at --timeout */
	ADHOC_UNREACHABLE,     /* not connected, or the connection failed under it */
	ADHOC_HELD,            /* skipped: error names the holder */
	ADHOC_OFFLINE,         /* skipped: error says since when and why */
	ADHOC_INTERRUPTED,     /* Ctrl-C */
};

/* "ok"/"failed", "timed out", "unreachable", "held", "offline", "interrupted",
 * "not started": the words every output of the ad-hoc verbs uses. */
const char *adhoc_state_word(enum adhoc_state s, bool failed);

struct adhoc_board {
	const struct board *board;
	enum adhoc_state state;
	bool failed;               /* ADHOC_RAN: the board's exit status was not 0 */
	int64_t duration_us;       /* from its turn to the end of its work */
	char error[1024];          /* why, for every state but a clean ADHOC_RAN */
	void *data;                /* the verb's */
};

/* The verb's work on one board over t (its link's command transport):
 * sets ab->state (ADHOC_RAN, else the state and ab->error). */
typedef void (*adhoc_work_fn)(struct adhoc_board *ab, struct transport *t, void *ctx);

struct adhoc_request {
	const char *verb;          /* "exec": messages are "orch exec: ..." */
	const char *note;          /* what the locks say (orch who) */
	int jobs;                  /* boards at once; <= 0: all */
	bool force;                /* past holders, with a warning */
	adhoc_work_fn work;
	void *ctx;
};

/*
 * The boards of inventory inv_path (-i, else $ORCH_INVENTORY) that the -l
 * selectors sels select (all without one), in natural order, no board's
 * connect waiting longer than bound_ms (the verb's --timeout). EXIT_OK with
 * *inv (caller frees) and *boards (caller frees; each board's data NULL),
 * or EXIT_USAGE after saying why.
 */
int adhoc_select(const char *verb, const char *inv_path, const char *const *sels, size_t n_sels,
		 int64_t bound_ms, struct inventory **inv, struct adhoc_board **boards, size_t *n);

/*
 * Works on every board of boards[0..n) as above. Returns 0 when every
 * board's turn ended, or -1 at a second Ctrl-C: the caller leaves at once
 * (workers still stopping are not waited for).
 */
int adhoc_run(const struct adhoc_request *rq, const struct inventory *inv,
	      struct adhoc_board *boards, size_t n);

/* The exit code for boards[0..n) (see above). */
int adhoc_exit_code(const struct adhoc_board *boards, size_t n);

/* The fold key and the text of a board that was not worked on, or whose
 * work was stopped: its state with its error, the board's own name and
 * address taken out so that ten boards refusing alike fold as one
 * ("unreachable: connection refused"). Caller frees. */
char *adhoc_problem_text(const struct adhoc_board *ab);

/* What a group of boards (its data the first's adhoc_board, its key what
 * they share) says: the key, or for a group of one board that was not
 * worked on or failed, its own error as it came. Caller frees. */
char *adhoc_group_what(const struct fold_group *g);
/* "b[01-28,30-32] (31 boards, WHAT)": a group's header; caller frees. */
char *adhoc_group_header(const struct fold_group *g, const char *what);
/* Prints a header line as clush -b does (between rules of dashes), in
 * colour on a terminal: red when bad. */
void adhoc_print_header(FILE *out, const char *header, bool bad);

#endif
