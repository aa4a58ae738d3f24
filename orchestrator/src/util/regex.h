#ifndef ORCH_UTIL_REGEX_H
#define ORCH_UTIL_REGEX_H
/*
 * Regular expressions as users write them in YAML (metrics, ready:, boot
 * phases): Perl syntax through PCRE2 -- \d \s \w, (?i), (?:...), lazy .*?,
 * named groups (?<name>...), backreferences. Matching is per line, on bytes
 * (no UTF-8 check, so any output can be searched), ^ and $ also at
 * embedded newlines.
 *
 * A user's pattern cannot hang a run: every match is bounded by PCRE2's
 * match, depth and heap limits (ORCH_REGEX_MATCH_LIMIT...), and a match
 * that hits one ends with ORCH_REGEX_ELIMIT, which callers report.
 * Patterns are at most ORCH_REGEX_MAX_LEN bytes. A compiled pattern is
 * read-only, so threads may share it.
 */
#include <stdbool.h>
#include <stddef.h>

#define ORCH_REGEX_MAX_LEN 1024
/* backtracking steps per match call (PCRE2's match limit) */
#define ORCH_REGEX_MATCH_LIMIT 1000000
/* nested backtracking depth (PCRE2's depth limit) */
#define ORCH_REGEX_DEPTH_LIMIT 10000
/* heap for backtracking frames, KiB */
#define ORCH_REGEX_HEAP_LIMIT_KIB 16384
/* capture groups an orch_regex_span array needs at most (0 = whole match) */
#define ORCH_REGEX_MAX_GROUPS 32

struct orch_regex {
	void *code;               /* pcre2_code * */
	bool compiled;
	size_t n_groups;          /* capture groups in the pattern */
};

/* Where a group matched in the subject; so == (size_t)-1 when it did not. */
struct orch_regex_span {
	size_t so;
	size_t eo;
};

enum {
	ORCH_REGEX_NOMATCH = 0,
	ORCH_REGEX_MATCHED = 1,
	ORCH_REGEX_EINVAL = -1,   /* not compiled, or no text */
	ORCH_REGEX_ELIMIT = -2,   /* a match, depth or heap limit was hit */
	ORCH_REGEX_EMATCH = -3,   /* any other matching error */
};

/* 0, or -1 with the reason in err ("missing closing parenthesis at offset 4"). */
int orch_regex_compile(struct orch_regex *rx, const char *pattern, char *err, size_t errlen);
/*
 * Matches text (len bytes; NUL bytes are part of it). Returns
 * ORCH_REGEX_MATCHED and fills spans[0..n_spans-1] (groups beyond the
 * pattern's count are unset), ORCH_REGEX_NOMATCH, or a negative ORCH_REGEX_E*.
 */
int orch_regex_exec(const struct orch_regex *rx, const char *text, size_t len,
		    struct orch_regex_span *spans, size_t n_spans);
/* The number of the group called name, or -1 when there is none. */
int orch_regex_group_number(const struct orch_regex *rx, const char *name);
/* What a result of orch_regex_exec means, for messages ("match limit hit"). */
const char *orch_regex_strerror(int rc);
/* Copies the text of span (empty when unset) to buf, truncated to len - 1. */
void orch_regex_copy(const char *text, const struct orch_regex_span *span, char *buf, size_t len);
/*
 * Whether text (a C string) matches; when it does and group1 is not NULL,
 * group 1's text (the whole match if the pattern has no group) is copied
 * there, truncated to group1_len - 1. A limit hit counts as no match: use
 * orch_regex_exec where that must be reported.
 */
bool orch_regex_match(const struct orch_regex *rx, const char *text, char *group1, size_t group1_len);
void orch_regex_free(struct orch_regex *rx);

#endif
