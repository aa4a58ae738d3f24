/* orch run: the main job. Load, plan, schedule, store, report, exit code. */
#include "cli/cli.h"
#include "cli/common.h"
#include "health/health.h"
#include "cli/run.h"
#include "compare/compare.h"
#include "config/config.h"
#include "config/settings.h"
#include "coord/db.h"
#include "coord/run_locks.h"
#include "coord/join.h"
#include "finish/finish.h"
#include "plan/plan.h"
#include "report/report.h"
#include "schedule/rerun.h"
#include "schedule/schedule.h"
#include "store/store.h"
#include "ui/progress.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "version.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void warn_insecure(const struct plan *p)
{
	for (size_t i = 0; i < p->n_boards; i++) {
		const struct board *b = p->boards[i].board;
		if (b->transport == TRANSPORT_KIND_SSH && b->ssh.host_key == HOST_KEY_OFF)
			log_warn("%s: host key checking is off (host_key: off); anyone on the path "
				 "can impersonate this board", b->name);
	}
}

/* The scheduler's hooks, with the progress display as their context; set
 * only when there is a display (not with --quiet). */
static void on_started(void *ctx, const struct plan_item *item)
{
	progress_started(ctx, item->board->name, item->test->name);
}

static void on_finished(void *ctx, const struct plan_item *item, const struct test_result *tr)
{
	(void)item;
	progress_finished(ctx, tr);
}

static void on_tick(void *ctx)
{
	progress_tick(ctx);
}

static json_t *make_run_json(const struct run_options *o, const struct scenario *sc,
			     const struct inventory *inv, const struct run_result *run)
{
	json_t *j = json_object();
	char ts[40];
	json_object_set_new(j, "orch_version", json_string(ORCH_VERSION));
	json_object_set_new(j, "host", json_string(run->host));
	json_object_set_new(j, "run_id", json_string(run->run_id));
	if (run->label)
		json_object_set_new(j, "label", json_string(run->label));
	clock_format_iso8601(run->start_wall_us, ts, sizeof(ts));
	json_object_set_new(j, "start", json_string(ts));
	if (run->end_wall_us) {
		clock_format_iso8601(run->end_wall_us, ts, sizeof(ts));
		json_object_set_new(j, "end", json_string(ts));
		json_object_set_new(j, "exit_code", json_integer(run->exit_code));
		json_object_set_new(j, "interrupted", json_boolean(run->interrupted));
	}
	json_t *opts = json_object();
	json_object_set_new(opts, "scenario_file", json_string(o->scenario));
	json_t *limits = json_array();
	for (size_t i = 0; i < o->n_limits; i++)
		json_array_append_new(limits, json_string(o->limits[i]));
	json_object_set_new(opts, "limits", limits);
	json_t *tests = json_array();
	for (size_t i = 0; i < o->n_tests; i++)
		json_array_append_new(tests, json_string(o->tests[i]));
	json_object_set_new(opts, "tests", tests);
	json_object_set_new(opts, "jobs", json_integer(o->jobs));
	if (o->repeat)
		json_object_set_new(opts, "repeat", json_integer(o->repeat));
	if (o->retry_infra >= 0)
		json_object_set_new(opts, "retry_infra", json_integer(o->retry_infra));
	if (o->shard_n)
		json_object_set_new(opts, "shard", json_sprintf("%d/%d", o->shard_k, o->shard_n));
	if (run->baseline)
		json_object_set_new(opts, "baseline", json_string(run->baseline));
	if (run->rerun_of) {
		json_object_set_new(opts, "rerun", json_string(run->rerun_of));
		json_object_set_new(opts, "only", json_string(run->rerun_only));
	}
	if (o->max_fail)
		json_object_set_new(opts, "max_fail", json_integer(o->max_fail));
	if (o->join) {
		json_object_set_new(opts, "join", json_string(o->join));
		json_object_set_new(opts, "controller", json_string(o->controller));
	}
	json_object_set_new(j, "options", opts);
	json_object_set_new(j, "config", config_to_json(sc, inv, NULL));
	return j;
}

struct run_json_ctx {
	const struct run_options *o;
	const struct scenario *sc;
	const struct inventory *inv;
};

static json_t *run_json_of(void *ctx, const struct run_result *run)
{
	const struct run_json_ctx *c = ctx;
	return make_run_json(c->o, c->sc, c->inv, run);
}

/* The names the finish stage orders results by: boards in inventory order,
 * tests in scenario order (borrowed; the arrays are the caller's to free). */
struct run_order {
	const char **boards;
	const char **tests;
};

static struct run_order run_order_of(const struct scenario *sc, const struct inventory *inv)
{
	struct run_order r = { xcalloc(inv->n_boards + 1, sizeof(char *)),
			       xcalloc(sc->n_tests + 1, sizeof(char *)) };
	for (size_t i = 0; i < inv->n_boards; i++)
		r.boards[i] = inv->boards[i].name;
	for (size_t i = 0; i < sc->n_tests; i++)
		r.tests[i] = sc->tests[i].name;
	return r;
}

static void apply_repeat_override(struct scenario *sc, int repeat, int retry_infra)
{
	for (size_t i = 0; repeat && i < sc->n_tests; i++) {
		sc->tests[i].repeat = repeat;
		sc->tests[i].repeat_auto = false;
	}
	for (size_t i = 0; retry_infra >= 0 && i < sc->n_tests; i++)
		sc->tests[i].retry_infra = retry_infra;
}

/* --rerun RUN_DIR: the plan cut down to the pairs that failed there
 * (schedule/rerun.h); the run says whose rerun it is. -1 (logged) when
 * the folder cannot be read. */
static int rerun_plan(const struct run_options *o, const struct scenario *sc, struct plan *plan,
		      struct run_result *run)
{
	enum rerun_only only = RERUN_BOTH;
	if (o->only)
		rerun_only_parse(o->only, &only);
	char *path = compare_resolve_baseline(o->runs_dir, sc->name, o->rerun);
	char err[1024];
	struct rerun_set set;
	if (!path) {
		log_error("--rerun: no run folder '%s'", o->rerun);
		return -1;
	}
	if (rerun_load(path, only, &set, err, sizeof(err)) < 0) {
		log_error("--rerun: %s", err);
		free(path);
		return -1;
	}
	size_t missing = 0;
	rerun_filter_plan(plan, &set, &missing);
	if (missing)
		log_warn("--rerun: %zu of the %zu pair%s to rerun from %s are not in this plan "
			 "(a board or test removed, or left out by -l/-t)", missing, set.n,
			 set.n == 1 ? "" : "s", path);
	log_info("rerun of %s: %zu of its %zu test run%s (%s)", path, plan->n_items,
		 set.n_results, set.n_results == 1 ? "" : "s", rerun_only_name(only));
	char *real = realpath(path, NULL);
	run->rerun_of = real ? real : xstrdup(path);
	run->rerun_only = xstrdup(rerun_only_name(only));
	rerun_set_release(&set);
	free(path);
	return 0;
}

/* --format json: results.json's content on stdout, streamed result by
 * result. -1 (and a message) when stdout did not take it all. */
static int print_json(const struct run_result *run)
{
	char err[512];
	if (store_print_results(stdout, run, err, sizeof(err)) == 0)
		return 0;
	log_error("cannot write --format json to stdout: %s", err);
	return -1;
}

/* Joins the shared run: EXIT_OK, EXIT_USAGE (another plan, a controller
 * name in use) or EXIT_INFRA. */
static int open_join(struct run_options *o, struct coord_db *db, const struct plan *plan,
		     const char *scenario, struct store *st, struct join **out)
{
	static char host[256];
	bool name_given = o->controller != NULL;
	if (!o->controller) {
		if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
			snprintf(host, sizeof(host), "controller");
		o->controller = host;
	}
	char *folder = realpath(store_path(st), NULL);
	struct join_options jo = { o->join, o->controller, name_given,
				   folder ? folder : store_path(st), o->join_wait_ms };
	char err[1024];
	int r = join_open(db, plan, scenario, &jo, out, err, sizeof(err));
	free(folder);
	if (r < 0) {
		fprintf(stderr, "orch run: %s\n", err);
		return r == JOIN_EUSAGE ? EXIT_USAGE : EXIT_INFRA;
	}
	o->controller = join_controller_name(*out);
	return EXIT_OK;
}

/* Schedule rounds until the joined run needs nothing more of this
 * controller: *state says how it ended. 0, or -1 when results could not be
 * stored (err). */
static int schedule_joined(struct join *j, const struct plan *plan, struct store *st,
			   struct run_result *run, const struct schedule_options *sopts,
			   enum join_state *state, int *code, char *err, size_t errlen)
{
	for (;;) {
		if (schedule_run(plan, st, run, sopts, err, errlen) < 0)
			return -1;
		*state = join_wait(j, code, err, errlen);
		if (*state != JOIN_MORE)
			return 0;
	}
}

/* The merger's folder becomes the whole run's: every result from the
 * database, the others' logs written in. 0, or -1 (logged). */
static int merge_joined(struct join *j, struct store *st, struct run_result *run)
{
	for (size_t i = 0; i < run->n_results; i++)
		test_result_release(&run->results[i]);
	run->n_results = 0;
	char err[1024];
	if (join_collect(j, st, run, err, sizeof(err)) < 0) {
		log_error("merging the joined run: %s", err);
		return -1;
	}
	return 0;
}

static void report_joined(struct join *j, enum join_state state, struct store *st, int code)
{
	char err[512];
	char *who = join_controllers(j);
	if (state == JOIN_MERGE) {
		char *folder = realpath(store_path(st), NULL);
		if (join_publish(j, code, folder ? folder : store_path(st), err, sizeof(err)) < 0)
			log_error("join: %s", err);
		fprintf(stderr, "joined run: this controller merged the results of %s into %s\n",
			who, store_path(st));
		free(folder);
	} else if (state == JOIN_DONE) {
		char *merged = join_merged_folder(j);
		fprintf(stderr, "joined run: merged folder %s (controllers %s); exit code %d\n",
			merged ? merged : "?", who, code);
		free(merged);
	}
	free(who);
}

/* Everything one orch run holds, released together by run_release. */
struct run_ctx {
	struct run_options o;
	struct scenario *sc;
	struct inventory *inv;
	struct plan *plan;
	struct store *st;
	struct run_result run, baseline;
	struct progress *progress;
	struct coord_db *db;
	struct run_locks *locks;
	struct join *join;
	struct health_state health;
	char *bench_dir, *inv_dir, *baseline_path;
	struct schedule_options sopts;
	bool stored;                   /* every result stored so far */
	enum join_state jstate;
	int join_code;
	bool join_failed;
	char why[1200];                /* the first input error, for --junit */
};

/* Options, scenario, plan, baseline: EXIT_OK to go on and run, else the
 * exit code (-1 in *done: --list, --dry-run or --help did all there was). */
static int run_prepare(struct run_ctx *c, int argc, char **argv, bool *done)
{
	char err[1024];
	*done = true;
	int ret = run_parse_options(argc, argv, &c->o);
	if (ret != 0)
		return ret < 0 ? EXIT_OK : EXIT_USAGE;   /* -1: --help was printed */
	struct load_request rq = { .scenario = c->o.scenario, .inventory = c->o.inventory,
				   .extra_vars = c->o.extra_vars, .n_extra_vars = c->o.n_extra_vars };
	ret = cmd_load(&rq, &c->sc, &c->inv, c->why, sizeof(c->why));
	if (ret != EXIT_OK)
		return ret;
	apply_repeat_override(c->sc, c->o.repeat, c->o.retry_infra);
	struct plan_options popts = { c->o.limits, c->o.n_limits, c->o.shard_k, c->o.shard_n,
				      c->o.tests, c->o.n_tests };
	if (plan_build(c->sc, c->inv, &popts, &c->plan, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch run: %s\n", err);
		snprintf(c->why, sizeof(c->why), "%s: %s", c->o.scenario, err);
		return EXIT_USAGE;
	}
	if (c->o.rerun && rerun_plan(&c->o, c->sc, c->plan, &c->run) < 0)
		return EXIT_USAGE;
	if (c->o.list) {
		plan_print_list(c->plan, stdout);
		return EXIT_OK;
	}
	if (c->o.dry_run) {
		plan_print(c->plan, stdout);
		if (log_verbose())
			cmd_print_resolved(c->sc, c->plan, stdout);
		return cmd_check_before_run(c->sc, c->plan, c->o.bench_dir) < 0 ? EXIT_USAGE : EXIT_OK;
	}
	if (finish_load_baseline(c->o.runs_dir, c->sc->name,
				 c->o.baseline ? c->o.baseline : c->sc->baseline, &c->baseline,
				 &c->baseline_path) < 0)
		return EXIT_USAGE;
	*done = false;
	return EXIT_OK;
}

/* The run folder, run.json, the join and the progress display. EXIT_OK or
 * the exit code. */
static int run_open(struct run_ctx *c)
{
	char err[1024];
	warn_insecure(c->plan);
	interrupt_install();
	if (c->o.db_url && !(c->db = coord_db_open(c->o.db_url, err, sizeof(err)))) {
		log_error("%s", err);
		return EXIT_INFRA;
	}
	char host[256] = "unknown";
	gethostname(host, sizeof(host) - 1);
	c->run.scenario = xstrdup(c->sc->name);
	c->run.orch_version = xstrdup(ORCH_VERSION);
	c->run.host = xstrdup(host);
	c->run.start_wall_us = clock_wall_us();
	c->st = store_create(c->o.runs_dir, c->sc->name, &c->run, err, sizeof(err));
	if (!c->st) {
		log_error("%s", err);
		return EXIT_INFRA;
	}
	c->run.baseline = xstrdup(c->baseline_path);
	if (store_save_run_json(c->st, make_run_json(&c->o, c->sc, c->inv, &c->run), err,
				sizeof(err)) < 0)
		log_warn("%s", err);
	if (c->o.join) {
		int ret = open_join(&c->o, c->db, c->plan, c->sc->name, c->st, &c->join);
		if (ret != EXIT_OK)
			return ret;
	}
	const struct plan *p = c->plan;
	if (!c->o.quiet && c->join) {
		log_info("run %s: joined '%s' as controller %s: %zu board%s, %zu test run%s shared; "
			 "this controller's part -> %s", c->sc->name, c->o.join,
			 join_controller_name(c->join), p->n_boards, p->n_boards == 1 ? "" : "s",
			 p->n_items, p->n_items == 1 ? "" : "s", store_path(c->st));
	} else if (!c->o.quiet) {
		log_info("run %s: %zu board%s, %zu test run%s -> %s", c->sc->name, p->n_boards,
			 p->n_boards == 1 ? "" : "s", p->n_items, p->n_items == 1 ? "" : "s",
			 store_path(c->st));
		c->progress = progress_new(stderr, log_term_live(STDERR_FILENO), log_use_color(),
					   log_verbose());
		for (size_t i = 0; i < p->n_boards; i++)
			for (size_t k = 0; k < p->boards[i].n_items; k++)
				progress_add_item(c->progress, p->boards[i].board->name,
						  p->boards[i].items[k].test->name);
	}
	return EXIT_OK;
}

/* The scheduler's options, the board health and the run's locks. EXIT_OK
 * or EXIT_INFRA. */
static int run_setup_schedule(struct run_ctx *c)
{
	char err[1024];
	c->bench_dir = settings_bench_dir(c->o.bench_dir);
	c->inv_dir = fs_dirname(c->inv->path);
	c->sopts = (struct schedule_options){
		.jobs = c->o.jobs ? c->o.jobs : c->join ? JOIN_DEFAULT_JOBS : 0,
		.bench_dir = c->bench_dir,
		.inventory_dir = c->inv_dir,
		.inventory = c->inv,
		.gather_facts = true,
		.facts = c->sc->facts,
		.n_facts = c->sc->n_facts,
		.max_fail = c->o.max_fail,
	};
	if (c->progress)
		c->sopts.hooks = (struct schedule_hooks){ on_started, on_finished, on_tick,
							  c->progress };
	if (health_state_open(&c->health, c->o.db_url, err, sizeof(err)) < 0)
		log_warn("board health: %s; offline boards are not seen", err);
	health_state_hooks(&c->health, &c->sopts.health);
	char *note = xasprintf("orch run %s -> %s", c->sc->name, store_path(c->st));
	/* joined controllers take turns on a shared role board (a server) */
	int64_t wait = c->o.wait_ms;
	int64_t role_wait = c->join && wait < JOIN_ROLE_WAIT_MS ? JOIN_ROLE_WAIT_MS : wait;
	c->locks = run_locks_new(note, wait, role_wait, c->db, err, sizeof(err));
	free(note);
	if (!c->locks) {
		log_error("%s", err);
		return EXIT_INFRA;
	}
	return EXIT_OK;
}

/* Runs the plan (every round of a joined run); the merger then takes in
 * every controller's results. */
static void run_schedule(struct run_ctx *c)
{
	char err[1024];
	c->stored = store_start(c->st, &c->run, err, sizeof(err)) == 0;
	if (!c->stored)
		log_error("%s", err);
	c->jstate = JOIN_DONE;
	c->join_code = -1;
	int scheduled;
	if (c->join) {
		join_schedule_claims(c->join, c->locks, &c->sopts.claims);
		scheduled = schedule_joined(c->join, c->plan, c->st, &c->run, &c->sopts, &c->jstate,
					    &c->join_code, err, sizeof(err));
	} else {
		run_locks_schedule_claims(c->locks, &c->sopts.claims);
		scheduled = schedule_run(c->plan, c->st, &c->run, &c->sopts, err, sizeof(err));
	}
	if (scheduled < 0 && c->stored) {
		log_error("storing results: %s", err);
		c->stored = false;
	}
	progress_free(c->progress);
	c->progress = NULL;
	c->join_failed = c->join && c->jstate == JOIN_FAILED;
	if (c->join_failed)
		log_error("join %s: %s", c->o.join, err);
	if (c->join && c->jstate == JOIN_MERGE && merge_joined(c->join, c->st, &c->run) < 0)
		c->join_failed = true;
}

/* The finish stage (finish/finish.h), then what people read at the end.
 * Returns the run's exit code. */
static int run_finish(struct run_ctx *c)
{
	struct run_result *run = &c->run;
	run->interrupted = interrupt_requested();
	run->end_wall_us = clock_wall_us();
	/* a database that stopped answering (or went away) took the run's
	 * board locks with it: an infrastructure error whatever the tests did */
	const char *db_gone = coord_db_lost(c->db);
	if (db_gone && !run->interrupted)
		log_error("database: %s; this run's board locks there ended with its session", db_gone);
	bool merger = !c->join || c->jstate == JOIN_MERGE;
	struct run_json_ctx rj = { &c->o, c->sc, c->inv };
	struct run_order order = run_order_of(c->sc, c->inv);
	struct finish_options fo = {
		.board_order = order.boards,
		.n_board_order = c->inv->n_boards,
		.test_order = order.tests,
		.n_test_order = c->sc->n_tests,
		.label_run = true,
		.label = c->o.label ? c->o.label : c->sc->label,
		.label_fact = c->sc->label_fact,
		.baseline_spec = c->o.baseline ? c->o.baseline : c->sc->baseline,
		.baseline = c->baseline_path ? &c->baseline : NULL,
		.threshold_pct = c->o.has_threshold ? c->o.threshold : c->sc->threshold_pct,
		.judge_single = c->o.judge_single,
		.settle = (size_t)c->o.settle,
		.db_url = c->o.db_url,
		.runs_dir = c->o.runs_dir,
		.record_history = !c->o.no_history && merger,
		.forced_exit_code = c->join && c->jstate == JOIN_DONE ? c->join_code : -1,
		.infra_failed = c->join_failed || (db_gone && !run->interrupted),
		.allow_empty = c->o.allow_empty,
		.stored = c->stored,
		/* a joined controller's folder is its part: latest is the merged one */
		.link_latest = merger,
		.run_json = run_json_of,
		.run_json_ctx = &rj,
		.junit_path = c->o.junit,
	};
	bool stored = finish_run(c->st, run, &fo);
	free(order.boards);
	free(order.tests);
	int ret = run->exit_code;
	char *summary = report_summary_in(run, store_path(c->st), log_use_color());
	fputs(summary, stderr);
	free(summary);
	fprintf(stderr, "run folder: %s\n", store_path(c->st));
	if (c->join)
		report_joined(c->join, c->jstate, c->st, ret);
	if (run->interrupted)
		fprintf(stderr, "orch: interrupted; partial results were written\n");
	if (!stored)
		fprintf(stderr, "orch: the results could not all be written (see above)%s; "
			"every finished test is in %s/%s, and `orch report %s` rebuilds the "
			"rest once there is room\n", ret == EXIT_INFRA ? ": exit 3" : "",
			store_path(c->st), STORE_JOURNAL, store_path(c->st));
	if (c->o.json && print_json(run) < 0 && ret == EXIT_OK)
		ret = EXIT_INFRA;
	return ret;
}

static void run_release(struct run_ctx *c)
{
	join_free(c->join);
	health_state_close(&c->health);
	run_locks_free(c->locks);
	coord_db_close(c->db);
	store_close(c->st);
	progress_free(c->progress);
	run_result_release(&c->run);
	run_result_release(&c->baseline);
	plan_free(c->plan);
	scenario_free(c->sc);
	inventory_free(c->inv);
	free(c->o.limits);
	free(c->o.tests);
	free(c->o.extra_vars);
	free(c->bench_dir);
	free(c->inv_dir);
	free(c->baseline_path);
}

int cmd_run(int argc, char **argv)
{
	/* a worker thread per board would each get a malloc arena of its own
	 * (up to 8 per core): memory held for nothing; two are plenty here */
	mallopt(M_ARENA_MAX, 2);
	struct run_ctx c = { 0 };
	bool done = false;
	int ret = run_prepare(&c, argc, argv, &done);
	if (!done && ret == EXIT_OK)
		ret = run_open(&c);
	if (!done && ret == EXIT_OK)
		ret = run_setup_schedule(&c);
	if (!done && ret == EXIT_OK) {
		run_schedule(&c);
		ret = run_finish(&c);
	}
	if (ret == EXIT_USAGE && c.o.junit && !c.st) {
		const char *first = c.why[0] ? c.why : NULL;
		if (!first)
			snprintf(c.why, sizeof(c.why), "%s: refused, nothing was run (see orch run's "
				 "messages)", c.o.scenario ? c.o.scenario : "orch run");
		finish_invalid_input(c.o.junit, c.o.scenario, first ? first : c.why);
	}
	run_release(&c);
	return ret;
}
