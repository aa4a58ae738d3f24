#ifndef ORCH_REPORT_REPORT_HTML_INT_H
#define ORCH_REPORT_REPORT_HTML_INT_H
/*
 * The sections of report.html drawn outside report_html.c (internal to
 * report/): report_html.c puts the page together and calls them;
 * report_html_grid.c draws the board x test grid,
 * report_html_chart.c the boot timeline and the metric charts,
 * report_html_trend.c the trends (with report_trend.c's charts). They
 * write through report_html_write.h, never through report_html.c.
 */
#include "report/report_html_write.h"
#include "result/result.h"
#include "util/strbuf.h"

void html_grid(struct strbuf *sb, const struct run_result *run);
void html_timeline(struct strbuf *sb, const struct run_result *run);
void html_metrics(struct strbuf *sb, const struct run_result *run);
void html_trends(struct strbuf *sb, const struct run_result *run, const struct html_sink *k);

#endif
