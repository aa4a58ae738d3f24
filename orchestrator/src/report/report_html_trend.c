/*
 * report.html's trends: per test x metric, one chart per board over the
 * last runs from the history, all of a metric's boards on one y scale (so a
 * 0.3% drift looks like one and a 20% step like one), with axes in the
 * metric's unit, run labels, the baseline window and the step marked, the
 * points coloured by this run's verdict and linked to their runs' reports
 * (report/report_trend.h draws them).
 */
#include "report/report.h"
#include "report/report_html_int.h"
#include "report/report_trend.h"
#include "compare/range.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* This run's result of a trend's metric, or NULL. */
static const struct metric_result *trend_metric(const struct run_result *run,
						const struct metric_trend *t)
{
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!same(tr->board, t->board) || !same(tr->test, t->test))
			continue;
		for (size_t m = 0; m < tr->n_metrics; m++)
			if (same(tr->metrics[m].name, t->metric))
				return &tr->metrics[m];
	}
	return NULL;
}

static bool same_metric(const struct metric_trend *a, const struct metric_trend *b)
{
	return same(a->test, b->test) && same(a->metric, b->metric);
}

/* The last path component of the baseline run folder (its run id). */
static const char *baseline_run_id(const struct run_result *run)
{
	if (!run->baseline)
		return NULL;
	const char *s = strrchr(run->baseline, '/');
	return s && s[1] ? s + 1 : run->baseline;
}

static size_t point_of(const struct metric_trend *t, const char *run_id)
{
	for (size_t k = 0; run_id && k < t->n; k++)
		if (same(t->points[k].run_id, run_id))
			return k;
	return SIZE_MAX;
}

/* One board's chart of the metric, on the scale [lo, hi]. */
static void trend_box(struct strbuf *sb, const struct run_result *run,
		      const struct metric_trend *t, double lo, double hi)
{
	const struct metric_result *mr = trend_metric(run, t);
	struct trend_chart c;
	trend_chart_init(&c);
	struct trend_chart_point *pts = xcalloc(t->n + 1, sizeof(*pts));
	char **hrefs = xcalloc(t->n + 1, sizeof(*hrefs));
	for (size_t k = 0; k < t->n; k++) {
		const struct trend_point *p = &t->points[k];
		pts[k].run_id = p->run_id;
		pts[k].label = p->label;
		pts[k].value = p->value;
		if (p->current) {
			c.current = k;
		} else if (p->run_id && !strchr(p->run_id, '/') && strcmp(p->run_id, "..") != 0) {
			hrefs[k] = xasprintf("../%s/report.html", p->run_id);
			pts[k].href = hrefs[k];
		}
	}
	char *title = xasprintf("%s \u00b7 %s \u00b7 %s", t->board, t->test, t->metric);
	c.title = title;
	c.unit = mr && mr->unit ? mr->unit : "";
	c.points = pts;
	c.n = t->n;
	c.lo = lo;
	c.hi = hi;
	c.change = mr ? mr->change : METRIC_CHANGE_NONE;
	if (mr && c.current < t->n && mr->change != METRIC_CHANGE_NONE) {
		if (run->baseline_kind == BASELINE_HISTORY && mr->verdict.n_baseline) {
			size_t n = mr->verdict.n_baseline;
			c.base_to = c.current;
			c.base_from = c.current > n ? c.current - n : 0;
		} else {
			size_t b = point_of(t, baseline_run_id(run));
			if (b < t->n) {
				c.base_from = b;
				c.base_to = b + 1;
			}
		}
		c.ack_at = point_of(t, mr->verdict.ack_run);
		c.ack_note = mr->verdict.ack_note;
	}
	strbuf_puts(sb, "<div class=\"trendbox\"><div class=\"trendname\">");
	esc(sb, t->board);
	if (mr && mr->change != METRIC_CHANGE_NONE) {
		struct strbuf v = STRBUF_INIT;
		range_metric_change(&v, mr, NAN);
		strbuf_printf(sb, " <span class=\"chg %s\">", range_change_class(mr->change));
		esc(sb, strbuf_str(&v));
		strbuf_puts(sb, "</span>");
		strbuf_release(&v);
	}
	strbuf_puts(sb, "</div>");
	trend_chart_svg(sb, &c);
	strbuf_puts(sb, "</div>\n");
	free(title);
	for (size_t k = 0; k < t->n; k++)
		free(hrefs[k]);
	free(hrefs);
	free(pts);
}

void html_trends(struct strbuf *sb, const struct run_result *run, const struct html_sink *k)
{
	if (!run->n_trends)
		return;
	strbuf_puts(sb, "<h2 id=\"trends\">Trends<small>the last runs from the history, this run "
		    "ringed and coloured by its verdict; a metric's boards share one scale; the "
		    "baseline shaded</small></h2>\n");
	bool *done = xcalloc(run->n_trends + 1, sizeof(*done));
	for (size_t i = 0; i < run->n_trends; i++) {
		if (done[i] || !run->trends[i].n)
			continue;
		const struct metric_trend *t0 = &run->trends[i];
		double lo = INFINITY, hi = -INFINITY;
		for (size_t j = i; j < run->n_trends; j++) {
			if (!same_metric(&run->trends[j], t0))
				continue;
			for (size_t p = 0; p < run->trends[j].n; p++) {
				lo = fmin(lo, run->trends[j].points[p].value);
				hi = fmax(hi, run->trends[j].points[p].value);
			}
		}
		const struct metric_result *mr = trend_metric(run, t0);
		strbuf_puts(sb, "<h3 class=\"trendmetric\">");
		esc(sb, t0->test);
		strbuf_puts(sb, " \u00b7 ");
		esc(sb, t0->metric);
		strbuf_puts(sb, "<small>");
		struct strbuf r = STRBUF_INIT;
		valfmt_value(&r, lo, mr ? mr->unit : "");
		strbuf_puts(&r, " to ");
		valfmt_value(&r, hi, mr ? mr->unit : "");
		esc(sb, strbuf_str(&r));
		strbuf_release(&r);
		strbuf_puts(sb, " over the boards</small></h3>\n<div class=\"trends\">\n");
		for (size_t j = i; j < run->n_trends; j++) {
			if (done[j] || !same_metric(&run->trends[j], t0) || !run->trends[j].n)
				continue;
			done[j] = true;
			html_flush(k, sb, false);
			trend_box(sb, run, &run->trends[j], lo, hi);
		}
		strbuf_puts(sb, "</div>\n");
	}
	free(done);
}
