/* Reading series back out of the history. */
#include "history/history.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool board_wanted(const struct history_query *q, const char *board)
{
	if (!q->n_boards)
		return true;
	for (size_t i = 0; i < q->n_boards; i++)
		if (strcmp(q->boards[i], board) == 0)
			return true;
	return false;
}

static bool metric_wanted(const struct history_query *q, const char *test, const char *metric)
{
	if (!q->metric)
		return true;
	if (strcmp(q->metric, metric) == 0)
		return true;
	size_t tl = strlen(test);
	return strncmp(q->metric, test, tl) == 0 && q->metric[tl] == '.' &&
	       strcmp(q->metric + tl + 1, metric) == 0;
}

static void point_release(struct history_point *p)
{
	free(p->run_id);
	free(p->label);
	free(p->host);
	free(p->run_dir);
}

void history_series_free(struct history_series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		for (size_t k = 0; k < s[i].n; k++)
			point_release(&s[i].points[k]);
		free(s[i].points);
		free(s[i].board);
		free(s[i].test);
		free(s[i].metric);
		free(s[i].unit);
	}
	free(s);
}

/* Keeps the last `last` points of s. */
static void series_trim(struct history_series *s, size_t last)
{
	if (!last || s->n <= last)
		return;
	size_t drop = s->n - last;
	for (size_t k = 0; k < drop; k++)
		point_release(&s->points[k]);
	memmove(s->points, s->points + drop, last * sizeof(*s->points));
	s->n = last;
}

enum { C_RUN_ID, C_LABEL, C_HOST, C_DIR, C_START, C_BOARD, C_TEST, C_METRIC, C_UNIT, C_BETTER,
       C_MEDIAN, C_STDDEV, C_N };

static void add_row(struct history_series **out, size_t *n, const struct db_rows *r, int i)
{
	const char *board = db_cell(r, i, C_BOARD), *test = db_cell(r, i, C_TEST);
	const char *metric = db_cell(r, i, C_METRIC);
	struct history_series *s = *n ? &(*out)[*n - 1] : NULL;
	if (!s || strcmp(s->board, board) || strcmp(s->test, test) || strcmp(s->metric, metric)) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		s = &(*out)[(*n)++];
		memset(s, 0, sizeof(*s));
		s->board = xstrdup(board);
		s->test = xstrdup(test);
		s->metric = xstrdup(metric);
		s->unit = xstrdup(db_cell(r, i, C_UNIT) ? db_cell(r, i, C_UNIT) : "");
		s->higher_is_better = !db_cell(r, i, C_BETTER) || strcmp(db_cell(r, i, C_BETTER), "lower");
	}
	s->points = xrealloc(s->points, (s->n + 1) * sizeof(*s->points));
	struct history_point *p = &s->points[s->n++];
	p->run_id = xstrdup(db_cell(r, i, C_RUN_ID));
	p->label = xstrdup(db_cell(r, i, C_LABEL));
	p->host = xstrdup(db_cell(r, i, C_HOST));
	p->run_dir = xstrdup(db_cell(r, i, C_DIR));
	p->start_us = db_cell_int(r, i, C_START, 0);
	p->value = db_cell_real(r, i, C_MEDIAN, 0);
	p->stddev = db_cell_real(r, i, C_STDDEV, 0);
	p->n = (int)db_cell_int(r, i, C_N, 1);
}

/*
 * The query of q. Only what is asked leaves the database: one board when q
 * names one, and with q->last the last points of each series (a window
 * function), so orch's memory does not grow with the nights kept (it held
 * every row of the scenario's history, 135 MiB after 65 nights of 2560
 * metrics). The ORDER BY is what add_row() groups by.
 */
static char *load_sql(const struct history_query *q, struct db_val *v, int *nv)
{
	struct strbuf sql = STRBUF_INIT;
	*nv = 0;
	v[(*nv)++] = DB_TEXT(q->scenario);
	strbuf_puts(&sql, "SELECT run_id, label, host, run_dir, start_us, board, test, metric, unit,"
			  " better, median, stddev, n FROM (SELECT r.run_id, r.label, r.host,"
			  " r.run_dir, r.start_us, r.id AS rid, m.board, m.test, m.metric, m.unit,"
			  " m.better, m.median, m.stddev, m.n");
	if (q->last)
		strbuf_puts(&sql, ", ROW_NUMBER() OVER (PARTITION BY m.board, m.test, m.metric"
				  " ORDER BY r.start_us DESC, r.id DESC) AS k");
	strbuf_puts(&sql, " FROM history_metric m JOIN history_run r ON m.run = r.id"
			  " WHERE r.scenario = ?");
	if (q->n_boards == 1) {
		strbuf_puts(&sql, " AND m.board = ?");
		v[(*nv)++] = DB_TEXT(q->boards[0]);
	}
	if (q->before_run_dir) {
		strbuf_puts(&sql, " AND r.run_dir <> ?");
		v[(*nv)++] = DB_TEXT(q->before_run_dir);
	}
	strbuf_puts(&sql, ") t");
	if (q->last)
		strbuf_printf(&sql, " WHERE k <= %zu", q->last);
	strbuf_puts(&sql, " ORDER BY board, test, metric, start_us, rid");
	return strbuf_detach(&sql);
}

int history_load(struct db *db, const struct history_query *q, struct history_series **out,
		 size_t *n, char *err, size_t errlen)
{
	struct db_rows *r = NULL;
	struct db_val v[3];
	int nv;
	char *sql = load_sql(q, v, &nv);
	*out = NULL;
	*n = 0;
	int rc = db_exec(db, sql, v, nv, &r, err, errlen);
	free(sql);
	for (int i = 0; rc == 0 && i < r->nrows; i++) {
		const char *board = db_cell(r, i, C_BOARD), *test = db_cell(r, i, C_TEST);
		if (!board || !test || !db_cell(r, i, C_METRIC) || !board_wanted(q, board) ||
		    !metric_wanted(q, test, db_cell(r, i, C_METRIC)))
			continue;
		add_row(out, n, r, i);
	}
	db_rows_free(r);
	for (size_t i = 0; rc == 0 && i < *n; i++)
		series_trim(&(*out)[i], q->last);
	return rc;
}
