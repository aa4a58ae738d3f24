#ifndef ORCH_TRANSPORT_SERIAL_CAPTURE_H
#define ORCH_TRANSPORT_SERIAL_CAPTURE_H
/*
 * Console capture: a reader thread that takes every byte from a serial
 * port as it arrives and stamps it with CLOCK_MONOTONIC (and the wall
 * clock); a second thread cuts the bytes into lines, each stamped at the
 * arrival of its FIRST byte, like grabserial. Lines end at LF, CR or CRLF;
 * ANSI escape sequences and other control characters are removed from the
 * line text.
 *
 * The reader does nothing but poll, read and stamp, into rings in memory
 * locked with mlock; it runs SCHED_FIFO (priority 20) when the process may
 * (root, CAP_SYS_NICE, or an rtprio limit), with ordinary scheduling
 * otherwise, and says which (serial_capture_sched). Parsing, the line
 * callback and the files never delay a stamp: only when the line thread
 * falls 2048 reads or 64 KiB behind does the reader wait (the bytes wait in
 * the kernel; serial_capture_stop reports how often).
 *
 * Nothing waits for a disk: lines and raw bytes go through a
 * bounded queue to a writer thread that appends them to the log files.
 * When the queue is full the bytes are dropped from the files (counted and
 * reported by serial_capture_stop), never held in unbounded memory; the line
 * callback still sees every line.
 *
 * The log has one line per console line:
 *   [2026-12-02 16:50:01.123456 12.345678] text
 * local wall-clock time of the first byte, then seconds relative to the
 * time base (negative for lines before it). The raw file holds the bytes
 * exactly as read (telnet commands excepted).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transport/serial_port.h"
#include "transport/transport.h"

#define SERIAL_CAPTURE_SCHED_LEN 512
/* A console line is whole up to this many bytes (the same cap as a
 * command's output lines, execute/output.h); the buffer grows with the
 * line and never beyond. A longer line reaches the callback in pieces of
 * this size flagged too_long: the log keeps every byte, no pattern is
 * matched against them. */
#define SERIAL_CAPTURE_MAX_LINE TRANSPORT_LINE_MAX
/* An unterminated line is shown as it grows (partial) only up to this
 * many bytes: prompts are short, and a long line arriving byte by byte
 * at 115200 baud would otherwise be handed over again at every read. */
#define SERIAL_CAPTURE_MAX_PARTIAL 4096

struct serial_line {
	const char *text;          /* NUL-terminated, no terminator, no escapes */
	size_t len;
	int64_t mono_us;           /* CLOCK_MONOTONIC at the arrival of its first byte */
	int64_t wall_us;           /* CLOCK_REALTIME at the same instant */
	bool partial;              /* no end of line yet (a "login: " prompt): the
				      callback is called again as it grows and once
				      complete, with the same stamp */
	bool too_long;             /* a piece of a line longer than the cap: not
				      the whole line, never to be matched */
	bool cont;                 /* too_long, and the line goes on in the next
				      call (no line end here) */
};

/* Called from the line thread, in order: must be quick and must not
 * block (a regex match, a flag under a mutex, one write to stderr). */
typedef void (*serial_line_fn)(void *ctx, const struct serial_line *line);

/* The files are the caller's to open (the capture knows no folders) and
 * the capture's to close: serial_capture_stop closes them, and so does a
 * serial_capture_start that fails. */
struct serial_capture_options {
	FILE *log;                 /* timestamped lines, or NULL */
	FILE *raw;                 /* raw bytes, or NULL */
	int64_t base_mono_us;      /* time base for relative times; 0: capture start */
	size_t queue_max;          /* bytes waiting for the disk; 0: 4 MiB */
	serial_line_fn on_line;    /* may be NULL */
	void *ctx;
};

struct serial_capture_stats {
	uint64_t bytes;            /* read from the port */
	uint64_t lines;            /* complete lines */
	uint64_t long_lines;       /* lines longer than SERIAL_CAPTURE_MAX_LINE */
	uint64_t dropped_bytes;    /* not written because the writer fell behind */
	bool port_lost;            /* the port went away: see error */
	char error[256];           /* why the port was lost or a file failed, or "" */
	char sched[SERIAL_CAPTURE_SCHED_LEN];   /* as serial_capture_sched */
};

struct serial_capture;

/* Starts the reader and writer threads on port, which it borrows until
 * serial_capture_stop, writing to opt's files, which it takes. Returns the
 * capture, or NULL with the reason in err. */
struct serial_capture *serial_capture_start(struct serial_port *port,
					    const struct serial_capture_options *opt,
					    char *err, size_t errlen);
/* Moves the time base: lines whose first byte arrives from now on are
 * written relative to mono_us. Thread-safe (call it from on_line). */
void serial_capture_set_base(struct serial_capture *c, int64_t mono_us);
/* Whether the reader has stopped because the port went away (or failed);
 * the reason is copied to err. Thread-safe. */
bool serial_capture_port_lost(struct serial_capture *c, char *err, size_t errlen);
/* Bytes read so far. Thread-safe. */
uint64_t serial_capture_bytes(struct serial_capture *c);
/* How the reader's stamps were scheduled, for the run folder: "SCHED_FIFO
 * priority 20, buffers locked in memory", or "ordinary scheduling, SCHED_FIFO
 * refused (...)...". Owned by c; fixed once serial_capture_start returns. */
const char *serial_capture_sched(const struct serial_capture *c);

/*
 * Stops reading, hands a last unterminated line to the callback and the log,
 * drains the queue to disk, closes the files and frees c (NULL is accepted).
 * st may be NULL. Returns 0, or -1 when a file could not be written (err).
 */
int serial_capture_stop(struct serial_capture *c, struct serial_capture_stats *st,
			char *err, size_t errlen);

/*
 * The line cutter on its own (the reader uses it; tests and the serial
 * transport may too): feed it chunks with the instant they arrived; it calls
 * fn for every line (and for the partial line at the end of a chunk).
 */
struct serial_linebuf {
	char *line;                /* grows with the line, to the cap; NULL at first */
	size_t cap;
	size_t len;
	bool open;                 /* a line has begun */
	bool in_long;              /* the open line passed the cap */
	int64_t mono_us;
	int64_t wall_us;
	unsigned char prev;        /* previous byte, for CRLF */
	int esc;                   /* escape-sequence state */
	uint64_t lines;
	uint64_t long_lines;       /* lines that passed the cap */
};

void serial_linebuf_init(struct serial_linebuf *lb);
/* Frees the buffer (init again to reuse). */
void serial_linebuf_release(struct serial_linebuf *lb);
void serial_linebuf_feed(struct serial_linebuf *lb, const char *data, size_t len,
			 int64_t mono_us, int64_t wall_us, serial_line_fn fn, void *ctx);
/* Emits the open line, if any, as complete. */
void serial_linebuf_flush(struct serial_linebuf *lb, serial_line_fn fn, void *ctx);

/* "[2026-12-02 16:50:01.123456 12.345678] " for a line; buf >= 64. */
void serial_capture_format_stamp(int64_t wall_us, int64_t rel_us, char *buf, size_t len);

#endif
