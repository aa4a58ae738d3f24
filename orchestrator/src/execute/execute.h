#ifndef ORCH_EXECUTE_EXECUTE_H
#define ORCH_EXECUTE_EXECUTE_H
/*
 * Executing one plan item: a command test, a remote-bench test, a boot test
 * or a multi-host test, on a board reached through its transport. The
 * executor writes the test's logs into ctx->test_dir and fills a
 * test_result; it never decides exit codes or writes run-level files.
 *
 * Everything that reaches a board goes through its board link
 * (link/board_link.h): executors ask it for a transport, the console or a
 * power action, and never open one themselves.
 *
 * Status rules: a command that ran and failed (non-zero exit, timeout,
 * missed expectation, boot phase over budget) is STATUS_FAIL; a board that
 * cannot be reached or stops answering, a push or power command that
 * failed, a serial port that is missing is STATUS_ERROR.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/model.h"
#include "link/board_link.h"
#include "plan/plan.h"
#include "result/result.h"

/*
 * A board's facts (facts.h), gathered once per run over the first
 * connection its link makes for a test, when want is set (the scheduler
 * keeps one per board). A command test over ssh or the local transport
 * carries the built-in facts as the prelude of its first command
 * (facts_ride); anything else asks with a command of their own.
 */
struct facts_state {
	bool want;
	const struct fact_spec *specs;   /* the scenario's facts: */
	size_t n_specs;
	bool done;
	bool riding;                     /* the next command carries them: exec_transport waits */
	struct board_facts facts;
};

struct exec_context {
	const struct plan_item *item;  /* board, test, roles */
	struct board_link *link;       /* the item's board's link */
	/* The link of another board of the item (a fixed role's board, locked
	 * by the scheduler for the item); NULL: role boards get connections of
	 * their own for this item only. */
	struct board_link *(*link_of)(void *links_ctx, const struct board *b);
	void *links_ctx;
	struct facts_state *facts;     /* NULL: no facts gathered */
	/* The facts of another board of the item (a role board, its lock held
	 * for the item); NULL fn or result: none gathered for it. */
	struct facts_state *(*facts_of)(void *links_ctx, const struct board *b);
	const char *test_dir;          /* absolute: logs go here */
	const char *bench_dir;         /* remote-bench binaries: BENCH_DIR/ARCH/NAME */
	int repeat_index;              /* 0-based, for repeat: N */
};

/* The item's board's command transport through its link, waiting for a
 * booting board up to the test's timeout; that wait is recorded in tr as
 * the metric link.reconnect (s). 0, or -1 with the reason in err. */
int exec_transport(struct exec_context *ctx, struct test_result *tr, struct transport **t,
		   char *err, size_t errlen);

/* Moves what the link stopped of an earlier run's processes
 * (board_link_take_orphans_note) into tr->orphans (tr may be NULL: then
 * only the terminal's warning says it). */
void exec_note_orphans(struct board_link *bl, struct test_result *tr);
/* A role board's facts, the first time the item reaches it over t (its
 * link's transport): asked for when wanted and not yet known. A transport
 * that failed meanwhile is dropped and *t connected again; 0, or -1 with
 * the reason in err. */
int exec_role_facts(struct exec_context *ctx, struct board_link *bl, struct transport **t,
		    char *err, size_t errlen);

/* exec_transport for a command test, whose first command may carry the
 * board's facts: *ride is set when it must (wanted, not yet known, no
 * scenario facts: their commands are the user's, bounded by the facts
 * timeout and not the test's; and *t is ssh or local). Otherwise the facts
 * were asked for as exec_transport does. */
int exec_transport_ride(struct exec_context *ctx, struct test_result *tr, struct transport **t,
			bool *ride, char *err, size_t errlen);
/* After the command that carried them: the facts from prelude_out when its
 * end line came, else asked for with a command of their own over t when
 * the command ran (ran == 0); a connection that failed leaves them to the
 * board's next test. */
void facts_ride_end(struct exec_context *ctx, struct transport *t, int ran, bool prelude_done,
		    const char *prelude_out);

/* After a test's own command (ran: command_run's return, what: the
 * command's name in messages): the link reset when the board was lost,
 * the verdict, leftovers, the test's fetches, and when it passed, its
 * metric files and metrics committed into tr. Returns whether tr still
 * passes (the caller's own checks follow). */
struct command_outcome;
struct metric_collector;
bool exec_conclude(struct exec_context *ctx, struct transport *t, int ran,
		   const struct command_outcome *out, const char *what,
		   struct metric_collector *mc, struct test_result *tr);

/* The board's `uname -m` into *machine (caller frees), unless *machine is
 * already set. 0, or -1 with err set. */
int exec_machine(struct transport *t, int64_t timeout_ms, char **machine, char *err,
		 size_t errlen);

/* Runs ctx->item once per repeat into tr (whose board/test names are set).
 * Returns 0; all outcomes are expressed in tr->status and tr->message. */
int execute_item(struct exec_context *ctx, struct test_result *tr);

/* remote-bench's arch folder name (x86_64, i586, armv5, armhf, aarch64) for
 * a `uname -m` or inventory arch; NULL when there is no build for it. */
const char *bench_arch_name(const char *machine);

/* Where and how to push a remote-bench program to a board. */
struct bench_target {
	const struct board *board;
	struct transport *t;           /* a connection to board */
	char **machine;                /* `uname -m` cache (*machine may be NULL: asked) */
	const char *bench_dir;         /* BENCH_DIR/ARCH/remote-bench-NAME on this side */
	const char *log_dir;           /* push.log goes here */
};

/* Makes sure the board has remote-bench NAME for its arch, pushing it with
 * mode 755 (artifact_push_file: a part file checked on the board, then
 * renamed) unless its SHA-256 already matches; a push is recorded in tr->pushes (tr may be NULL) and as a raw
 * JSON line in the log folder's push.log, never as a metric. Returns the path on
 * the board (caller frees), or NULL with the reason in err. */
char *bench_ensure(const struct bench_target *bt, const char *name, struct test_result *tr,
		   char *err, size_t errlen);

/* The executors, one per test kind; each is one run (one repeat). */
int execute_run(struct exec_context *ctx, struct test_result *tr);
int execute_bench(struct exec_context *ctx, struct test_result *tr);
int execute_boot(struct exec_context *ctx, struct test_result *tr);
int execute_transfer(struct exec_context *ctx, struct test_result *tr);
int execute_multi(struct exec_context *ctx, struct test_result *tr);

#endif
