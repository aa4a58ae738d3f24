/*
 * The verdict in words (compare/range.h): a metric's change, and the range
 * line of a metric over the boards, for every output of a run and for
 * orch compare.
 */
#include "compare/range.h"

#include "compare/compare.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much better B is than A, in percent (< 0: worse); 0 for no change. */
static double betterness(const struct range_entry *e, bool higher)
{
	if (e->change == METRIC_CHANGE_SAME || isnan(e->change_pct))
		return 0;
	return higher ? e->change_pct : -e->change_pct;
}

static void phrase(struct strbuf *sb, const struct range_entry *e, const struct range_subject *s,
		   bool speed)
{
	double g = betterness(e, s->higher_is_better);
	if (g == 0) {
		strbuf_puts(sb, isnan(e->change_pct) && e->change != METRIC_CHANGE_SAME ? "changed"
										     : "no change");
		return;
	}
	valfmt_change_pct(sb, g, e->beyond, isnan(s->threshold_pct) ? INFINITY : s->threshold_pct);
	strbuf_printf(sb, " %s", speed ? (g > 0 ? "faster" : "slower") : (g > 0 ? "better" : "worse"));
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

void range_side_names(const char *a, const char *b, char **out_a, char **out_b)
{
	a = a ? a : "A";
	b = b ? b : "B";
	bool same = strcmp(a, b) == 0;
	*out_a = same ? xasprintf("run A (label %s)", a) : xstrdup(a);
	*out_b = same ? xasprintf("run B (label %s)", b) : xstrdup(b);
}

/* "2 boards", or "both boards" / "all 3 boards" when count is every one of
 * n (n > 1). */
static void boards_put(struct strbuf *sb, size_t count, size_t n)
{
	if (count == n && n == 2)
		strbuf_puts(sb, "both boards");
	else if (count == n && n > 1)
		strbuf_printf(sb, "all %zu boards", n);
	else
		strbuf_printf(sb, "%zu board%s", count, plural(count));
}

/* "; not judged: one sample on 2 boards", or with the reason the boards
 * share: "; not judged on 2 boards: 1 earlier run, needs 3". */
static void not_judged_put(struct strbuf *sb, const struct range_entry *e, size_t n, size_t once)
{
	const char *reason = NULL;
	bool shared = true;
	for (size_t i = 0; i < n; i++) {
		if (e[i].change != METRIC_CHANGE_NOT_JUDGED)
			continue;
		const char *r = e[i].reason && strcmp(e[i].reason, "one sample") ? e[i].reason : NULL;
		if (!reason)
			reason = r ? r : "";
		else if (strcmp(reason, r ? r : ""))
			shared = false;
	}
	if (!shared || *reason) {
		strbuf_puts(sb, "; not judged on ");
		boards_put(sb, once, n);
		if (shared)
			strbuf_printf(sb, ": %s", reason);
	} else {
		strbuf_puts(sb, "; not judged: one sample on ");
		boards_put(sb, once, n);
	}
}

/* The body of the line over n > 1 boards, lo and hi its worst and best:
 * the same everywhere, one change everywhere, one way everywhere ("3.0%
 * (b1) to 7.1% slower (b2)"), or a range across no change or both ways. */
static void many_put(struct strbuf *sb, const struct range_subject *s, const struct range_entry *e,
		     size_t n, const struct range_entry *lo, const struct range_entry *hi,
		     const char *name_a, bool speed)
{
	double glo = betterness(lo, s->higher_is_better), ghi = betterness(hi, s->higher_is_better);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	phrase(&a, lo, s, speed);
	phrase(&b, hi, s, speed);
	bool all_same = true;
	for (size_t i = 0; i < n; i++)
		all_same = all_same && e[i].change == METRIC_CHANGE_SAME;
	if (glo == 0 && ghi == 0 && all_same) {
		strbuf_printf(sb, "is the same as %s on ", name_a);
		boards_put(sb, n, n);
	} else if (glo == 0 && ghi == 0) {
		strbuf_puts(sb, "shows no change on ");
		boards_put(sb, n, n);
		strbuf_printf(sb, " against %s", name_a);
	} else if (!strcmp(strbuf_str(&a), strbuf_str(&b))) {
		strbuf_printf(sb, "is %s than %s on ", strbuf_str(&a), name_a);
		boards_put(sb, n, n);
	} else if ((glo > 0 && ghi > 0) || (glo < 0 && ghi < 0)) {
		const struct range_entry *small = glo > 0 ? lo : hi, *big = glo > 0 ? hi : lo;
		strbuf_puts(sb, "is ");
		valfmt_change_pct(sb, fabs(small->change_pct), small->beyond,
				  isnan(s->threshold_pct) ? INFINITY : s->threshold_pct);
		strbuf_printf(sb, " (%s) to ", small->board);
		phrase(sb, big, s, speed);
		strbuf_printf(sb, " (%s) than %s on ", big->board, name_a);
		boards_put(sb, n, n);
	} else {
		strbuf_printf(sb, "ranges from %s (%s) to %s (%s) than %s over %zu boards",
			      strbuf_str(&a), lo->board, strbuf_str(&b), hi->board, name_a, n);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

void range_line_put(struct strbuf *sb, const struct range_subject *s,
		    const struct range_entry *e, size_t n)
{
	if (!n && !s->unit_changed)
		return;
	strbuf_printf(sb, "%s%s%s: ", s->test, s->phase ? " phase " : ".", s->metric);
	if (!n) {
		strbuf_printf(sb, "unit changed on %zu board%s, not compared", s->unit_changed,
			      plural(s->unit_changed));
		return;
	}
	const struct range_entry *lo = &e[0], *hi = &e[0];
	size_t regressed = 0, once = 0;
	for (size_t i = 0; i < n; i++) {
		if (betterness(&e[i], s->higher_is_better) < betterness(lo, s->higher_is_better))
			lo = &e[i];
		if (betterness(&e[i], s->higher_is_better) > betterness(hi, s->higher_is_better))
			hi = &e[i];
		regressed += e[i].change == METRIC_CHANGE_REGRESSION;
		once += e[i].change == METRIC_CHANGE_NOT_JUDGED;
	}
	bool speed = s->phase || compare_unit_is_speed(s->unit, s->higher_is_better);
	char *name_a, *name_b;
	range_side_names(s->name_a, s->name_b, &name_a, &name_b);
	strbuf_printf(sb, "%s ", name_b);
	if (n == 1 && lo->change == METRIC_CHANGE_SAME) {
		strbuf_printf(sb, "is the same as %s on %s", name_a, lo->board);
	} else if (n == 1 && betterness(lo, s->higher_is_better) == 0) {
		strbuf_printf(sb, "shows no change against %s on %s", name_a, lo->board);
	} else if (n == 1) {
		strbuf_puts(sb, "is ");
		phrase(sb, lo, s, speed);
		strbuf_printf(sb, " than %s on %s", name_a, lo->board);
		if (lo->change == METRIC_CHANGE_NOISE)
			strbuf_puts(sb, ", within noise");
	} else {
		many_put(sb, s, e, n, lo, hi, name_a, speed);
	}
	free(name_a);
	free(name_b);
	if (regressed) {
		strbuf_puts(sb, "; regression on ");
		boards_put(sb, regressed, n);
	}
	if (once)
		not_judged_put(sb, e, n, once);
	if (s->unit_changed)
		strbuf_printf(sb, "; unit changed on %zu board%s, not compared", s->unit_changed,
			      plural(s->unit_changed));
}

const char *range_change_class(enum metric_change c)
{
	switch (c) {
	case METRIC_CHANGE_BETTER: return "better";
	case METRIC_CHANGE_WORSE:
	case METRIC_CHANGE_REGRESSION: return "worse";
	case METRIC_CHANGE_SAME:
	case METRIC_CHANGE_NOISE:
	case METRIC_CHANGE_NOT_JUDGED: return "noise";
	case METRIC_CHANGE_NONE: break;
	}
	return "";
}

/* The threshold a metric's verdict used: the verdict's, its own, or the caller's. */
static double threshold_of(const struct metric_result *m, double fallback)
{
	if (isfinite(m->verdict.threshold_pct))
		return m->verdict.threshold_pct;
	if (m->has_threshold && isfinite(m->threshold_pct))
		return m->threshold_pct;
	return fallback;
}

void range_metric_change(struct strbuf *sb, const struct metric_result *m, double threshold_pct)
{
	if (m->change == METRIC_CHANGE_NONE)
		return;
	threshold_pct = threshold_of(m, threshold_pct);
	if (isfinite(m->change_pct)) {
		bool beyond = isfinite(threshold_pct) && fabs(m->change_pct) > threshold_pct;
		if (m->change_pct < 0)
			strbuf_putc(sb, '-');
		else if (m->change_pct > 0)
			strbuf_putc(sb, '+');
		valfmt_change_pct(sb, m->change_pct, beyond,
				  isfinite(threshold_pct) ? threshold_pct : INFINITY);
		strbuf_putc(sb, ' ');
	}
	switch (m->change) {
	case METRIC_CHANGE_SAME: strbuf_puts(sb, "no change"); break;
	case METRIC_CHANGE_NOISE: strbuf_puts(sb, "within noise"); break;
	case METRIC_CHANGE_BETTER: strbuf_puts(sb, "better"); break;
	case METRIC_CHANGE_WORSE: strbuf_puts(sb, "worse, within the threshold"); break;
	case METRIC_CHANGE_REGRESSION: strbuf_puts(sb, "regression"); break;
	case METRIC_CHANGE_NOT_JUDGED:
		strbuf_printf(sb, "not judged: %s", m->verdict.reason ? m->verdict.reason : "one sample");
		break;
	case METRIC_CHANGE_NONE: break;
	}
	if (m->verdict.step_text)
		strbuf_printf(sb, ": %s", m->verdict.step_text);
}

void range_step_put(struct strbuf *sb, double change_pct, const char *since, size_t runs,
		    bool settled, double threshold_pct)
{
	range_step_span_put(sb, change_pct, change_pct, since, runs, settled, threshold_pct);
}

void range_step_span_put(struct strbuf *sb, double lo_pct, double hi_pct, const char *since,
			 size_t runs, bool settled, double threshold_pct)
{
	if (isfinite(lo_pct) && isfinite(hi_pct)) {
		double t = isfinite(threshold_pct) ? threshold_pct : INFINITY;
		double a = fmin(fabs(lo_pct), fabs(hi_pct)), b = fmax(fabs(lo_pct), fabs(hi_pct));
		struct strbuf one = STRBUF_INIT, other = STRBUF_INIT;
		valfmt_change_pct(&one, a, true, t);
		valfmt_change_pct(&other, b, true, t);
		strbuf_puts(sb, strbuf_str(&one));
		if (strcmp(strbuf_str(&one), strbuf_str(&other)))
			strbuf_printf(sb, " to %s", strbuf_str(&other));
		strbuf_printf(sb, " %s", lo_pct < 0 ? "lower" : "higher");
		strbuf_release(&one);
		strbuf_release(&other);
	} else {
		strbuf_puts(sb, "changed");
	}
	strbuf_printf(sb, " since %s (%zu run%s), %s", since ? since : "?", runs, plural(runs),
		      settled ? "the new normal from now on" : "not acknowledged");
}

void range_metric_evidence(struct strbuf *sb, const struct metric_result *m)
{
	if (m->change == METRIC_CHANGE_NONE)
		return;
	const char *sep = " (";
	if (isfinite(m->verdict.baseline)) {
		strbuf_printf(sb, "%sbaseline ", sep);
		valfmt_value(sb, m->verdict.baseline, m->unit);
		sep = ", ";
	}
	double t = threshold_of(m, NAN);
	if (isfinite(t)) {
		strbuf_printf(sb, "%sthreshold ", sep);
		valfmt_number(sb, t);
		strbuf_putc(sb, '%');
		sep = ", ";
	}
	if (isfinite(m->verdict.p)) {
		char buf[VALFMT_NUM_LEN];
		strbuf_printf(sb, "%sp %s", sep, valfmt_number_buf(buf, sizeof(buf), m->verdict.p));
		sep = ", ";
	}
	if (m->verdict.ack_note) {
		strbuf_printf(sb, "%saccepted at %s: %s", sep,
			      m->verdict.ack_run ? m->verdict.ack_run : "?", m->verdict.ack_note);
		sep = ", ";
	}
	if (*sep == ',')
		strbuf_putc(sb, ')');
}

char *range_history_name(size_t n_runs, const char *ack_run)
{
	if (ack_run && n_runs == 1)
		return xasprintf("the run since the acknowledged change of %s", ack_run);
	if (ack_run && n_runs)
		return xasprintf("the %zu runs since the acknowledged change of %s", n_runs, ack_run);
	if (ack_run)
		return xasprintf("the runs since the acknowledged change of %s", ack_run);
	if (n_runs == 1)
		return xstrdup("the last run");
	return n_runs ? xasprintf("the last %zu runs", n_runs) : xstrdup("the history");
}

char *range_history_name_before(size_t n_runs, const char *ack_run, const char *before)
{
	if (!before)
		return range_history_name(n_runs, ack_run);
	if (n_runs == 1)
		return xasprintf("the run before %s", before);
	return xasprintf("the %zu runs before %s", n_runs, before);
}

const char *range_baseline_name(const struct run_result *run)
{
	if (run->baseline_name && *run->baseline_name)
		return run->baseline_name;
	if (run->baseline_kind == BASELINE_HISTORY)
		return "the history";
	const char *b = run->baseline;
	if (!b || !*b)
		return "the baseline";
	const char *slash = strrchr(b, '/');
	return slash && slash[1] ? slash + 1 : b;
}

static bool is_same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* A metric of the run with a baseline value, for grouping by test x metric. */
struct item {
	const char *test, *metric;
	size_t order;              /* position in the run, for a stable output */
	const struct test_result *tr;
	const struct metric_result *m;
};

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c = nodeset_cmp(a->test, b->test);
	if (!c)
		c = nodeset_cmp(a->metric, b->metric);
	if (!c)
		c = a->order < b->order ? -1 : a->order > b->order;
	return c;
}

/* The name of side A of the line of items[0..n): against the history, the
 * runs its metrics were judged against when every board's were the same
 * ones in number and level, else the run's baseline name. Caller frees. */
static char *line_baseline_name(const struct run_result *run, const struct item *items,
				size_t n)
{
	const struct metric_verdict *v = &items[0].m->verdict;
	bool same = run->baseline_kind == BASELINE_HISTORY && v->n_baseline;
	for (size_t i = 1; same && i < n; i++) {
		const struct metric_verdict *w = &items[i].m->verdict;
		same = w->n_baseline == v->n_baseline &&
		       (w->ack_run || v->ack_run ? is_same(w->ack_run, v->ack_run) : true) &&
		       (w->step_since || v->step_since ? is_same(w->step_since, v->step_since) &&
							   w->step_runs == v->step_runs : true);
	}
	const char *before = v->step_since && v->step_runs > 1 ? v->step_since : NULL;
	return same ? range_history_name_before(v->n_baseline, v->ack_run, before)
		    : xstrdup(range_baseline_name(run));
}

static int line_cmp(const void *x, const void *y)
{
	const struct range_line *a = x, *b = y;
	return a->order < b->order ? -1 : a->order > b->order;
}

void range_lines_of_run(const struct run_result *run, struct range_lines *out)
{
	memset(out, 0, sizeof(*out));
	size_t n = 0, cap = 0;
	struct item *items = NULL;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			if (mr->change == METRIC_CHANGE_NONE || !mr->name || metric_is_orch_own(mr->name))
				continue;
			/* no earlier value at all: nothing to say it changed against */
			if (mr->change == METRIC_CHANGE_NOT_JUDGED && isnan(mr->change_pct))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				items = xrealloc(items, cap * sizeof(*items));
			}
			items[n++] = (struct item){ tr->test ? tr->test : "?", mr->name, n, tr, mr };
		}
	}
	if (n)
		qsort(items, n, sizeof(*items), item_cmp);
	const char *name_b = run_result_name(run);
	struct range_entry *e = xcalloc(n + 1, sizeof(*e));
	for (size_t i = 0; i < n;) {
		size_t j = i, k = 0;
		for (; j < n && !strcmp(items[j].test, items[i].test) &&
		       !strcmp(items[j].metric, items[i].metric); j++) {
			e[k].board = items[j].tr->board ? items[j].tr->board : "?";
			e[k].change_pct = items[j].m->change_pct;
			e[k].change = items[j].m->change;
			e[k].reason = items[j].m->verdict.reason;
			e[k].beyond = items[j].m->change == METRIC_CHANGE_REGRESSION ||
				      items[j].m->change == METRIC_CHANGE_BETTER;
			k++;
		}
		char *name_a = line_baseline_name(run, &items[i], j - i);
		struct range_subject s = {
			.test = items[i].test, .metric = items[i].metric, .unit = items[i].m->unit,
			.higher_is_better = items[i].m->higher_is_better,
			.name_a = name_a, .name_b = name_b,
			.threshold_pct = threshold_of(items[i].m, NAN),
		};
		struct strbuf text = STRBUF_INIT;
		range_line_put(&text, &s, e, k);
		free(name_a);
		out->lines = xrealloc(out->lines, (out->n + 1) * sizeof(*out->lines));
		out->lines[out->n++] = (struct range_line){
			xstrdup(items[i].test), xstrdup(items[i].metric), strbuf_detach(&text),
			items[i].order,
		};
		i = j;
	}
	if (out->n)
		qsort(out->lines, out->n, sizeof(*out->lines), line_cmp);
	free(e);
	free(items);
}

void range_lines_release(struct range_lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->lines[i].test);
		free(l->lines[i].metric);
		free(l->lines[i].text);
	}
	free(l->lines);
	memset(l, 0, sizeof(*l));
}

size_t range_lines_put(struct strbuf *sb, const struct range_lines *l, const char *only_test,
		       const char *indent)
{
	size_t shown = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (only_test && !is_same(l->lines[i].test, only_test))
			continue;
		strbuf_printf(sb, "%s%s\n", indent, l->lines[i].text);
		shown++;
	}
	return shown;
}
