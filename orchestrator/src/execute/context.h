#ifndef ORCH_EXECUTE_CONTEXT_H
#define ORCH_EXECUTE_CONTEXT_H
/*
 * An executor's context (the plan item, its board's link, the facts being
 * gathered, the test's folder) and the helpers every executor shares on
 * it: the board's transport, its facts, the end of a test's command.
 * Below the dispatcher (execute.c) and the executors (run.c, bench.c,
 * boot.c, transfer.c, multi*.c), which all call it and never call each
 * other back.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
