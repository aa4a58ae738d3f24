/* orch report RUN_DIR: re-renders a run folder's reports from results.json. */
#include "cmd.h"
#include "cmd_common.h"
#include "report/report.h"
#include "result/result_json.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("usage: orch report RUN_DIR\n"
	      "\n"
	      "Reads RUN_DIR/results.json and writes summary.txt, junit.xml and\n"
	      "report.html again (each file replaced whole), then prints the summary\n"
	      "on stderr. Useful after a change to the report format, or on a run\n"
	      "folder joined by hand.\n"
	      "\n"
	      "options:\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "exit: 0 reports written, 2 usage error or a run folder that cannot be\n"
	      "read or written\n",
	      out);
}

int cmd_report(int argc, char **argv)
{
	int rc = cmd_parse_help_only(argc, argv, "report", usage);
	if (rc >= 0)
		return rc;
	if (argc - optind != 1)
		return cmd_usage_error("report", "%s", argc - optind < 1 ? "needs a run folder"
									 : "too many arguments");

	const char *dir = argv[optind];
	int ret = EXIT_USAGE;
	struct run_result run;
	char err[512];
	memset(&run, 0, sizeof(run));
	if (run_result_load(dir, &run, err, sizeof(err)) < 0 ||
	    report_write_all(&run, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch report: %s\n", err);
		goto out;
	}
	char *summary = report_summary(&run, log_use_color());
	if (summary)
		fputs(summary, stderr);
	free(summary);
	ret = EXIT_OK;
out:
	run_result_release(&run);
	return ret;
}
