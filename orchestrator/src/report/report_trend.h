#ifndef ORCH_REPORT_REPORT_TREND_H
#define ORCH_REPORT_REPORT_TREND_H
/*
 * A trend chart people can size: one board x test x metric over runs, with
 * a y axis in the metric's unit (ticks and their values, the unit named),
 * the scale given by the caller so that the boards of one metric share it,
 * run labels on the x axis, the baseline window shaded, the step (the run
 * a verdict is about) and an acknowledged change marked, the points
 * coloured by the verdict, each point's hover title with its value and
 * unit, and a link to its run's report when it has one. report.html's
 * trends and `orch history --format html` draw with it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct strbuf;

struct trend_chart_point {
	const char *run_id;
	const char *label;        /* or NULL */
	double value;             /* in the chart's unit */
	const char *href;         /* its run's report.html, or NULL */
};

struct trend_chart {
	const char *title;        /* "apu2 · memory · mem.memcpy" */
	const char *unit;         /* the metric's unit ("" none) */
	const struct trend_chart_point *points;
	size_t n;
	double lo, hi;            /* the y scale (shared by the metric's boards) */
	/* the run the verdict is about (the step), or SIZE_MAX; its verdict */
	size_t current;
	enum metric_change change;
	/* the points that formed the baseline: [base_from, base_to), none when equal */
	size_t base_from, base_to;
	/* an acknowledged change at this point, or SIZE_MAX, and its note */
	size_t ack_at;
	const char *ack_note;
	double width, height;     /* the SVG's size in px */
};

/* A chart's defaults: no current point, no window, no ack, 260 x 120. */
void trend_chart_init(struct trend_chart *c);
/* Appends the chart as an inline <svg> (no script, no network). */
void trend_chart_svg(struct strbuf *sb, const struct trend_chart *c);
/* The fill of a point with a verdict (the report's bar colours). */
const char *trend_change_fill(enum metric_change c);

#endif
