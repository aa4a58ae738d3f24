#ifndef ORCH_HISTORY_HISTORY_HTML_H
#define ORCH_HISTORY_HISTORY_HTML_H
/*
 * The history's page (orch history --format html): one self-contained
 * HTML document, a row per test x metric with the boards folded as the
 * text folds them (history/history_fold.h: node set, median, range, the
 * boards that differ), its chart the runs' medians across the boards, and
 * each board's trend chart (report/report_trend.h) with the judge's marks
 * (history_marks_of) under it in a closed <details>: as readable at 64
 * boards as at 2. It renders only; the caller prints.
 */
#include <stddef.h>

#include "history/history.h"
#include "util/strbuf.h"

/* Appends the page of series s[0..n) of scenario, read from db (its name
 * as shown), judged with w, to sb; each series from its shown_from on. */
void history_html_page(struct strbuf *sb, const char *scenario, const char *db,
		       const struct history_series *s, size_t n, const struct history_walk_opts *w);

#endif
