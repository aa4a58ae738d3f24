/* Judging a run against the history (the rule in history.h), and trends. */
#include "compare/compare.h"
#include "compare/range.h"
#include "history/history.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/valfmt.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t rule_window(const struct history_rule *r)
{
	return r->window ? r->window : HISTORY_DEFAULT_LAST;
}

static size_t rule_min(const struct history_rule *r)
{
	return r->min_runs ? r->min_runs : HISTORY_MIN_RUNS;
}

/* Runs a step the worse (worse) or the better way lasts before it is the
 * new normal by itself; 0: never (a regression waits for an ack). */
static size_t rule_settle(const struct history_rule *r, bool worse)
{
	return r->settle ? r->settle : worse ? 0 : HISTORY_SETTLE_RUNS;
}

/* Whether point i's unit converts into unit. */
static bool converts(const struct history_point *p, const char *unit)
{
	double x;
	return !strcmp(p->unit ? p->unit : "", unit) || units_convert(1.0, p->unit, unit, &x) == 0;
}

/* The samples of points idx[0..n) of s in unit, in a fresh array. */
static double *base_samples(const struct history_series *s, const size_t *idx, size_t n,
			    const char *unit, size_t *count)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		total += s->points[idx[i]].n_samples;
	double *v = xmalloc((total ? total : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		const struct history_point *p = &s->points[idx[i]];
		bool same = !strcmp(p->unit ? p->unit : "", unit);
		for (size_t j = 0; j < p->n_samples; j++) {
			double x = p->samples[j];
			if (same || units_convert(p->samples[j], p->unit, unit, &x) == 0)
				v[k++] = x;
		}
	}
	*count = k;
	return v;
}

/* Whether a judgement moved the level: significant and beyond the
 * threshold, either way. */
static bool differs(const struct judgement *j)
{
	return j->outcome == JUDGE_REGRESSION || (j->outcome == JUDGE_BETTER && j->beyond_threshold);
}

/* The walk of the rule over a series: its state before each point. */
struct walk {
	size_t level;              /* the point the current level starts at */
	bool level_acked;
	bool pending;              /* a step that has not settled */
	size_t step_at;
	size_t step_runs;
	bool step_up, step_worse;
	/* off[i]: point i is no run of a level (a step that did not settle),
	 * so no later run is judged against it */
	bool *off;
};

/* The earlier runs point `at` is judged against: the last `window` points
 * of the level before `end` that are runs of it, oldest first, in idx
 * (room for window); returns how many. */
static size_t window_points(const struct walk *w, size_t end, const struct history_rule *rule,
			    size_t *idx)
{
	size_t n = 0, cap = rule_window(rule);
	for (size_t i = end; i > w->level && n < cap; i--)
		if (!w->off[i - 1])
			n++;
	size_t k = 0;
	for (size_t i = end; i > w->level && k < n; i--)
		if (!w->off[i - 1])
			idx[n - 1 - k++] = i - 1;
	return n;
}

/* Judges samples b against the walk's level in series s, as point `at`
 * (s->n for the run being judged). */
static void judge_at(const struct history_series *s, const struct walk *w, size_t at,
		     const double *b, size_t nb, const char *unit, bool hib,
		     const struct history_rule *rule, struct history_verdict *out)
{
	memset(out, 0, sizeof(*out));
	size_t end = w->pending ? w->step_at : at;
	size_t *idx = xcalloc(rule_window(rule), sizeof(*idx));
	out->n_runs = window_points(w, end, rule, idx);
	out->base_from = out->n_runs ? idx[0] : end;
	out->level_at = w->level;
	out->level_acked = w->level_acked;
	struct judge_rule jr = { .threshold_pct = rule->threshold_pct, .alpha = rule->alpha,
				  .judge_single = true };
	size_t na;
	double *a = base_samples(s, idx, out->n_runs, unit, &na);
	if (out->n_runs < rule_min(rule) || !na) {
		judge_samples(a, na, b, nb, hib, &jr, &out->j);
		out->j.outcome = JUDGE_NOT_JUDGED;
		out->j.method = JUDGE_METHOD_NONE;
		out->j.p = NAN;
		snprintf(out->reason, sizeof(out->reason), "%zu earlier run%s%s, needs %zu",
			 out->n_runs, out->n_runs == 1 ? "" : "s",
			 w->level > 0 ? " at this level" : "", rule_min(rule));
		out->j.reason = out->reason;
	} else {
		jr.pooled = true;
		judge_samples(a, na, b, nb, hib, &jr, &out->j);
		if (out->j.reason)
			snprintf(out->reason, sizeof(out->reason), "%s", out->j.reason);
	}
	free(a);
	free(idx);
}

/* Moves the walk past point i, given its verdict v: a run that differs
 * starts or continues a step (off its level until it settles); one that
 * does not ends the step, whose runs stay off. */
static void walk_step(struct walk *w, size_t i, const struct history_verdict *v,
		      const struct history_rule *rule)
{
	if (!differs(&v->j)) {
		w->pending = false;
		return;
	}
	bool up = v->j.median_b > v->j.median_a;
	if (!w->pending || w->step_up != up) {
		w->pending = true;
		w->step_at = i;
		w->step_runs = 0;
		w->step_up = up;
		w->step_worse = v->j.worse;
	}
	w->off[i] = true;
	size_t settle = rule_settle(rule, w->step_worse);
	if (++w->step_runs >= settle && settle) {
		for (size_t k = w->step_at; k <= i; k++)
			w->off[k] = false;
		w->level = w->step_at;
		w->level_acked = false;
		w->pending = false;
	}
}

/* The step members of v, once walk_step moved w past v's point: a verdict
 * that differs is part of the step w holds, settled when it became the
 * level. */
static void mark_step(const struct walk *w, struct history_verdict *v)
{
	if (!differs(&v->j))
		return;
	v->step = true;
	v->step_at = w->step_at;
	v->settled = w->level == w->step_at && !w->pending;
	v->step_run = w->step_runs;
}

/* The verdict of a point that starts a level (not judged). */
static void level_start(const struct history_point *p, size_t i, bool acked,
			struct history_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->j.outcome = JUDGE_NOT_JUDGED;
	v->j.method = JUDGE_METHOD_NONE;
	v->j.median_a = v->j.median_b = p->value;
	v->j.change_pct = NAN;
	v->j.p = v->j.ci_lo = v->j.ci_hi = NAN;
	v->base_from = v->level_at = i;
	v->level_acked = acked;
	snprintf(v->reason, sizeof(v->reason), "%s", acked ? "acknowledged change" : "unit changed");
	v->j.reason = v->reason;
}

static void walk_init(struct walk *w, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->off = xcalloc(n + 1, sizeof(*w->off));
}

/* The walk over the first n points of s (each judged in its own unit),
 * their verdicts in out[0..n) when out is not NULL; w holds room for one
 * point more (walk_init(w, n)). */
static void walk_series(const struct history_series *s, size_t n, bool hib,
			const struct history_rule *rule, struct walk *w, struct history_verdict *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct history_point *p = &s->points[i];
		const char *unit = p->unit ? p->unit : "";
		struct history_verdict one, *v = out ? &out[i] : &one;
		bool acked = p->ack_note != NULL;
		if (acked || (i > 0 && !converts(&s->points[i - 1], unit))) {
			w->level = i;
			w->level_acked = acked;
			w->pending = false;
			level_start(p, i, acked, v);
			continue;
		}
		judge_at(s, w, i, p->samples, p->n_samples, unit, hib, rule, v);
		walk_step(w, i, v, rule);
		mark_step(w, v);
	}
}

int history_judge_samples(const struct history_series *s, const double *b, size_t nb,
			  const char *unit, bool higher_is_better, const struct history_rule *rule,
			  struct history_verdict *out)
{
	struct walk w;
	unit = unit ? unit : "";
	walk_init(&w, s->n);
	walk_series(s, s->n, higher_is_better, rule, &w, NULL);
	if (s->n && !converts(&s->points[s->n - 1], unit)) {
		w.level = s->n;
		w.level_acked = false;
		w.pending = false;
	}
	judge_at(s, &w, s->n, b, nb, unit, higher_is_better, rule, out);
	int rc = -1;
	if (nb) {
		walk_step(&w, s->n, out, rule);
		mark_step(&w, out);
		rc = 0;
	}
	free(w.off);
	return rc;
}

void history_judge_series(const struct history_series *s, const struct history_rule *rule,
			  struct history_verdict *out)
{
	struct walk w;
	walk_init(&w, s->n);
	walk_series(s, s->n, s->higher_is_better, rule, &w, out);
	free(w.off);
}

static const struct history_series *find_series(const struct history_series *s, size_t n,
						const char *board, const char *test, const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].board, board) && !strcmp(s[i].test, test) && !strcmp(s[i].metric, metric))
			return &s[i];
	return NULL;
}

static void append_text(char **to, const char *sep, const char *text)
{
	char *joined = *to ? xasprintf("%s%s%s", *to, sep, text) : xstrdup(text);
	free(*to);
	*to = joined;
}

static const enum metric_change change_of[] = {
	[JUDGE_SAME] = METRIC_CHANGE_SAME, [JUDGE_NOT_JUDGED] = METRIC_CHANGE_NOT_JUDGED,
	[JUDGE_NOISE] = METRIC_CHANGE_NOISE, [JUDGE_BETTER] = METRIC_CHANGE_BETTER,
	[JUDGE_WORSE] = METRIC_CHANGE_WORSE, [JUDGE_REGRESSION] = METRIC_CHANGE_REGRESSION,
};

/* The name the step's first run goes by: its label, else its id. */
static const char *step_since(const struct history_series *s, const struct history_verdict *v,
			      size_t at)
{
	if (!v->step)
		return NULL;
	if (v->step_at >= s->n)
		return NULL;   /* this run: the caller names it */
	(void)at;
	const struct history_point *p = &s->points[v->step_at];
	return p->label ? p->label : p->run_id;
}

/* "tput 12.0% slower than the last 10 runs (25.6 -> 22.5 MiB/s), 12.0%
 * lower since v5 (1 run), not acknowledged" (range.h says every part). */
static char *verdict_words(const struct run_result *run, const struct metric_result *m,
			   const struct history_series *s, const struct history_verdict *v)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "%s ", m->name);
	compare_put_pct(&sb, v->j.change_pct, v->j.beyond_threshold, v->j.threshold_pct);
	bool up = v->j.median_b > v->j.median_a;
	if (compare_unit_is_speed(m->unit, m->higher_is_better))
		strbuf_printf(&sb, " %s", v->j.worse ? "slower" : "faster");
	else
		strbuf_printf(&sb, " %s (%s)", up ? "higher" : "lower", v->j.worse ? "worse" : "better");
	const char *ack = v->level_acked && v->level_at < s->n ? s->points[v->level_at].run_id : NULL;
	char *base = range_history_name_before(v->n_runs, ack, v->step_run > 1 ? m->verdict.step_since
										 : NULL);
	strbuf_printf(&sb, " than %s", base);
	free(base);
	strbuf_puts(&sb, " (");
	valfmt_pair(&sb, v->j.median_a, v->j.median_b, m->unit);
	strbuf_putc(&sb, ')');
	if (m->verdict.step_text)
		strbuf_printf(&sb, ", %s", m->verdict.step_text);
	(void)run;
	return strbuf_detach(&sb);
}

/* The step of v in m's verdict: its first run's name (this run's own
 * label or id when it begins here), its runs, its words. */
static void set_step(const struct run_result *run, struct metric_result *m,
		     const struct history_series *s, const struct history_verdict *v)
{
	if (!v->step)
		return;
	const char *since = step_since(s, v, s->n);
	if (!since)
		since = run->label ? run->label : run->run_id;
	m->verdict.step_since = xstrdup(since ? since : "this run");
	m->verdict.step_runs = v->step_run;
	m->verdict.step_settled = v->settled;
	struct strbuf sb = STRBUF_INIT;
	range_step_put(&sb, v->j.change_pct, m->verdict.step_since, v->step_run, v->settled,
		       v->j.threshold_pct);
	m->verdict.step_text = strbuf_detach(&sb);
}

/* One metric of the current run against its series. */
static void judge_metric(const struct run_result *run, struct test_result *tr,
			 struct metric_result *m, const struct history_series *s,
			 const struct history_rule *base_rule, char **unjudged)
{
	struct history_rule rule = *base_rule;
	if (m->has_threshold)
		rule.threshold_pct = m->threshold_pct;
	if (m->settle)
		rule.settle = m->settle;
	struct history_verdict v;
	static const struct history_series empty = { 0 };
	if (history_judge_samples(s ? s : &empty, m->samples, m->n_samples, m->unit,
				  m->higher_is_better, &rule, &v) < 0)
		return;
	m->change = (size_t)v.j.outcome < sizeof(change_of) / sizeof(change_of[0])
		? change_of[v.j.outcome] : METRIC_CHANGE_NOISE;
	m->change_pct = v.j.change_pct;
	compare_set_verdict(&m->verdict, &v.j, m->unit, m->unit);
	m->verdict.n_baseline = v.n_runs;
	set_step(run, m, s ? s : &empty, &v);
	if (v.level_acked && s && v.level_at < s->n) {
		const struct history_point *p = &s->points[v.level_at];
		m->verdict.ack_run = xstrdup(p->run_id);
		m->verdict.ack_note = xstrdup(p->ack_note);
		char *t = xasprintf("%s judged since %s, accepted: %s", m->name,
				    p->label ? p->label : p->run_id, p->ack_note ? p->ack_note : "");
		append_text(&tr->comparison, "; ", t);
		free(t);
	}
	if (v.j.outcome == JUDGE_NOT_JUDGED) {
		char *t = xasprintf("%s (%s)", m->name, v.reason);
		append_text(unjudged, ", ", t);
		free(t);
		return;
	}
	if (v.j.outcome != JUDGE_REGRESSION)
		return;
	char *text = verdict_words(run, m, s, &v);
	append_text(&tr->comparison, "; ", text);
	free(text);
	/* as with --baseline RUN: a regression fails the test (docs/compare.md) */
	tr->regressed = true;
	if (tr->status == STATUS_PASS)
		tr->status = STATUS_FAIL;
}

/* The run's boards in the order they first appear (caller frees the array,
 * not the names): the history is loaded one board at a time, so that orch
 * holds one board's series. */
static const char **run_boards(const struct run_result *run, size_t *n)
{
	const char **b = xcalloc(run->n_results ? run->n_results : 1, sizeof(*b));
	*n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		size_t k = 0;
		while (k < *n && strcmp(b[k], run->results[i].board) != 0)
			k++;
		if (k == *n)
			b[(*n)++] = run->results[i].board;
	}
	return b;
}

/* What is done with one board's series; the board's results are those of
 * run with that board. */
typedef void board_fn(struct run_result *run, const char *board, const struct history_series *s,
		      size_t ns, const void *ctx);

/* The series of board's metrics in run (keys borrows run's names). */
static struct history_key *board_keys(const struct run_result *run, const char *board,
				      size_t *n)
{
	struct history_key *keys = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (strcmp(tr->board, board) != 0)
			continue;
		for (size_t k = 0; k < tr->n_metrics; k++) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				keys = xrealloc(keys, cap * sizeof(*keys));
			}
			keys[(*n)++] = (struct history_key){ tr->board, tr->test, tr->metrics[k].name };
		}
	}
	return keys;
}

/* fn on each board of run with the last `last` points of every series of
 * that board's metrics in run, loaded one board at a time: only the runs
 * that hold those points are read, however many nights the history has. */
static int each_board(struct db *db, struct run_result *run, size_t last, board_fn *fn,
		      const void *ctx, char *err, size_t errlen)
{
	int rc = 0;
	size_t nb;
	const char **boards = run_boards(run, &nb);
	for (size_t b = 0; rc == 0 && b < nb; b++) {
		const char *one[] = { boards[b] };
		struct history_query q = { .scenario = run->scenario, .boards = one, .n_boards = 1,
					   .last = last };
		struct history_key *keys = board_keys(run, boards[b], &q.n_keys);
		struct history_series *s = NULL;
		size_t ns = 0;
		q.keys = keys;
		if (q.n_keys)
			rc = history_load(db, &q, &s, &ns, err, errlen);
		if (rc == 0)
			fn(run, boards[b], s, ns, ctx);
		history_series_free(s, ns);
		free(keys);
	}
	free(boards);
	return rc;
}

/* One board's results judged against its series. */
static void board_baseline(struct run_result *run, const char *board,
			   const struct history_series *s, size_t ns, const void *ctx)
{
	const struct history_rule *rule = ctx;
	for (size_t i = 0; i < run->n_results; i++) {
		struct test_result *tr = &run->results[i];
		if (strcmp(tr->board, board) || (tr->status != STATUS_PASS && tr->status != STATUS_FAIL))
			continue;
		char *unjudged = NULL;
		for (size_t k = 0; k < tr->n_metrics; k++) {
			struct metric_result *m = &tr->metrics[k];
			if (!m->n_samples || metric_is_orch_own(m->name))
				continue;
			judge_metric(run, tr, m, find_series(s, ns, tr->board, tr->test, m->name), rule,
				     &unjudged);
		}
		if (unjudged) {
			char *t = xasprintf("not judged against the history: %s", unjudged);
			append_text(&tr->comparison, "; ", t);
			free(t);
			free(unjudged);
		}
	}
}

#define HISTORY_WALK_POINTS 100

size_t history_walk_points(const struct history_rule *rule)
{
	size_t n = 3 * rule_window(rule) + HISTORY_SETTLE_RUNS;
	return n > HISTORY_WALK_POINTS ? n : HISTORY_WALK_POINTS;
}

char *history_step_words(const struct history_series *s, size_t at,
			 const struct history_verdict *v)
{
	if (!v->step || v->step_at > at || v->step_at >= s->n)
		return NULL;
	const struct history_point *p = &s->points[v->step_at];
	struct strbuf sb = STRBUF_INIT;
	range_step_put(&sb, v->j.change_pct, p->label ? p->label : p->run_id, v->step_run,
		       v->settled, v->j.threshold_pct);
	return strbuf_detach(&sb);
}

int history_judge_run(struct db *db, struct run_result *run, const struct history_rule *rule,
		      char *err, size_t errlen)
{
	run->baseline_kind = BASELINE_HISTORY;
	free(run->baseline_name);
	run->baseline_name = range_history_name(rule_window(rule), NULL);
	return each_board(db, run, history_walk_points(rule), board_baseline, rule, err, errlen);
}

int history_apply_baseline(struct db *db, struct run_result *run, size_t window,
			   double threshold_pct, char *err, size_t errlen)
{
	struct history_rule rule = { .window = window, .threshold_pct = threshold_pct };
	return history_judge_run(db, run, &rule, err, errlen);
}

/* Whether run->trends[first..] (one board's) has test/metric already. */
static bool has_trend(const struct run_result *run, size_t first, const char *test,
		      const char *metric)
{
	for (size_t i = first; i < run->n_trends; i++)
		if (!strcmp(run->trends[i].test, test) && !strcmp(run->trends[i].metric, metric))
			return true;
	return false;
}

/* The trends of one board's results from its series. */
static void board_trends(struct run_result *run, const char *board,
			 const struct history_series *s, size_t ns, const void *ctx)
{
	const char *dir = ctx;   /* the run folder, resolved */
	size_t first = run->n_trends;   /* this board's trends are added from here */
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (strcmp(tr->board, board) != 0)
			continue;
		for (size_t k = 0; k < tr->n_metrics; k++) {
			const struct history_series *hs =
				find_series(s, ns, tr->board, tr->test, tr->metrics[k].name);
			if (!hs || has_trend(run, first, tr->test, tr->metrics[k].name))
				continue;
			struct metric_trend *t = run_result_add_trend(run, tr->board, tr->test,
								      tr->metrics[k].name);
			for (size_t p = 0; p < hs->n; p++)
				metric_trend_add_point(t, hs->points[p].run_id, hs->points[p].label,
						       hs->points[p].value,
						       hs->points[p].run_dir && !strcmp(hs->points[p].run_dir, dir));
		}
	}
}

int history_fill_trends(struct db *db, struct run_result *run, const char *run_dir, size_t last,
			char *err, size_t errlen)
{
	char buf[PATH_MAX];
	const char *dir = realpath(run_dir, buf) ? buf : run_dir;
	return each_board(db, run, last, board_trends, dir, err, errlen);
}

void history_marks_of(const struct history_series *s, const struct history_walk_opts *w,
		      struct history_marks *m)
{
	struct history_rule rule = { .threshold_pct = w->threshold, .settle = w->settle };
	m->v = xcalloc(s->n ? s->n : 1, sizeof(*m->v));
	m->step_at = m->ack_at = SIZE_MAX;
	m->step = NULL;
	m->settled = false;
	history_judge_series(s, &rule, m->v);
	for (size_t i = 0; i < s->n; i++) {
		if (s->points[i].ack_note)
			m->ack_at = i;
		if (!m->v[i].step)
			continue;
		if (m->v[i].step_at != m->step_at) {
			m->step_at = m->v[i].step_at;
			m->step = &m->v[m->step_at];
		}
		m->settled = m->v[i].settled;
	}
	m->words = s->n ? history_step_words(s, s->n - 1, &m->v[s->n - 1]) : NULL;
}

void history_marks_release(struct history_marks *m)
{
	free(m->v);
	free(m->words);
	m->v = NULL;
	m->words = NULL;
}
