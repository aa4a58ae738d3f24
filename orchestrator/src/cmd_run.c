/* orch run: the main job. Load, plan, schedule, store, report, exit code. */
#include "cmd.h"
#include "cmd_common.h"
#include "cmd_health.h"
#include "compare/compare.h"
#include "config/config.h"
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
#include "util/units.h"
#include "version.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch run SCENARIO.yaml [options]\n"
	"\n"
	"Runs every test of the scenario on every selected board and stores a run\n"
	"folder RUNS_DIR/SCENARIO/YYYYMMDD-HHMMSS (and a 'latest' link beside it).\n"
	"\n"
	"  -i, --inventory FILE   boards file (default: the scenario's inventory:)\n"
	"  -l, --limit SELECTOR   only these boards: NAME, tag:TAG, all, !NAME, !tag:TAG;\n"
	"                         globs ('apu*') and lists ('rb1,rb2'); repeatable;\n"
	"                         narrows the scenario's boards:\n"
	"  -t, --test NAME        only these tests: a name, a glob ('net-*') or a list\n"
	"                         ('cpu,mem'); repeatable\n"
	"  -j, --jobs N           boards at once (default: all selected, at most 64;\n"
	"                         with --join 2, so that the boards are shared out)\n"
	"  -o, --runs-dir DIR     where run folders go (default: ./runs)\n"
	"      --repeat N         run every test N times (overrides the scenario)\n"
	"      --retry-infra N    try a test up to N more times after an infrastructure\n"
	"                         error (overrides the scenario's retry: { infra })\n"
	"      --rerun RUN_DIR    run only the board x test pairs that failed or errored\n"
	"                         in that run folder (or 'latest')\n"
	"      --only WHAT        with --rerun: failed, error or both (default both)\n"
	"      --max-fail N       after N tests failed or errored start no new test; the\n"
	"                         rest end as skip\n"
	"  -x                     --max-fail 1\n"
	"      --baseline RUN     mark regressions against this run folder (or 'latest')\n"
	"      --baseline history judge against the last runs in the history database\n"
	"      --threshold PCT    regression threshold in percent (default: scenario, 5)\n"
	"      --label TEXT       name the run (a version under test; default: the\n"
	"                         scenario's label:, else the run id)\n"
	"      --judge-single     against the baseline, judge metrics with one sample on\n"
	"                         a side too (default: \"not judged\"; docs/compare.md)\n"
	"      --shard K/N        run only shard K of N of the selected boards\n"
	"      --junit PATH       write the run's junit.xml to PATH as well; also when\n"
	"                         the input is refused (exit 2): one errored test case\n"
	"                         naming FILE:LINE:COL of the first error\n"
	"      --allow-empty      a shard (or plan) with no test to run exits 0, not 4\n"
	"                         (a CI matrix with more shards than boards)\n"
	"      --bench-dir DIR    remote-bench binaries, DIR/ARCH/remote-bench-NAME\n"
	"                         (default: $ORCH_BENCH_DIR, else the build's or the install's)\n"
	"      --wait DURATION    a board another run or a person holds: wait this long\n"
	"                         for it (default: do not wait), then its tests end as\n"
	"                         error naming the holder; see orch who\n"
	"      --db URL           PostgreSQL database shared by the controllers: board\n"
	"                         locks across them, and the history of runs\n"
	"                         (default: $ORCH_DB; history: RUNS_DIR/orch-history.sqlite)\n"
	"      --no-history       do not record this run in the history\n"
	"      --join NAME        with --db: one run over every controller that joins\n"
	"                         NAME (e.g. the CI pipeline id); each takes the next\n"
	"                         board it may, the last to finish writes the merged\n"
	"                         folder, all exit with the run's code\n"
	"      --controller NAME  this controller's name for --join and the inventory's\n"
	"                         controllers: (default: the host name)\n"
	"      --join-wait DUR    boards only other controllers may take wait this long\n"
	"                         from the run's start for one to join (default 5m)\n"
	;
static const char usage_text2[] =
	"  -e, --extra-vars NAME=VALUE  set {vars.NAME} over every vars: of the scenario\n"
	"                         and the boards; -e @FILE.yaml reads NAME: value lines;\n"
	"                         repeatable, the last wins\n"
	"      --dry-run          print the plan; contact nothing (-v: with the vars and\n"
	"                         every command as it would be sent)\n"
	"      --list             print the selected board x test runs, one a line\n"
	"                         (BOARD<TAB>TEST<TAB>TAGS); contact nothing\n"
	"      --format json      print results.json to stdout at the end\n"
	"  -q, --quiet            no progress lines, only the summary\n"
	"  -h, --help             this text\n";

static const char exit_text[] =
	"\n"
	"Exit status (the same for every controller of a joined run):\n"
	"  0    something ran and every test passed\n"
	"  1    a test failed or regressed, and no infrastructure error\n"
	"  2    invalid input (options, scenario, inventory, baseline): nothing ran\n"
	"  3    infrastructure error (a test ended as error: board, console or database\n"
	"       unreachable, a lost lock; a board offline), whatever the tests did;\n"
	"       also a run that would be 0 or 4 whose results could not all be written\n"
	"  4    nothing ran: every selected test skipped, or an empty shard\n"
	"       (--allow-empty: 0 for an empty one)\n"
	"  130  interrupted (partial results kept)\n";

struct run_options {
	const char *scenario;
	const char *inventory;
	const char **limits;
	size_t n_limits;
	const char **tests;
	size_t n_tests;
	int jobs;
	const char *runs_dir;
	int repeat;
	int retry_infra;          /* -1: the scenario's */
	const char *rerun;        /* --rerun RUN_DIR */
	const char *only;         /* --only failed|error|both */
	int max_fail;
	const char *baseline;
	double threshold;
	bool has_threshold;
	bool judge_single;
	int shard_k, shard_n;
	const char *bench_dir;
	bool dry_run;
	bool list;
	int64_t wait_ms;
	const char *db_url;
	const char *join;
	const char *controller;
	int64_t join_wait_ms;
	bool json;
	bool quiet;
	const char *label;
	bool no_history;
	bool allow_empty;
	const char *junit;
};

static int parse_options(int argc, char **argv, struct run_options *o)
{
	enum { OPT_REPEAT = 256, OPT_BASELINE, OPT_THRESHOLD, OPT_SHARD, OPT_BENCH_DIR,
	       OPT_DRY_RUN, OPT_FORMAT, OPT_WAIT, OPT_DB, OPT_JOIN,
	       OPT_CONTROLLER, OPT_JOIN_WAIT, OPT_LABEL, OPT_JUDGE_SINGLE, OPT_NO_HISTORY,
	       OPT_RETRY_INFRA, OPT_RERUN, OPT_ONLY, OPT_MAX_FAIL, OPT_LIST, OPT_ALLOW_EMPTY,
	       OPT_JUNIT };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "test", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "runs-dir", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "retry-infra", required_argument, NULL, OPT_RETRY_INFRA },
		{ "rerun", required_argument, NULL, OPT_RERUN },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "max-fail", required_argument, NULL, OPT_MAX_FAIL },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "judge-single", no_argument, NULL, OPT_JUDGE_SINGLE },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "bench-dir", required_argument, NULL, OPT_BENCH_DIR },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "extra-vars", required_argument, NULL, 'e' },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "db", required_argument, NULL, OPT_DB },
		{ "join", required_argument, NULL, OPT_JOIN },
		{ "controller", required_argument, NULL, OPT_CONTROLLER },
		{ "join-wait", required_argument, NULL, OPT_JOIN_WAIT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "no-history", no_argument, NULL, OPT_NO_HISTORY },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ NULL, 0, NULL, 0 },
	};
	o->runs_dir = "runs";
	o->retry_infra = -1;
	o->db_url = getenv("ORCH_DB");
	o->join_wait_ms = 5 * 60 * 1000;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:l:t:j:o:e:qhx", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l':
			cmd_add_arg(&o->limits, &o->n_limits, optarg);
			break;
		case 't':
			cmd_add_arg(&o->tests, &o->n_tests, optarg);
			break;
		case 'j':
			if (cmd_parse_int(optarg, 1, SCHEDULE_MAX_JOBS, &o->jobs) < 0)
				return cmd_usage_error("run", "-j takes a number from 1 to 64, found '%s'",
						       optarg);
			break;
		case 'o': o->runs_dir = optarg; break;
		case OPT_REPEAT:
			if (cmd_parse_int(optarg, 1, 1000, &o->repeat) < 0)
				return cmd_usage_error("run", "--repeat takes a number from 1 to 1000, "
						       "found '%s'", optarg);
			break;
		case OPT_RETRY_INFRA:
			if (cmd_parse_int(optarg, 0, RETRY_INFRA_MAX, &o->retry_infra) < 0)
				return cmd_usage_error("run", "--retry-infra takes a number from 0 to "
						       "%d, found '%s'", RETRY_INFRA_MAX, optarg);
			break;
		case OPT_RERUN: o->rerun = optarg; break;
		case OPT_ONLY: {
			enum rerun_only only;
			if (rerun_only_parse(optarg, &only) < 0)
				return cmd_usage_error("run", "--only takes failed, error or both, "
						       "found '%s'", optarg);
			o->only = optarg;
			break;
		}
		case OPT_MAX_FAIL:
			if (cmd_parse_int(optarg, 1, INT_MAX, &o->max_fail) < 0)
				return cmd_usage_error("run", "--max-fail takes a number from 1, "
						       "found '%s'", optarg);
			break;
		case 'x': o->max_fail = 1; break;
		case OPT_BASELINE: o->baseline = optarg; break;
		case OPT_THRESHOLD:
			if (cmd_parse_percent(optarg, &o->threshold) < 0)
				return cmd_usage_error("run", "--threshold takes a percentage, found '%s'",
						       optarg);
			o->has_threshold = true;
			break;
		case OPT_JUDGE_SINGLE: o->judge_single = true; break;
		case OPT_SHARD:
			if (plan_parse_shard(optarg, &o->shard_k, &o->shard_n) < 0)
				return cmd_usage_error("run", "--shard takes K/N with 1 <= K <= N, "
						       "found '%s'", optarg);
			break;
		case OPT_BENCH_DIR: o->bench_dir = optarg; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_LIST: o->list = true; break;
		case 'e':
			if (cmd_extra_var(optarg) != EXIT_OK)
				return 1;
			break;
		case OPT_WAIT:
			if (units_parse_duration_ms(optarg, &o->wait_ms) < 0 || o->wait_ms < 0)
				return cmd_usage_error("run", "--wait takes a duration such as 0, 30s "
							      "or 10m, found '%s'", optarg);
			break;
		case OPT_DB: o->db_url = optarg; break;
		case OPT_JOIN:
		case OPT_CONTROLLER:
			if (!*optarg)
				return cmd_usage_error("run", "%s takes a name, found ''",
						       c == OPT_JOIN ? "--join" : "--controller");
			*(c == OPT_JOIN ? &o->join : &o->controller) = optarg;
			break;
		case OPT_JOIN_WAIT:
			if (units_parse_duration_ms(optarg, &o->join_wait_ms) < 0 ||
			    o->join_wait_ms < 0)
				return cmd_usage_error("run", "--join-wait takes a duration such as "
							      "5m, found '%s'", optarg);
			break;
		case OPT_NO_HISTORY: o->no_history = true; break;
		case OPT_ALLOW_EMPTY: o->allow_empty = true; break;
		case OPT_JUNIT: o->junit = optarg; break;
		case OPT_LABEL:
			if (!*optarg || strchr(optarg, '\n'))
				return cmd_usage_error("run", "--label takes one line of text, found '%s'",
						       optarg);
			o->label = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cmd_usage_error("run", "--format takes json or text, found '%s'",
						       optarg);
			o->json = !strcmp(optarg, "json");
			break;
		case 'q': o->quiet = true; break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(usage_text2, stdout);
			fputs(exit_text, stdout);
			return -1;
		default: return cmd_option_error("run", c, argv[optind - 1]);
		}
	}
	if (o->db_url && !*o->db_url)
		o->db_url = NULL;
	if (o->join && !o->db_url)
		return cmd_usage_error("run", "--join needs the database: give --db URL (or set "
					      "ORCH_DB)");
	if (o->only && !o->rerun)
		return cmd_usage_error("run", "--only goes with --rerun RUN_DIR");
	if (o->join && o->shard_n)
		return cmd_usage_error("run", "--join and --shard do not go together: joined "
					      "controllers share the boards as they go");
	if (optind != argc - 1)
		return cmd_usage_error("run", "%s", optind >= argc
							    ? "which scenario? give SCENARIO.yaml"
							    : "give exactly one SCENARIO.yaml");
	o->scenario = argv[optind];
	return 0;
}

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
	if (join_collect(j, store_path(st), run, err, sizeof(err)) < 0) {
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

int cmd_run(int argc, char **argv)
{
	/* a worker thread per board would each get a malloc arena of its own
	 * (up to 8 per core): memory held for nothing; two are plenty here */
	mallopt(M_ARENA_MAX, 2);
	struct run_options o = { 0 };
	struct scenario *sc = NULL;
	struct inventory *inv = NULL;
	struct plan *plan = NULL;
	struct store *st = NULL;
	struct run_result run = { 0 }, baseline = { 0 };
	struct progress *progress = NULL;
	struct coord_db *db = NULL;
	struct run_locks *locks = NULL;
	struct join *join = NULL;
	struct health_state health = { 0 };
	char *bench_dir = NULL, *inv_dir = NULL, *baseline_path = NULL;
	char err[1024], why[1200] = "";
	int ret = parse_options(argc, argv, &o);
	if (ret != 0) {
		ret = ret < 0 ? EXIT_OK : EXIT_USAGE;   /* -1: --help was printed */
		goto out;
	}
	ret = cmd_load_scenario(o.scenario, o.inventory, &sc, &inv);
	if (ret != EXIT_OK)
		goto out;
	apply_repeat_override(sc, o.repeat, o.retry_infra);
	struct plan_options popts = { o.limits, o.n_limits, o.shard_k, o.shard_n, o.tests,
				      o.n_tests };
	if (plan_build(sc, inv, &popts, &plan, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch run: %s\n", err);
		snprintf(why, sizeof(why), "%s: %s", o.scenario, err);
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.rerun && rerun_plan(&o, sc, plan, &run) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.list) {
		plan_print_list(plan, stdout);
		ret = EXIT_OK;
		goto out;
	}
	if (o.dry_run) {
		plan_print(plan, stdout);
		if (log_verbose())
			cmd_print_resolved(sc, plan, stdout);
		ret = cmd_check_before_run(sc, plan, o.bench_dir) < 0 ? EXIT_USAGE : EXIT_OK;
		goto out;
	}
	if (finish_load_baseline(o.runs_dir, sc->name, o.baseline ? o.baseline : sc->baseline,
				 &baseline, &baseline_path) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	warn_insecure(plan);
	interrupt_install();
	if (o.db_url && !(db = coord_db_open(o.db_url, err, sizeof(err)))) {
		log_error("%s", err);
		ret = EXIT_INFRA;
		goto out;
	}

	char host[256] = "unknown";
	gethostname(host, sizeof(host) - 1);
	run.scenario = xstrdup(sc->name);
	run.orch_version = xstrdup(ORCH_VERSION);
	run.host = xstrdup(host);
	run.start_wall_us = clock_wall_us();
	st = store_create(o.runs_dir, sc->name, &run, err, sizeof(err));
	if (!st) {
		log_error("%s", err);
		ret = EXIT_INFRA;
		goto out;
	}
	run.baseline = xstrdup(baseline_path);
	if (store_save_run_json(st, make_run_json(&o, sc, inv, &run), err, sizeof(err)) < 0)
		log_warn("%s", err);
	if (o.join) {
		ret = open_join(&o, db, plan, sc->name, st, &join);
		if (ret != EXIT_OK)
			goto out;
	}
	if (!o.quiet && join) {
		log_info("run %s: joined '%s' as controller %s: %zu board%s, %zu test run%s shared; "
			 "this controller's part -> %s", sc->name, o.join, join_controller_name(join),
			 plan->n_boards, plan->n_boards == 1 ? "" : "s", plan->n_items,
			 plan->n_items == 1 ? "" : "s", store_path(st));
	} else if (!o.quiet) {
		log_info("run %s: %zu board%s, %zu test run%s -> %s", sc->name, plan->n_boards,
			 plan->n_boards == 1 ? "" : "s", plan->n_items, plan->n_items == 1 ? "" : "s",
			 store_path(st));
		progress = progress_new(stderr, log_term_live(STDERR_FILENO), log_use_color());
		for (size_t i = 0; i < plan->n_boards; i++)
			progress_add_board(progress, plan->boards[i].board->name,
					   plan->boards[i].n_items);
	}

	bench_dir = o.bench_dir ? xstrdup(o.bench_dir) : cmd_default_bench_dir();
	inv_dir = fs_dirname(inv->path);
	struct schedule_options sopts = {
		.jobs = o.jobs ? o.jobs : join ? JOIN_DEFAULT_JOBS : 0,
		.bench_dir = bench_dir,
		.inventory_dir = inv_dir,
		.inventory = inv,
		.gather_facts = true,
		.facts = sc->facts,
		.n_facts = sc->n_facts,
		.max_fail = o.max_fail,
	};
	if (progress)
		sopts.hooks = (struct schedule_hooks){ on_started, on_finished, on_tick, progress };
	if (health_state_open(&health, o.db_url, err, sizeof(err)) < 0)
		log_warn("board health: %s; offline boards are not seen", err);
	health_state_hooks(&health, &sopts.health);
	char *note = xasprintf("orch run %s -> %s", sc->name, store_path(st));
	/* joined controllers take turns on a shared role board (a server) */
	int64_t role_wait = join && o.wait_ms < JOIN_ROLE_WAIT_MS ? JOIN_ROLE_WAIT_MS : o.wait_ms;
	locks = run_locks_new(note, o.wait_ms, role_wait, db, err, sizeof(err));
	free(note);
	if (!locks) {
		log_error("%s", err);
		ret = EXIT_INFRA;
		goto out;
	}
	int sched_ret = store_start(st, &run, err, sizeof(err));
	if (sched_ret < 0)
		log_error("%s", err);
	enum join_state jstate = JOIN_DONE;
	int join_code = -1, scheduled;
	if (join) {
		join_schedule_claims(join, locks, &sopts.claims);
		scheduled = schedule_joined(join, plan, st, &run, &sopts, &jstate, &join_code, err,
					    sizeof(err));
	} else {
		run_locks_schedule_claims(locks, &sopts.claims);
		scheduled = schedule_run(plan, st, &run, &sopts, err, sizeof(err));
	}
	if (scheduled < 0 && sched_ret == 0) {
		log_error("storing results: %s", err);
		sched_ret = -1;
	}
	progress_free(progress);
	bool join_failed = join && jstate == JOIN_FAILED;
	if (join_failed)
		log_error("join %s: %s", o.join, err);
	if (join && jstate == JOIN_MERGE && merge_joined(join, st, &run) < 0)
		join_failed = true;

	run.interrupted = interrupt_requested();
	run.end_wall_us = clock_wall_us();
	/* a database that stopped answering (or went away) took the run's
	 * board locks with it: an infrastructure error whatever the tests did */
	const char *db_gone = coord_db_lost(db);
	if (db_gone && !run.interrupted)
		log_error("database: %s; this run's board locks there ended with its session", db_gone);
	struct run_json_ctx rj = { &o, sc, inv };
	struct run_order order = run_order_of(sc, inv);
	struct finish_options fo = {
		.board_order = order.boards,
		.n_board_order = inv->n_boards,
		.test_order = order.tests,
		.n_test_order = sc->n_tests,
		.label_run = true,
		.label = o.label ? o.label : sc->label,
		.label_fact = sc->label_fact,
		.baseline_spec = o.baseline ? o.baseline : sc->baseline,
		.baseline = baseline_path ? &baseline : NULL,
		.threshold_pct = o.has_threshold ? o.threshold : sc->threshold_pct,
		.judge_single = o.judge_single,
		.db_url = o.db_url,
		.runs_dir = o.runs_dir,
		.record_history = !o.no_history && (!join || jstate == JOIN_MERGE),
		.forced_exit_code = join && jstate == JOIN_DONE ? join_code : -1,
		.infra_failed = join_failed || (db_gone && !run.interrupted),
		.allow_empty = o.allow_empty,
		.stored = sched_ret == 0,
		/* a joined controller's folder is its part: latest is the merged one */
		.link_latest = !join || jstate == JOIN_MERGE,
		.run_json = run_json_of,
		.run_json_ctx = &rj,
		.junit_path = o.junit,
	};
	bool stored = finish_run(st, &run, &fo);
	free(order.boards);
	free(order.tests);
	ret = run.exit_code;

	char *summary = report_summary(&run, log_use_color());
	fputs(summary, stderr);
	free(summary);
	fprintf(stderr, "run folder: %s\n", store_path(st));
	if (join)
		report_joined(join, jstate, st, ret);
	if (run.interrupted)
		fprintf(stderr, "orch: interrupted; partial results were written\n");
	if (!stored)
		fprintf(stderr, "orch: the results could not all be written (see above)%s; "
			"every finished test is in %s/%s, and `orch report %s` rebuilds the "
			"rest once there is room\n", ret == EXIT_INFRA ? ": exit 3" : "",
			store_path(st), STORE_JOURNAL, store_path(st));
	if (o.json && print_json(&run) < 0 && ret == EXIT_OK)
		ret = EXIT_INFRA;
out:
	if (ret == EXIT_USAGE && o.junit && !st) {
		const char *first = why[0] ? why : cmd_first_error();
		if (!first)
			snprintf(why, sizeof(why), "%s: refused, nothing was run (see orch run's "
				 "messages)", o.scenario ? o.scenario : "orch run");
		finish_invalid_input(o.junit, o.scenario, first ? first : why);
	}
	join_free(join);
	health_state_close(&health);
	run_locks_free(locks);
	coord_db_close(db);
	store_close(st);
	run_result_release(&run);
	run_result_release(&baseline);
	plan_free(plan);
	scenario_free(sc);
	inventory_free(inv);
	free(o.limits);
	free(o.tests);
	free(bench_dir);
	free(inv_dir);
	free(baseline_path);
	return ret;
}
