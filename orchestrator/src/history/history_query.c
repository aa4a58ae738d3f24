/* Reading series back out of the history. */
#include "history/history.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <stdint.h>
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
	free(p->unit);
	free(p->samples);
	free(p->ack_note);
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

/*
 * The series being read, found by board, test and metric through an open
 * hash table of indexes into the array. Runs are read newest first, so a
 * series takes points until it has q->last of them; its unit and direction
 * are those of its oldest point kept, as when it was read oldest first.
 */
struct series_set {
	struct history_series *s;
	size_t n, cap;
	size_t *slot;          /* index + 1 into s, 0: empty */
	size_t nslot;          /* a power of two, at least twice n */
	size_t full;           /* series holding q->last points */
};

static uint64_t key_hash(const char *board, const char *test, const char *metric)
{
	const char *parts[] = { board, test, metric };
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < 3; i++) {
		for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h;
}

static size_t *set_slot(struct series_set *set, const char *board, const char *test,
			const char *metric)
{
	size_t i = (size_t)key_hash(board, test, metric) & (set->nslot - 1);
	while (set->slot[i]) {
		const struct history_series *s = &set->s[set->slot[i] - 1];
		if (!strcmp(s->board, board) && !strcmp(s->test, test) && !strcmp(s->metric, metric))
			break;
		i = (i + 1) & (set->nslot - 1);
	}
	return &set->slot[i];
}

static void set_grow(struct series_set *set)
{
	free(set->slot);
	set->nslot = set->nslot ? set->nslot * 2 : 64;
	set->slot = xcalloc(set->nslot, sizeof(*set->slot));
	for (size_t k = 0; k < set->n; k++)
		*set_slot(set, set->s[k].board, set->s[k].test, set->s[k].metric) = k + 1;
}

/* The series board/test/metric: found, else added when `add`, else NULL. */
static struct history_series *set_get(struct series_set *set, const char *board,
				      const char *test, const char *metric, bool add)
{
	if (!set->nslot)
		set_grow(set);
	size_t *slot = set_slot(set, board, test, metric);
	if (*slot || !add)
		return *slot ? &set->s[*slot - 1] : NULL;
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->s = xrealloc(set->s, set->cap * sizeof(*set->s));
	}
	struct history_series *s = &set->s[set->n++];
	memset(s, 0, sizeof(*s));
	s->board = xstrdup(board);
	s->test = xstrdup(test);
	s->metric = xstrdup(metric);
	*slot = set->n;
	if (set->n * 2 > set->nslot)
		set_grow(set);
	return s;
}

/* The columns of a run (runs_sql) and of a metric row (metrics_sql). */
enum { R_ID, R_RUN_ID, R_LABEL, R_HOST, R_DIR, R_START };
enum { M_BOARD, M_TEST, M_METRIC, M_UNIT, M_BETTER, M_MEDIAN, M_STDDEV, M_N, M_SAMPLES };

/* Reading one run's metric rows into set. */
struct run_read {
	const struct history_query *q;
	struct series_set *set;
	const struct db_rows *runs;
	int run;                       /* row of runs */
	long long start_us;            /* its start */
};

/* The samples of a point from their text ("1.5,2,2.25"); none (an older
 * row, or text that does not read) leaves the median as its one sample. */
static void parse_samples(const char *text, struct history_point *p)
{
	size_t n = 0, cap = 0;
	double *v = NULL;
	for (const char *c = text; c && *c; ) {
		char *end;
		double x = strtod(c, &end);
		if (end == c)
			break;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = x;
		c = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end)
			break;
	}
	if (!n) {
		v = xrealloc(v, sizeof(*v));
		v[n++] = p->value;
	}
	p->samples = v;
	p->n_samples = n;
}

/* A row, a point older than every point its series has: taken while the
 * series has fewer than q->last (0: no limit). */
static int run_row(const struct db_row *r, void *ctx)
{
	struct run_read *rr = ctx;
	const struct history_query *q = rr->q;
	const char *board = db_row_text(r, M_BOARD), *test = db_row_text(r, M_TEST);
	const char *metric = db_row_text(r, M_METRIC);
	if (!board || !test || !metric || !board_wanted(q, board) || !metric_wanted(q, test, metric))
		return 0;
	struct history_series *s = set_get(rr->set, board, test, metric, !q->n_keys);
	if (!s || (q->last && s->n >= q->last))
		return 0;
	/* room for q->last points at once when that is few, else 16, then twice as many */
	if (!s->n || (s->n >= 16 && !(s->n & (s->n - 1))))
		s->points = xrealloc(s->points, (s->n ? 2 * s->n : q->last && q->last < 16 ? q->last : 16) *
						sizeof(*s->points));
	struct history_point *p = &s->points[s->n++];
	p->run_id = xstrdup(db_cell(rr->runs, rr->run, R_RUN_ID));
	p->label = xstrdup(db_cell(rr->runs, rr->run, R_LABEL));
	p->host = xstrdup(db_cell(rr->runs, rr->run, R_HOST));
	p->run_dir = xstrdup(db_cell(rr->runs, rr->run, R_DIR));
	p->start_us = rr->start_us;
	p->ack_note = NULL;
	p->value = db_row_real(r, M_MEDIAN, 0);
	p->stddev = db_row_real(r, M_STDDEV, 0);
	p->n = (int)db_row_int(r, M_N, 1);
	const char *unit = db_row_text(r, M_UNIT), *better = db_row_text(r, M_BETTER);
	if (!unit)
		unit = "";
	p->unit = xstrdup(unit);
	parse_samples(db_row_text(r, M_SAMPLES), p);
	if (!s->unit || strcmp(s->unit, unit)) {
		free(s->unit);
		s->unit = xstrdup(unit);
	}
	s->higher_is_better = !better || strcmp(better, "lower");
	if (q->last && s->n == q->last)
		rr->set->full++;
	return 0;
}

/* `limit` runs of q from the `offset`-th newest, newest first: "ORDER BY
 * start_us DESC, id DESC" is the order of the series' points, reversed. */
static int read_runs(struct db *db, const struct history_query *q, int64_t offset,
		     int64_t limit, struct db_rows **runs, char *err, size_t errlen)
{
	struct strbuf sql = STRBUF_INIT;
	struct db_val v[4];
	int nv = 0;
	strbuf_puts(&sql, "SELECT id, run_id, label, host, run_dir, start_us FROM history_run"
			  " WHERE scenario = ?");
	v[nv++] = DB_TEXT(q->scenario);
	if (q->before_run_dir) {
		strbuf_puts(&sql, " AND run_dir <> ?");
		v[nv++] = DB_TEXT(q->before_run_dir);
	}
	strbuf_puts(&sql, " ORDER BY start_us DESC, id DESC LIMIT ? OFFSET ?");
	v[nv++] = DB_INT(limit);
	v[nv++] = DB_INT(offset);
	int rc = db_exec(db, strbuf_str(&sql), v, nv, runs, err, errlen);
	strbuf_release(&sql);
	return rc;
}

/* The metric rows of run rr->run (of the one board asked, if one): an
 * index lookup of that run and board, no sort. */
static int read_run(struct db *db, struct run_read *rr, char *err, size_t errlen)
{
	const struct history_query *q = rr->q;
	struct db_val v[] = { DB_INT(db_cell_int(rr->runs, rr->run, R_ID, -1)),
			      DB_TEXT(q->n_boards == 1 ? q->boards[0] : NULL) };
	return db_each(db, q->n_boards == 1
		       ? "SELECT board, test, metric, unit, better, median, stddev, n, samples"
			 " FROM history_metric WHERE run = ? AND board = ?"
		       : "SELECT board, test, metric, unit, better, median, stddev, n, samples"
			 " FROM history_metric WHERE run = ?",
		       v, q->n_boards == 1 ? 2 : 1, run_row, rr, err, errlen);
}

/* Runs read per statement at most: the first time q->last (all a series
 * needs when every run has it), then twice as many each time. */
#define HISTORY_CHUNK_RUNS 256

static bool set_done(const struct history_query *q, const struct series_set *set)
{
	return q->n_keys && q->last && set->full == q->n_keys;
}

/* Reads runs newest first until every wanted series is full or the runs
 * are done. */
static int load_runs(struct db *db, const struct history_query *q, struct series_set *set,
		     char *err, size_t errlen)
{
	int64_t offset = 0, limit = q->last ? (int64_t)q->last : 16;
	struct run_read rr = { q, set, NULL, 0, 0 };
	bool more = true;
	int rc = 0;
	while (rc == 0 && more && !set_done(q, set)) {
		struct db_rows *runs = NULL;
		rc = read_runs(db, q, offset, limit, &runs, err, errlen);
		rr.runs = runs;
		for (rr.run = 0; rc == 0 && rr.run < runs->nrows && !set_done(q, set); rr.run++) {
			rr.start_us = db_cell_int(runs, rr.run, R_START, 0);
			rc = read_run(db, &rr, err, errlen);
		}
		more = runs && runs->nrows == limit;
		db_rows_free(runs);
		offset += limit;
		if (limit < HISTORY_CHUNK_RUNS)
			limit *= 2;
	}
	return rc;
}

static int cmp_series(const void *a, const void *b)
{
	const struct history_series *x = a, *y = b;
	int c = nodeset_cmp(x->board, y->board);
	if (!c)
		c = nodeset_cmp(x->test, y->test);
	return c ? c : nodeset_cmp(x->metric, y->metric);
}

/* The points oldest first; series without points (wanted, never found)
 * dropped; sorted by board, test, metric in natural order (b2 before b10). */
static void set_finish(struct series_set *set)
{
	size_t kept = 0;
	for (size_t i = 0; i < set->n; i++) {
		struct history_series *s = &set->s[i];
		if (!s->n) {
			free(s->board);
			free(s->test);
			free(s->metric);
			free(s->unit);
			continue;
		}
		for (size_t a = 0, b = s->n - 1; a < b; a++, b--) {
			struct history_point t = s->points[a];
			s->points[a] = s->points[b];
			s->points[b] = t;
		}
		set->s[kept++] = *s;
	}
	set->n = kept;
	if (kept)
		qsort(set->s, kept, sizeof(*set->s), cmp_series);
}

/* Sets the ack_note of every point that a recorded ack of q's scenario is
 * about. */
static int mark_acks(struct db *db, const struct history_query *q, struct series_set *set,
		     char *err, size_t errlen)
{
	struct history_ack *a = NULL;
	size_t na = 0;
	int rc = history_ack_list(db, q->scenario, &a, &na, err, errlen);
	for (size_t i = 0; rc == 0 && i < set->n; i++) {
		struct history_series *s = &set->s[i];
		for (size_t k = 0; k < na; k++) {
			if (!history_ack_matches(&a[k], s))
				continue;
			for (size_t p = 0; p < s->n; p++)
				if (!s->points[p].ack_note && !strcmp(s->points[p].run_id, a[k].run_id))
					s->points[p].ack_note = xstrdup(a[k].note);
		}
	}
	history_acks_free(a, na);
	return rc;
}

/*
 * Only what is asked leaves the database: one board when q names one, and
 * with q->last and keys only the runs the series need, newest first, one
 * index lookup per run and board, so the CPU and memory of a load do not
 * grow with the nights kept (a window function over the board's whole
 * history read and sorted every night of it; before that every row of the
 * scenario, 135 MiB after 65 nights of 2560 metrics). In one read
 * transaction: every statement sees one state of the history.
 */
int history_load(struct db *db, const struct history_query *q, struct history_series **out,
		 size_t *n, char *err, size_t errlen)
{
	struct series_set set = { 0 };
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < q->n_keys; i++) {
		const struct history_key *k = &q->keys[i];
		if (board_wanted(q, k->board) && metric_wanted(q, k->test, k->metric))
			set_get(&set, k->board, k->test, k->metric, true);
	}
	struct history_query scan = *q;
	scan.n_keys = set.n;   /* wanted and distinct */
	int rc = 0;
	if ((!q->n_keys || set.n) && (rc = db_begin_read(db, err, errlen)) == 0) {
		rc = load_runs(db, &scan, &set, err, errlen);
		if (rc == 0)
			rc = mark_acks(db, q, &set, err, errlen);
		if (rc == 0)
			rc = db_commit(db, err, errlen);
		else
			db_rollback(db);
	}
	set_finish(&set);
	free(set.slot);
	if (rc < 0) {
		history_series_free(set.s, set.n);
		return rc;
	}
	*out = set.s;
	*n = set.n;
	return 0;
}
