/* The history's loader against the window query it replaced (see
 * ts_history.h). */
#include "ts_history.h"
#include "testsupport.h"
#include "history/history.h"
#include "result/result.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RUNS = 40, BOARDS = 4, TESTS = 3, METRICS = 2 };

static const char *tmp;
static struct db *db;

static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

static void index_run(int i, const char *scenario)
{
	struct run_result run = { 0 };
	char err[512];
	run.scenario = xstrdup(scenario);
	run.run_id = xasprintf("%s-%02d", scenario, i);
	run.label = i % 3 ? xasprintf("label %d", i) : NULL;
	run.host = xstrdup(i % 5 ? "ctl" : "other-ctl");
	/* ties every 4th run; every 7th run is older than the one before */
	long long at = i - (i % 4 == 1) - 3 * (i % 7 == 6);
	run.start_wall_us = 1700000000000000LL + at * 1000000LL;
	run.end_wall_us = run.start_wall_us + 1;
	for (int b = 0; b < BOARDS; b++) {
		if (b == 3 && i % 9 < 4)
			continue;   /* a board that comes and goes */
		for (int t = 0; t < TESTS; t++) {
			if (t == 2 && i < RUNS - 4)
				continue;   /* a test added late */
			char board[8], test[8];
			snprintf(board, sizeof(board), "b%d", b + 1);
			snprintf(test, sizeof(test), "t%d", t + 1);
			struct test_result *tr = run_result_add(&run, board, test);
			tr->status = STATUS_PASS;
			for (int m = 0; m < METRICS; m++) {
				if (rnd(10) < 3)
					continue;
				char name[8];
				snprintf(name, sizeof(name), "m%d", m + 1);
				bool ms = rnd(6) == 0;
				test_result_add_sample(tr, name, ms ? "ms" : "ops/s", !ms,
						       100 + i + rnd(1000) / 100.0);
				test_result_add_sample(tr, name, ms ? "ms" : "ops/s", !ms, 90 + rnd(20));
			}
		}
	}
	char *dir = xasprintf("%s/%s-run%d", tmp, scenario, i);
	if (history_index(db, &run, dir, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	free(dir);
	run_result_release(&run);
}

void ts_history_fill(struct db *d, const char *dir)
{
	db = d;
	tmp = dir;
	rnd_state = 12345;
	for (int i = 0; i < RUNS; i++) {
		index_run(i, "s");
		if (i % 6 == 0)
			index_run(i, "elsewhere");
	}
}

/* ---- the reference: the window query history_load ran before ---------- */

static bool wanted(const struct history_query *q, const char *board, const char *test,
		   const char *metric)
{
	bool ok = !q->n_boards;
	for (size_t i = 0; i < q->n_boards; i++)
		ok = ok || !strcmp(q->boards[i], board);
	if (q->metric) {
		size_t tl = strlen(test);
		ok = ok && (!strcmp(q->metric, metric) ||
			    (!strncmp(q->metric, test, tl) && q->metric[tl] == '.' &&
			     !strcmp(q->metric + tl + 1, metric)));
	}
	bool key = !q->n_keys;
	for (size_t i = 0; i < q->n_keys; i++)
		key = key || (!strcmp(q->keys[i].board, board) && !strcmp(q->keys[i].test, test) &&
			      !strcmp(q->keys[i].metric, metric));
	return ok && key;
}

static struct history_series *reference(const struct history_query *q, size_t *n)
{
	struct strbuf sql = STRBUF_INIT;
	struct db_val v[3];
	int nv = 0;
	v[nv++] = DB_TEXT(q->scenario);
	strbuf_puts(&sql, "SELECT run_id, label, host, run_dir, start_us, board, test, metric, unit,"
			  " better, median, stddev, n FROM (SELECT r.run_id, r.label, r.host,"
			  " r.run_dir, r.start_us, r.id AS rid, m.board, m.test, m.metric, m.unit,"
			  " m.better, m.median, m.stddev, m.n, ROW_NUMBER() OVER (PARTITION BY"
			  " m.board, m.test, m.metric ORDER BY r.start_us DESC, r.id DESC) AS k"
			  " FROM history_metric m JOIN history_run r ON m.run = r.id"
			  " WHERE r.scenario = ?");
	if (q->n_boards == 1) {
		strbuf_puts(&sql, " AND m.board = ?");
		v[nv++] = DB_TEXT(q->boards[0]);
	}
	if (q->before_run_dir) {
		strbuf_puts(&sql, " AND r.run_dir <> ?");
		v[nv++] = DB_TEXT(q->before_run_dir);
	}
	strbuf_puts(&sql, ") t");
	if (q->last)
		strbuf_printf(&sql, " WHERE k <= %zu", q->last);
	strbuf_puts(&sql, " ORDER BY board, test, metric, start_us, rid");
	struct db_rows *r = NULL;
	char err[512];
	if (db_exec(db, strbuf_str(&sql), v, nv, &r, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	strbuf_release(&sql);
	struct history_series *out = NULL;
	*n = 0;
	for (int i = 0; i < r->nrows; i++) {
		const char *board = db_cell(r, i, 5), *test = db_cell(r, i, 6);
		const char *metric = db_cell(r, i, 7);
		if (!wanted(q, board, test, metric))
			continue;
		struct history_series *s = *n ? &out[*n - 1] : NULL;
		if (!s || strcmp(s->board, board) || strcmp(s->test, test) || strcmp(s->metric, metric)) {
			out = xrealloc(out, (*n + 1) * sizeof(*out));
			s = &out[(*n)++];
			memset(s, 0, sizeof(*s));
			s->board = xstrdup(board);
			s->test = xstrdup(test);
			s->metric = xstrdup(metric);
			s->unit = xstrdup(db_cell(r, i, 8) ? db_cell(r, i, 8) : "");
			s->higher_is_better = !db_cell(r, i, 9) || strcmp(db_cell(r, i, 9), "lower");
		}
		s->points = xrealloc(s->points, (s->n + 1) * sizeof(*s->points));
		struct history_point *p = &s->points[s->n++];
		memset(p, 0, sizeof(*p));
		p->run_id = xstrdup(db_cell(r, i, 0));
		p->label = xstrdup(db_cell(r, i, 1));
		p->host = xstrdup(db_cell(r, i, 2));
		p->run_dir = xstrdup(db_cell(r, i, 3));
		p->start_us = db_cell_int(r, i, 4, 0);
		p->value = db_cell_real(r, i, 10, 0);
		p->stddev = db_cell_real(r, i, 11, 0);
		p->n = (int)db_cell_int(r, i, 12, 1);
	}
	db_rows_free(r);
	return out;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void check(const struct history_query *q, const char *what)
{
	size_t ne = 0, ng = 0;
	struct history_series *want = reference(q, &ne), *got = NULL;
	char err[512];
	if (history_load(db, q, &got, &ng, err, sizeof(err)) < 0)
		fail_msg("%s: %s", what, err);
	if (ng != ne)
		fail_msg("%s: %zu series, the window query has %zu", what, ng, ne);
	for (size_t i = 0; i < ne; i++) {
		const struct history_series *a = &want[i], *b = &got[i];
		if (strcmp(a->board, b->board) || strcmp(a->test, b->test) ||
		    strcmp(a->metric, b->metric) || strcmp(a->unit, b->unit) ||
		    a->higher_is_better != b->higher_is_better || a->n != b->n)
			fail_msg("%s: series %zu: %s/%s/%s %s %zu points, the window query's "
				 "%s/%s/%s %s %zu", what, i, b->board, b->test, b->metric, b->unit,
				 b->n, a->board, a->test, a->metric, a->unit, a->n);
		for (size_t k = 0; k < a->n; k++) {
			const struct history_point *x = &a->points[k], *y = &b->points[k];
			if (!same_text(x->run_id, y->run_id) || !same_text(x->label, y->label) ||
			    !same_text(x->host, y->host) || !same_text(x->run_dir, y->run_dir) ||
			    x->start_us != y->start_us || x->value != y->value ||
			    x->stddev != y->stddev || x->n != y->n)
				fail_msg("%s: %s/%s/%s point %zu: run %s value %.17g, the window "
					 "query's run %s value %.17g", what, a->board, a->test,
					 a->metric, k, y->run_id, y->value, x->run_id, x->value);
		}
	}
	history_series_free(want, ne);
	history_series_free(got, ng);
}

void ts_history_check_window(struct db *d, const char *dir)
{
	db = d;
	tmp = dir;
	const char *one[] = { "b4" }, *two[] = { "b2", "b4" };
	char *before = xasprintf("%s/s-run%d", tmp, RUNS - 1);
	char *before_old = xasprintf("%s/s-run%d", tmp, 13);
	const size_t lasts[] = { 0, 1, 3, 10, 100 };
	struct { const char **boards; size_t n; } sets[] = { { NULL, 0 }, { one, 1 }, { two, 2 } };
	const char *metrics[] = { NULL, "m1", "t3.m2" };
	const char *befores[] = { NULL, before, before_old };
	for (size_t l = 0; l < sizeof(lasts) / sizeof(*lasts); l++)
		for (size_t b = 0; b < 3; b++)
			for (size_t m = 0; m < 3; m++)
				for (size_t r = 0; r < 3; r++) {
					struct history_query q = {
						.scenario = "s", .boards = sets[b].boards,
						.n_boards = sets[b].n, .metric = metrics[m],
						.last = lasts[l], .before_run_dir = befores[r],
					};
					char what[160];
					snprintf(what, sizeof(what), "last %zu, %zu boards, metric %s, %s",
						 lasts[l], sets[b].n, metrics[m] ? metrics[m] : "any",
						 befores[r] ? befores[r] : "all runs");
					check(&q, what);
				}
	TS_FREE(before, before_old);
}

/* Named series, as --baseline history and the trends ask for a board's:
 * the same points, and a series named but never recorded is not returned. */
void ts_history_check_keys(struct db *d)
{
	db = d;
	const struct history_key keys[] = {
		{ "b1", "t1", "m1" }, { "b1", "t3", "m2" }, { "b4", "t2", "m2" },
		{ "b1", "t1", "m1" },   /* twice */
		{ "b1", "t9", "m1" },   /* never recorded */
		{ "b2", "t2", "m1" },
	};
	const char *one[] = { "b1" };
	const size_t lasts[] = { 0, 2, 10, 100 };
	for (size_t l = 0; l < sizeof(lasts) / sizeof(*lasts); l++) {
		struct history_query q = { .scenario = "s", .last = lasts[l], .keys = keys,
					   .n_keys = sizeof(keys) / sizeof(*keys) };
		char what[64];
		snprintf(what, sizeof(what), "keys, last %zu", lasts[l]);
		check(&q, what);
		q.boards = one;
		q.n_boards = 1;
		snprintf(what, sizeof(what), "keys of b1, last %zu", lasts[l]);
		check(&q, what);
	}
	/* no key recorded: nothing, without an error */
	const struct history_key none[] = { { "b9", "t1", "m1" } };
	struct history_query q = { .scenario = "s", .last = 10, .keys = none, .n_keys = 1 };
	check(&q, "a key never recorded");
	q.scenario = "no such scenario";
	q.keys = keys;
	q.n_keys = 2;
	check(&q, "no such scenario");
}


static struct {
	char *(*target)(const char *dir);
	void (*stop)(void);
	struct db *db;
	char *dir;
} checks;

static int checks_setup(void **state)
{
	char err[512];
	checks.dir = ts_mkdtemp("history-window");
	char *target = checks.target(checks.dir);
	if (!target)
		return -1;
	int rc = history_open(&checks.db, target, err, sizeof(err));
	free(target);
	if (rc < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	ts_history_fill(checks.db, checks.dir);
	return 0;
}

static int checks_teardown(void **state)
{
	db_close(checks.db);
	if (checks.stop)
		checks.stop();
	ts_rmrf(checks.dir);
	free(checks.dir);
	return 0;
}

static void test_same_as_window_query(void **state)
{
	ts_history_check_window(checks.db, checks.dir);
}

static void test_keys(void **state)
{
	ts_history_check_keys(checks.db);
}

int ts_history_run_checks(char *(*target)(const char *dir), void (*stop)(void))
{
	checks.target = target;
	checks.stop = stop;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_window_query),
		cmocka_unit_test(test_keys),
	};
	return ts_run_group(tests, checks_setup, checks_teardown);
}
