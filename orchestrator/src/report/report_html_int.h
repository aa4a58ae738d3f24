#ifndef ORCH_REPORT_REPORT_HTML_INT_H
#define ORCH_REPORT_REPORT_HTML_INT_H
/*
 * What the pieces of report.html share (internal to report/): escaping,
 * links, the SVG geometry and axes, the sink a long section flushes into,
 * and the sections each file draws. report_html.c puts the page together;
 * report_html_chart.c draws the boot timeline and the metric charts;
 * report_html_trend.c the trends (with report_trend.c's charts).
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
const char *html_status_class(const struct test_result *tr);

/* Where a long section may hand what it has written so far (report.html
 * written to a file a piece at a time); flush NULL keeps it all in sb. */
struct html_sink {
	void (*flush)(void *ctx, struct strbuf *sb);
	void *ctx;
};

/* Hands sb over once it holds a good piece (or whatever, with all). */
void html_flush(const struct html_sink *k, struct strbuf *sb, bool all);

/* The sections drawn outside report_html.c. */
void html_timeline(struct strbuf *sb, const struct run_result *run);
void html_metrics(struct strbuf *sb, const struct run_result *run);
void html_trends(struct strbuf *sb, const struct run_result *run, const struct html_sink *k);

#endif
