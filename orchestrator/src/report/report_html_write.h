#ifndef ORCH_REPORT_REPORT_HTML_WRITE_H
#define ORCH_REPORT_REPORT_HTML_WRITE_H
/*
 * How report.html's pieces write HTML (internal to report/): escaping,
 * relative links, a result's status class, and the sink a long section
 * hands its text to. Every file of the page uses this one module and none
 * calls back into the file that puts the page together.
 */
#include <stdbool.h>
#include <stddef.h>

#include "report/report_text.h"
#include "result/result.h"
#include "util/strbuf.h"

static inline void esc(struct strbuf *sb, const char *s)
{
	report_escape(sb, s ? s : "", ESC_ATTR);
}

/* A relative href: path bytes percent-encoded, then escaped for the attribute. */
void html_href(struct strbuf *sb, const char *dir, const char *file);
/* "pass", "fail", "error", "skip", or "regressed" for a pass that regressed. */
const char *html_status_class(const struct test_result *tr);

/* Where a long section may hand what it has written so far (report.html
 * written to a file a piece at a time); flush NULL keeps it all in sb. */
struct html_sink {
	void (*flush)(void *ctx, struct strbuf *sb);
	void *ctx;
};

/* Hands sb over once it holds a good piece (or whatever, with all). */
void html_flush(const struct html_sink *k, struct strbuf *sb, bool all);

#endif
