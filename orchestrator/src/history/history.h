#ifndef ORCH_HISTORY_HISTORY_H
#define ORCH_HISTORY_HISTORY_H
/*
 * The history: every finished run indexed in a database (db/), so nights
 * can be compared over a window: the run (scenario, run id, label, host,
 * folder), each board's facts, and per board x test x metric the samples
 * and their statistics. SQLite by default, one file beside the runs folder
 * (RUNS_DIR/orch-history.sqlite); PostgreSQL with --db postgresql://... or
 * ORCH_DB, shared by several controllers. The run folder stays the source
 * of truth: indexing a folder again replaces what it gave before, and the
 * whole history can be rebuilt from folders (history_import).
 */
#include <stdbool.h>
#include <stddef.h>

#include "db/db.h"
#include "result/result.h"

#define HISTORY_FILE "orch-history.sqlite"
#define HISTORY_SCHEMA_VERSION 4
#define HISTORY_DEFAULT_LAST 10

/* Where the history is: `target` (--db) if set, else $ORCH_DB, else
 * RUNS_DIR/orch-history.sqlite. Caller frees. */
char *history_target(const char *target, const char *runs_dir);
/* Opens target and brings its schema up to date. 0 or a DB_E* code. */
int history_open(struct db **out, const char *target, char *err, size_t errlen);
/* The same, stopping at schema version `version` (tests of migrations). */
int history_open_at(struct db **out, const char *target, int version, char *err, size_t errlen);

/* Indexes a finished run whose folder is run_dir, in one transaction,
 * replacing an earlier index of the same folder (host + absolute path). */
int history_index(struct db *db, const struct run_result *run, const char *run_dir, char *err,
		  size_t errlen);
/* Indexes every run folder under dir (a runs folder, a scenario's folder
 * or one run folder; `latest` links skipped); with rebuild, first forgets
 * everything. *count gets the runs indexed; a folder that cannot be read
 * is reported to stderr and skipped. */
int history_import(struct db *db, const char *dir, bool rebuild, size_t *count, char *err,
		   size_t errlen);

/* One point of a series: a run's figure for one board x test x metric. */
struct history_point {
	char *run_id;
	char *label;
	char *host;
	char *run_dir;
	long long start_us;
	double value;              /* median */
	double stddev;
	int n;                     /* samples */
};

struct history_series {
	char *board;
	char *test;
	char *metric;
	char *unit;
	bool higher_is_better;
	struct history_point *points;   /* oldest first */
	size_t n;
};

/* One series asked for by name. */
struct history_key {
	const char *board;
	const char *test;
	const char *metric;
};

struct history_query {
	const char *scenario;
	const char **boards;       /* NULL: all */
	size_t n_boards;
	const char *metric;        /* NAME or TEST.NAME; NULL: all */
	size_t last;               /* per series, 0: all */
	const char *before_run_dir;/* only runs indexed before this folder's run (excluded) */
	/* NULL: every series; else only these (within the filters above),
	 * and reading stops as soon as each has `last` points */
	const struct history_key *keys;
	size_t n_keys;
};

/* The series matching q, sorted by board, test, metric (bytewise), each
 * with its last q->last points, oldest first: those of the runs of the
 * scenario ordered by start time, then by the order they were indexed in.
 * Reads in a transaction of its own (not to be called inside one).
 * Returns 0 and *out / *n (caller frees with history_series_free), or a
 * DB_E* code. */
int history_load(struct db *db, const struct history_query *q, struct history_series **out,
		 size_t *n, char *err, size_t errlen);
void history_series_free(struct history_series *s, size_t n);

/* A step in a series: the first point of a lasting change. */
struct history_step {
	size_t at;                 /* index of the first point after the step */
	double before;             /* mean before it */
	double after;              /* mean from it on */
	double change_pct;         /* (after - before) / |before| * 100 */
	bool worse;
};

/* Finds the most significant step in v[0..n) that lasts to the end: the
 * split with the largest t statistic, kept when the change is at least
 * threshold_pct and beyond 3 standard deviations of the points before it
 * (which must number 2 or more). Returns whether one was found. */
bool history_find_step(const double *v, size_t n, bool higher_is_better, double threshold_pct,
		       struct history_step *step);

/* --baseline history: judges every metric of run against the last `window`
 * runs of the same scenario, board and test in db, marking a worse step
 * that reaches the current run as a regression ("since RUN (LABEL)"). */
int history_apply_baseline(struct db *db, struct run_result *run, size_t window,
			   double threshold_pct, char *err, size_t errlen);
/* Fills run->trends with the last `last` runs (the current one included
 * and marked, found by run_dir) of every board x test x metric of run. */
int history_fill_trends(struct db *db, struct run_result *run, const char *run_dir, size_t last,
			char *err, size_t errlen);

#endif
