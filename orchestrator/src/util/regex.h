#ifndef ORCH_UTIL_REGEX_H
#define ORCH_UTIL_REGEX_H
/*
 * Regular expressions as users write them in YAML (metrics, ready:, boot
 * phases): POSIX extended syntax plus the Perl shorthands people type out of
 * habit (\d \D \s \S \w \W), translated to bracket expressions before
 * regcomp(). Matching is per line (REG_NEWLINE).
 */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct orch_regex {
	regex_t re;
	bool compiled;
	size_t n_groups;
};

/* 0, or -1 with the reason in err ("unmatched ( at offset 4"). */
int orch_regex_compile(struct orch_regex *rx, const char *pattern, char *err, size_t errlen);
/* Whether text matches; when it does and group 1 exists, its text is copied
 * to group1 (truncated to group1_len - 1; group1 may be NULL). */
bool orch_regex_match(const struct orch_regex *rx, const char *text, char *group1, size_t group1_len);
void orch_regex_free(struct orch_regex *rx);

#endif
