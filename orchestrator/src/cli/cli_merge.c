/* orch merge OUT RUN_DIR...: joins shard run folders into one run folder. */
#include "cli/cli.h"
#include "cli/common.h"
#include "finish/finish.h"
#include "report/report.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("usage: orch merge OUT RUN_DIR...\n"
	      "\n"
	      "Joins the run folders of a sharded run (orch run --shard K/N, one per CI\n"
	      "job) into one new run folder OUT: every shard's board folders, one\n"
	      "results.json (earliest start, latest end), a run.json naming the shards,\n"
	      "and summary.txt, junit.xml, report.html. The summary is printed on stderr.\n"
	      "The merged run ends as a run does (boards in inventory order, tests in\n"
	      "scenario order, as the first shard's run.json gives them; verdicts as\n"
	      "the shards judged them), so its files and exit code are the unsharded\n"
	      "run's.\n"
	      "\n"
	      "OUT must not exist (merge never writes into an existing path). A board\n"
	      "that appears in two shards, or shards of different scenarios, are errors.\n"
	      "\n"
	      "options:\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "exit: the merged run's exit code (0 passed, 1 a test failed or regressed,\n"
	      "3 infrastructure error whatever the tests did, or the merged folder's files\n"
	      "could not all be written, 4 nothing ran, 130 a shard was interrupted), so\n"
	      "CI can act on it; 2 usage error, or the shards could not be merged\n",
	      out);
}

int cmd_merge(int argc, char **argv)
{
	int rc = cmd_parse_help_only(argc, argv, "merge", usage);
	if (rc >= 0)
		return rc;
	if (argc - optind < 2)
		return cmd_usage_error("merge", "%s",
				       argc - optind < 1 ? "needs OUT and at least one RUN_DIR"
							 : "needs at least one RUN_DIR to merge");

	const char *out_dir = argv[optind];
	struct run_result merged;
	char err[1024];
	if (finish_merge(out_dir, argv + optind + 1, (size_t)(argc - optind - 1), &merged,
			 err, sizeof(err)) < 0) {
		fprintf(stderr, "orch merge: %s\n", err);
		return EXIT_USAGE;
	}
	char *summary = report_summary_in(&merged, out_dir, log_use_color());
	if (summary)
		fputs(summary, stderr);
	free(summary);
	log_info("merged %d run folder%s into %s", argc - optind - 1,
		 argc - optind - 1 == 1 ? "" : "s", out_dir);
	int ret = merged.exit_code;
	run_result_release(&merged);
	return ret;
}
