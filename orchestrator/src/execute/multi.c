/*
 * Multi-host tests (roles: + steps:): the steps run in order, each on the
 * boards of its role. A background step runs in its own thread over its own
 * connection and must print its ready: pattern before the next step starts;
 * every background step is stopped when the test ends, however it ends
 * (multi_bg.c).
 *
 * Logs: steps on the item's own board (the `each` role) write stdout.log /
 * stderr.log; other roles write ROLE.stdout.log (or ROLE.BOARD.stdout.log
 * when the role has several boards).
 */
#include "execute/multi_int.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the test ---- */

static void run_steps(struct multi_run *mr)
{
	const struct test *test = mr->item->test;
	for (size_t i = 0; i < test->n_steps && !mr->failed; i++) {
		const struct step *step = &test->steps[i];
		if (interrupt_requested()) {
			multi_set_outcome(mr, STATUS_ERROR, "interrupted before step '%s'",
					  multi_step_text(step));
			break;
		}
		const struct role_binding *rb = multi_find_role(mr->item, step->on);
		if (!rb || !rb->role) {
			multi_set_outcome(mr, STATUS_ERROR,
					  "step %zu runs on role '%s', which the plan "
					  "does not bind", i + 1, step->on);
			break;
		}
		const struct board *const *boards;
		size_t n;
		multi_role_boards(mr->item, rb, &boards, &n);
		if (!n) {
			multi_set_outcome(mr, STATUS_ERROR, "role '%s' has no board",
					  rb->role->name);
			break;
		}
		for (size_t k = 0; k < n && !mr->failed; k++) {
			if (multi_step_push(mr, step, rb, boards[k]) < 0)
				break;
			if (step->background) {
				multi_bg_start(mr, step, rb, boards[k]);
			} else {
				multi_fg_run(mr, step, rb, boards[k]);
				multi_step_fetch(mr, step, rb, boards[k]);
			}
		}
	}
}

int execute_multi(struct exec_context *ctx, struct test_result *tr)
{
	struct multi_run mr;
	memset(&mr, 0, sizeof(mr));
	mr.ctx = ctx;
	mr.tr = tr;
	mr.item = ctx->item;
	if (!tr->start_wall_us)
		tr->start_wall_us = clock_wall_us();
	metric_collector_init(&mr.metrics, mr.item->test, false);

	run_steps(&mr);
	multi_bg_judge_all(&mr);
	size_t n_fetch;
	struct bg_fetch *fetches = multi_bg_fetches(&mr, &n_fetch);
	multi_bg_stop_all(&mr);
	multi_bg_fetch_all(&mr, fetches, n_fetch);
	free(fetches);
	if (interrupt_requested() && !mr.failed)
		multi_set_outcome(&mr, STATUS_ERROR, "interrupted; background steps were stopped");

	if (!mr.failed) {
		metric_collector_files(&mr.metrics, ctx->test_dir);
		if (metric_collector_commit(&mr.metrics, tr) < 0)
			tr->status = STATUS_FAIL;
	}
	metric_collector_release(&mr.metrics);
	for (size_t i = 0; i < mr.n_peers; i++) {
		if (!mr.peers[i].borrowed)
			transport_free(mr.peers[i].t);
		free(mr.peers[i].arch);
	}
	free(mr.peers);
	free(mr.bgs);
	tr->end_wall_us = clock_wall_us();
	return 0;
}
