#ifndef ORCH_UI_PROGRESS_H
#define ORCH_UI_PROGRESS_H
/*
 * Live progress of a run, on stderr, bounded by tests and failures rather
 * than boards x tests.
 *
 * On a terminal: a view redrawn in place that is never taller than the
 * terminal (its size read at every redraw, so a resize is followed): a
 * header with the totals so far, the elapsed time and an ETA from the
 * durations seen so far; the tests running now folded by test ("t26 on 16
 * boards b[17-32], 0.2s"); the failures so far; a row per board only while
 * every row fits. It is erased at the end, so the summary that follows is
 * the only thing left.
 *
 * Otherwise (CI logs): a line per failure or error when it happens, a line
 * per test once it finished on all its boards ("t07: 60 passed, 4 failed
 * on b[10-13]"), a progress line at most every 30 s; verbose adds a line
 * when each test starts and ends on each board. Callers serialize the
 * calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

struct progress;

/* live: redraw in place on a terminal; verbose: a line per board x test
 * (not live only). */
struct progress *progress_new(FILE *out, bool live, bool color, bool verbose);
/* Declares a board's item (a test it will run), before the run starts. */
void progress_add_item(struct progress *p, const char *board, const char *test);
void progress_started(struct progress *p, const char *board, const char *test);
void progress_finished(struct progress *p, const struct test_result *tr);
/* Redraws the live view, or prints the progress line when due; call about
 * once a second. */
void progress_tick(struct progress *p);
/* Erases the live view and frees. Accepts NULL. */
void progress_free(struct progress *p);

#endif
