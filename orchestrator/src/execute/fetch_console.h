#ifndef ORCH_EXECUTE_FETCH_CONSOLE_H
#define ORCH_EXECUTE_FETCH_CONSOLE_H
/*
 * Fetching a file through a shell on a console, whose output is text lines
 * (stdout and stderr merged, carriage returns dropped): the board prints
 *   ORCH-FETCH-BEGIN SIZE
 *   the file as `od -An -tx1 -v` prints it (POSIX; busybox has it too)
 *   ORCH-FETCH-END
 *   ORCH-CHECK KIND VALUE SIZE   (POSIX cksum, else sha256, else the size)
 * and the decoder writes the bytes into the caller's file, summing them
 * (POSIX cksum) for the caller's check. Every other line is kept as the
 * board's message ("no such file", "too large ..."). A file larger than the
 * cap is refused by the board before anything is sent.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "link/board_link.h"
#include "util/cksum.h"
#include "util/strbuf.h"

/* The cap when ORCH_CONSOLE_FETCH_MAX (bytes) does not set one. */
#define CONSOLE_FETCH_MAX_DEFAULT (64ull << 20)

struct console_fetch {
	FILE *file;                /* the bytes go here */
	struct cksum *ck;          /* and are summed here */
	struct strbuf *text;       /* every other line (at most 4 KiB) */
	struct strbuf line;        /* the line being received */
	int state;                 /* 0 before BEGIN, 1 in the dump, 2 after END */
	bool garbled;              /* a dump line that is not hex bytes */
	bool write_failed;
};

/* The cap: ORCH_CONSOLE_FETCH_MAX if it is a number of bytes, else the default. */
uint64_t console_fetch_max(void);

/* The board's command that prints the file qsrc (shell-quoted) as above. */
char *console_fetch_command(const char *qsrc, uint64_t cap);

void console_fetch_init(struct console_fetch *cf, FILE *file, struct cksum *ck,
			struct strbuf *text);
/* A transport_exec on_output callback; ctx is a struct console_fetch. */
int console_fetch_output(void *ctx, enum transport_stream stream, const char *data, size_t len);
/* Ends the decoding: 0 when the dump was whole and written (or the board
 * sent none: its message says why), -1 with err set when not. */
int console_fetch_finish(struct console_fetch *cf, char *err, size_t errlen);

#endif
