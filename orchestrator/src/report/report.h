#ifndef ORCH_REPORT_REPORT_H
#define ORCH_REPORT_REPORT_H
/*
 * Renderings of a run's results for people and CI: the summary table (also
 * printed at the end of a run), JUnit XML (one testsuite per board, metrics
 * as properties, fail -> <failure>, error -> <error>), and a self-contained
 * HTML report. Each returns a newly allocated string (caller frees); they
 * read only the result model.
 */
#include <stdbool.h>

#include "result/result.h"

char *report_summary(const struct run_result *run, bool color);
char *report_junit(const struct run_result *run);
char *report_html(const struct run_result *run);

/* Writes summary.txt, junit.xml, report.html into run_dir. 0 or -1 + err. */
int report_write_all(const struct run_result *run, const char *run_dir, char *err, size_t errlen);

#endif
