#ifndef ORCH_FINISH_FINISH_H
#define ORCH_FINISH_FINISH_H
/*
 * finish: the one owner of a run's end. A finished or interrupted run goes
 * through, in this order: results in people's order (boards in inventory
 * order, tests in scenario order) -> its label -> the verdicts against the
 * baseline (a run folder, or the history; both through compare's judge)
 * -> the exit code (result/exit_code.h) -> the history record -> the
 * folder's files (reports, results.json, run.json, the latest link).
 * orch run, orch report, orch merge and joined runs all end here, and
 * only store/ writes into their folders.
 *
 * The stage knows the result model, compare, history, report and store,
 * never the scenario or a board: what it needs of them (the order, the
 * label, run.json's content) the caller passes in struct finish_options.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct store;

/* Whether a --baseline (or scenario baseline:) spec means the history. */
bool finish_baseline_is_history(const char *spec);

/* Loads the baseline run named by spec (a run folder, 'latest', a run id)
 * before the run starts, so that one that cannot be read is a usage error
 * and leaves no empty run folder behind. Returns 0 with *path the folder
 * (caller frees) and *baseline loaded, or 0 with *path NULL when spec is
 * NULL, the history, or names no run (warned); -1 (logged) when the run
 * exists but cannot be read. */
int finish_load_baseline(const char *runs_dir, const char *scenario, const char *spec,
			 struct run_result *baseline, char **path);

struct finish_options {
	/* the order people read results in; NULL arrays: keep the order */
	const char *const *board_order;
	size_t n_board_order;
	const char *const *test_order;
	size_t n_test_order;
	/* label_run: the run gets its label: this text, else the value of
	 * fact label_fact over the run's boards (distinct values joined,
	 * warned), else none; a rerun's says whose ("LABEL (rerun of ID)").
	 * Not set: the run keeps the label it has. */
	bool label_run;
	const char *label;
	const char *label_fact;
	/* verdicts: baseline_spec is the --baseline / baseline: text (the
	 * history when finish_baseline_is_history), baseline the loaded run
	 * (or NULL) from finish_load_baseline, baseline_path its folder */
	const char *baseline_spec;
	const struct run_result *baseline;
	double threshold_pct;
	bool judge_single;
	size_t settle;             /* --settle N against the history; 0: the default rule */
	/* the history database (--db URL, else RUNS_DIR/orch-history.sqlite) */
	const char *db_url;
	const char *runs_dir;
	bool record_history;       /* index the run (never when interrupted) */
	/* the exit code: another controller's code for the whole joined run
	 * (-1: none), and an infrastructure failure the results do not show */
	int forced_exit_code;
	bool infra_failed;
	bool allow_empty;          /* an empty plan (no result at all) exits 0, not 4 */
	/* the folder: results stored so far without error, the latest link,
	 * run.json's content (NULL: not written) */
	bool stored;
	bool link_latest;
	json_t *(*run_json)(void *ctx, const struct run_result *run);
	void *run_json_ctx;
	/* --junit PATH: junit.xml written there as well (NULL: not) */
	const char *junit_path;
};

/*
 * The run's exit code (result/exit_code.h), the one place it is decided.
 * From the results: EXIT_INTERRUPTED when interrupted; else EXIT_INFRA if
 * any result errored or its board was offline, whatever the others did;
 * else EXIT_TEST_FAILED if any failed or regressed; else EXIT_NOTHING_RAN
 * when none ran (none, or every one skipped); else EXIT_OK. Then what o
 * knows that the results do not show (NULL: nothing): another
 * controller's code (never over an interruption), an infrastructure
 * failure (turns a 0 into 3), --allow-empty (an empty plan is 0).
 */
int finish_exit_code(const struct run_result *run, const struct finish_options *o);

/* The run's end, up to and with the exit code, into run: order, label,
 * verdicts, run->exit_code. run->interrupted and run->end_wall_us are the
 * caller's (set before). */
void finish_verdicts(struct run_result *run, const struct finish_options *o);

/* The whole end: finish_verdicts, the history record (o->record_history
 * and not interrupted), then the folder's files in st (each tried whatever
 * became of the others). A run that would exit 0 or 4 but whose results
 * could not all be written exits EXIT_INFRA (a failure's 1 and 130 stay:
 * a failure is never hidden), and run->exit_code says so in every file
 * still written after the failure. Returns whether all of the results
 * were written; the latest link is only warned about. */
bool finish_run(struct store *st, struct run_result *run, const struct finish_options *o);

/* summary.txt, junit.xml and report.html of run, rendered by report/ and
 * written into st's folder by store/, each tried whatever became of the
 * others. 0, or -1 + the first error. */
int finish_write_reports(struct store *st, const struct run_result *run, char *err,
			 size_t errlen);

/* The order a run folder's run.json gives (its config: boards in inventory
 * order, tests in scenario order), for a run read back (a merge, a run
 * rebuilt from its journal): finish_order_apply sets it in o when there is
 * one. The names belong to ord until finish_order_release. */
struct finish_order {
	const char **boards;
	size_t n_boards;
	const char **tests;
	size_t n_tests;
	json_t *json;
};
void finish_order_load(const char *run_dir, struct finish_order *ord);
void finish_order_apply(const struct finish_order *ord, struct finish_options *o);
void finish_order_release(struct finish_order *ord);

/* orch merge: the shard run folders shard_dirs[0..n_shards) (orch run
 * --shard K/N) joined into the new run folder out_dir through the same end
 * as a run (compare/merge.h says what is merged): in the order of the first
 * shard's run.json, verdicts as the shards judged them, the exit code from
 * the results (3 when a shard's was), the folder's files. Refused before
 * anything is written: out_dir exists, a shard cannot be read or does not
 * fit the others; a folder that cannot be copied in is removed again.
 * 0 with the merged run in *merged (its exit_code the run's; caller
 * releases), or -1 + err and *merged empty. */
int finish_merge(const char *out_dir, char *const *shard_dirs, size_t n_shards,
		 struct run_result *merged, char *err, size_t errlen);

/* Input refused before anything ran (exit 2) with --junit PATH: PATH gets a
 * JUnit file with one errored test case whose message is why (the first
 * error's "FILE:LINE:COL: MESSAGE"). 0, or -1 (logged). */
int finish_invalid_input(const char *junit_path, const char *name, const char *why);

#endif
