#ifndef ORCH_UI_PROGRESS_H
#define ORCH_UI_PROGRESS_H
/*
 * Live progress of a run, on stderr. On a terminal: one line per board,
 * redrawn in place ("board3   3/5 memory  running 2.1s   2 passed 1 failed").
 * Otherwise (CI logs): one plain timestamped line when a test starts and
 * one when it ends. Callers serialize the calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

struct progress;

struct progress *progress_new(FILE *out, bool live, bool color);
/* Declares a board and how many tests it will run, before the run starts. */
void progress_add_board(struct progress *p, const char *board, size_t n_items);
void progress_started(struct progress *p, const char *board, const char *test);
void progress_finished(struct progress *p, const struct test_result *tr);
/* Redraws the live lines (elapsed times); call about once a second. */
void progress_tick(struct progress *p);
/* Leaves the final lines on screen and frees. Accepts NULL. */
void progress_free(struct progress *p);

#endif
