#ifndef ORCH_EXECUTE_BENCH_H
#define ORCH_EXECUTE_BENCH_H
/*
 * remote-bench programs on a board: the arch folder a board's build comes
 * from and the push of a program that is missing or differs.
 */
#include "link/board_link.h"
#include "result/result.h"

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

#endif
