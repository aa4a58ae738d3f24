/* orch history --format html: a row per test x metric with the boards
 * folded, each board's chart below it on request. */
#include "history/history_html.h"
#include "history/history_fold.h"
#include "report/report_trend.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/valfmt.h"
#include "util/xmltext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void html_text(struct strbuf *sb, const char *s)
{
	xml_escape(sb, s ? s : "", true);
}

/* The words under a chart: the step the judge found, the acknowledged
 * change. */
static void html_marks(struct strbuf *sb, const struct history_series *hs,
		       const struct history_marks *mk)
{
	if (mk->words) {
		strbuf_printf(sb, "<div class=\"step %s\">", mk->step->j.worse ? "worse" : "better");
		html_text(sb, mk->words);
		strbuf_puts(sb, "</div>");
	} else if (mk->step) {
		const struct history_point *p = &hs->points[mk->step_at];
		struct strbuf w = STRBUF_INIT;
		valfmt_pct(&w, mk->step->j.change_pct);
		strbuf_printf(&w, " at %s%s", p->label ? p->label : p->run_id,
			      mk->settled ? ", the new normal" : "");
		strbuf_printf(sb, "<div class=\"step %s\">", mk->step->j.worse ? "worse" : "better");
		html_text(sb, strbuf_str(&w));
		strbuf_puts(sb, "</div>");
		strbuf_release(&w);
	}
	if (mk->ack_at != SIZE_MAX) {
		const struct history_point *p = &hs->points[mk->ack_at];
		strbuf_puts(sb, "<div class=\"ack\">accepted at ");
		html_text(sb, p->label ? p->label : p->run_id);
		strbuf_puts(sb, ": ");
		html_text(sb, p->ack_note);
		strbuf_puts(sb, "</div>");
	}
}

/* Frees a chart's report links [0, n) and their array. */
static void chart_links_free(char **hrefs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(hrefs[k]);
	free(hrefs);
}

/* The run's report.html, or NULL when the run folder is not known; caller frees. */
static char *report_href(const struct history_point *p)
{
	return p->run_dir && *p->run_dir ? xasprintf("%s/report.html", p->run_dir) : NULL;
}

/* The chart of one board's series, on its row's scale, with the judge's
 * marks and words under it. */
static void board_chart(struct strbuf *sb, const struct history_series *hs, double lo, double hi,
			const struct history_walk_opts *w)
{
	struct trend_chart c;
	trend_chart_init(&c);
	c.width = 200;
	c.height = 110;
	size_t off = hs->shown_from;
	struct trend_chart_point *pts = xcalloc(hs->n + 1, sizeof(*pts));
	char **hrefs = xcalloc(hs->n + 1, sizeof(*hrefs));
	for (size_t k = 0; k + off < hs->n; k++) {
		const struct history_point *p = &hs->points[k + off];
		pts[k] = (struct trend_chart_point){ p->run_id, p->label, p->value, NULL };
		pts[k].href = hrefs[k] = report_href(p);
	}
	char *title = xasprintf("%s \u00b7 %s \u00b7 %s", hs->board, hs->test, hs->metric);
	c.title = title;
	c.unit = hs->unit;
	c.points = pts;
	c.n = hs->n - off;
	c.lo = lo;
	c.hi = hi;
	struct history_marks mk;
	history_marks_of(hs, w, &mk);
	if (mk.step && mk.step_at >= off) {
		c.current = mk.step_at - off;
		c.change = mk.step->j.outcome == JUDGE_REGRESSION ? METRIC_CHANGE_REGRESSION
			 : mk.step->j.worse ? METRIC_CHANGE_WORSE : METRIC_CHANGE_BETTER;
		c.base_from = mk.step->base_from > off ? mk.step->base_from - off : 0;
		c.base_to = mk.step->base_from + mk.step->n_runs > off
			    ? mk.step->base_from + mk.step->n_runs - off : 0;
	}
	if (mk.ack_at != SIZE_MAX && mk.ack_at >= off) {
		c.ack_at = mk.ack_at - off;
		c.ack_note = hs->points[mk.ack_at].ack_note;
	}
	strbuf_puts(sb, "<div class=\"bd\"><b>");
	html_text(sb, hs->board);
	strbuf_puts(sb, "</b>");
	trend_chart_svg(sb, &c);
	html_marks(sb, hs, &mk);
	strbuf_puts(sb, "</div>");
	history_marks_release(&mk);
	free(title);
	chart_links_free(hrefs, hs->n - off);
	free(pts);
}

/* The row's chart: each run's median across the boards that ran it. */
static void row_chart(struct strbuf *sb, const struct history_fold_row *r)
{
	struct trend_chart c;
	trend_chart_init(&c);
	c.width = 260;
	c.height = 110;
	struct trend_chart_point *pts = xcalloc(r->n_runs + 1, sizeof(*pts));
	char **hrefs = xcalloc(r->n_runs + 1, sizeof(*hrefs));
	for (size_t k = 0; k < r->n_runs; k++) {
		const struct history_point *p = r->runs[k].p;
		pts[k] = (struct trend_chart_point){ p->run_id, p->label, r->runs[k].median, NULL };
		pts[k].href = hrefs[k] = report_href(p);
	}
	char *title = xasprintf("%s \u00b7 %s \u00b7 %s: the median of %zu board%s", r->boards,
				r->test, r->metric, r->n, r->n == 1 ? "" : "s");
	c.title = title;
	c.unit = r->unit;
	c.points = pts;
	c.n = r->n_runs;
	c.lo = r->lo;
	c.hi = r->hi;
	trend_chart_svg(sb, &c);
	free(title);
	chart_links_free(hrefs, r->n_runs);
	free(pts);
}

/* The row's figures in words: "b[1-64] · 4 runs · median 1.002 GB/s ·
 * 902 MB/s to 1.004 GB/s · last change -20.0% to +0.3%". */
static void row_figures(struct strbuf *sb, const struct history_fold_row *r)
{
	struct strbuf t = STRBUF_INIT;
	strbuf_printf(&t, "%s \u00b7 ", r->boards);
	if (r->runs_lo == r->runs_hi)
		strbuf_printf(&t, "%zu run%s", r->runs_lo, r->runs_lo == 1 ? "" : "s");
	else
		strbuf_printf(&t, "%zu-%zu runs", r->runs_lo, r->runs_hi);
	strbuf_printf(&t, " (%s to %s) \u00b7 median ",
		      r->first->label ? r->first->label : r->first->run_id,
		      r->last->label ? r->last->label : r->last->run_id);
	valfmt_value(&t, r->median, r->unit);
	strbuf_puts(&t, " \u00b7 range ");
	valfmt_pair(&t, r->lo, r->hi, r->unit);
	if (!isnan(r->change_lo)) {
		strbuf_puts(&t, " \u00b7 last change ");
		valfmt_pct(&t, r->change_lo);
		if (r->change_hi != r->change_lo) {
			strbuf_puts(&t, " to ");
			valfmt_pct(&t, r->change_hi);
		}
	}
	strbuf_puts(sb, "<p class=\"fig\">");
	html_text(sb, strbuf_str(&t));
	strbuf_puts(sb, "</p>");
	strbuf_release(&t);
}

/* One test x metric: its name, the folded chart, the figures, the boards
 * that differ, and each board's chart in a closed <details>. */
static void html_row(struct strbuf *sb, const struct history_fold_row *r,
		     const struct history_walk_opts *w)
{
	strbuf_puts(sb, "<tr class=\"row\"><th>");
	html_text(sb, r->test);
	strbuf_puts(sb, " \u00b7 ");
	html_text(sb, r->metric);
	strbuf_puts(sb, "<small>");
	struct strbuf u = STRBUF_INIT;
	strbuf_printf(&u, "%s%s%s is better", *r->unit ? r->unit : "", *r->unit ? ", " : "",
		      r->higher_is_better ? "higher" : "lower");
	html_text(sb, strbuf_str(&u));
	strbuf_release(&u);
	strbuf_puts(sb, "</small></th><td class=\"c\">");
	row_chart(sb, r);
	strbuf_puts(sb, "</td><td>");
	row_figures(sb, r);
	strbuf_printf(sb, "<p class=\"differ%s\">", r->differ ? "" : " none");
	html_text(sb, r->differ ? r->differ : "no board differs");
	strbuf_printf(sb, "</p><details><summary>each board (%zu)</summary><div class=\"boards\">",
		      r->n);
	for (size_t i = 0; i < r->n; i++)
		board_chart(sb, r->series[i], r->lo, r->hi, w);
	strbuf_puts(sb, "</div></details></td></tr>\n");
}

/* --format html: one self-contained page (inline CSS and SVG, no script,
 * no network), a row per test x metric with the boards folded as orch
 * history prints them (history_fold), each board's trend on the row's
 * scale in a <details> under it. */
void history_html_page(struct strbuf *sb, const char *scenario, const char *db,
		       const struct history_series *s, size_t n, const struct history_walk_opts *w)
{
	struct history_fold_row *rows = NULL;
	size_t nr = 0;
	history_fold(s, n, w, &rows, &nr);
	const char **boards = xcalloc(n + 1, sizeof(*boards));
	size_t nb = 0;
	for (size_t i = 0; i < n; i++) {
		size_t b = 0;
		while (b < nb && !same(boards[b], s[i].board))
			b++;
		if (b == nb)
			boards[nb++] = s[i].board;
	}
	char *all = nodeset_fold_str(boards, nb);
	strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
	html_text(sb, scenario);
	strbuf_puts(sb, " \u00b7 history \u00b7 orch</title>\n<style>\n"
		    "body{margin:0;font:13px/1.4 system-ui,-apple-system,\"Segoe UI\",Roboto,"
		    "\"DejaVu Sans\",Arial,sans-serif;color:#1f2328}\n"
		    "header{padding:8px 14px;border-bottom:1px solid #d8dee4}h1{font-size:18px;margin:0}\n"
		    "header p{margin:2px 0;color:#59636e;font-size:12px}\n"
		    "html,body{height:100%}body{display:flex;flex-direction:column}\n"
		    ".wrap{overflow-y:auto;overflow-x:hidden;flex:1;min-height:0}\n"
		    "table{border-collapse:separate;border-spacing:0;width:100%;table-layout:fixed}\n"
		    "thead th{position:sticky;top:0;background:#f6f8fa;font-size:12px;padding:4px 6px;"
		    "border-bottom:1px solid #d8dee4;text-align:left;z-index:1}\n"
		    "tbody th{text-align:left;vertical-align:top;padding:6px;font-size:12px;"
		    "overflow-wrap:anywhere;border-bottom:1px solid #eef1f4}\n"
		    "th small{display:block;font-weight:400;color:#59636e}\n"
		    "td{padding:4px 6px;border-bottom:1px solid #eef1f4;vertical-align:top;"
		    "overflow-wrap:anywhere}\n"
		    "td p{margin:2px 0}.fig{color:#59636e}.differ{font-weight:600}"
		    ".differ.none{font-weight:400;color:#8c959f}\n"
		    "details summary{cursor:pointer;color:#0969da;font-size:12px}\n"
		    ".boards{display:flex;flex-wrap:wrap;gap:4px}.bd{width:204px}.bd b{font-size:11px}\n"
		    "svg.trend{display:block}svg text{font-family:inherit}\n"
		    ".step{font-size:11px;font-weight:600}.step.worse{color:#cf222e}"
		    ".step.better{color:#1a7f37}.ack{font-size:11px;color:#8250df;max-width:200px}\n"
		    "</style>\n</head>\n<body>\n<header><h1>");
	html_text(sb, scenario);
	strbuf_printf(sb, " \u00b7 history</h1><p>%zu test \u00d7 metric row%s over %zu board%s (",
		      nr, nr == 1 ? "" : "s", nb, nb == 1 ? "" : "s");
	html_text(sb, all);
	strbuf_puts(sb, ") from ");
	html_text(sb, db);
	strbuf_puts(sb, "; a row's chart is each run's median across its boards, the boards that "
		    "differ named beside it; each board's chart (its own scale shared with the row's "
		    "boards, a lasting step marked, an accepted one named) is under \u201ceach "
		    "board\u201d; a point links to its run's report.</p></header>\n"
		    "<div class=\"wrap\"><table>\n<colgroup><col style=\"width:180px\"/>"
		    "<col style=\"width:276px\"/><col/></colgroup>\n<thead><tr><th>test \u00b7 metric"
		    "</th><th>median across boards</th><th>boards, figures, those that differ</th>"
		    "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < nr; r++)
		html_row(sb, &rows[r], w);
	strbuf_puts(sb, "</tbody></table></div>\n</body>\n</html>\n");
	free(all);
	free(boards);
	history_fold_free(rows, nr);
}
