#ifndef ORCH_EXECUTE_OUTPUT_CHECK_H
#define ORCH_EXECUTE_OUTPUT_CHECK_H
/*
 * Output checks (expect: { stdout: {...}, stderr: {...}, exit_code: }) on
 * the whole lines of one run of a command, as they arrive through the same
 * line callback as the metrics (metrics.h): every contains:/matches: must
 * meet a line, no line may hold a not_contains: text, the line count must
 * be within lines:, and the exit status must be one of exit_code: (0 when
 * none is written). A check that fails is described with the check, the
 * stream and the line: the offending line, or for a text or pattern no
 * line met, the line closest to it (most of its character pairs in
 * common). A regex that hits PCRE2's limits fails the check it belongs to,
 * naming the limit, as a metric's does. A line longer than the line cap
 * (OUTPUT_MAX_LINE) is checked on its first OUTPUT_MAX_LINE bytes, and a
 * failing check says so ("stdout's line 1 is 200 MiB, cut at 1 MiB:
 * checked the first 1 MiB").
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"
#include "link/board_link.h"

/* Text kept of a line quoted in a message. */
#define OUTPUT_CHECK_QUOTE 160

struct output_check_hit {
	uint64_t line;             /* 1-based; 0: none yet */
	double score;              /* closeness, for a pattern not met yet */
	bool met;
	char text[OUTPUT_CHECK_QUOTE];
};

struct output_check_stream {
	uint64_t lines;
	struct output_check_hit *contains;      /* one per contains: */
	struct output_check_hit *not_contains;  /* first offending line */
	struct output_check_hit *matches;
	int regex_error;                        /* first ORCH_REGEX_E* hit, 0 if none */
	size_t regex_error_at;                  /* which matches: */
	uint64_t regex_error_line;
	uint64_t cut_lines;                     /* lines over the cap, checked on their head */
	uint64_t cut_first;                     /* the first of them, 1-based */
	uint64_t cut_len;                       /* its whole length in bytes */
};

struct output_checker {
	const struct output_expect *x;
	struct output_check_stream st[2];       /* stdout, stderr */
};

/* Whether x asks for anything. */
bool output_expect_any(const struct output_expect *x);
/* Whether exit status code is one x allows (only 0 when it lists none). */
bool output_expect_exit_ok(const struct output_expect *x, int code);
/* "0", "0 or 1", "0, 1 or 2" into buf. */
const char *output_expect_exit_text(const struct output_expect *x, char *buf, size_t len);

void output_checker_init(struct output_checker *oc, const struct output_expect *x);
/* An output_line_fn (ctx is the checker). */
int output_checker_line(void *ctx, enum transport_stream stream, const char *line);
/* A line over the cap: counted, and checked on head (its first bytes); len
 * is its whole length. */
void output_checker_long(struct output_checker *oc, enum transport_stream stream,
			 const char *head, uint64_t len);
/* 0 when every stream check held; else -1 and the first failure, e.g.
 * "expect stdout contains 'Linux': no line of stdout contains it; closest,
 * line 3: 'Linus 6.1'", in buf. */
int output_checker_verdict(const struct output_checker *oc, char *buf, size_t len);
void output_checker_release(struct output_checker *oc);

#endif
