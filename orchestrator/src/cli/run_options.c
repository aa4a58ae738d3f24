/* orch run's command line: its usage text and its options. */
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/run.h"
#include "plan/plan.h"
#include "schedule/rerun.h"
#include "schedule/schedule.h"
#include "util/units.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"  -o, --runs-dir DIR     where run folders go\n"
	"                         (default: $ORCH_RUNS_DIR, else ./runs)\n"
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
	"      --settle N         against the history, a step either way is the new\n"
	"                         normal after N runs (default: a regression stays one\n"
	"                         until 'orch history ack'; a metric's settle: wins)\n"
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

enum { OPT_REPEAT = 256, OPT_BASELINE, OPT_THRESHOLD, OPT_SHARD, OPT_BENCH_DIR,
       OPT_DRY_RUN, OPT_FORMAT, OPT_WAIT, OPT_DB, OPT_JOIN,
       OPT_CONTROLLER, OPT_JOIN_WAIT, OPT_LABEL, OPT_JUDGE_SINGLE, OPT_NO_HISTORY,
       OPT_RETRY_INFRA, OPT_RERUN, OPT_ONLY, OPT_MAX_FAIL, OPT_LIST, OPT_ALLOW_EMPTY,
       OPT_JUNIT, OPT_SETTLE };
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
	{ "settle", required_argument, NULL, OPT_SETTLE },
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
/* An option whose value is checked (a number, a duration, a choice): 0,
 * else the usage error's return. */
static int parse_value_option(int c, struct run_options *o)
{
	switch (c) {
	case 'j':
		return cmd_int_option("run", "-j", optarg, 1, SCHEDULE_MAX_JOBS, &o->jobs);
	case OPT_REPEAT:
		return cmd_int_option("run", "--repeat", optarg, 1, 1000, &o->repeat);
	case OPT_RETRY_INFRA:
		return cmd_int_option("run", "--retry-infra", optarg, 0, RETRY_INFRA_MAX,
				      &o->retry_infra);
	case OPT_ONLY: {
		enum rerun_only only;
		if (rerun_only_parse(optarg, &only) < 0)
			return cmd_usage_error("run", "--only takes failed, error or both, "
					       "found '%s'", optarg);
		o->only = optarg;
		break;
	}
	case OPT_MAX_FAIL:
		return cmd_int_option("run", "--max-fail", optarg, 1, INT_MAX, &o->max_fail);
	case OPT_SETTLE:
		return cmd_int_option("run", "--settle", optarg, 1, 1000, &o->settle);
	case OPT_THRESHOLD:
		o->has_threshold = !cmd_percent_option("run", "--threshold", optarg, &o->threshold);
		return o->has_threshold ? 0 : EXIT_USAGE;
	case OPT_SHARD:
		if (plan_parse_shard(optarg, &o->shard_k, &o->shard_n) < 0)
			return cmd_usage_error("run", "--shard takes K/N with 1 <= K <= N, "
					       "found '%s'", optarg);
		break;
	case OPT_WAIT:
		if (units_parse_duration_ms(optarg, &o->wait_ms) < 0 || o->wait_ms < 0)
			return cmd_usage_error("run", "--wait takes a duration such as 0, 30s "
						      "or 10m, found '%s'", optarg);
		break;
	case OPT_JOIN_WAIT:
		if (units_parse_duration_ms(optarg, &o->join_wait_ms) < 0 ||
		    o->join_wait_ms < 0)
			return cmd_usage_error("run", "--join-wait takes a duration such as "
						      "5m, found '%s'", optarg);
		break;
	}
	return 0;
}

/* One option c: 0, -1 after --help, else the usage error's return. */
static int parse_option(int c, struct run_options *o, char **argv)
{
	switch (c) {
	case 'i': o->inventory = optarg; break;
	case 'l':
		cmd_add_arg(&o->limits, &o->n_limits, optarg);
		break;
	case 't':
		cmd_add_arg(&o->tests, &o->n_tests, optarg);
		break;
	case 'o': o->runs_dir = optarg; break;
	case OPT_RERUN: o->rerun = optarg; break;
	case 'x': o->max_fail = 1; break;
	case OPT_BASELINE: o->baseline = optarg; break;
	case OPT_JUDGE_SINGLE: o->judge_single = true; break;
	case OPT_BENCH_DIR: o->bench_dir = optarg; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_LIST: o->list = true; break;
	case 'e': cmd_add_arg(&o->extra_vars, &o->n_extra_vars, optarg); break;
	case OPT_DB: o->db_url = optarg; break;
	case OPT_JOIN:
	case OPT_CONTROLLER:
		if (!*optarg)
			return cmd_usage_error("run", "%s takes a name, found ''",
					       c == OPT_JOIN ? "--join" : "--controller");
		*(c == OPT_JOIN ? &o->join : &o->controller) = optarg;
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
	case 'j': case OPT_REPEAT: case OPT_RETRY_INFRA: case OPT_ONLY: case OPT_MAX_FAIL:
	case OPT_THRESHOLD: case OPT_SHARD: case OPT_WAIT: case OPT_JOIN_WAIT: case OPT_SETTLE:
		return parse_value_option(c, o);
	default: return cmd_option_error("run", c, argv[optind - 1]);
	}
	return 0;
}

int run_parse_options(int argc, char **argv, struct run_options *o)
{
	o->runs_dir = getenv("ORCH_RUNS_DIR");
	if (!o->runs_dir || !*o->runs_dir)
		o->runs_dir = "runs";
	o->retry_infra = -1;
	o->db_url = getenv("ORCH_DB");
	o->join_wait_ms = 5 * 60 * 1000;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:l:t:j:o:e:qhx", longopts, NULL)) != -1) {
		int r = parse_option(c, o, argv);
		if (r != 0)
			return r;
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