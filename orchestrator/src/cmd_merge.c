/* orch merge OUT RUN_DIR...: joins shard run folders into one run folder. */
#include "cmd.h"
#include "compare/merge.h"
#include "report/report.h"
#include "util/log.h"

#include <getopt.h>
#include <stdarg.h>
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
	      "\n"
	      "OUT must not exist (merge never writes into an existing path). A board\n"
	      "that appears in two shards, or shards of different scenarios, are errors.\n"
	      "\n"
	      "options:\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "exit: the merged run's exit code (0 passed, 1 a test failed or regressed,\n"
	      "3 infrastructure error, 130 a shard was interrupted), so CI can act on it;\n"
	      "2 usage error, or the shards could not be merged\n",
	      out);
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("orch merge: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\ntry 'orch merge --help'\n", stderr);
	return EXIT_USAGE;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		return bad_usage("unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind < 2)
		return bad_usage("%s", argc - optind < 1 ? "needs OUT and at least one RUN_DIR"
							 : "needs at least one RUN_DIR to merge");

	const char *out_dir = argv[optind];
	struct run_result merged;
	char err[1024];
	if (merge_runs(out_dir, argv + optind + 1, (size_t)(argc - optind - 1), &merged,
		       err, sizeof(err)) < 0) {
		fprintf(stderr, "orch merge: %s\n", err);
		return EXIT_USAGE;
	}
	int ret = merged.exit_code;
	if (report_write_all(&merged, out_dir, err, sizeof(err)) < 0) {
		/* results.json is complete; `orch report OUT` can render again */
		fprintf(stderr, "orch merge: %s\n", err);
		ret = EXIT_USAGE;
	} else {
		char *summary = report_summary(&merged, log_use_color());
		if (summary)
			fputs(summary, stderr);
		free(summary);
		log_info("merged %d run folder%s into %s", argc - optind - 1,
			 argc - optind - 1 == 1 ? "" : "s", out_dir);
	}
	run_result_release(&merged);
	return ret;
}
