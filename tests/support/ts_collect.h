#ifndef ORCH_TS_COLLECT_H
#define ORCH_TS_COLLECT_H
/*
 * Collecting what a transport command prints, for the transport tests:
 * stdout and stderr into two buffers (or stdout only counted, for large
 * output), and optionally an interrupt or a stop as soon as output comes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"
#include "util/strbuf.h"

struct ts_collect {
	struct strbuf out;
	struct strbuf err;
	size_t out_bytes;          /* stdout bytes seen, kept or not */
	bool count_only;           /* count stdout, do not keep it */
	bool interrupt_on_output;  /* interrupt_request() on any output */
	bool stop_on_output;       /* return -1 (stop the command) on any output */
};

/* A transport_exec on_output callback; ctx is a struct ts_collect. */
int ts_collect_output(void *ctx, enum transport_stream stream, const char *data, size_t len);
/* Frees the buffers; the struct may be reused after a memset. */
void ts_collect_release(struct ts_collect *c);
/* Runs CMD on T with its output into C. Returns what transport_exec returns,
 * and prints its error (as a cmocka error line) when that is not 0. */
int ts_collect_exec(struct transport *t, const char *cmd, int64_t timeout_ms, int stdin_fd,
		    struct ts_collect *c, struct transport_status *st);
/* How many processes on T's board run `sleep N` (N of two digits; the
 * pattern keeps the counting command itself out of the count). */
int ts_count_sleepers(struct transport *t, int n);

#endif
