/*
 * report.html's drawings with axes: the boot timeline (phases from the
 * serial console) and a bar chart per metric across the boards, coloured
 * by each board's verdict. Every number on them is util/valfmt's text.
 */
#include "report/report.h"
#include "report/report_html_int.h"
#include "report/report_text.h"
#include "report/report_trend.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_colors[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
};
#define N_PHASE_COLORS (sizeof(phase_colors) / sizeof(phase_colors[0]))

/* SVG geometry, in viewBox units (the SVG scales to the page width) */
#define SVG_W 1120.0
#define SVG_LABEL_W 160.0
#define SVG_ROW_H 28.0
#define SVG_BAR_H 18.0
#define SVG_AXIS_H 24.0
#define SVG_TOP 6.0

/* A "nice" axis step: the smallest 1, 2 or 5 x 10^k giving at most `ticks` intervals. */
static double nice_step(double range, int ticks)
{
	if (!(range > 0))
		return 1;
	double rough = range / ticks, p = 1;
	while (p * 10 <= rough)
		p *= 10;
	while (p > rough)
		p /= 10;
	if (p >= rough)
		return p;
	if (2 * p >= rough)
		return 2 * p;
	if (5 * p >= rough)
		return 5 * p;
	return 10 * p;
}

struct axis {
	double lo, hi, step;
	double x0, w;          /* pixel origin and width */
};

static void axis_init(struct axis *ax, double lo, double hi, double x0, double w, int ticks)
{
	if (!(hi > lo))
		hi = lo + 1;
	ax->step = nice_step(hi - lo, ticks);
	ax->lo = ax->step * (double)(long long)(lo / ax->step);
	if (ax->lo > lo)
		ax->lo -= ax->step;
	double top = ax->lo;
	while (top < hi - 1e-12 * fabs(hi))
		top += ax->step;
	ax->hi = top;
	ax->x0 = x0;
	ax->w = w;
}

static double axis_x(const struct axis *ax, double v)
{
	if (!isfinite(v))
		v = ax->lo;
	return ax->x0 + (v - ax->lo) / (ax->hi - ax->lo) * ax->w;
}

static void axis_draw(struct strbuf *sb, const struct axis *ax, double y_top, double y_bottom,
		      const char *suffix)
{
	strbuf_puts(sb, "<g class=\"axis\">");
	for (double v = ax->lo; v <= ax->hi + ax->step * 1e-6; v += ax->step) {
		double x = axis_x(ax, v);
		char num[VALFMT_NUM_LEN];
		valfmt_number_buf(num, sizeof(num), fabs(v) < ax->step * 1e-9 ? 0 : v);
		strbuf_printf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			      x, y_top, x, y_bottom);
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s",
			      x, y_bottom + 15, num);
		report_escape(sb, suffix, ESC_TEXT);
		strbuf_puts(sb, "</text>");
	}
	strbuf_puts(sb, "</g>\n");
}

static void label_text(struct strbuf *sb, double x, double y, const char *anchor, const char *s,
		       size_t max_chars)
{
	strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" dominant-baseline=\"middle\">",
		      x, y, anchor);
	if (report_width(s) > max_chars) {
		struct strbuf cut = STRBUF_INIT;
		strbuf_append(&cut, s, utf8_prefix(s, max_chars - 1));
		strbuf_puts(&cut, "\u2026");
		report_escape(sb, strbuf_str(&cut), ESC_TEXT);
		strbuf_release(&cut);
	} else {
		report_escape(sb, s, ESC_TEXT);
	}
	strbuf_puts(sb, "</text>");
}

/* ---- boot timeline ------------------------------------------------------ */

static size_t phase_color_index(char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return i;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[*n] = xstrdup(name);
	return (*n)++;
}

/* One board's row of the boot timeline: its phases as segments, then its
 * total and what it did not reach. */
static void timeline_row(struct strbuf *sb, const struct axis *ax, const struct test_result *tr,
			 size_t row, bool several_tests, char ***names, size_t *n_names)
{
	double y = SVG_TOP + (double)row * SVG_ROW_H + (SVG_ROW_H - SVG_BAR_H) / 2;
	double cy = y + SVG_BAR_H / 2;
	char *label = several_tests ? xasprintf("%s / %s", tr->board, tr->test) : xstrdup(tr->board);
	label_text(sb, SVG_LABEL_W - 10, cy, "end", label, 22);
	free(label);

	double end_x = SVG_LABEL_W;
	const char *missing = NULL;
	for (size_t p = 0; p < tr->n_phases; p++) {
		const struct phase_result *ph = &tr->phases[p];
		size_t ci = phase_color_index(names, n_names, ph->name);
		if (!ph->reached) {
			missing = missing ? missing : ph->name;
			continue;
		}
		double start = ph->offset_s - ph->duration_s;
		double x = axis_x(ax, start < 0 ? 0 : start);
		double x2 = axis_x(ax, ph->offset_s);
		double w = x2 - x < 1 ? 1 : x2 - x;
		char d[32];
		report_fmt_duration(d, sizeof(d), ph->duration_s);
		strbuf_printf(sb, "<g class=\"seg\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			      "height=\"%.1f\" rx=\"2\" fill=\"%s\"%s><title>",
			      x, y, w, SVG_BAR_H, phase_colors[ci % N_PHASE_COLORS],
			      ph->over_budget ? " stroke=\"#cf222e\" stroke-width=\"2.5\"" : "");
		strbuf_puts(sb, "");
		report_escape(sb, ph->name, ESC_TEXT);
		strbuf_printf(sb, ": %s, reached at %.2fs", d, ph->offset_s);
		if (ph->max_s > 0)
			strbuf_printf(sb, " (budget %.1fs%s)", ph->max_s,
				      ph->over_budget ? ", over" : "");
		if (ph->line) {
			strbuf_puts(sb, "\n");
			report_escape(sb, ph->line, ESC_TEXT);
		}
		strbuf_puts(sb, "</title></rect>");
		/* the name inside the segment when it fits (about 6.5 units a character) */
		char *txt = xasprintf("%s %s", ph->name, d);
		if ((double)report_width(txt) * 6.5 + 8 < w)
			label_text(sb, x + w / 2, cy + 0.5, "middle", txt, 40);
		else if ((double)report_width(d) * 6.5 + 6 < w)
			label_text(sb, x + w / 2, cy + 0.5, "middle", d, 12);
		free(txt);
		strbuf_puts(sb, "</g>");
		if (x2 > end_x)
			end_x = x2;
	}
	char total[32];
	double last = 0;
	for (size_t p = 0; p < tr->n_phases; p++)
		if (tr->phases[p].reached && tr->phases[p].offset_s > last)
			last = tr->phases[p].offset_s;
	report_fmt_duration(total, sizeof(total), last);
	struct strbuf note = STRBUF_INIT;
	strbuf_puts(&note, total);
	if (missing)
		strbuf_printf(&note, " \u2014 %s not reached", missing);
	strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\" "
		      "font-weight=\"600\"%s>", end_x + 6, cy,
		      missing || tr->status == STATUS_FAIL ? " style=\"fill:#cf222e\"" : "");
	report_escape(sb, strbuf_str(&note), ESC_TEXT);
	strbuf_puts(sb, "</text>\n");
	strbuf_release(&note);
}

void html_timeline(struct strbuf *sb, const struct run_result *run)
{
	size_t rows = 0;
	double t_max = 0;
	bool several_tests = false;
	const char *first_test = NULL;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->n_phases)
			continue;
		rows++;
		if (first_test && strcmp(first_test, tr->test) != 0)
			several_tests = true;
		first_test = first_test ? first_test : tr->test;
		for (size_t p = 0; p < tr->n_phases; p++)
			if (tr->phases[p].reached && tr->phases[p].offset_s > t_max)
				t_max = tr->phases[p].offset_s;
	}
	if (!rows)
		return;

	struct axis ax;
	double chart_w = SVG_W - SVG_LABEL_W - 190;
	axis_init(&ax, 0, t_max, SVG_LABEL_W, chart_w, 8);
	double h = SVG_TOP + (double)rows * SVG_ROW_H + SVG_AXIS_H;
	char **names = NULL;
	size_t n_names = 0;

	strbuf_puts(sb, "<h2 id=\"boot\">Boot timeline<small>phases from the serial console, "
		    "seconds from power-on</small></h2>\n<figure>\n");
	strbuf_printf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"boot timeline\">\n",
		      SVG_W, h);
	axis_draw(sb, &ax, SVG_TOP, SVG_TOP + (double)rows * SVG_ROW_H, "s");

	size_t row = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->n_phases)
			continue;
		timeline_row(sb, &ax, tr, row, several_tests, &names, &n_names);
		row++;
	}
	strbuf_puts(sb, "</svg>\n<div class=\"legend\">");
	for (size_t i = 0; i < n_names; i++) {
		strbuf_printf(sb, "<span><i style=\"background:%s\"></i>",
			      phase_colors[i % N_PHASE_COLORS]);
		esc(sb, names[i]);
		strbuf_puts(sb, "</span>");
		free(names[i]);
	}
	free(names);
	strbuf_puts(sb, "<span><i style=\"background:#fff;border:2px solid #cf222e\"></i>over budget</span>"
		    "</div>\n</figure>\n");
}

/* ---- metric charts ------------------------------------------------------ */

/* A bar's colour says how its metric changed against the baseline (better,
 * worse, within noise), never the test's status; neutral without one. The
 * trend points use the same colours (trend_change_fill). */
static const char *bar_fill(const struct test_result *tr, const struct metric_result *mr)
{
	(void)tr;
	return trend_change_fill(mr->change);
}

/* One bar of a metric chart: a board's result of the metric. */
struct chart_bar {
	const struct test_result *tr;
	const struct metric_result *mr;
};

/* Natural order of the boards (b2 before b10), a board's repeats in run order. */
static int cmp_bar(const void *a, const void *b)
{
	const struct chart_bar *x = a, *y = b;
	int c = nodeset_cmp(x->tr->board ? x->tr->board : "", y->tr->board ? y->tr->board : "");
	if (c)
		return c;
	return x->tr < y->tr ? -1 : x->tr > y->tr ? 1 : (x->mr > y->mr) - (x->mr < y->mr);
}

/* The results of metric in test, boards in natural order (caller frees); *n their
 * count, [*lo, *hi] their range with 0 in it (min and max where sampled). */
static struct chart_bar *chart_bars(const struct run_result *run, const char *test,
				    const char *metric, size_t *n, double *lo, double *hi)
{
	struct chart_bar *bars = NULL;
	*n = 0;
	*lo = *hi = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (strcmp(tr->test, test) != 0)
			continue;
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			if (strcmp(mr->name, metric) != 0)
				continue;
			bars = xrealloc(bars, (*n + 1) * sizeof(*bars));
			bars[(*n)++] = (struct chart_bar){ tr, mr };
			double a = mr->n_samples ? mr->min : mr->median;
			double b = mr->n_samples ? mr->max : mr->median;
			if (isfinite(a) && a < *lo)
				*lo = a;
			if (isfinite(b) && b > *hi)
				*hi = b;
		}
	}
	qsort(bars, *n, sizeof(*bars), cmp_bar);
	return bars;
}

/* The chart's caption: metric, unit, which way is better, test. The
 * figure is laid out only once in view (a rack's page has 80 charts of 256
 * boards); height_px is the space it keeps until then. */
static void chart_caption(struct strbuf *sb, const char *test, const char *metric,
			  const struct metric_result *first, double height_px)
{
	strbuf_printf(sb, "<figure class=\"chart\" style=\"contain-intrinsic-size:auto %.0fpx\">\n"
		      "<figcaption><b>", height_px);
	esc(sb, metric);
	strbuf_puts(sb, "</b><span>");
	if (first->unit && *first->unit) {
		esc(sb, first->unit);
		strbuf_puts(sb, " \u00b7 ");
	}
	/* the direction compare and --baseline judge by (docs/compare.md), sizes
	 * included: a report must not call "for information" what fails a run */
	strbuf_printf(sb, "%s is better \u00b7 test ", first->higher_is_better ? "higher" : "lower");
	esc(sb, test);
	strbuf_puts(sb, "</span></figcaption>\n");
}

#define CHART_W 540.0
#define CHART_LABEL_W 110.0
#define CHART_VALUE_W 130.0
#define CHART_ROW_H 24.0
#define CHART_BAR_H 14.0

/* One bar at row: its board, the median (its own scale in the label and
 * the tooltip), and the min-max whisker where sampled. */
static void chart_bar_draw(struct strbuf *sb, const struct axis *ax,
			   const struct valfmt_scale *sc, size_t row, const struct chart_bar *bar)
{
	const struct test_result *tr = bar->tr;
	const struct metric_result *mr = bar->mr;
	double y = SVG_TOP + (double)row * CHART_ROW_H + (CHART_ROW_H - CHART_BAR_H) / 2;
	double cy = y + CHART_BAR_H / 2;
	label_text(sb, CHART_LABEL_W - 8, cy, "end", tr->board, 16);
	double x0 = axis_x(ax, 0), x1 = axis_x(ax, mr->median * sc->factor);
	double bx = x1 < x0 ? x1 : x0, bw = fabs(x1 - x0);
	/* the axis has the chart's scale, each label its own (25.7 MiB/s
	 * beside 2.4 GiB/s, not 0.0 GiB/s) */
	struct strbuf v = STRBUF_INIT;
	valfmt_value(&v, mr->median, mr->unit);
	strbuf_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		      "rx=\"2\" fill=\"%s\" fill-opacity=\"0.85\"><title>", bx, y,
		      bw < 1 ? 1 : bw, CHART_BAR_H, bar_fill(tr, mr));
	esc(sb, tr->board);
	strbuf_puts(sb, ": ");
	esc(sb, strbuf_str(&v));
	if (mr->n_samples > 1) {
		struct strbuf mm = STRBUF_INIT;
		strbuf_puts(&mm, " (min ");
		valfmt_value(&mm, mr->min, mr->unit);
		strbuf_puts(&mm, ", max ");
		valfmt_value(&mm, mr->max, mr->unit);
		strbuf_printf(&mm, ", %zu samples)", mr->n_samples);
		esc(sb, strbuf_str(&mm));
		strbuf_release(&mm);
	}
	strbuf_puts(sb, "</title></rect>");
	double value_x = x1;
	if (mr->n_samples > 1) {
		double wx0 = axis_x(ax, mr->min * sc->factor);
		double wx1 = axis_x(ax, mr->max * sc->factor);
		strbuf_printf(sb, "<g stroke=\"#1f2328\" stroke-width=\"1.3\">"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>",
			      wx0, cy, wx1, cy, wx0, cy - 5, wx0, cy + 5, wx1, cy - 5, wx1, cy + 5);
		if (wx1 > value_x)
			value_x = wx1;
	}
	label_text(sb, (value_x > x0 ? value_x : x0) + 7, cy, "start", strbuf_str(&v), 24);
	strbuf_puts(sb, "\n");
	strbuf_release(&v);
}

/* Beyond this many boards a chart has a column per board (boards along the
 * x axis, the value up the y axis) instead of a row per board. */
#define CHART_ROWS_MAX 24
#define COL_H 230.0
#define COL_LEFT 62.0
#define COL_RIGHT 10.0
#define COL_TOP 22.0
#define COL_BOTTOM 40.0

/* The y axis of a column chart: a grid line and a number per step, the
 * unit above the numbers. */
static void col_axis_draw(struct strbuf *sb, const struct axis *ay, const char *unit)
{
	strbuf_puts(sb, "<g class=\"axis\">");
	for (double v = ay->lo; v <= ay->hi + ay->step * 1e-6; v += ay->step) {
		double y = axis_x(ay, v);
		char num[VALFMT_NUM_LEN];
		valfmt_number_buf(num, sizeof(num), fabs(v) < ay->step * 1e-9 ? 0 : v);
		strbuf_printf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			      "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			      "dominant-baseline=\"middle\">%s</text>", COL_LEFT, y,
			      CHART_W - COL_RIGHT, y, COL_LEFT - 5, y, num);
	}
	strbuf_puts(sb, "</g>\n");
	strbuf_printf(sb, "<text class=\"axisunit\" x=\"%.1f\" y=\"12\" font-weight=\"600\" "
		      "text-anchor=\"end\">", COL_LEFT - 5);
	esc(sb, *unit ? unit : "(no unit)");
	strbuf_puts(sb, "</text>");
}

/* A rack's chart: a column per board in natural order, its median; the
 * columns of one colour are one path (a page of 80 charts x 256 boards
 * stays light), the chart's title names the lowest and highest board, and
 * every k-th board is named under the x axis, k as many as leave the names
 * room. Each board's value is in the details table. */
static void chart_columns(struct strbuf *sb, const struct valfmt_scale *sc,
			  const struct chart_bar *bars, size_t n, double lo, double hi)
{
	struct axis ay;
	double bottom = COL_H - COL_BOTTOM, pw = CHART_W - COL_LEFT - COL_RIGHT;
	axis_init(&ay, lo * sc->factor, hi * sc->factor, bottom, -(bottom - COL_TOP), 4);
	strbuf_printf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>", CHART_W, COL_H);
	size_t min = 0, max = 0, longest = 1;
	for (size_t i = 0; i < n; i++) {
		min = bars[i].mr->median < bars[min].mr->median ? i : min;
		max = bars[i].mr->median > bars[max].mr->median ? i : max;
		if (report_width(bars[i].tr->board) > longest)
			longest = report_width(bars[i].tr->board);
	}
	struct strbuf v = STRBUF_INIT;
	strbuf_printf(&v, "%zu boards, lowest %s ", n, bars[min].tr->board);
	valfmt_value(&v, bars[min].mr->median, bars[min].mr->unit);
	strbuf_printf(&v, ", highest %s ", bars[max].tr->board);
	valfmt_value(&v, bars[max].mr->median, bars[max].mr->unit);
	esc(sb, strbuf_str(&v));
	strbuf_release(&v);
	strbuf_puts(sb, "</title>\n");
	col_axis_draw(sb, &ay, sc->unit);
	double w = pw / (double)n, y0 = axis_x(&ay, 0);
	/* one path per colour: the verdicts against the baseline */
	const char *fills[8];
	size_t n_fills = 0;
	for (size_t i = 0; i < n; i++) {
		const char *f = bar_fill(bars[i].tr, bars[i].mr);
		bool seen = false;
		for (size_t k = 0; k < n_fills && !seen; k++)
			seen = !strcmp(fills[k], f);
		if (!seen && n_fills < 8)
			fills[n_fills++] = f;
	}
	for (size_t k = 0; k < n_fills; k++) {
		strbuf_printf(sb, "<path fill=\"%s\" d=\"", fills[k]);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(bar_fill(bars[i].tr, bars[i].mr), fills[k]) != 0)
				continue;
			double y = axis_x(&ay, bars[i].mr->median * sc->factor);
			double h = fabs(y0 - y) < 1 ? 1 : fabs(y0 - y);
			strbuf_printf(sb, "M%.1f %.1fh%.2fv%.1fh%.2fz", COL_LEFT + (double)i * w,
				      y < y0 ? y : y0, w > 1.5 ? w - 0.5 : w, h, -(w > 1.5 ? w - 0.5 : w));
		}
		strbuf_puts(sb, "\"/>\n");
	}
	size_t every = (size_t)ceil(((double)longest * 7.5 + 14) / w);
	every = every ? every : 1;
	for (size_t i = 0; i < n; i += every)
		label_text(sb, COL_LEFT + ((double)i + 0.5) * w, bottom + 12, "middle",
			   bars[i].tr->board, 16);
	strbuf_puts(sb, "\n</svg>\n</figure>\n");
}

static void html_metric_chart(struct strbuf *sb, const struct run_result *run,
			      const char *test, const char *metric)
{
	size_t rows;
	double lo, hi;
	struct chart_bar *bars = chart_bars(run, test, metric, &rows, &lo, &hi);
	if (!rows)
		return;
	const struct metric_result *first = bars[0].mr;
	struct valfmt_scale sc;
	valfmt_scale_for(fabs(hi) > fabs(lo) ? hi : lo, first->unit, &sc);
	if (rows > CHART_ROWS_MAX) {
		chart_caption(sb, test, metric, first, COL_H * 1.1 + 24);
		chart_columns(sb, &sc, bars, rows, lo, hi);
		free(bars);
		return;
	}
	double h = SVG_TOP + (double)rows * CHART_ROW_H + SVG_AXIS_H;
	chart_caption(sb, test, metric, first, h * 1.1 + 24);
	struct axis ax;
	axis_init(&ax, lo * sc.factor, hi * sc.factor, CHART_LABEL_W,
		  CHART_W - CHART_LABEL_W - CHART_VALUE_W, 4);
	strbuf_printf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", CHART_W, h);
	axis_draw(sb, &ax, SVG_TOP, SVG_TOP + (double)rows * CHART_ROW_H, "");
	/* the axis's unit, the scale it is drawn in (2 GB/s: ticks 0..2 with "GB/s") */
	strbuf_printf(sb, "<text class=\"axisunit\" x=\"%.1f\" y=\"%.1f\" font-weight=\"600\">",
		      CHART_W - CHART_VALUE_W + 10, SVG_TOP + (double)rows * CHART_ROW_H + 15);
	esc(sb, *sc.unit ? sc.unit : "(no unit)");
	strbuf_puts(sb, "</text>");
	for (size_t row = 0; row < rows; row++)
		chart_bar_draw(sb, &ax, &sc, row, &bars[row]);
	strbuf_puts(sb, "</svg>\n</figure>\n");
	free(bars);
}

/* The charts of one kind of metric: the boards' figures (ORCH_OWN false) or
 * orch's own measurements of the link (ssh.push ...). */
static void html_metric_group(struct strbuf *sb, const struct run_result *run, bool orch_own)
{
	/* (test, metric) pairs in order of first appearance */
	const char **tests = NULL, **metrics = NULL;
	size_t n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t m = 0; m < tr->n_metrics; m++) {
			if (metric_is_orch_own(tr->metrics[m].name) != orch_own)
				continue;
			bool seen = false;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(tests[k], tr->test) == 0 &&
				       strcmp(metrics[k], tr->metrics[m].name) == 0;
			if (seen)
				continue;
			tests = xrealloc(tests, (n + 1) * sizeof(*tests));
			metrics = xrealloc(metrics, (n + 1) * sizeof(*metrics));
			tests[n] = tr->test;
			metrics[n] = tr->metrics[m].name;
			n++;
		}
	}
	if (n) {
		if (orch_own)
			strbuf_puts(sb, "<h2 id=\"orch-figures\">orch's own figures<small>how the "
				    "controller reached the boards, not the boards' performance"
				    "</small></h2>\n<div class=\"grid2\">\n");
		else
			strbuf_puts(sb, "<h2 id=\"metrics\">Metrics<small>median per board, whiskers "
				    "from min to max; against the baseline green is better, red worse, "
				    "grey within noise</small></h2>\n<div class=\"grid2\">\n");
		for (size_t k = 0; k < n; k++)
			html_metric_chart(sb, run, tests[k], metrics[k]);
		strbuf_puts(sb, "</div>\n");
	}
	free(tests);
	free(metrics);
}

void html_metrics(struct strbuf *sb, const struct run_result *run)
{
	html_metric_group(sb, run, false);
	html_metric_group(sb, run, true);
}
