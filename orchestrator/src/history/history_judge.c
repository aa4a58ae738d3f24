/* Judging a run against the history: steps over a window, and trends. */
#include "history/history.h"
#include "util/strbuf.h"
#include "util/valfmt.h"
#include "util/threshold.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/* Whether every point from k on lies beyond the midpoint of the two means,
 * on the side of the change: a lasting step, not one outlier. */
static bool step_lasts(const double *v, size_t k, size_t n, double before, double after)
{
	double mid = (before + after) / 2;
	for (size_t i = k; i < n; i++)
		if (after < before ? v[i] >= mid : v[i] <= mid)
			return false;
	return true;
}

bool history_find_step(const double *v, size_t n, bool higher_is_better, double threshold_pct,
		       struct history_step *step)
{
	double best_t = -1;
	for (size_t k = 2; k < n; k++) {
		double mb, sb, ma, sa;
		mean_sd(v, k, &mb, &sb);
		mean_sd(v + k, n - k, &ma, &sa);
		double delta = ma - mb;
		if (mb == 0 || !threshold_beyond(mb, ma, threshold_pct) || fabs(delta) <= 3 * sb ||
		    !step_lasts(v, k, n, mb, ma))
			continue;
		double se = sqrt(sb * sb / (double)k + sa * sa / (double)(n - k));
		double t = se > 0 ? fabs(delta) / se : HUGE_VAL;
		if (t > best_t) {
			best_t = t;
			step->at = k;
			step->before = mb;
			step->after = ma;
			step->change_pct = delta / fabs(mb) * 100;
			step->worse = higher_is_better ? delta < 0 : delta > 0;
		}
	}
	return best_t >= 0;
}

static const struct history_series *find_series(const struct history_series *s, size_t n,
						const char *board, const char *test, const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].board, board) && !strcmp(s[i].test, test) && !strcmp(s[i].metric, metric))
			return &s[i];
	return NULL;
}

static void append_comparison(struct test_result *tr, const char *text)
{
	char *joined = tr->comparison ? xasprintf("%s; %s", tr->comparison, text) : xstrdup(text);
	free(tr->comparison);
	tr->comparison = joined;
}

/* One metric of the current run against its window of earlier runs. */
static void judge_metric(const struct run_result *run, struct test_result *tr,
			 const struct metric_result *m, const struct history_series *s,
			 size_t window, double threshold_pct)
{
	size_t from = s->n > window ? s->n - window : 0, n = s->n - from;
	if (n < 2)
		return;
	double *v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = s->points[from + i].value;
	v[n] = m->median;
	struct history_step st;
	if (history_find_step(v, n + 1, m->higher_is_better, threshold_pct, &st)) {
		const char *id = st.at == n ? run->run_id : s->points[from + st.at].run_id;
		const char *label = st.at == n ? run->label : s->points[from + st.at].label;
		char *where = label && *label ? xasprintf("%s (%s)", label, id ? id : "?")
					      : xstrdup(id ? id : "?");
		struct strbuf pair = STRBUF_INIT;
		valfmt_pair(&pair, st.before, st.after, m->unit);
		char *text = xasprintf("%s stepped %.1f%% %s (%s) at %s: %s over the last "
				       "%zu runs", m->name, fabs(st.change_pct),
				       st.change_pct < 0 ? "down" : "up", st.worse ? "worse" : "better",
				       where, strbuf_str(&pair), n);
		strbuf_release(&pair);
		append_comparison(tr, text);
		if (st.worse) {
			/* as with --baseline RUN: a regression fails the test
			 * (docs/compare.md), with no message of its own */
			tr->regressed = true;
			if (tr->status == STATUS_PASS)
				tr->status = STATUS_FAIL;
		}
		free(text);
		free(where);
	}
	free(v);
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

struct baseline_rule {
	size_t window;
	double threshold_pct;
};

/* One board's results judged against its series. */
static void board_baseline(struct run_result *run, const char *board,
			   const struct history_series *s, size_t ns, const void *ctx)
{
	const struct baseline_rule *rule = ctx;
	for (size_t i = 0; i < run->n_results; i++) {
		struct test_result *tr = &run->results[i];
		if (strcmp(tr->board, board) || tr->status == STATUS_ERROR || tr->status == STATUS_SKIP)
			continue;
		for (size_t k = 0; k < tr->n_metrics; k++) {
			const struct metric_result *m = &tr->metrics[k];
			const struct history_series *hs = find_series(s, ns, tr->board, tr->test, m->name);
			if (hs && m->n_samples)
				judge_metric(run, tr, m, hs, rule->window, rule->threshold_pct);
		}
	}
}

int history_apply_baseline(struct db *db, struct run_result *run, size_t window,
			   double threshold_pct, char *err, size_t errlen)
{
	struct baseline_rule rule = { window ? window : HISTORY_DEFAULT_LAST, threshold_pct };
	run->baseline_kind = BASELINE_HISTORY;
	free(run->baseline_name);
	run->baseline_name = xasprintf("last %zu runs", rule.window);
	return each_board(db, run, rule.window, board_baseline, &rule, err, errlen);
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
