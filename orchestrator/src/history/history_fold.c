/* orch history's rows folded over boards (history_fold.h). */
#include "history/history_fold.h"
#include "compare/range.h"
#include "util/fold.h"
#include "util/nodeset.h"
#include "util/stats.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* boards named as far from the others, on each side */
#define FOLD_MAX_OUTLIERS 4

/* What the boards of one group of the "differ" words share, and the span
 * of their changes. */
struct mark_group {
	char kind;                 /* 'S' a step now, 'P' an earlier step, 'A' accepted */
	const char *at;            /* the label or id of the run it is at */
	size_t runs;
	bool settled, worse;
	double threshold, lo, hi;
	const char *note;
};

static const char *point_name(const struct history_point *p)
{
	return p->label ? p->label : p->run_id;
}

static bool same_row(const struct history_fold_row *r, const struct history_series *s)
{
	return !strcmp(r->test, s->test) && !strcmp(r->metric, s->metric) &&
	       !strcmp(r->unit, s->unit);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct history_fold_row *a = pa, *b = pb;
	int c = nodeset_cmp(a->test, b->test);
	if (!c)
		c = nodeset_cmp(a->metric, b->metric);
	return c ? c : strcmp(a->unit, b->unit);
}

static int cmp_series_board(const void *pa, const void *pb)
{
	const struct history_series *a = *(const struct history_series *const *)pa;
	const struct history_series *b = *(const struct history_series *const *)pb;
	return nodeset_cmp(a->board, b->board);
}

/* Adds board to the group of key, made from g when it is new; widens the
 * group's span with pct. */
static void mark_add(struct fold *f, const char *key, const char *board, struct mark_group g,
		     double pct)
{
	struct fold_group *fg = fold_find(f, key);
	if (!fg) {
		struct mark_group *d = xcalloc(1, sizeof(*d));
		*d = g;
		d->lo = d->hi = pct;
		fold_add(f, key, board, d);
		return;
	}
	fold_add(f, key, board, NULL);
	struct mark_group *d = fold_find(f, key)->data;
	d->lo = fmin(d->lo, pct);
	d->hi = fmax(d->hi, pct);
}

/* The judge's marks of one board's series into the groups. */
static void marks_of_board(struct fold *f, const struct history_series *hs,
			   const struct history_walk_opts *w)
{
	struct history_marks mk;
	history_marks_of(hs, w, &mk);
	if (mk.step) {
		/* a step now in the words of its last run (history_step_words),
		 * an earlier one as it began */
		const struct history_verdict *v = mk.words ? &mk.v[hs->n - 1] : mk.step;
		const struct history_point *p = &hs->points[mk.words ? v->step_at : mk.step_at];
		struct mark_group g = { .kind = mk.words ? 'S' : 'P', .at = point_name(p),
					.runs = v->step_run, .settled = v->settled,
					.worse = v->j.worse, .threshold = v->j.threshold_pct };
		char *key = mk.words ? xasprintf("S\x1f%s\x1f%zu\x1f%d\x1f%d", p->run_id, g.runs,
						 g.settled, v->j.change_pct < 0)
				     : xasprintf("P\x1f%s\x1f%d", p->run_id, g.worse);
		mark_add(f, key, hs->board, g, v->j.change_pct);
		free(key);
	}
	if (mk.ack_at != SIZE_MAX) {
		const struct history_point *p = &hs->points[mk.ack_at];
		struct mark_group g = { .kind = 'A', .at = point_name(p), .note = p->ack_note };
		char *key = xasprintf("A\x1f%s\x1f%s", p->run_id, p->ack_note);
		mark_add(f, key, hs->board, g, NAN);
		free(key);
	}
	history_marks_release(&mk);
}

static void group_words(struct strbuf *sb, const struct fold_group *fg)
{
	const struct mark_group *g = fg->data;
	char *set = fold_nodeset(fg);
	strbuf_printf(sb, "%s%s: ", sb->len ? "; " : "", set);
	free(set);
	if (g->kind == 'S') {
		range_step_span_put(sb, g->lo, g->hi, g->at, g->runs, g->settled, g->threshold);
	} else if (g->kind == 'P') {
		valfmt_pct(sb, g->lo);
		if (g->hi != g->lo) {
			strbuf_puts(sb, " to ");
			valfmt_pct(sb, g->hi);
		}
		strbuf_printf(sb, " at %s (%s)", g->at, g->worse ? "worse" : "better");
	} else {
		strbuf_printf(sb, "accepted at %s: %s", g->at, g->note ? g->note : "");
	}
}

/* Whether board is named with a step now in marks. */
static bool named_with_step(const struct fold *marks, const char *board)
{
	for (size_t g = 0; g < marks->n; g++)
		if (((const struct mark_group *)marks->groups[g].data)->kind == 'S')
			for (size_t m = 0; m < marks->groups[g].n; m++)
				if (!strcmp(marks->groups[g].members[m], board))
					return true;
	return false;
}

/* "low b17 902 MB/s, b3 910 MB/s; high b5 999 MB/s": the boards whose last
 * value is far from the others', those named with a step now left out. */
static void outlier_words(struct strbuf *sb, const struct history_fold_row *r,
			  const struct fold *marks)
{
	double *v = xcalloc(r->n, sizeof(*v));
	size_t idx[FOLD_MAX_OUTLIERS];
	for (size_t i = 0; i < r->n; i++)
		v[i] = r->series[i]->points[r->series[i]->n - 1].value;
	for (int side = 0; side < 2; side++) {
		size_t k = stats_outliers(v, r->n, r->median, side, idx, FOLD_MAX_OUTLIERS);
		bool first = true;
		for (size_t j = 0; j < k; j++) {
			const char *board = r->series[idx[j]]->board;
			if (named_with_step(marks, board))
				continue;
			strbuf_printf(sb, "%s%s ", !first ? ", " : sb->len ? (side ? "; high " : "; low ")
								    : (side ? "high " : "low "), board);
			valfmt_value(sb, v[idx[j]], r->unit);
			first = false;
		}
	}
	free(v);
}

static void differ_words(struct history_fold_row *r, const struct history_walk_opts *w)
{
	struct fold f = FOLD_INIT;
	for (size_t i = 0; i < r->n; i++)
		marks_of_board(&f, r->series[i], w);
	fold_sort(&f, FOLD_LARGEST_FIRST);
	struct strbuf sb = STRBUF_INIT;
	for (int pass = 0; pass < 3; pass++)   /* steps now, earlier steps, accepted */
		for (size_t g = 0; g < f.n; g++)
			if (((struct mark_group *)f.groups[g].data)->kind == "SPA"[pass])
				group_words(&sb, &f.groups[g]);
	outlier_words(&sb, r, &f);
	for (size_t g = 0; g < f.n; g++)
		free(f.groups[g].data);
	fold_release(&f);
	r->differ = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
}

/* The runs shown on the row's boards, oldest first, each with its figure
 * across the boards that ran it. */
static void runs_of(struct history_fold_row *r)
{
	size_t cap = 0;
	for (size_t i = 0; i < r->n; i++)
		cap += r->series[i]->n - r->series[i]->shown_from;
	r->runs = xcalloc(cap + 1, sizeof(*r->runs));
	double **vals = xcalloc(cap + 1, sizeof(*vals));
	for (size_t i = 0; i < r->n; i++) {
		const struct history_series *hs = r->series[i];
		for (size_t k = hs->shown_from; k < hs->n; k++) {
			const struct history_point *p = &hs->points[k];
			size_t j = 0;
			while (j < r->n_runs && strcmp(r->runs[j].p->run_id, p->run_id))
				j++;
			if (j == r->n_runs) {
				r->runs[r->n_runs++].p = p;
				vals[j] = xcalloc(r->n, sizeof(**vals));
			}
			if (r->runs[j].n < r->n)   /* a board's run counts once */
				vals[j][r->runs[j].n++] = p->value;
		}
	}
	for (size_t j = 0; j < r->n_runs; j++) {
		r->runs[j].median = stats_median(vals[j], r->runs[j].n);
		stats_min_max(vals[j], r->runs[j].n, &r->runs[j].lo, &r->runs[j].hi);
		free(vals[j]);
	}
	free(vals);
	/* oldest first; runs of equal start keep the order they were seen in */
	for (size_t j = 1; j < r->n_runs; j++)
		for (size_t k = j; k > 0 && r->runs[k - 1].p->start_us > r->runs[k].p->start_us; k--) {
			struct history_fold_run t = r->runs[k];
			r->runs[k] = r->runs[k - 1];
			r->runs[k - 1] = t;
		}
}

/* The row's figures over its boards' series. */
static void row_figures(struct history_fold_row *r)
{
	double *last = xcalloc(r->n, sizeof(*last));
	const char **names = xcalloc(r->n + 1, sizeof(*names));
	r->lo = INFINITY;
	r->hi = -INFINITY;
	r->change_lo = r->change_hi = NAN;
	r->runs_lo = SIZE_MAX;
	for (size_t i = 0; i < r->n; i++) {
		const struct history_series *hs = r->series[i];
		names[i] = hs->board;
		const struct history_point *a = &hs->points[hs->shown_from], *z = &hs->points[hs->n - 1];
		last[i] = z->value;
		if (!r->first || a->start_us < r->first->start_us)
			r->first = a;
		if (!r->last || z->start_us > r->last->start_us)
			r->last = z;
		size_t runs = hs->n - hs->shown_from;
		r->runs_lo = runs < r->runs_lo ? runs : r->runs_lo;
		r->runs_hi = runs > r->runs_hi ? runs : r->runs_hi;
		for (size_t k = hs->shown_from; k < hs->n; k++) {
			r->lo = fmin(r->lo, hs->points[k].value);
			r->hi = fmax(r->hi, hs->points[k].value);
		}
		if (hs->n > 1 && hs->points[hs->n - 2].value != 0) {
			double before = hs->points[hs->n - 2].value;
			double pct = (z->value - before) / fabs(before) * 100;
			r->change_lo = isnan(r->change_lo) ? pct : fmin(r->change_lo, pct);
			r->change_hi = isnan(r->change_hi) ? pct : fmax(r->change_hi, pct);
		}
	}
	r->median = stats_median(last, r->n);
	r->boards = nodeset_fold_str(names, r->n);
	free(names);
	free(last);
}

void history_fold(const struct history_series *s, size_t n, const struct history_walk_opts *w,
		  struct history_fold_row **out, size_t *n_out)
{
	struct history_fold_row *rows = xcalloc(n + 1, sizeof(*rows));
	size_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].shown_from >= s[i].n)
			continue;
		size_t r = 0;
		while (r < nr && !same_row(&rows[r], &s[i]))
			r++;
		if (r == nr)
			rows[nr++] = (struct history_fold_row){ .test = s[i].test, .metric = s[i].metric,
								.unit = s[i].unit,
								.higher_is_better = s[i].higher_is_better,
								.series = xcalloc(n + 1, sizeof(*rows->series)) };
		rows[r].series[rows[r].n++] = &s[i];
	}
	qsort(rows, nr, sizeof(*rows), cmp_rows);
	for (size_t r = 0; r < nr; r++) {
		qsort(rows[r].series, rows[r].n, sizeof(*rows[r].series), cmp_series_board);
		row_figures(&rows[r]);
		differ_words(&rows[r], w);
		runs_of(&rows[r]);
	}
	*out = rows;
	*n_out = nr;
}

void history_fold_free(struct history_fold_row *rows, size_t n)
{
	for (size_t r = 0; rows && r < n; r++) {
		free(rows[r].series);
		free(rows[r].boards);
		free(rows[r].differ);
		free(rows[r].runs);
	}
	free(rows);
}
