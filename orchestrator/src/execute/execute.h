#ifndef ORCH_EXECUTE_EXECUTE_H
#define ORCH_EXECUTE_EXECUTE_H
/*
 * Executing one plan item: a command test, a remote-bench test, a boot test
 * or a multi-host test, on a board reached through its transport. The
 * executor writes the test's logs into ctx->test_dir and fills a
 * test_result; it never decides exit codes or writes run-level files.
 *
 * Status rules: a command that ran and failed (non-zero exit, timeout,
 * missed expectation, boot phase over budget) is STATUS_FAIL; a board that
 * cannot be reached, a push or power command that failed, a serial port that
 * is missing is STATUS_ERROR.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/model.h"
#include "plan/plan.h"
#include "result/result.h"
#include "transport/serial_port.h"
#include "transport/transport.h"

/*
 * A board's connection for the commands of its tests: opened on first use,
 * reused by every later test of the board, and reopened once if it was lost.
 * Owned by one worker thread at a time.
 */
struct board_conn {
	const struct board *board;
	struct transport *transport;   /* NULL until connected */
	char *arch;                    /* board arch: inventory, or `uname -m` once */
	char *connect_error;           /* set once connecting failed: not retried */
	bool bench_dir_ready;          /* workdir created on the board */
	/* facts: gathered right after the first successful connect when
	 * want_facts is set (the scheduler sets it), then left in facts */
	bool want_facts;
	const struct fact_spec *fact_specs;   /* the scenario's facts: */
	size_t n_fact_specs;
	bool facts_done;
	struct board_facts facts;
};

void board_conn_init(struct board_conn *bc, const struct board *board);
/* The transport, connecting if needed: 0, or -1 with the reason in err. A
 * board that could not be reached is not tried again in this run (its later
 * tests error at once with the same reason); a connection lost later is. */
int board_conn_get(struct board_conn *bc, struct transport **out, char *err, size_t errlen);
/* Drops a broken connection so the next board_conn_get() reconnects. */
void board_conn_reset(struct board_conn *bc);
void board_conn_release(struct board_conn *bc);

/* A new connection to board through its configured transport (ssh, local,
 * serial); caller frees. NULL with the reason in err. */
struct transport *board_connect(const struct board *board, char *err, size_t errlen);
/* The serial console as a command transport (connect_serial.c). */
struct transport *board_connect_serial(const struct board *board, char *err, size_t errlen);
/* The board's serial: section as a transport-level target (strings borrowed). */
void board_serial_target(const struct board *board, struct serial_target *t);

struct exec_context {
	const struct plan_item *item;  /* board, test, roles */
	struct board_conn *conn;       /* the item's board's connection */
	const char *test_dir;          /* absolute: logs go here */
	const char *bench_dir;         /* remote-bench binaries: BENCH_DIR/ARCH/NAME */
	const char *inventory_dir;     /* power commands run here */
	int repeat_index;              /* 0-based, for repeat: N */
};

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

/* Makes sure the board has remote-bench NAME for its arch, pushing it (cat
 * over an exec channel, then a checksum) unless its SHA-256 already
 * matches; a push is recorded in tr->pushes (tr may be NULL) and as a raw
 * JSON line in the log folder's push.log, never as a metric. Returns the path on
 * the board (caller frees), or NULL with the reason in err. */
char *bench_ensure(const struct bench_target *bt, const char *name, struct test_result *tr,
		   char *err, size_t errlen);

/* The executors, one per test kind; each is one run (one repeat). */
int execute_run(struct exec_context *ctx, struct test_result *tr);
int execute_bench(struct exec_context *ctx, struct test_result *tr);
int execute_boot(struct exec_context *ctx, struct test_result *tr);
int execute_multi(struct exec_context *ctx, struct test_result *tr);

#endif
