#ifndef ORCH_EXECUTE_TIMING_H
#define ORCH_EXECUTE_TIMING_H
/*
 * The time a test's command took, for `rate_of:` metrics (a size over that
 * time). The command is wrapped so that the board reads its own clocks
 * just before and just after it, in the same shell (opening the channel
 * and starting the shell are not counted): `date +%s.%N` where the board's
 * date prints nanoseconds, and /proc/uptime (10 ms steps) in any case. It
 * prints them as one line on stderr that starts with a random tag; that
 * line is taken out of the output before logs, metrics and output checks
 * see it. The time is the board's date where it gave nanoseconds both
 * times, else its uptime where that moved, else orch's own monotonic clock
 * around the whole exec (also when the line never came: the command ended
 * the shell with exit or exec, or took stderr with exec 2>...).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum timing_source { TIMING_BOARD_DATE = 0, TIMING_BOARD_UPTIME, TIMING_ORCH };

/* What the board printed: its clocks before and after, as text. */
struct timing_marks {
	bool seen;
	char date0[32], up0[32], up1[32], date1[32];
};

/* A fresh random tag ("orch-time-" and 16 hex digits); len >= 32. */
void timing_new_tag(char *buf, size_t len);

/* The shell text that runs command between the two clock readings and
 * prints the tag's line after it, keeping the command's exit status.
 * Caller frees. */
char *timing_wrap(const char *command, const char *tag);

typedef int (*timing_pass_fn)(void *ctx, const char *data, size_t len);

/* One stream's bytes on their way to pass(), without the tag's line, which
 * fills marks instead. Holds back only what may be the start of that line
 * (at most a tag and its four fields). */
struct timing_filter {
	const char *tag;
	struct timing_marks *marks;
	struct strbuf hold;
};

void timing_filter_init(struct timing_filter *f, const char *tag, struct timing_marks *marks);
/* Returns what pass() returned last (0, or its error). */
int timing_filter_feed(struct timing_filter *f, const char *data, size_t len, timing_pass_fn pass,
		       void *ctx);
/* The end of the stream: what is still held goes on (or is the tag's line
 * without its newline). Releases the filter. */
int timing_filter_finish(struct timing_filter *f, timing_pass_fn pass, void *ctx);

/* Parses the tag's line (without its newline) into marks; false when it
 * is not one. */
bool timing_parse_line(const char *line, size_t len, const char *tag, struct timing_marks *marks);

/* Seconds the command took, and from which clock (see the top): orch_us is
 * orch's monotonic time around the exec. */
double timing_seconds(const struct timing_marks *marks, int64_t orch_us,
		      enum timing_source *source);
/* "the board's date +%s.%N", "the board's /proc/uptime", "orch's clock". */
const char *timing_source_name(enum timing_source source);

/* bytes over seconds in unit (a byte or bit rate: MB/s, MiB/s, Mbit/s);
 * 0, or -1 when seconds is not positive or unit is not a rate. */
int timing_rate(uint64_t bytes, double seconds, const char *unit, double *out);

#endif
