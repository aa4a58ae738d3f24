#ifndef ORCH_REPORT_REPORT_H
#define ORCH_REPORT_REPORT_H
/*
 * Renderings of a run's results for people and CI: the summary table (also
 * printed at the end of a run), JUnit XML (one testsuite per board, metrics
 * as its properties, fail -> <failure>, error -> <error>), and a self-contained
 * HTML report. Each returns a newly allocated string (caller frees) or
 * hands its bytes to a sink; they read only the result model (and a test's
 * logs, for JUnit and the log links) and write no file.
 */
#include <stdbool.h>

#include "result/result.h"

struct strbuf;

/* The summary people read at the end of a run and in summary.txt, bounded
 * by tests and failures, not boards x tests: each failure, error and
 * regression (message, last line, logs), a line per test that did not pass
 * everywhere ("t07: 60 passed, 4 failed on b[10-13]"), the passes folded,
 * a line per test x metric across boards, notes once with their boards,
 * then the tally. With RUN_DIR (may be NULL) a failure's last line is
 * read from its logs. */
char *report_summary(const struct run_result *run, bool color);
char *report_summary_in(const struct run_result *run, const char *run_dir, bool color);
/* The full table, a line per board x test, and every metric of each
 * failed or regressed test below it (orch report --full). */
char *report_full(const struct run_result *run, bool color);
char *report_junit(const struct run_result *run);
/* JUnit with each test's output from RUN_DIR/BOARD/TEST/{stdout,stderr}.log:
 * the failure text holds the first line that says what failed and the
 * last 20 lines of each log; <system-out>/<system-err> hold the logs
 * (their last 64 KiB, the cut marked); only logs that exist are named.
 * Valid against Jenkins xUnit's junit-10 schema. RUN_DIR NULL: no logs. */
char *report_junit_in(const struct run_result *run, const char *run_dir);
char *report_html(const struct run_result *run);

struct fold;
/* The word a result's outcome is counted under: "passed", "regressed" (a
 * pass that regressed), "failed", "errors", "skipped". */
const char *report_outcome_word(const struct test_result *tr);
/* "t07: 60 passed, 4 failed on b[10-13]": a test's outcomes over its
 * boards, by holding the boards (util/fold.h) under each outcome word. */
void report_test_tally(struct strbuf *sb, const char *test, const struct fold *by);
/* "0.21s", "41.2s", "2m03s", "1h02m". */
void report_fmt_duration(char *buf, size_t len, double s);

/* JUnit for input that was refused before anything ran (exit 2): one
 * testsuite NAME with one errored testcase "validate" whose message is
 * WHY ("scenario.yaml:7:5: unknown key 'rnu'"), so that CI shows the cause
 * instead of "no test report files". Caller frees. */
char *report_junit_invalid(const char *name, const char *why);

/* report_html_in()'s bytes handed to put a section at a time (a rack's
 * report.html is megabytes), never the whole page in memory: the caller
 * writes them (store/ writes run folders). */
void report_html_render(const struct run_result *run, const char *run_dir,
			void (*put)(void *ctx, const void *data, size_t len), void *ctx);

#endif
