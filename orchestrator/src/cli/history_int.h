#ifndef ORCH_CLI_HISTORY_INT_H
#define ORCH_CLI_HISTORY_INT_H
/*
 * orch history's parts: the marks every format shows come from the
 * history's judge (history_judge_series), one verdict per run; the html
 * page; the ack subcommand.
 */
#include <stdbool.h>
#include <stddef.h>

#include "history/history.h"

/* What a series shows: its runs' verdicts, its most recent step (the
 * run it starts at, that run's verdict, whether it settled) and its most
 * recent acknowledged change. */
struct history_marks {
	struct history_verdict *v;     /* one per point */
	size_t step_at;                /* SIZE_MAX: no step */
	const struct history_verdict *step;
	bool settled;
	size_t ack_at;                 /* SIZE_MAX: none */
};
void history_marks_of(const struct history_series *s, double threshold,
		      struct history_marks *m);
void history_marks_release(struct history_marks *m);

/* --format html: one self-contained page on stdout. */
void history_print_html(const char *scenario, const char *db, const struct history_series *s,
			size_t n, double threshold);

/* orch history ack ...: argv from "ack" on. */
int cmd_history_ack(int argc, char **argv);

#endif
