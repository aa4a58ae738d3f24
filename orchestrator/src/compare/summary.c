/*
 * The words around a comparison, as nightly reports put them: the runs by
 * their labels ("v0.0.20180202 vs v0.0.20171211"), one executive line per
 * metric across boards ("ranges from 0.7% slower (apu2) to 2.9% faster
 * (alix)"), metrics measured once on a side flagged instead of judged, the
 * facts that changed between the runs, and orch's own figures apart.
 */
#include "compare/compare.h"
#include "compare/range.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_key(const struct compare_row *x, const struct compare_row *y)
{
	return x->kind == y->kind && !strcmp(x->test, y->test) && !strcmp(x->name, y->name);
}

static enum metric_change change_of(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME: return METRIC_CHANGE_SAME;
	case COMPARE_NOISE: return METRIC_CHANGE_NOISE;
	case COMPARE_BETTER: return METRIC_CHANGE_BETTER;
	case COMPARE_WORSE: return METRIC_CHANGE_WORSE;
	case COMPARE_REGRESSION: return METRIC_CHANGE_REGRESSION;
	case COMPARE_NOT_JUDGED: return METRIC_CHANGE_NOT_JUDGED;
	default: return METRIC_CHANGE_NOISE;
	}
}

/* One line for the metric of rows[first], over every board that has it on
 * both sides: compare/range.h's words, as the run's own outputs say them. */
static void metric_line(struct strbuf *sb, const struct compare_result *cr, size_t first,
			const char *name_a, const char *name_b)
{
	const struct compare_row *r0 = &cr->rows[first];
	struct range_entry *e = xcalloc(cr->n_rows, sizeof(*e));
	size_t n = 0, unit_changed = 0;
	for (size_t i = first; i < cr->n_rows; i++) {
		const struct compare_row *r = &cr->rows[i];
		if (!same_key(r, r0) || !r->a.present || !r->b.present)
			continue;
		if (r->verdict == COMPARE_UNIT_CHANGED) {   /* no change to speak of */
			unit_changed++;
			continue;
		}
		e[n].board = r->board;
		e[n].change_pct = r->change_pct;
		e[n].change = change_of(r->verdict);
		e[n].beyond = r->judged.beyond_threshold;
		n++;
	}
	struct range_subject s = {
		.test = r0->test, .metric = r0->name, .phase = r0->kind == COMPARE_KIND_PHASE,
		.unit = r0->unit, .higher_is_better = r0->higher_is_better,
		.name_a = name_a, .name_b = name_b, .threshold_pct = cr->rule.threshold_pct,
		.unit_changed = unit_changed,
	};
	if (n || unit_changed) {
		strbuf_puts(sb, "  ");
		range_line_put(sb, &s, e, n);
		strbuf_putc(sb, '\n');
	}
	free(e);
}

/* Facts that differ between the runs, one line per change with its boards. */
static void facts_changed(struct strbuf *sb, const struct run_result *a, const struct run_result *b)
{
	struct strbuf seen = STRBUF_INIT;   /* "name\told\tnew\n" lines already printed */
	bool any = false;
	for (size_t i = 0; i < b->n_facts; i++) {
		const struct board_facts *fb = &b->facts[i];
		const struct board_facts *fa = run_result_facts(a, fb->board);
		for (size_t k = 0; fa && k < fb->n; k++) {
			const char *old = board_facts_get(fa, fb->items[k].name), *now = fb->items[k].value;
			if (!old || !strcmp(old, now))
				continue;
			char *key = xasprintf("%s\t%s\t%s\n", fb->items[k].name, old, now);
			bool dup = strstr(strbuf_str(&seen), key) != NULL;
			if (!dup) {
				strbuf_puts(&seen, key);
				if (!any)
					strbuf_puts(sb, "facts that changed:\n");
				any = true;
				strbuf_printf(sb, "  %s: %s -> %s (", fb->items[k].name, old, now);
				bool first = true;
				for (size_t j = i; j < b->n_facts; j++) {
					const struct board_facts *fj = run_result_facts(a, b->facts[j].board);
					const char *o = board_facts_get(fj, fb->items[k].name);
					const char *n = board_facts_get(&b->facts[j], fb->items[k].name);
					if (o && n && !strcmp(o, old) && !strcmp(n, now)) {
						strbuf_printf(sb, "%s%s", first ? "" : ", ", b->facts[j].board);
						first = false;
					}
				}
				strbuf_puts(sb, ")\n");
			}
			free(key);
		}
	}
	strbuf_release(&seen);
}

/* orch's own figures (how the controller reached the boards), never judged. */
static void orch_figures(struct strbuf *sb, const struct run_result *a, const struct run_result *b)
{
	bool any = false;
	const struct test_result **order = run_result_natural(b);
	for (size_t i = 0; i < b->n_results; i++) {
		const struct test_result *tb = order[i];
		const struct test_result *ta = run_result_find(a, tb->board, tb->test);
		for (size_t k = 0; k < tb->n_metrics; k++) {
			const struct metric_result *mb = &tb->metrics[k];
			if (!metric_is_orch_own(mb->name))
				continue;
			const struct metric_result *ma = NULL;
			for (size_t j = 0; ta && j < ta->n_metrics; j++)
				if (!strcmp(ta->metrics[j].name, mb->name))
					ma = &ta->metrics[j];
			if (!any)
				strbuf_puts(sb, "orch's own figures (how orch reached the boards; not the "
					    "boards' performance, not judged):\n");
			any = true;
			strbuf_printf(sb, "  %s %s %s: ", tb->board, tb->test, mb->name);
			if (ma)
				valfmt_value(sb, ma->median, ma->unit);
			else
				strbuf_puts(sb, "-");
			strbuf_puts(sb, " -> ");
			valfmt_value(sb, mb->median, mb->unit);
			strbuf_putc(sb, '\n');
		}
	}
	free(order);
}

/* Whether any board's row of the metric at rows[first] is a change. */
static bool metric_changed(const struct compare_result *cr, size_t first)
{
	for (size_t i = first; i < cr->n_rows; i++)
		if (same_key(&cr->rows[i], &cr->rows[first]) && compare_row_is_change(&cr->rows[i]))
			return true;
	return false;
}

char *compare_format_summary(const struct compare_result *cr, const struct run_result *a,
			     const struct run_result *b, bool only_changes)
{
	struct strbuf sb = STRBUF_INIT;
	const char *na = run_result_name(a), *nb = run_result_name(b);
	char *side_a, *side_b;
	range_side_names(na, nb, &side_a, &side_b);
	strbuf_printf(&sb, "%s vs %s\n", side_b, side_a);
	free(side_a);
	free(side_b);
	bool any = false;
	for (size_t i = 0; i < cr->n_rows; i++) {
		const struct compare_row *r = &cr->rows[i];
		if ((r->kind != COMPARE_KIND_METRIC && r->kind != COMPARE_KIND_PHASE) ||
		    !r->a.present || !r->b.present)
			continue;
		bool earlier = false;
		for (size_t j = 0; j < i && !earlier; j++)
			earlier = same_key(&cr->rows[j], r) && cr->rows[j].a.present && cr->rows[j].b.present;
		if (earlier || (only_changes && !metric_changed(cr, i)))
			continue;
		if (!any)
			strbuf_puts(&sb, "\n");
		any = true;
		metric_line(&sb, cr, i, na, nb);
	}
	strbuf_putc(&sb, '\n');
	size_t mark = sb.len;
	facts_changed(&sb, a, b);
	orch_figures(&sb, a, b);
	if (sb.len > mark)
		strbuf_putc(&sb, '\n');
	return strbuf_detach(&sb);
}
