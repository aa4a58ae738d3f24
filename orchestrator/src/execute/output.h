#ifndef ORCH_EXECUTE_OUTPUT_H
#define ORCH_EXECUTE_OUTPUT_H
/*
 * Where a command's output goes: each stream appended to its own log file
 * as it arrives (never held whole in memory), and, when a line callback is
 * set, cut into lines for it (ready: patterns, live progress). A line longer
 * than OUTPUT_MAX_LINE is passed on in pieces of that size.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define OUTPUT_MAX_LINE 8192

typedef int (*output_line_fn)(void *ctx, enum transport_stream stream, const char *line);

struct output_sink;

/* Opens (appending) dir/stdout_name and dir/stderr_name; a NULL name
 * discards that stream. NULL with the reason in err. */
struct output_sink *output_sink_open(const char *dir, const char *stdout_name,
				     const char *stderr_name, char *err, size_t errlen);
void output_sink_set_line_fn(struct output_sink *s, output_line_fn fn, void *ctx);
/* Keeps at most bytes of each log file (0: all); what is beyond still goes
 * to the line callback, and close appends a line saying how much was cut. */
void output_sink_set_limit(struct output_sink *s, uint64_t bytes);
/* Whether a log file reached the limit. */
bool output_sink_cut(const struct output_sink *s);
/* A transport_output_fn; ctx is the sink. */
int output_sink_write(void *sink, enum transport_stream stream, const char *data, size_t len);
/* Flushes a last unterminated line to the line callback and closes. */
int output_sink_close(struct output_sink *s, char *err, size_t errlen);

/* Calls fn for every line of the file at path (lines cut at OUTPUT_MAX_LINE).
 * Returns 0, -1 if the file cannot be read, or fn's negative value. */
int output_each_line(const char *path, output_line_fn fn, void *ctx);

#endif
