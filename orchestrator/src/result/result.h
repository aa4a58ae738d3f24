#ifndef ORCH_RESULT_RESULT_H
#define ORCH_RESULT_RESULT_H
/*
 * The result model: what a run produced, board x test. Executors fill it,
 * the store writes it, reports render it, compare and merge read it back
 * from results.json. It knows nothing of transports or YAML: names and
 * numbers only, all strings owned by the struct that holds them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum result_status { STATUS_PASS = 0, STATUS_FAIL, STATUS_ERROR, STATUS_SKIP };

const char *result_status_name(enum result_status st);     /* "pass", ... */
int result_status_parse(const char *name, enum result_status *st);

/* How a metric moved against the baseline (set by compare when the run has
 * one; METRIC_CHANGE_NONE otherwise). */
enum metric_change {
	METRIC_CHANGE_NONE = 0,   /* no baseline value to compare with */
	METRIC_CHANGE_SAME,
	METRIC_CHANGE_NOISE,      /* changed, but within the runs' noise */
	METRIC_CHANGE_BETTER,
	METRIC_CHANGE_WORSE,      /* worse, but not beyond the threshold */
	METRIC_CHANGE_REGRESSION,
	METRIC_CHANGE_NOT_JUDGED, /* one sample on a side */
};
const char *metric_change_name(enum metric_change c);       /* "better", ...; NULL for NONE */
int metric_change_parse(const char *name, enum metric_change *c);

/*
 * The evidence behind a metric's `change` (docs/results-json.md): what the
 * judge (compare/judge.h) compared the metric with and how, so that every
 * output can say why. Set with change by the baseline's judge (a run or
 * the history). Meaningful only when the metric's change is not
 * METRIC_CHANGE_NONE (a zeroed one is "no verdict"); the judge starts from
 * metric_verdict_init (NAN figures, NULL texts).
 */
struct metric_verdict {
	double baseline;          /* the baseline's value, in this metric's unit: a run's median,
				     the history's level; NAN when none */
	double threshold_pct;     /* the threshold the verdict used; NAN when none */
	double p;                 /* two-sided p-value of the test; NAN when none ran */
	char *method;             /* "welch", "prediction", "threshold", ...; NULL when none */
	char *reason;             /* why not judged ("one sample", "2 earlier runs, needs 3");
				     NULL when judged */
	size_t n_baseline;        /* samples (or earlier runs) on the baseline's side; 0 none */
	/* an acknowledged change (orch history ack) that the baseline starts
	 * after: its run and note; NULL when none */
	char *ack_run;
	char *ack_note;
	/* against the history, the step this run is part of: the run it began
	 * at (its label, else id), its runs so far (this one included),
	 * whether it became the new normal, and its words as every output says
	 * them ("20.0% lower since v5 (4 runs), not acknowledged",
	 * compare/range.h); step_since NULL when none */
	char *step_since;
	size_t step_runs;
	bool step_settled;
	char *step_text;
};

/* Sets v to "no verdict" (NAN figures, NULL texts); does not free. */
void metric_verdict_init(struct metric_verdict *v);
void metric_verdict_release(struct metric_verdict *v);
void metric_verdict_copy(struct metric_verdict *dst, const struct metric_verdict *src);

struct metric_result {
	char *name;               /* "mem.memcpy" */
	char *unit;               /* "MiB/s", "" */
	bool higher_is_better;
	double *samples;          /* one per repeat, in run order */
	size_t n_samples;
	/* statistics over samples, filled by metric_result_summarize() */
	double median;
	double min;
	double max;
	double mean;
	double stddev;            /* sample standard deviation; 0 for one sample */
	enum metric_change change; /* against the baseline, when the run had one */
	double change_pct;        /* (value - baseline) / |baseline| * 100 */
	struct metric_verdict verdict; /* the evidence of change */
	/* the metric's own threshold (`threshold:` in the scenario or a bench
	 * override), in percent, when has_threshold; else the run's */
	bool has_threshold;
	double threshold_pct;
	/* the metric's settle: N (scenario), against the history; 0 none */
	size_t settle;
};

/* Whether a metric is orch's own measurement of how it reached the board
 * (ssh.push, console.push, link.*), not a figure of the board: reports show these apart
 * and compare does not count them among the boards' changes. */
bool metric_is_orch_own(const char *name);

struct phase_result {
	char *name;
	bool reached;
	double offset_s;          /* from the time base to the phase's line */
	double duration_s;        /* from the previous phase (or base) */
	double max_s;             /* budget, 0 when none */
	bool over_budget;
	char *line;               /* the console line that ended the phase */
	bool kernel_clock;        /* its instant is the line's printk stamp on the
				     kernel's clock (placed on orch's), not the
				     line's console arrival */
};

/* A file pushed to the board for the test (a remote-bench binary): the
 * controller's transfer, not a board figure, so kept apart from metrics. */
struct push_record {
	char *file;               /* the file's name on the board ("remote-bench-mem") */
	uint64_t bytes;
	double seconds;           /* wall time of the transfer command */
};

/* Why `repeat: auto` stopped repeating. */
enum repeat_stop {
	REPEAT_STOP_NONE = 0,     /* not an auto test */
	REPEAT_STOP_CONVERGED,    /* every metric's spread within the target (or its floor) */
	REPEAT_STOP_CAP,          /* the cap of runs reached first */
	REPEAT_STOP_FAILED,       /* a run failed or errored */
	REPEAT_STOP_INTERRUPTED,  /* Ctrl-C */
	REPEAT_STOP_NO_METRICS,   /* nothing to measure a spread on */
};

/* What `repeat: auto` did (is_auto false for a fixed repeat). */
struct repeat_outcome {
	bool is_auto;
	bool converged;
	enum repeat_stop stop;
	int max_runs;             /* the cap */
	double target_pct;        /* relative spread (SD / |mean|) that counts as settled */
	double spread_pct;        /* the widest metric's relative spread at the end; NAN if none */
	char *spread_metric;      /* that metric, or NULL */
	bool floored;             /* that metric settled by its absolute floor (near zero) */
};

const char *repeat_stop_name(enum repeat_stop s);   /* "converged", "cap reached", ... */
int repeat_stop_parse(const char *name, enum repeat_stop *s);

/* One try at a test whose infrastructure errors are retried (retry: {
 * infra: N }, --retry-infra): how it ended and why. A test_result keeps
 * every try, the last one included, in infra_attempts (results.json
 * "infra_attempts"); "attempts" stays the count of repeats of the last try. */
struct infra_attempt {
	enum result_status status;
	char *message;            /* the error, or NULL */
	int64_t start_wall_us;
	double duration_s;
	bool power_cycled;        /* the board was power-cycled before this try */
	char *log_dir;            /* its logs, relative to the run folder: "board/test/attempt-1";
				     NULL for the last try (its logs are log_dir's own) */
};

/* A declared metric with no value in a run, and why: "absent" (no line
 * matched its regex), "too fast to measure" (bonnie++'s +++++), "no value
 * printed (-)". Only an absent one that is not optional fails its test. */
struct missing_metric {
	char *name;
	char *reason;
	bool optional;            /* the metric said optional: true */
};

#define MISSING_ABSENT "absent"
#define MISSING_TOO_FAST "too fast to measure"

struct test_result {
	char *board;
	char *test;
	enum result_status status;
	char *message;            /* why it failed / errored, or NULL */
	int exit_code;            /* of the (last) command; -1 when none ran */
	int64_t start_wall_us;    /* wall clock, for timelines and overlap checks */
	int64_t end_wall_us;
	double duration_s;
	int attempts;             /* repeats actually run */
	struct metric_result *metrics;
	size_t n_metrics;
	struct phase_result *phases;
	size_t n_phases;
	char *last_line;          /* boot tests: last console line seen */
	char *console_sched;      /* boot tests: how the console stamps were scheduled
				     (serial_capture_sched), or NULL */
	char *implementation;     /* the code that was measured, as a remote-bench
				     program names it ("remote-bench's own portable C
				     ...; built by GCC 12.2.0 for x86_64, glibc"), or NULL */
	char *log_dir;            /* relative to the run folder: "board/test" */
	struct missing_metric *missing_metrics;  /* declared metrics the output did not give */
	size_t n_missing_metrics;
	char **artifacts;         /* files fetched from the board, relative to log_dir */
	size_t n_artifacts;
	/* what the test's steps left running on a board once they ended, found
	 * and stopped by orch: "1234 sleep", "step 'server': 1240 iperf3", or a
	 * line saying it could not be checked */
	char **leftovers;
	size_t n_leftovers;
	/* what a run that died holding the board left running on it, stopped
	 * (and verified gone) before this test, the board's first of the run,
	 * used it; NULL when nothing was found */
	char *orphans;
	/* baseline comparison, when the run had one */
	bool regressed;
	char *comparison;         /* "mem.memcpy 12.0% slower than baseline", or NULL */
	/* joined runs (orch run --join): which controller ran it, and whether
	 * it ran again after the controller that had it first was lost */
	char *controller;         /* NULL: not a joined run */
	bool retried;
	bool log_cut;             /* a log file reached the test's log_limit and was cut */
	/* output lines longer than the matching cap (execute/output.h, 1 MiB):
	 * no regex saw them, neither whole nor in pieces */
	uint64_t long_lines;
	struct repeat_outcome repeat;
	struct push_record *pushes;
	size_t n_pushes;
	/* retries of infrastructure errors: every try, oldest first (none when
	 * the test allowed no retry); flaky: passed, but only after a retry */
	struct infra_attempt *infra_attempts;
	size_t n_infra_attempts;
	bool flaky;
	/* skipped because its board is offline (board health, orch boards
	 * --offline): counts as an infrastructure error in the exit code */
	bool board_offline;
};

/* "repeat auto: converged after 4 runs (spread 1.2% <= 3.5%)", or "repeat
 * auto: not converged, cap of 10 runs reached (mem.memcpy spread 7.2% >
 * 3.5%)"; NULL for a test that is not auto. Caller frees. */
char *repeat_outcome_describe(const struct test_result *tr);

/* What a board said about itself before its first test (execute/facts.c):
 * kernel, os, cpu, ... and the scenario's own `facts:`, in that order. */
struct fact {
	char *name;
	char *value;
};

struct board_facts {
	char *board;
	struct fact *items;
	size_t n;
};

/* The last runs of one board x test x metric from the history database,
 * oldest first, for the report's trend lines; the current run is marked. */
struct trend_point {
	char *run_id;
	char *label;              /* or NULL */
	double value;             /* the run's median */
	bool current;
};

struct metric_trend {
	char *board;
	char *test;
	char *metric;
	struct trend_point *points;
	size_t n;
};

/* A board found offline by a run (its health check failed, it had
 * offline_after infrastructure errors in a row, or someone set it offline
 * with orch boards --offline). */
struct offline_board {
	char *board;
	char *reason;
	int64_t since_wall_us;    /* when it went offline; 0: unknown */
};
/* What a run's metrics were judged against. */
enum baseline_kind {
	BASELINE_NONE = 0,
	BASELINE_RUN,             /* one earlier run folder (--baseline RUN) */
	BASELINE_HISTORY,         /* the earlier runs in the history database */
};
const char *baseline_kind_name(enum baseline_kind k);   /* "run", "history"; NULL for NONE */
int baseline_kind_parse(const char *name, enum baseline_kind *k);

struct run_result {
	char *scenario;           /* scenario name */
	char *label;              /* --label / scenario label:, or NULL */
	char *run_id;             /* "20261202-165000" */
	char *orch_version;
	char *host;               /* controller hostname */
	int64_t start_wall_us;
	int64_t end_wall_us;
	int exit_code;
	bool interrupted;
	char *baseline;           /* baseline run folder, or NULL */
	char *rerun_of;           /* --rerun RUN_DIR: the run folder rerun, or NULL */
	char *rerun_only;         /* its --only: "failed", "error" or "both" */
	struct offline_board *offline;  /* boards offline during the run (board health) */
	size_t n_offline;
	enum baseline_kind baseline_kind;  /* what the verdicts were judged against */
	char *baseline_name;      /* for people: the baseline run's name (label, else run
				     id), or "last 10 runs"; NULL without a baseline */
	struct test_result *results;
	size_t n_results;
	size_t cap_results;
	struct board_facts *facts;  /* one per board that answered, in the order gathered */
	size_t n_facts;
	struct metric_trend *trends;  /* from the history, when there was one */
	size_t n_trends;
};

/* Appends a zeroed result for board/test (exit_code -1) and returns it;
 * the pointer is valid until the next append. */
struct test_result *run_result_add(struct run_result *run, const char *board, const char *test);
/* Moves src into run (src is zeroed). */
void run_result_take(struct run_result *run, struct test_result *src);
const struct test_result *run_result_find(const struct run_result *run,
					  const char *board, const char *test);
/* The results as people read them: boards, then each board's tests, in
 * natural order (util/nodeset.h: b2 before b10), results of the same board
 * and test in the run's order. results.json keeps the run's order (the
 * finish stage's); printers sort with this. A NULL-ended array of borrowed
 * pointers (run->n_results of them); the caller frees the array. */
const struct test_result **run_result_natural(const struct run_result *run);
void run_result_release(struct run_result *run);

/* Adds a sample to metric name (created with unit/direction if absent). */
struct metric_result *test_result_add_sample(struct test_result *tr, const char *name,
					     const char *unit, bool higher_is_better,
					     double value);
struct metric_result *test_result_find_metric(struct test_result *tr, const char *name);
/* Records a declared metric as missing from this run (once per name; the
 * first reason stays): test_result_add_missing with reason "absent", not
 * optional. */
void test_result_add_missing(struct test_result *tr, const char *name);
void test_result_add_missing_why(struct test_result *tr, const char *name, const char *reason,
				 bool optional);
bool test_result_is_missing(const struct test_result *tr, const char *name);
/* Records a fetched file (path relative to log_dir; once per path). */
void test_result_add_artifact(struct test_result *tr, const char *path);
void test_result_add_leftover(struct test_result *tr, const char *what);
void test_result_set_message(struct test_result *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void test_result_release(struct test_result *tr);
/* Deep copy of src into dst (dst is overwritten, not released; caller
 * releases it with test_result_release). */
void test_result_copy(struct test_result *dst, const struct test_result *src);
/* Forgets what the last try of tr produced (status pass, no message,
 * metrics, phases, artifacts, leftovers, pushes, repeats), keeping its
 * names, log_dir, controller and infra_attempts: before a retry. */
void test_result_clear_outcome(struct test_result *tr);
/* Appends a try to tr->infra_attempts (strings copied). */
void test_result_add_infra_attempt(struct test_result *tr, enum result_status status,
				   const char *message, int64_t start_wall_us, double duration_s,
				   bool power_cycled, const char *log_dir);
/* Records board offline in run (once per board; strings copied). */
void run_result_add_offline(struct run_result *run, const char *board, const char *reason,
			    int64_t since_wall_us);
/* Records a push of bytes in seconds of file to the board. */
void test_result_add_push(struct test_result *tr, const char *file, uint64_t bytes,
			  double seconds);
/* Appends a zeroed phase called name and returns it (valid until the next append). */
struct phase_result *test_result_add_phase(struct test_result *tr, const char *name);
void metric_result_release(struct metric_result *m);
void phase_result_release(struct phase_result *ph);

void metric_result_summarize(struct metric_result *m);
/* Relative standard deviation in percent (stddev / |mean| * 100); 0 if mean is 0. */
double metric_result_rsd_pct(const struct metric_result *m);

/* Sets (or replaces) fact name on bf. */
void board_facts_set(struct board_facts *bf, const char *name, const char *value);
/* The value, or NULL. */
const char *board_facts_get(const struct board_facts *bf, const char *name);
void board_facts_release(struct board_facts *bf);
/* Moves bf into run (bf is zeroed), replacing facts of the same board. */
void run_result_put_facts(struct run_result *run, struct board_facts *bf);
/* The facts of board, or NULL. */
const struct board_facts *run_result_facts(const struct run_result *run, const char *board);
/* The distinct values of fact over the run's boards, in board order,
 * joined by ", " (caller frees), or NULL when no board reported it;
 * *n_distinct (may be NULL) gets how many. */
char *run_result_fact_values(const struct run_result *run, const char *fact, size_t *n_distinct);
/* Appends an empty trend for board/test/metric and returns it (valid until
 * the next append); trend_add_point appends a point to it. */
struct metric_trend *run_result_add_trend(struct run_result *run, const char *board,
					  const char *test, const char *metric);
void metric_trend_add_point(struct metric_trend *t, const char *run_id, const char *label,
			    double value, bool current);
const struct metric_trend *run_result_find_trend(const struct run_result *run, const char *board,
						 const char *test, const char *metric);
/* The run's name for people: its label, else its run_id (never NULL). */
const char *run_result_name(const struct run_result *run);

#endif
