/* orch report RUN_DIR: re-renders a run folder's reports from results.json,
 * or first rebuilds results.json from the journal of a run that never
 * finished writing it (killed, disk full). */
#include "cli/cli.h"
#include "cli/common.h"
#include "finish/finish.h"
#include "report/report.h"
#include "result/result_json.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/log.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fputs("usage: orch report [--full] RUN_DIR\n"
	      "\n"
	      "Reads RUN_DIR/results.json and writes summary.txt, junit.xml and\n"
	      "report.html again (each file replaced whole), then prints the summary\n"
	      "on stderr. Useful after a change to the report format, or on a run\n"
	      "folder joined by hand.\n"
	      "A run that did not end cleanly (killed, or its disk full) is rebuilt\n"
	      "first: results.json is written again from RUN_DIR/journal.jsonl, which\n"
	      "holds every test that finished, in the order the run's run.json gives.\n"
	      "The folder ends as the run did (the finish stage, as orch run): its\n"
	      "verdicts as judged against its baseline and the exit code it recorded\n"
	      "are kept in results.json and the reports.\n"
	      "\n"
	      "options:\n"
	      "  --full       print a line per board x test (the table), then the summary\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "exit: 0 reports written, 2 usage error or a run folder that cannot be\n"
	      "read, 3 the files cannot be written\n",
	      out);
}

/* Journal lines come in the order tests finished; people read a run board
 * by board (in the order boards first finished a test), each board's tests
 * in the order they ran. */
struct ranked {
	size_t board, seq;
	struct test_result tr;
};

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->board != y->board)
		return (x->board > y->board) - (x->board < y->board);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void group_by_board(struct run_result *run)
{
	struct ranked *r = xcalloc(run->n_results + 1, sizeof(*r));
	const char **boards = xcalloc(run->n_results + 1, sizeof(*boards));
	size_t n_boards = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		size_t b = 0;
		while (b < n_boards && strcmp(boards[b], run->results[i].board))
			b++;
		if (b == n_boards)
			boards[n_boards++] = run->results[i].board;
		r[i] = (struct ranked){ b, i, run->results[i] };
	}
	qsort(r, run->n_results, sizeof(*r), compare_ranked);
	for (size_t i = 0; i < run->n_results; i++)
		run->results[i] = r[i].tr;
	free(boards);
	free(r);
}

/* A finished run's results.json wins (it may be sorted, compared or joined
 * by hand); a journal whose run has no end there, or no results.json at
 * all, is read instead and *rebuilt set. */
static int load_run(const char *dir, struct run_result *run, bool *rebuilt, char *err,
		    size_t errlen)
{
	char jerr[512];
	size_t n_bad = 0;
	int r = run_result_load(dir, run, err, errlen);
	if (r == 0 && run->end_wall_us)
		return 0;
	char *journal = fs_path_join(dir, STORE_JOURNAL);
	bool have_journal = access(journal, F_OK) == 0;
	free(journal);
	if (!have_journal)
		return r;
	run_result_release(run);
	if (store_journal_load(dir, run, &n_bad, jerr, sizeof(jerr)) < 0) {
		snprintf(err, errlen, "%s", jerr);
		return -1;
	}
	*rebuilt = true;
	group_by_board(run);
	if (!run->end_wall_us)
		run->interrupted = true;   /* killed before it ended: its exit code is finish's */
	log_warn("%s: the run %s; results.json rebuilt from %s: %zu result%s%s", dir,
		 run->end_wall_us ? "ended without writing its results" : "did not end (killed?)",
		 STORE_JOURNAL, run->n_results, run->n_results == 1 ? "" : "s",
		 n_bad ? ", a line cut short left out" : "");
	return 0;
}

/* The options: --full sets *full. -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, bool *full)
{
	static const struct option opts[] = {
		{ "full", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'F') {
			*full = true;
			continue;
		}
		if (opt == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		return cmd_option_error("report", opt, argv[optind - 1]);
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	bool full = false;
	int rc = parse_options(argc, argv, &full);
	if (rc >= 0)
		return rc;
	if (argc - optind != 1)
		return cmd_usage_error("report", "%s", argc - optind < 1 ? "needs a run folder"
									 : "too many arguments");

	const char *dir = argv[optind];
	int ret = EXIT_USAGE;
	struct run_result run;
	struct store *st = NULL;
	char err[512];
	bool rebuilt = false;
	if (load_run(dir, &run, &rebuilt, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch report: %s\n", err);
		goto out;
	}
	if (!(st = store_open(dir, err, sizeof(err)))) {
		fprintf(stderr, "orch report: %s\n", err);
		goto out;
	}
	/* the run's own end: its verdicts as judged, the exit code it recorded
	 * (a run killed before its end gets the one its results give) */
	struct finish_order ord = { 0 };
	struct finish_options fo = {
		.forced_exit_code = run.end_wall_us ? run.exit_code : -1,
		.stored = true,
	};
	if (rebuilt) {
		finish_order_load(dir, &ord);
		finish_order_apply(&ord, &fo);
	}
	bool stored = finish_run(st, &run, &fo);
	finish_order_release(&ord);
	ret = EXIT_INFRA;
	if (!stored)
		goto out;
	store_remove_stale_tmp(st);
	if (full) {
		char *table = report_full(&run, log_use_color());
		fputs(table, stderr);
		fputc('\n', stderr);
		free(table);
	}
	char *summary = report_summary_in(&run, dir, log_use_color());
	fputs(summary, stderr);
	free(summary);
	ret = EXIT_OK;
out:
	store_close(st);
	run_result_release(&run);
	return ret;
}
