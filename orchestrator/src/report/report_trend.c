/*
 * Trend charts with axes (report/report_trend.h): every number on them is
 * written by util/valfmt, the same text as the tables.
 */
#include "report/report_trend.h"

#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/valfmt.h"
#include "util/xmltext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PAD_L 48.0
#define PAD_R 10.0
#define PAD_T 14.0
#define PAD_B 30.0
#define MAX_X_LABELS 4
#define X_LABEL_CHARS 11

void trend_chart_init(struct trend_chart *c)
{
	memset(c, 0, sizeof(*c));
	c->current = SIZE_MAX;
	c->ack_at = SIZE_MAX;
	c->width = 260;
	c->height = 120;
	c->lo = NAN;
	c->hi = NAN;
}

const char *trend_change_fill(enum metric_change c)
{
	switch (c) {
	case METRIC_CHANGE_BETTER: return "#1a7f37";
	case METRIC_CHANGE_REGRESSION: return "#cf222e";
	case METRIC_CHANGE_WORSE: return "#e8868b";
	case METRIC_CHANGE_SAME:
	case METRIC_CHANGE_NOISE: return "#afb8c1";
	case METRIC_CHANGE_NOT_JUDGED: return "#d4a72c";
	case METRIC_CHANGE_NONE: break;
	}
	return "#4e79a7";
}

/* 1, 2 or 5 times a power of ten, about range / ticks. */
static double tick_step(double range, int ticks)
{
	double raw = range / ticks;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void esc(struct strbuf *sb, const char *s)
{
	xml_escape(sb, s ? s : "", true);
}

struct frame {
	double x0, x1, y0, y1;    /* the plot area */
	double lo, hi;            /* the y range, in the declared unit */
	size_t n;
};

static double px(const struct frame *f, size_t k)
{
	return f->n > 1 ? f->x0 + (f->x1 - f->x0) * (double)k / (double)(f->n - 1)
			: (f->x0 + f->x1) / 2;
}

static double py(const struct frame *f, double v)
{
	if (!isfinite(v))
		v = f->lo;
	return f->y1 - (f->y1 - f->y0) * (v - f->lo) / (f->hi - f->lo);
}

/* The y axis: grid lines at round values of the shown unit, their values,
 * and the unit's name above them. */
static void y_axis(struct strbuf *sb, const struct trend_chart *c, const struct frame *f)
{
	struct valfmt_scale sc;
	valfmt_scale_for(fabs(f->hi) > fabs(f->lo) ? f->hi : f->lo, c->unit, &sc);
	double lo = f->lo * sc.factor, hi = f->hi * sc.factor;
	double step = tick_step(hi - lo, 3);
	strbuf_puts(sb, "<g class=\"axis\" font-size=\"10\" fill=\"#57606a\">");
	for (double t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
		double y = py(f, t / sc.factor);
		char num[VALFMT_NUM_LEN];
		valfmt_number_buf(num, sizeof(num), fabs(t) < step * 1e-9 ? 0 : t);
		strbuf_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"#d0d7de\" stroke-width=\"0.6\"/>", f->x0, y, f->x1, y);
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			      "dominant-baseline=\"middle\">%s</text>", f->x0 - 4, y, num);
	}
	/* the unit above the axis, from the chart's left edge (a long one stays whole) */
	strbuf_puts(sb, "<text x=\"2\" y=\"9\" text-anchor=\"start\" font-weight=\"600\">");
	esc(sb, *sc.unit ? sc.unit : "no unit");
	strbuf_printf(sb, "</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"#8c959f\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"#8c959f\"/></g>", f->x0, f->y0, f->x0, f->y1, f->x0, f->y1, f->x1, f->y1);
}

static const char *point_name(const struct trend_chart_point *p)
{
	return p->label && *p->label ? p->label : p->run_id ? p->run_id : "?";
}

static void x_label(struct strbuf *sb, const struct trend_chart *c, const struct frame *f,
		    size_t k)
{
	const char *name = point_name(&c->points[k]);
	char cut[4 * X_LABEL_CHARS + 4];
	size_t n = utf8_prefix(name, X_LABEL_CHARS);
	if (n > sizeof(cut) - 4)
		n = sizeof(cut) - 4;
	memcpy(cut, name, n);
	cut[n] = '\0';
	const char *anchor = c->n == 1 ? "middle" : k == 0 ? "start" : k + 1 == c->n ? "end" : "middle";
	strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", px(f, k), f->y1 + 12,
		      anchor);
	esc(sb, cut);
	strbuf_puts(sb, "</text>");
}

/* Run labels under the x axis: the last (the newest), the first, the
 * current, then others while they keep X_LABEL_GAP px apart; each cut to
 * X_LABEL_CHARS characters (the whole name is in the points' titles). */
#define X_LABEL_GAP 62.0
static void x_labels(struct strbuf *sb, const struct trend_chart *c, const struct frame *f)
{
	double taken[MAX_X_LABELS + 1];
	size_t n_taken = 0;
	strbuf_puts(sb, "<g class=\"xlabels\" font-size=\"9\" fill=\"#57606a\">");
	for (size_t pass = 0; pass < 4 && n_taken < MAX_X_LABELS; pass++) {
		for (size_t j = 0; j < c->n && n_taken < MAX_X_LABELS; j++) {
			size_t k = pass == 0 ? c->n - 1 : pass == 1 ? 0 : pass == 2 ? c->current : j;
			if (k >= c->n)
				break;
			bool free_spot = true;
			for (size_t t = 0; t < n_taken; t++)
				free_spot &= fabs(taken[t] - px(f, k)) >= X_LABEL_GAP;
			if (free_spot) {
				taken[n_taken++] = px(f, k);
				x_label(sb, c, f, k);
			}
			if (pass < 3)
				break;
		}
	}
	strbuf_puts(sb, "</g>");
}

static void marks(struct strbuf *sb, const struct trend_chart *c, const struct frame *f)
{
	double half = c->n > 1 ? (f->x1 - f->x0) / (double)(c->n - 1) / 2 : 8;
	if (c->base_to > c->base_from && c->base_to <= c->n) {
		double a = px(f, c->base_from) - half, b = px(f, c->base_to - 1) + half;
		a = a < f->x0 ? f->x0 : a;
		b = b > f->x1 ? f->x1 : b;
		strbuf_printf(sb, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			      "height=\"%.1f\" fill=\"#ddf4ff\"><title>baseline: %zu run%s</title></rect>",
			      a, f->y0, b - a, f->y1 - f->y0, c->base_to - c->base_from,
			      c->base_to - c->base_from == 1 ? "" : "s");
	}
	if (c->current < c->n && c->current > 0 && c->change != METRIC_CHANGE_NONE) {
		double x = px(f, c->current) - half;
		strbuf_printf(sb, "<line class=\"step\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"%s\" stroke-dasharray=\"3 2\"/>", x, f->y0, x, f->y1,
			      trend_change_fill(c->change));
	}
	if (c->ack_at < c->n) {
		double x = px(f, c->ack_at) - (c->ack_at ? half : 0);
		strbuf_printf(sb, "<g class=\"ack\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"#8250df\" stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%.1f\" "
			      "font-size=\"9\" fill=\"#8250df\">ack</text><title>accepted: ",
			      x, f->y0, x, f->y1, x + 2, f->y0 + 8);
		esc(sb, c->ack_note);
		strbuf_puts(sb, "</title></g>");
	}
}

static void points(struct strbuf *sb, const struct trend_chart *c, const struct frame *f)
{
	strbuf_puts(sb, "<polyline fill=\"none\" stroke=\"#3b6ea5\" stroke-width=\"1.3\" points=\"");
	for (size_t k = 0; k < c->n; k++)
		strbuf_printf(sb, "%s%.1f,%.1f", k ? " " : "", px(f, k), py(f, c->points[k].value));
	strbuf_puts(sb, "\"/>");
	for (size_t k = 0; k < c->n; k++) {
		const struct trend_chart_point *p = &c->points[k];
		bool cur = k == c->current;
		if (p->href) {
			strbuf_puts(sb, "<a href=\"");
			esc(sb, p->href);
			strbuf_puts(sb, "\">");
		}
		strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"%s><title>",
			      px(f, k), py(f, p->value), cur ? "4" : "2.5",
			      cur ? trend_change_fill(c->change) : "#3b6ea5",
			      cur ? " class=\"current\" stroke=\"#1f2328\"" : "");
		esc(sb, point_name(p));
		if (p->label && *p->label && p->run_id) {
			strbuf_puts(sb, " (");
			esc(sb, p->run_id);
			strbuf_putc(sb, ')');
		}
		strbuf_puts(sb, cur ? " (this run): " : ": ");
		struct strbuf v = STRBUF_INIT;
		valfmt_value(&v, p->value, c->unit);
		esc(sb, strbuf_str(&v));
		strbuf_release(&v);
		strbuf_puts(sb, "</title></circle>");
		if (p->href)
			strbuf_puts(sb, "</a>");
	}
}

void trend_chart_svg(struct strbuf *sb, const struct trend_chart *c)
{
	struct frame f = { PAD_L, c->width - PAD_R, PAD_T, c->height - PAD_B, c->lo, c->hi, c->n };
	if (!isfinite(f.lo) || !isfinite(f.hi)) {
		f.lo = INFINITY;
		f.hi = -INFINITY;
		for (size_t k = 0; k < c->n; k++) {
			f.lo = fmin(f.lo, c->points[k].value);
			f.hi = fmax(f.hi, c->points[k].value);
		}
	}
	if (!isfinite(f.lo) || !isfinite(f.hi))
		f.lo = 0, f.hi = 1;
	if (!(f.hi > f.lo)) {
		double pad = f.lo != 0 ? fabs(f.lo) * 0.05 : 1;
		f.lo -= pad;
		f.hi += pad;
	}
	strbuf_printf(sb, "<svg class=\"trend\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		      "role=\"img\" aria-label=\"", c->width, c->height, c->width, c->height);
	esc(sb, c->title);
	strbuf_puts(sb, "\">");
	marks(sb, c, &f);
	y_axis(sb, c, &f);
	x_labels(sb, c, &f);
	points(sb, c, &f);
	strbuf_puts(sb, "</svg>");
}
