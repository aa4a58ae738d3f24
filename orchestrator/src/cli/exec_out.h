#ifndef ORCH_CLI_EXEC_OUT_H
#define ORCH_CLI_EXEC_OUT_H
/*
 * orch exec's output, board by board: what a board's command printed is
 * kept up to EXEC_KEEP_MAX bytes per stream (the rest is counted and
 * summed, never held: a command printing 200 MB costs no memory), with
 * the SHA-256 of each whole stream, so boards whose output is the same
 * fold together however long it is. Three ways out: folded (clush -b),
 * lines as they come prefixed "board: " (--no-fold), one JSON object per
 * board (--json).
 */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/adhoc.h"
#include "util/strbuf.h"

#define EXEC_KEEP_MAX (1u << 20)

enum exec_format { EXEC_FOLD = 0, EXEC_NO_FOLD, EXEC_JSON };

struct exec_stream {
	struct strbuf kept;        /* the first EXEC_KEEP_MAX bytes */
	uint64_t bytes;            /* all of them */
	EVP_MD_CTX *sha;
	char digest[65];           /* after exec_out_finish */
	struct strbuf line;        /* --no-fold: the line being received */
};

struct exec_out {
	const char *board;         /* borrowed */
	enum exec_format format;
	struct exec_stream s[2];   /* stdout, stderr */
	int exit_code, signal;
};

/* The mutex --no-fold lines are printed under (one line, one write). */
extern pthread_mutex_t exec_print_mu;

void exec_out_init(struct exec_out *o, const char *board, enum exec_format format);
/* A transport_exec on_output callback; ctx is a struct exec_out. */
int exec_out_take(void *ctx, enum transport_stream stream, const char *data, size_t len);
/* After the command: the digests, and --no-fold's last partial lines. */
void exec_out_finish(struct exec_out *o);
void exec_out_release(struct exec_out *o);

/* Prints the outcome of boards[0..n) (each one's data an exec_out) in
 * format: folded groups on stdout (stderr under its group, on stderr);
 * --no-fold, the end of every board that did not exit 0; --json, one
 * object per line. */
void exec_out_print(struct adhoc_board *boards, size_t n, enum exec_format format);

#endif
