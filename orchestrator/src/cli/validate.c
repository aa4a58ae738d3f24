/* orch validate: load and check a scenario and its inventory, contact nothing. */
#include "cli/cli.h"
#include "cli/common.h"
#include "plan/plan.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <getopt.h>
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

int cmd_validate(int argc, char **argv)
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
	const char *inventory = NULL;
	const char **limits = NULL, **tests = NULL, **extra = NULL;
	size_t n_limits = 0, n_tests = 0, n_extra = 0;
	int show_plan = 0, show_list = 0;
	const char *bench_dir = NULL;
	struct scenario *sc = NULL;
	struct inventory *inv = NULL;
	struct plan *plan = NULL;
	int ret = EXIT_USAGE;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:l:t:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': inventory = optarg; break;
		case 'l':
			cmd_add_arg(&limits, &n_limits, optarg);
			break;
		case 't':
			cmd_add_arg(&tests, &n_tests, optarg);
			break;
		case 'p': show_plan = 1; break;
		case 'L': show_list = 1; break;
		case 'B': bench_dir = optarg; break;
		case 'e':
			cmd_add_arg(&extra, &n_extra, optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			cmd_option_error("validate", c, argv[optind - 1]);
			goto out;
		}
	}
	if (optind != argc - 1) {
		cmd_usage_error("validate", "give exactly one SCENARIO.yaml");
		goto out;
	}
	ret = cmd_load_scenario(argv[optind], inventory, extra, n_extra, &sc, &inv);
	if (ret != EXIT_OK)
		goto out;
	struct plan_options popts = { limits, n_limits, 0, 0, tests, n_tests };
	char err[512];
	if (plan_build(sc, inv, &popts, &plan, err, sizeof(err)) < 0) {
		if (!strncmp(err, argv[optind], strlen(argv[optind])))
			fprintf(stderr, "%s\n", err);   /* already file:line:col: */
		else
			fprintf(stderr, "%s: error: %s\n", argv[optind], err);
		ret = EXIT_USAGE;
		/* a bad selector hides nothing else: the checks of the whole plan too */
		struct plan_options all = { NULL, 0, 0, 0, NULL, 0 };
		if (plan_build(sc, inv, &all, &plan, err, sizeof(err)) == 0)
			(void)cmd_check_before_run(sc, plan, bench_dir);
	} else if (cmd_check_before_run(sc, plan, bench_dir) < 0) {
		ret = EXIT_USAGE;
	} else {
		fprintf(stderr, "%s: ok: %zu test%s, %zu board%s selected of %zu, %zu test run%s\n",
			argv[optind], sc->n_tests, sc->n_tests == 1 ? "" : "s", plan->n_boards,
			plan->n_boards == 1 ? "" : "s", inv->n_boards, plan->n_items,
			plan->n_items == 1 ? "" : "s");
		for (size_t b = 0; b < plan->n_boards; b++)
			for (size_t i = 0; i < plan->boards[b].n_items; i++) {
				const struct plan_item *it = &plan->boards[b].items[i];
				if (it->skip_reason)
					fprintf(stderr, "%s: skip: test '%s' on %s: %s\n", argv[optind],
						it->test->name, it->board->name, it->skip_reason);
			}
		if (show_plan)
			plan_print(plan, stdout);
		if (show_plan && log_verbose())
			cmd_print_resolved(sc, plan, stdout);
		if (show_list)
			plan_print_list(plan, stdout);
	}
out:
	plan_free(plan);
	scenario_free(sc);
	inventory_free(inv);
	free(limits);
	free(tests);
	free(extra);
	return ret;
}
