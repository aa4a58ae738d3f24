#ifndef ORCH_EXECUTE_OUTPUT_H
#define ORCH_EXECUTE_OUTPUT_H
/*
 * Where a command's output goes: each stream appended to its own log file
 * as it arrives (never held whole in memory), and, when a line callback is
 * set, cut into lines for it (metrics:, ready: patterns, output checks,
 * live progress).
 *
 * A line is everything up to its LF (a CR before the LF is dropped, a NUL
 * is held as C0 80), however many reads it took to arrive, up to
 * OUTPUT_MAX_LINE bytes. The buffer grows with the line and never beyond
 * that cap. A longer line is never handed on, whole or in pieces: it is
 * counted (output_sink_long_lines) and reported as too long for matching;
 * the log file still holds it whole.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link/board_link.h"

#define OUTPUT_MAX_LINE TRANSPORT_LINE_MAX

typedef int (*output_line_fn)(void *ctx, enum transport_stream stream, const char *line);
/* Told of each line too long to hand on (ctx is the line callback's):
 * head is its first OUTPUT_MAX_LINE bytes (as a line: NUL as C0 80, NUL
 * terminated, borrowed for the call), len its whole length in bytes. Only
 * output checks look at the head, and say so (output_check.h). */
typedef void (*output_long_fn)(void *ctx, enum transport_stream stream, const char *head,
			       uint64_t len);

struct output_sink;

/* Opens (appending, util/log_dir.h) dir/stdout_name and
 * dir/stderr_name; a NULL name discards that stream. NULL with the reason
 * in err. */
struct output_sink *output_sink_open(const char *dir, const char *stdout_name,
				     const char *stderr_name, char *err, size_t errlen);
void output_sink_set_line_fn(struct output_sink *s, output_line_fn fn, void *ctx);
/* Also tells fn (with the line callback's ctx) of every line too long. */
void output_sink_set_long_fn(struct output_sink *s, output_long_fn fn);
/* Keeps at most bytes of each log file (0: all); what is beyond still goes
 * to the line callback, and close appends a line saying how much was cut. */
void output_sink_set_limit(struct output_sink *s, uint64_t bytes);
/* Whether a log file reached the limit. */
bool output_sink_cut(const struct output_sink *s);
/* Lines longer than OUTPUT_MAX_LINE so far (both streams): not given to the
 * line callback. */
uint64_t output_sink_long_lines(const struct output_sink *s);
/* A transport_output_fn; ctx is the sink. */
int output_sink_write(void *sink, enum transport_stream stream, const char *data, size_t len);
/* Flushes a last unterminated line to the line callback and closes. */
int output_sink_close(struct output_sink *s, char *err, size_t errlen);

/* Calls fn for every line of the file at path, as the sink cuts them; a
 * line longer than OUTPUT_MAX_LINE is skipped and counted in *long_lines
 * (may be NULL). Returns 0, -1 if the file cannot be read, or fn's
 * negative value. */
int output_each_line(const char *path, output_line_fn fn, void *ctx, uint64_t *long_lines);

/* "N line(s) longer than 1 MiB were not matched" into buf, for messages. */
void output_long_lines_text(uint64_t n, char *buf, size_t len);

#endif
