/* orch history --format html: a board x metric grid of trend charts. */
#include "history/history_html.h"
#include "report/report_trend.h"
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

/* The chart of one series, on its metric's shared scale. */
static void html_cell(struct strbuf *sb, const struct history_series *hs, double lo, double hi,
		      const struct history_walk_opts *w)
{
	struct trend_chart c;
	trend_chart_init(&c);
	c.width = 200;
	c.height = 110;
	struct trend_chart_point *pts = xcalloc(hs->n + 1, sizeof(*pts));
	char **hrefs = xcalloc(hs->n + 1, sizeof(*hrefs));
	size_t off = hs->shown_from;
	for (size_t k = 0; k + off < hs->n; k++) {
		const struct history_point *p = &hs->points[k + off];
		pts[k].run_id = p->run_id;
		pts[k].label = p->label;
		pts[k].value = p->value;
		if (p->run_dir && *p->run_dir) {
			hrefs[k] = xasprintf("%s/report.html", p->run_dir);
			pts[k].href = hrefs[k];
		}
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
	strbuf_puts(sb, "<td>");
	trend_chart_svg(sb, &c);
	html_marks(sb, hs, &mk);
	strbuf_puts(sb, "</td>");
	history_marks_release(&mk);
	free(title);
	for (size_t k = 0; k + off < hs->n; k++)
		free(hrefs[k]);
	free(hrefs);
	free(pts);
}

/* --format html: one self-contained page (inline CSS and SVG, no script,
 * no network), a row per board and a column per test x metric, each cell
 * the board's trend of that metric on the metric's shared scale. */
void history_html_page(struct strbuf *sb, const char *scenario, const char *db,
		       const struct history_series *s, size_t n, const struct history_walk_opts *w)
{
	const char **boards = xcalloc(n + 1, sizeof(*boards));
	const struct history_series **cols = xcalloc(n + 1, sizeof(*cols));
	size_t nb = 0, nc = 0;
	for (size_t i = 0; i < n; i++) {
		size_t b = 0, c = 0;
		while (b < nb && !same(boards[b], s[i].board))
			b++;
		if (b == nb)
			boards[nb++] = s[i].board;
		while (c < nc && !(same(cols[c]->test, s[i].test) && same(cols[c]->metric, s[i].metric)))
			c++;
		if (c == nc)
			cols[nc++] = &s[i];
	}
	strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
	html_text(sb, scenario);
	strbuf_puts(sb, " \u00b7 history \u00b7 orch</title>\n<style>\n"
		    "body{margin:0;font:13px/1.4 system-ui,-apple-system,\"Segoe UI\",Roboto,"
		    "\"DejaVu Sans\",Arial,sans-serif;color:#1f2328}\n"
		    "header{padding:8px 14px;border-bottom:1px solid #d8dee4}h1{font-size:18px;margin:0}\n"
		    "header p{margin:2px 0;color:#59636e;font-size:12px}\n"
		    "html,body{height:100%}body{display:flex;flex-direction:column}\n"
		    ".wrap{overflow:auto;flex:1;min-height:0}\n"
		    "table{border-collapse:separate;border-spacing:0}\n"
		    "th{position:sticky;top:0;background:#f6f8fa;font-size:12px;padding:4px 6px;"
		    "border-bottom:1px solid #d8dee4;text-align:left;white-space:nowrap;z-index:1}\n"
		    "th small{display:block;font-weight:400;color:#59636e}\n"
		    "th.b{position:sticky;left:0;z-index:2;background:#f6f8fa;border-right:1px solid #d8dee4}\n"
		    "td{padding:2px 4px;border-bottom:1px solid #eef1f4;vertical-align:top}\n"
		    "svg.trend{display:block}svg text{font-family:inherit}\n"
		    ".step{font-size:11px;font-weight:600}.step.worse{color:#cf222e}"
		    ".step.better{color:#1a7f37}.ack{font-size:11px;color:#8250df;max-width:200px}.none{color:#8c959f;font-size:11px;padding:40px 8px}\n"
		    "</style>\n</head>\n<body>\n<header><h1>");
	html_text(sb, scenario);
	strbuf_printf(sb, " \u00b7 history</h1><p>%zu board%s \u00d7 %zu metric%s from ", nb,
		      nb == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
	html_text(sb, db);
	strbuf_puts(sb, "; each metric's boards share one y scale; a lasting step is marked "
		    "(dashed line, the runs it was judged against shaded), an accepted one named; a point links to its run's report."
		    "</p></header>\n<div class=\"wrap\"><table>\n<thead><tr><th class=\"b\">board</th>");
	double *lo = xcalloc(nc + 1, sizeof(*lo)), *hi = xcalloc(nc + 1, sizeof(*hi));
	for (size_t c = 0; c < nc; c++) {
		lo[c] = INFINITY;
		hi[c] = -INFINITY;
		for (size_t i = 0; i < n; i++)
			if (same(s[i].test, cols[c]->test) && same(s[i].metric, cols[c]->metric))
				for (size_t k = s[i].shown_from; k < s[i].n; k++) {
					lo[c] = fmin(lo[c], s[i].points[k].value);
					hi[c] = fmax(hi[c], s[i].points[k].value);
				}
		strbuf_puts(sb, "<th>");
		html_text(sb, cols[c]->test);
		strbuf_puts(sb, " \u00b7 ");
		html_text(sb, cols[c]->metric);
		strbuf_puts(sb, "<small>");
		struct strbuf r = STRBUF_INIT;
		valfmt_pair(&r, lo[c], hi[c], cols[c]->unit);
		strbuf_printf(&r, ", %s is better", cols[c]->higher_is_better ? "higher" : "lower");
		html_text(sb, strbuf_str(&r));
		strbuf_release(&r);
		strbuf_puts(sb, "</small></th>");
	}
	strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
	for (size_t b = 0; b < nb; b++) {
		strbuf_puts(sb, "<tr><th class=\"b\">");
		html_text(sb, boards[b]);
		strbuf_puts(sb, "</th>");
		for (size_t c = 0; c < nc; c++) {
			const struct history_series *hs = NULL;
			for (size_t i = 0; i < n && !hs; i++)
				if (same(s[i].board, boards[b]) && same(s[i].test, cols[c]->test) &&
				    same(s[i].metric, cols[c]->metric))
					hs = &s[i];
			if (hs && hs->n)
				html_cell(sb, hs, lo[c], hi[c], w);
			else
				strbuf_puts(sb, "<td class=\"none\">no runs</td>");
		}
		strbuf_puts(sb, "</tr>\n");
	}
	strbuf_puts(sb, "</tbody></table></div>\n</body>\n</html>\n");
	free(lo);
	free(hi);
	free(boards);
	free(cols);
}

