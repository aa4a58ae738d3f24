/*
 * execute_item: one plan item, repeated as the test asks, then judged
 * against its expectations. The per-kind executors do one run each.
 */
#include "execute/execute.h"
#include "execute/metrics.h"
#include "util/deadline.h"
#include "util/interrupt.h"

#include <math.h>
#include <stdio.h>

#define REPEAT_AUTO_MIN 3
#define REPEAT_AUTO_RSD_PCT 3.5

static int execute_once(struct exec_context *ctx, struct test_result *tr)
{
	switch (ctx->item->test->kind) {
	case TEST_RUN: return execute_run(ctx, tr);
	case TEST_BENCH: return execute_bench(ctx, tr);
	case TEST_BOOT: return execute_boot(ctx, tr);
	case TEST_MULTI: return execute_multi(ctx, tr);
	}
	return 0;
}

/* repeat: auto stops once every metric's relative spread is small enough
 * (the Phoronix Test Suite's rule of thumb). */
static bool spread_settled(struct test_result *tr)
{
	for (size_t i = 0; i < tr->n_metrics; i++) {
		metric_result_summarize(&tr->metrics[i]);
		if (metric_result_rsd_pct(&tr->metrics[i]) > REPEAT_AUTO_RSD_PCT)
			return false;
	}
	return true;
}

int execute_item(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	int runs = test->repeat_auto ? test->repeat_max : test->repeat;
	if (runs < 1)
		runs = 1;
	tr->status = STATUS_PASS;
	tr->start_wall_us = clock_wall_us();
	int64_t start = clock_mono_us();
	for (int i = 0; i < runs; i++) {
		if (interrupt_requested()) {
			if (i == 0) {
				tr->status = STATUS_SKIP;
				test_result_set_message(tr, "interrupted before it ran");
			}
			break;
		}
		ctx->repeat_index = i;
		execute_once(ctx, tr);
		tr->attempts = i + 1;
		if (tr->status != STATUS_PASS)
			break;
		if (test->repeat_auto && i + 1 >= REPEAT_AUTO_MIN && spread_settled(tr))
			break;
	}
	for (size_t i = 0; i < tr->n_metrics; i++)
		metric_result_summarize(&tr->metrics[i]);
	if (tr->status == STATUS_PASS && metrics_check_expectations(test, tr))
		tr->status = STATUS_FAIL;
	tr->end_wall_us = clock_wall_us();
	tr->duration_s = (double)(clock_mono_us() - start) / 1e6;
	return 0;
}
