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

#include "compare/judge.h"
#include "db/db.h"
#include "result/result.h"

#define HISTORY_FILE "orch-history.sqlite"
#define HISTORY_SCHEMA_VERSION 5
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
	char *unit;                /* this run's unit ("" none) */
	double *samples;           /* n_samples >= 1 (the median alone for rows without samples) */
	size_t n_samples;
	char *ack_note;            /* an acknowledged change at this run (orch history ack), or NULL */
};

struct history_series {
	char *board;
	char *test;
	char *metric;
	char *unit;
	bool higher_is_better;
	struct history_point *points;   /* oldest first */
	size_t n;
	/* points before this one were read only for the judge's walk (a step
	 * that began earlier than the runs shown); outputs show the rest */
	size_t shown_from;
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

/* The series matching q, sorted by board, test, metric (natural order:
 * nodeset_cmp, b2 before b10), each
 * with its last q->last points, oldest first: those of the runs of the
 * scenario ordered by start time, then by the order they were indexed in,
 * a point's ack_note set when its run is an acknowledged change of its
 * series.
 * Reads in a transaction of its own (not to be called inside one).
 * Returns 0 and *out / *n (caller frees with history_series_free), or a
 * DB_E* code. */
int history_load(struct db *db, const struct history_query *q, struct history_series **out,
		 size_t *n, char *err, size_t errlen);
void history_series_free(struct history_series *s, size_t n);

/*
 * The history's decision rule (docs/compare.md, "Against the history"):
 * the one judge (compare/judge.h) with the samples of the earlier runs at
 * the current level as side A and a run's samples as side B, each earlier
 * run converted into the judged run's unit first. Walking a series oldest
 * first:
 *   - a run is judged against the last `window` earlier runs of its level
 *     (fewer than min_runs of them: "not judged", "2 earlier runs, needs 3");
 *   - a run that differs beyond the threshold and significantly (a
 *     regression, or better beyond the threshold) starts a step; the step
 *     is reported at that run and at each following run that differs the
 *     same way from the level before it;
 *   - a step for the worse (a regression) never becomes the new normal by
 *     itself: every later run that differs the same way is judged against
 *     the level before it, until an acknowledged change (orch history ack)
 *     accepts it or a run comes back; a step for the better is the new
 *     normal once HISTORY_SETTLE_RUNS runs in a row have it (its first
 *     included); rule.settle N (a metric's `settle: N`, --settle N) makes
 *     either way the new normal after N runs: the level starts at the
 *     step's first run;
 *   - a run that does not differ ends a step that had not settled (one bad
 *     night is not a new level); the step's runs stay out of every later
 *     window;
 *   - an acknowledged change (orch history ack) starts a level at its run
 *     at once; a run whose unit does not convert from the one before starts
 *     one too.
 */
#define HISTORY_MIN_RUNS 3
#define HISTORY_SETTLE_RUNS 3

struct history_rule {
	size_t window;             /* earlier runs of the level judged against; 0: HISTORY_DEFAULT_LAST */
	size_t min_runs;           /* 0: HISTORY_MIN_RUNS */
	/* 0: a step for the worse never settles by itself, one for the better
	 * after HISTORY_SETTLE_RUNS; N: either way after N runs */
	size_t settle;
	double threshold_pct;
	double alpha;              /* <= 0: the judge's default */
};

/* A run's verdict against the history. */
struct history_verdict {
	struct judgement j;        /* outcome NOT_JUDGED when below the data needed */
	size_t n_runs;             /* earlier runs judged against */
	size_t base_from;          /* their points [base_from, base_from + n_runs) */
	bool step;                 /* part of a step (this run differs from the level before) */
	size_t step_at;            /* with step: the point the step begins at (n: this run) */
	size_t step_run;           /* with step: 1 at its first run, 2 at the next, ... */
	bool settled;              /* with step: it is the new normal from this run on */
	size_t level_at;           /* the point the level judged against starts at */
	bool level_acked;          /* that level starts at an acknowledged change */
	char reason[64];           /* why not judged, "" when judged */
};

/*
 * Judges samples b[0..nb) in `unit` (the run's) against series s (earlier
 * runs, oldest first) by the rule above; the points with an ack_note are
 * acknowledged changes. Fills *out; returns 0, or -1 when b holds nothing
 * to judge.
 */
int history_judge_samples(const struct history_series *s, const double *b, size_t nb,
			  const char *unit, bool higher_is_better, const struct history_rule *rule,
			  struct history_verdict *out);
/* Every point of s judged as it was when it ran (each against the points
 * before it, with today's acknowledged changes): out[0..s->n), the same
 * verdicts history_judge_samples gives, in one walk. An acknowledged point
 * and a point whose unit breaks the series start a level and are not
 * judged (their reason says which). */
void history_judge_series(const struct history_series *s, const struct history_rule *rule,
			  struct history_verdict *out);

/* What a series shows in every format (orch history, its page): its runs'
 * verdicts, its most recent step (the run it starts at, that run's
 * verdict, whether it settled) and its most recent acknowledged change. */
struct history_marks {
	struct history_verdict *v;     /* one per point */
	size_t step_at;                /* SIZE_MAX: no step */
	const struct history_verdict *step;
	bool settled;
	size_t ack_at;                 /* SIZE_MAX: none */
	/* the last run's step in the words its run's outputs say
	 * (history_step_words), NULL when it is no step */
	char *words;
};
/* The judge's options orch history walks with (--threshold, --settle). */
struct history_walk_opts {
	double threshold;
	size_t settle;
};
/* Judges s with w (history_judge_series) into m; m->v and m->words are
 * m's own, freed by history_marks_release. */
void history_marks_of(const struct history_series *s, const struct history_walk_opts *w,
		      struct history_marks *m);
void history_marks_release(struct history_marks *m);

/*
 * Acknowledged changes (orch history ack): a run at which a metric's step
 * is accepted, so the runs after it are judged against the level that
 * starts there. Kept in the history database apart from the runs (an
 * import --rebuild keeps them), keyed by scenario, board ("" every board),
 * test ("" every test with that metric) and metric, at a run id.
 */
struct history_ack {
	char *scenario;
	char *board;               /* "" every board */
	char *test;                /* "" every test */
	char *metric;
	char *run_id;
	char *note;
	char *who;                 /* user@host that recorded it */
	long long created_us;
};
/* Records a (a later one with the same key replaces its note). 0 or DB_E*. */
int history_ack_add(struct db *db, const struct history_ack *a, char *err, size_t errlen);
/* Removes the acks with a's key; *removed gets how many. 0 or DB_E*. */
int history_ack_delete(struct db *db, const struct history_ack *a, size_t *removed, char *err,
		       size_t errlen);
/* Every ack of scenario (NULL: of every scenario), by scenario, metric,
 * board and run; *out freed with history_acks_free. 0 or DB_E*. */
int history_ack_list(struct db *db, const char *scenario, struct history_ack **out, size_t *n,
		     char *err, size_t errlen);
void history_acks_free(struct history_ack *a, size_t n);
/* Names in the history, for checking what a user typed: the scenarios
 * (scenario unused), or one scenario's boards, tests, metric names,
 * "TEST.METRIC" pairs, run ids or run labels. *out is a NULL-terminated
 * array (history_names_free). 0 or DB_E*. */
enum history_names_of {
	HISTORY_SCENARIOS, HISTORY_BOARDS, HISTORY_TESTS, HISTORY_METRICS, HISTORY_TEST_METRICS,
	HISTORY_RUN_IDS, HISTORY_LABELS,
};
int history_names(struct db *db, const char *scenario, enum history_names_of what, char ***out,
		  char *err, size_t errlen);
void history_names_free(char **names);
/* The run id of the one run of scenario labelled label: 0 and *run_id
 * (caller frees), DB_EUSAGE when no run or several have it, or DB_E*. */
int history_run_of_label(struct db *db, const char *scenario, const char *label, char **run_id,
			 char *err, size_t errlen);
/* Whether ack a is about series s. */
bool history_ack_matches(const struct history_ack *a, const struct history_series *s);

/*
 * --baseline history: judges every metric of run (pass and fail results)
 * against its series in db by the rule above, with each metric's own
 * threshold when it has one: sets the metric's change, change_pct and
 * verdict evidence, marks a regression (regressed, a pass becomes fail)
 * with its words in comparison, and names the metrics not judged with
 * their reason. Sets run's baseline kind and name. 0 or a DB_E* code.
 */
int history_judge_run(struct db *db, struct run_result *run, const struct history_rule *rule,
		      char *err, size_t errlen);
/* The runs of a series read to walk it (history_judge_run and orch history
 * alike): the window, a step that may last long (a regression waits for an
 * ack) and the level before it. A step older than this is not seen. */
size_t history_walk_points(const struct history_rule *rule);
/* The words of verdict v of point `at` of s as the run's outputs say them
 * (its step: "20.0% lower since v5 (4 runs), not acknowledged"), or NULL
 * when it is no step. Caller frees. */
char *history_step_words(const struct history_series *s, size_t at,
			 const struct history_verdict *v);
/* The same with window and threshold only (the other members default). */
int history_apply_baseline(struct db *db, struct run_result *run, size_t window,
			   double threshold_pct, char *err, size_t errlen);
/* Fills run->trends with the last `last` runs (the current one included
 * and marked, found by run_dir) of every board x test x metric of run. */
int history_fill_trends(struct db *db, struct run_result *run, const char *run_dir, size_t last,
			char *err, size_t errlen);

#endif
