#ifndef ORCH_EXECUTE_MULTI_INT_H
#define ORCH_EXECUTE_MULTI_INT_H
/*
 * What the pieces of a multi-host test share (internal to execute/):
 * the run's state, its peers (one foreground connection per board), the
 * outcome (the first failure is the test's), and each step's command.
 * multi.c runs the steps in order; multi_run.c holds what they share
 * (below the others, which call it); multi_fg.c runs a foreground step and
 * moves a step's files; multi_bg.c starts, watches and stops background
 * steps.
 */
#include <stdbool.h>
#include <stddef.h>

#include "execute/context.h"
#include "execute/executors.h"
#include "execute/metrics.h"
#include "result/result.h"

#define TAIL_LINES 3
#define TAIL_LINE_MAX 160

/* The last few lines of output, for "last output: ..." in messages. */
struct tail {
	char lines[TAIL_LINES][TAIL_LINE_MAX];
	int next;
	int n;
};

/* A board of this item with the connection its foreground steps use. */
struct peer {
	const struct board *board;
	struct transport *t;           /* owned unless borrowed */
	struct board_link *link;       /* b's link when the scheduler gave one, or NULL */
	bool borrowed;                 /* t is link's transport */
	char *arch;                    /* from `uname -m`, when the inventory has none */
};

struct bg_step;

struct multi_run {
	struct exec_context *ctx;
	struct test_result *tr;
	const struct plan_item *item;
	struct peer *peers;
	size_t n_peers;
	struct bg_step **bgs;
	size_t n_bgs;
	struct metric_collector metrics;   /* the test's metrics: on the item's board */
	bool failed;                       /* tr holds a fail or error: stop running steps */
};

/* A background step whose files are fetched once it was stopped. */
struct bg_fetch {
	const struct step *step;
	const struct board *board;
};

void multi_tail_add(struct tail *t, const char *line);
/* "a | b | c", or "(none)". Caller frees. */
char *multi_tail_text(const struct tail *t);

const struct role_binding *multi_find_role(const struct plan_item *item, const char *name);
/* b's board link: the item's own, or the scheduler's for a role board. */
struct board_link *multi_link(struct multi_run *mr, const struct board *b);
/* The boards a step of role rb runs on: the item's board for `each`. */
void multi_role_boards(const struct plan_item *item, const struct role_binding *rb,
		       const struct board *const **boards, size_t *n);
/* b is the test's own board in role rb (its logs and files are the test's). */
bool multi_is_own_board(const struct multi_run *mr, const struct role_binding *rb,
			const struct board *b);
/* The log file names of a step of rb on b. Caller frees both. */
void multi_log_names(const struct multi_run *mr, const struct role_binding *rb,
		     const struct board *b, char **out_name, char **err_name);

/* Makes st and the message the test's outcome, unless one is already set;
 * then the remaining steps are not run. */
void multi_set_outcome(struct multi_run *mr, enum result_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The foreground connection to b: 0, or -1 with the reason in err. */
int multi_peer_transport(struct multi_run *mr, const struct board *b, struct transport **t,
			 char *err, size_t errlen);
/* A transport failure on b's foreground connection: drop it. */
void multi_peer_lost(struct multi_run *mr, const struct board *b);

/* How a step is named in messages: its command, or its remote-bench program. */
const char *multi_step_text(const struct step *step);
/* The step's command for board b (running in role rb), substitutions made.
 * Caller frees; NULL with err set (a failed push has set the outcome). */
char *multi_step_command(struct multi_run *mr, const struct step *step,
			 const struct role_binding *rb, const struct board *b,
			 char *err, size_t errlen);

/* The step's push: files to b, before it runs. 0, or -1 with the outcome set. */
int multi_step_push(struct multi_run *mr, const struct step *step,
		    const struct role_binding *rb, const struct board *b);
/* The step's fetch: files from b into the test's folder. */
void multi_step_fetch(struct multi_run *mr, const struct step *step,
		      const struct role_binding *rb, const struct board *b);
/* Runs a foreground step on b: its output logged, checked, and its metrics
 * (the test's on the item's own board, its parse: ones) recorded. */
void multi_fg_run(struct multi_run *mr, const struct step *step, const struct role_binding *rb,
		  const struct board *b);

/* Starts step on b in the background and waits for its ready pattern. */
void multi_bg_start(struct multi_run *mr, const struct step *step,
		    const struct role_binding *rb, const struct board *b);
/* Fails the test for each background step that ended on its own, badly. */
void multi_bg_judge_all(struct multi_run *mr);
/* The background steps that fetch files (before multi_bg_stop_all frees
 * them); caller frees. */
struct bg_fetch *multi_bg_fetches(const struct multi_run *mr, size_t *n);
void multi_bg_fetch_all(struct multi_run *mr, const struct bg_fetch *f, size_t n);
/* Stops every background step, whatever state the test is in. */
void multi_bg_stop_all(struct multi_run *mr);

#endif
