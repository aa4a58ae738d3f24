#ifndef ORCH_UI_PROGRESS_H
#define ORCH_UI_PROGRESS_H
/*
 * Live progress of a run, on stderr. On a terminal: a line per finished
 * test and one status line at the bottom, redrawn, naming what each busy
 * board is doing. Otherwise (CI logs): one plain timestamped line when a
 * test starts and one when it ends. Callers serialize the calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

struct progress;

struct progress *progress_new(FILE *out, bool live, bool color, size_t n_items);
void progress_started(struct progress *p, const char *board, const char *test);
void progress_finished(struct progress *p, const struct test_result *tr);
/* Clears the status line. */
void progress_free(struct progress *p);

#endif
