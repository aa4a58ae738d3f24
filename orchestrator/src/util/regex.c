#define PCRE2_CODE_UNIT_WIDTH 8
#include "util/regex.h"

#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* One read-only match context with the limits, shared by every match. */
static pcre2_match_context *limits;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

static void limits_init(void)
{
	limits = pcre2_match_context_create(NULL);
	if (!limits)
		return;
	pcre2_set_match_limit(limits, ORCH_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(limits, ORCH_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(limits, ORCH_REGEX_HEAP_LIMIT_KIB);
}

static void lowercase_first(char *s)
{
	if (s[0] >= 'A' && s[0] <= 'Z')
		s[0] = (char)(s[0] - 'A' + 'a');
}

int orch_regex_compile(struct orch_regex *rx, const char *pattern, char *err, size_t errlen)
{
	char dummy[8];
	int errcode;
	PCRE2_SIZE erroff;

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(rx, 0, sizeof(*rx));
	if (!pattern) {
		snprintf(err, errlen, "no pattern");
		return -1;
	}
	if (strlen(pattern) > ORCH_REGEX_MAX_LEN) {
		snprintf(err, errlen, "pattern longer than %d characters", ORCH_REGEX_MAX_LEN);
		return -1;
	}
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
					 PCRE2_MULTILINE, &errcode, &erroff, NULL);
	if (!code) {
		char msg[160];
		if (pcre2_get_error_message(errcode, (PCRE2_UCHAR *)msg, sizeof(msg)) < 0)
			snprintf(msg, sizeof(msg), "invalid pattern");
		lowercase_first(msg);
		snprintf(err, errlen, "%s at offset %zu", msg, (size_t)erroff);
		return -1;
	}
	uint32_t n = 0;
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &n);
	rx->code = code;
	rx->n_groups = n;
	rx->compiled = true;
	return 0;
}

int orch_regex_exec(const struct orch_regex *rx, const char *text, size_t len,
		    struct orch_regex_span *spans, size_t n_spans)
{
	if (!rx || !rx->compiled || !text)
		return ORCH_REGEX_EINVAL;
	pthread_once(&limits_once, limits_init);
	if (!limits)
		return ORCH_REGEX_EMATCH;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx->code, NULL);
	if (!md)
		return ORCH_REGEX_EMATCH;
	int rc = pcre2_match(rx->code, (PCRE2_SPTR)text, len, 0, 0, md, limits);
	int ret;
	if (rc == PCRE2_ERROR_NOMATCH) {
		ret = ORCH_REGEX_NOMATCH;
	} else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		   rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY) {
		ret = ORCH_REGEX_ELIMIT;
	} else if (rc < 0) {
		ret = ORCH_REGEX_EMATCH;
	} else {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		uint32_t n_ov = pcre2_get_ovector_count(md);
		for (size_t i = 0; i < n_spans; i++) {
			spans[i].so = spans[i].eo = (size_t)-1;
			if (i < n_ov && i <= rx->n_groups && ov[2 * i] != PCRE2_UNSET) {
				spans[i].so = ov[2 * i];
				spans[i].eo = ov[2 * i + 1];
			}
		}
		ret = ORCH_REGEX_MATCHED;
	}
	pcre2_match_data_free(md);
	return ret;
}

int orch_regex_group_number(const struct orch_regex *rx, const char *name)
{
	if (!rx || !rx->compiled || !name)
		return -1;
	int n = pcre2_substring_number_from_name(rx->code, (PCRE2_SPTR)name);
	return n > 0 ? n : -1;
}

const char *orch_regex_strerror(int rc)
{
	switch (rc) {
	case ORCH_REGEX_NOMATCH: return "no match";
	case ORCH_REGEX_MATCHED: return "matched";
	case ORCH_REGEX_EINVAL: return "pattern not compiled";
	case ORCH_REGEX_ELIMIT: return "the pattern backtracks too much (PCRE2 match limit hit)";
	default: return "matching failed";
	}
}

void orch_regex_copy(const char *text, const struct orch_regex_span *span, char *buf, size_t len)
{
	size_t n = 0;
	if (!buf || len == 0)
		return;
	if (span->so != (size_t)-1 && span->eo >= span->so) {
		n = span->eo - span->so;
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, text + span->so, n);
	}
	buf[n] = '\0';
}

bool orch_regex_match(const struct orch_regex *rx, const char *text, char *group1, size_t group1_len)
{
	struct orch_regex_span sp[2];
	if (!text || orch_regex_exec(rx, text, strlen(text), sp, 2) != ORCH_REGEX_MATCHED)
		return false;
	if (group1 && group1_len > 0)
		orch_regex_copy(text, rx->n_groups >= 1 ? &sp[1] : &sp[0], group1, group1_len);
	return true;
}

void orch_regex_free(struct orch_regex *rx)
{
	if (!rx || !rx->compiled)
		return;
	pcre2_code_free(rx->code);
	rx->code = NULL;
	rx->compiled = false;
}
