#ifndef ORCH_REPORT_REPORT_H
#define ORCH_REPORT_REPORT_H
/*
 * Renderings of a run's results for people and CI: the summary table (also
 * printed at the end of a run), JUnit XML (one testsuite per board, metrics
 * as its properties, fail -> <failure>, error -> <error>), and a self-contained
 * HTML report. Each returns a newly allocated string (caller frees); they
 * read only the result model.
 */
#include <stdbool.h>

#include "result/result.h"

char *report_summary(const struct run_result *run, bool color);
char *report_junit(const struct run_result *run);
/* JUnit with each test's output from RUN_DIR/BOARD/TEST/{stdout,stderr}.log:
 * the failure text holds the first line that says what failed and the
 * last 20 lines of each log; <system-out>/<system-err> hold the logs
 * (their last 64 KiB, the cut marked); only logs that exist are named.
 * Valid against Jenkins xUnit's junit-10 schema. RUN_DIR NULL: no logs. */
char *report_junit_in(const struct run_result *run, const char *run_dir);
char *report_html(const struct run_result *run);

/* JUnit for input that was refused before anything ran (exit 2): one
 * testsuite NAME with one errored testcase "validate" whose message is
 * WHY ("scenario.yaml:7:5: unknown key 'rnu'"), so that CI shows the cause
 * instead of "no test report files". Caller frees. */
char *report_junit_invalid(const char *name, const char *why);

/* Writes summary.txt, junit.xml, report.html into run_dir, each tried
 * whatever became of the others. 0, or -1 + the first error. */
int report_write_all(const struct run_result *run, const char *run_dir, char *err, size_t errlen);

#endif
