/* orch validate: load and check a scenario and its inventory, contact nothing. */
#include "cli/cli.h"
#include "cli/common.h"
#include "plan/plan.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: orch validate SCENARIO.yaml [-i INVENTORY] [-l SELECTOR]... [-t TEST]...\n"
	"                     [-e NAME=VALUE]... [--plan [-v]] [--list]\n"
	"\n"
	"Checks the scenario and its inventory as 'orch run' would: unknown keys,\n"
	"wrong types, bad durations, sizes and regexes, unknown boards in selectors.\n"
	"Every problem is reported as FILE:LINE:COL. Nothing is contacted.\n"
	"  -i, --inventory FILE   boards file (default: the scenario's inventory:)\n"
	"  -l, --limit SELECTOR   check the selection these limits give, too\n"
	"  -t, --test NAME        check these tests select something (names, globs)\n"
	"  -e, --extra-vars NAME=VALUE  as orch run -e (or @FILE.yaml); repeatable\n"
	"      --plan             also print the plan (as 'orch run --dry-run')\n"
	"      --bench-dir DIR    the remote-bench programs bench: names are checked in\n"
	"                         (as orch run --bench-dir)\n"
	"      --list             print the selected board x test runs, one a line\n"
	"  (orch -v validate --plan: also the resolved vars and commands)\n"
	"Exit: 0 valid, 2 invalid.\n";

struct validate_options {
	const char *inventory, *bench_dir;
	const char **limits, **tests, **extra;
	size_t n_limits, n_tests, n_extra;
	bool show_plan, show_list;
};

static void validate_options_release(struct validate_options *o)
{
	free(o->limits);
	free(o->tests);
	free(o->extra);
}

/* The options into *o, then the one SCENARIO.yaml operand at argv[optind].
 * -1 to go on, else the exit code to return (EXIT_OK after --help). */
static int parse(int argc, char **argv, struct validate_options *o)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "test", required_argument, NULL, 't' },
		{ "plan", no_argument, NULL, 'p' },
		{ "bench-dir", required_argument, NULL, 'B' },
		{ "list", no_argument, NULL, 'L' },
		{ "extra-vars", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:l:t:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l': cmd_add_arg(&o->limits, &o->n_limits, optarg); break;
		case 't': cmd_add_arg(&o->tests, &o->n_tests, optarg); break;
		case 'p': o->show_plan = true; break;
		case 'L': o->show_list = true; break;
		case 'B': o->bench_dir = optarg; break;
		case 'e': cmd_add_arg(&o->extra, &o->n_extra, optarg); break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return cmd_option_error("validate", c, argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("validate", "give exactly one SCENARIO.yaml");
	return -1;
}

/* A plan that cannot be built: its error, then the checks of the whole
 * plan, since a bad selector hides nothing else. */
static void report_plan_error(const char *path, const char *err, const struct scenario *sc,
			      const struct inventory *inv, const char *bench_dir)
{
	if (!strncmp(err, path, strlen(path)))
		fprintf(stderr, "%s\n", err);   /* already file:line:col: */
	else
		fprintf(stderr, "%s: error: %s\n", path, err);
	struct plan_options all = { NULL, 0, 0, 0, NULL, 0 };
	struct plan *plan = NULL;
	char err2[512];
	if (plan_build(sc, inv, &all, &plan, err2, sizeof(err2)) == 0)
		(void)cmd_check_before_run(sc, plan, bench_dir);
	plan_free(plan);
}

/* The valid plan: the ok line, its skips, and what the options ask printed. */
static void report_ok(const char *path, const struct scenario *sc, const struct inventory *inv,
		      const struct plan *plan, const struct validate_options *o)
{
	fprintf(stderr, "%s: ok: %zu test%s, %zu board%s selected of %zu, %zu test run%s\n", path,
		sc->n_tests, sc->n_tests == 1 ? "" : "s", plan->n_boards,
		plan->n_boards == 1 ? "" : "s", inv->n_boards, plan->n_items,
		plan->n_items == 1 ? "" : "s");
	for (size_t b = 0; b < plan->n_boards; b++)
		for (size_t i = 0; i < plan->boards[b].n_items; i++) {
			const struct plan_item *it = &plan->boards[b].items[i];
			if (it->skip_reason)
				fprintf(stderr, "%s: skip: test '%s' on %s: %s\n", path,
					it->test->name, it->board->name, it->skip_reason);
		}
	if (o->show_plan)
		plan_print(plan, stdout);
	if (o->show_plan && log_verbose())
		cmd_print_resolved(sc, plan, stdout);
	if (o->show_list)
		plan_print_list(plan, stdout);
}

int cmd_validate(int argc, char **argv)
{
	struct validate_options o = { 0 };
	struct scenario *sc = NULL;
	struct inventory *inv = NULL;
	struct plan *plan = NULL;
	int ret = parse(argc, argv, &o);
	if (ret >= 0)
		goto out;
	const char *path = argv[optind];
	ret = cmd_load_scenario(path, o.inventory, o.extra, o.n_extra, &sc, &inv);
	if (ret != EXIT_OK)
		goto out;
	struct plan_options popts = { o.limits, o.n_limits, 0, 0, o.tests, o.n_tests };
	char err[512];
	if (plan_build(sc, inv, &popts, &plan, err, sizeof(err)) < 0) {
		report_plan_error(path, err, sc, inv, o.bench_dir);
		ret = EXIT_USAGE;
	} else if (cmd_check_before_run(sc, plan, o.bench_dir) < 0) {
		ret = EXIT_USAGE;
	} else {
		report_ok(path, sc, inv, plan, &o);
	}
out:
	plan_free(plan);
	scenario_free(sc);
	inventory_free(inv);
	validate_options_release(&o);
	return ret;
}
