/* The end of a run: order, label, verdicts, exit code, history, folder. */
#include "finish/finish.h"

#include "compare/compare.h"
#include "db/db.h"
#include "history/history.h"
#include "report/report.h"
#include "result/exit_code.h"
#include "result/result_json.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

bool finish_baseline_is_history(const char *spec)
{
	return spec && strcmp(spec, "history") == 0;
}

int finish_load_baseline(const char *runs_dir, const char *scenario, const char *spec,
			 struct run_result *baseline, char **path)
{
	*path = NULL;
	if (!spec || finish_baseline_is_history(spec))
		return 0;
	*path = compare_resolve_baseline(runs_dir, scenario, spec);
	char err[512];
	if (!*path) {
		log_warn("no baseline run found for '%s'; comparing against nothing", spec);
		return 0;
	}
	if (run_result_load(*path, baseline, err, sizeof(err)) < 0) {
		log_error("baseline: %s", err);
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}

/* Results arrive in the order boards finish; people read them board by
 * board in inventory order, tests in scenario order. */
static size_t order_rank(const char *const *names, size_t n, const char *name)
{
	size_t i = 0;
	while (i < n && strcmp(names[i], name))
		i++;
	return i;
}

static size_t result_rank(const struct test_result *tr, const struct finish_options *o)
{
	size_t b = order_rank(o->board_order, o->n_board_order, tr->board);
	size_t t = order_rank(o->test_order, o->n_test_order, tr->test);
	return b * (o->n_test_order + 1) + t;
}

static int compare_results(const void *a, const void *b, void *o)
{
	size_t ra = result_rank(a, o), rb = result_rank(b, o);
	return (ra > rb) - (ra < rb);
}

static void sort_results(struct run_result *run, const struct finish_options *o)
{
	if ((!o->board_order && !o->test_order) || run->n_results < 2)
		return;   /* qsort_r of no results is passed NULL */
	struct finish_options copy = *o;
	qsort_r(run->results, run->n_results, sizeof(*run->results), compare_results, &copy);
}

/* "b1: 6.18.44, b2: 6.1.0": each board's value of fact. Caller frees. */
static char *fact_per_board(const struct run_result *run, const char *fact)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < run->n_facts; i++) {
		const char *v = board_facts_get(&run->facts[i], fact);
		strbuf_printf(&sb, "%s%s: %s", sb.len ? ", " : "", run->facts[i].board,
			      v ? v : "(none)");
	}
	return strbuf_detach(&sb);
}

/* The label text, else the value of its label: { fact: NAME }. A run has
 * one label: boards that differ in the fact are refused one (an error
 * naming each board's value), never given their values joined. */
static char *label_text(const struct finish_options *o, const struct run_result *run)
{
	if (o->label)
		return xstrdup(o->label);
	if (!o->label_fact)
		return NULL;
	size_t n = 0;
	char *v = run_result_fact_values(run, o->label_fact, &n);
	if (!v) {
		log_warn("label: no board reported fact '%s'; the run has no label", o->label_fact);
	} else if (n > 1) {
		char *each = fact_per_board(run, o->label_fact);
		log_error("label: { fact: %s } differs across the boards (%s): a run has one label, "
			  "so this one has none; run the boards apart (-l), or name the run with "
			  "--label", o->label_fact, each);
		free(each);
		free(v);
		v = NULL;
	}
	return v;
}

/* The label, and a rerun named so wherever the run is (summary, report,
 * history). */
static char *run_label(const struct finish_options *o, const struct run_result *run)
{
	char *label = label_text(o, run);
	if (!run->rerun_of)
		return label;
	const char *id = strrchr(run->rerun_of, '/');
	id = id ? id + 1 : run->rerun_of;
	char *l = label ? xasprintf("%s (rerun of %s)", label, id) : xasprintf("rerun of %s", id);
	free(label);
	return l;
}

static void history_judge(const struct finish_options *o, struct run_result *run)
{
	char err[1024];
	struct db *db = NULL;
	char *target = history_target(o->db_url, o->runs_dir);
	struct history_rule rule = { .window = HISTORY_DEFAULT_LAST,
				     .threshold_pct = o->threshold_pct, .settle = o->settle };
	if (history_open(&db, target, err, sizeof(err)) < 0 ||
	    history_judge_run(db, run, &rule, err, sizeof(err)) < 0)
		log_warn("baseline history: %s; nothing was judged", err);
	free(run->baseline);
	run->baseline = xasprintf("history (last %d runs)", HISTORY_DEFAULT_LAST);
	db_close(db);
	free(target);
}

/* Trouble with the history is a warning: the run folder stays the source
 * of truth. */
static void history_record(const struct finish_options *o, struct run_result *run,
			   const char *run_dir)
{
	char err[1024];
	struct db *db = NULL;
	char *target = history_target(o->db_url, o->runs_dir);
	if (history_open(&db, target, err, sizeof(err)) < 0 ||
	    history_index(db, run, run_dir, err, sizeof(err)) < 0 ||
	    history_fill_trends(db, run, run_dir, HISTORY_DEFAULT_LAST, err, sizeof(err)) < 0)
		log_warn("history: the run was not recorded: %s (orch history import %s adds it later)",
			 err, o->runs_dir);
	db_close(db);
	free(target);
}

static int exit_code_of_results(const struct run_result *run)
{
	if (run->interrupted)
		return EXIT_INTERRUPTED;
	bool failed = false, errored = false, ran = false;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (tr->status == STATUS_ERROR || tr->board_offline)
			errored = true;   /* a board offline is the infrastructure's */
		else if (tr->status == STATUS_FAIL || tr->regressed)
			failed = true;
		if (tr->status != STATUS_SKIP)
			ran = true;
	}
	if (errored)
		return EXIT_INFRA;
	if (failed)
		return EXIT_TEST_FAILED;
	return ran ? EXIT_OK : EXIT_NOTHING_RAN;
}

int finish_exit_code(const struct run_result *run, const struct finish_options *o)
{
	int code = exit_code_of_results(run);
	if (!o)
		return code;
	if (o->forced_exit_code >= 0 && !run->interrupted)
		code = o->forced_exit_code;
	if (o->infra_failed && code == EXIT_OK)
		code = EXIT_INFRA;
	if (o->allow_empty && run->n_results == 0 && code == EXIT_NOTHING_RAN)
		code = EXIT_OK;
	return code;
}

void finish_verdicts(struct run_result *run, const struct finish_options *o)
{
	sort_results(run, o);
	if (o->label_run) {
		free(run->label);
		run->label = run_label(o, run);
	}
	if (finish_baseline_is_history(o->baseline_spec))
		history_judge(o, run);
	if (o->baseline) {
		struct judge_rule rule = {
			.threshold_pct = o->threshold_pct,
			.judge_single = o->judge_single,
		};
		compare_apply_baseline(run, o->baseline, &rule);
	}
	run->exit_code = finish_exit_code(run, o);
}

/* A run that would have passed (or run nothing) but whose results were not
 * all written exits EXIT_INFRA. */
static void unstored(struct run_result *run)
{
	if (run->exit_code == EXIT_OK || run->exit_code == EXIT_NOTHING_RAN)
		run->exit_code = EXIT_INFRA;
}

/* --junit PATH: the run folder's junit.xml, there as well (outside the run
 * folder: not the store's). 0, or -1 (logged). */
static int write_junit(const char *path, const struct run_result *run, const char *run_dir)
{
	char err[1024];
	char *xml = report_junit_in(run, run_dir);
	int rc = fs_replace_file(path, xml, strlen(xml), err, sizeof(err));
	if (rc < 0)
		log_error("cannot write --junit %s: %s", path, err);
	free(xml);
	return rc;
}

/* The history indexes a run only once its results.json is whole (a run
 * killed before that is left out; `orch history import` adds a folder that
 * ended later). The trends the index gives are then written into
 * results.json and the reports a second time, each file replaced whole.
 * false if that rewrite failed. */
static bool record_then_rewrite(struct store *st, struct run_result *run,
				const struct finish_options *o)
{
	char err[1024];
	size_t n_trends = run->n_trends;
	history_record(o, run, store_path(st));
	if (run->n_trends == n_trends)
		return true;
	if (finish_write_reports(st, run, err, sizeof(err)) < 0 ||
	    store_write_results(store_path(st), run, err, sizeof(err)) < 0) {
		log_error("cannot write the results with their trends: %s", err);
		unstored(run);
		return false;
	}
	return true;
}

bool finish_run(struct store *st, struct run_result *run, const struct finish_options *o)
{
	char err[1024];
	bool stored = o->stored;
	finish_verdicts(run, o);
	if (stored && store_failed(st))
		stored = false;
	if (!stored)
		unstored(run);
	if (finish_write_reports(st, run, err, sizeof(err)) < 0) {
		log_error("cannot write the reports: %s", err);
		stored = false;
		unstored(run);
	}
	if (store_finish(st, run, err, sizeof(err)) < 0) {
		log_error("cannot write the results: %s", err);
		stored = false;
	}
	if (o->run_json &&
	    store_save_run_json(st, o->run_json(o->run_json_ctx, run), err, sizeof(err)) < 0) {
		log_error("cannot write run.json: %s", err);
		stored = false;
	}
	if (!stored)
		unstored(run);
	if (stored && !run->interrupted && o->record_history)
		stored = record_then_rewrite(st, run, o);
	if (o->junit_path && write_junit(o->junit_path, run, store_path(st)) < 0) {
		stored = false;
		unstored(run);
	}
	if (o->link_latest && store_link_latest(st, err, sizeof(err)) < 0)
		log_warn("%s", err);
	return stored;
}

int finish_invalid_input(const char *junit_path, const char *name, const char *why)
{
	char err[1024];
	char *xml = report_junit_invalid(name, why);
	int rc = fs_replace_file(junit_path, xml, strlen(xml), err, sizeof(err));
	if (rc < 0)
		log_error("--junit %s: %s", junit_path, err);
	free(xml);
	return rc;
}
