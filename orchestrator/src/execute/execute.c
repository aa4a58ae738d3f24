/*
 * execute_item: one plan item, repeated as the test asks, then judged
 * against its expectations. The per-kind executors do one run each.
 */
#include "execute/execute.h"
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/facts.h"
#include "config/caps.h"
#include "execute/metrics.h"
#include "util/deadline.h"
#include "util/log.h"
#include "util/interrupt.h"
#include "util/log_dir.h"
#include "util/strbuf.h"
#include <time.h>
#include "util/fsutil.h"
#include "util/units.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT_AUTO_MIN 3
#define REPEAT_AUTO_RSD_PCT 3.5

static int execute_once(struct exec_context *ctx, struct test_result *tr)
{
	switch (ctx->item->test->kind) {
	case TEST_RUN: return execute_run(ctx, tr);
	case TEST_BENCH: return execute_bench(ctx, tr);
	case TEST_BOOT: return execute_boot(ctx, tr);
	case TEST_MULTI: return execute_multi(ctx, tr);
	case TEST_TRANSFER: return execute_transfer(ctx, tr);
	}
	return 0;
}

/* How settled one metric is: its relative spread, SD / |mean| in percent,
 * or (near zero, where a relative spread means nothing) whether its SD is
 * within the absolute floor of its unit (docs/compare.md). */
struct spread {
	double pct;               /* relative spread; INFINITY for a mean of 0 with any SD */
	bool settled;
	bool floored;             /* settled by the floor, not by pct */
};

/* The absolute floor of a metric's SD, in its unit: half a percentage
 * point, one count for unitless figures (a count of 0-1 retransmits has an
 * SD of about 0.55), 10 us for times; 0 (none) for rates and sizes. */
static double spread_floor(const char *unit)
{
	double v;
	if (!unit || !*unit)
		return 1.0;
	if (strcmp(unit, "%") == 0)
		return 0.5;
	if (units_is_time(unit) && units_convert(10e-6, "s", unit, &v) == 0)
		return v;
	return 0.0;
}

static struct spread metric_spread(struct metric_result *m)
{
	struct spread s = { 0, false, false };
	metric_result_summarize(m);
	double mean = fabs(m->mean);
	s.pct = mean > 0 ? m->stddev / mean * 100.0 : (m->stddev > 0 ? INFINITY : 0.0);
	s.settled = s.pct <= REPEAT_AUTO_RSD_PCT;
	if (!s.settled && m->stddev <= spread_floor(m->unit))
		s.settled = s.floored = true;
	return s;
}

/* repeat: auto stops once every metric's spread is small enough (the
 * Phoronix Test Suite's rule of thumb); records in tr->repeat the widest
 * spread: an unsettled metric's first, else a relatively settled one's,
 * else a floored one's. Returns whether all settled. */
static bool spread_settled(struct test_result *tr)
{
	struct repeat_outcome *r = &tr->repeat;
	int best_rank = -1;
	bool all = true;
	r->spread_pct = NAN;
	free(r->spread_metric);
	r->spread_metric = NULL;
	for (size_t i = 0; i < tr->n_metrics; i++) {
		struct spread s = metric_spread(&tr->metrics[i]);
		all = all && s.settled;
		int rank = !s.settled ? 2 : s.floored ? 0 : 1;
		if (rank > best_rank || (rank == best_rank && s.pct > r->spread_pct)) {
			best_rank = rank;
			r->spread_pct = s.pct;
			r->floored = s.floored;
			free(r->spread_metric);
			r->spread_metric = xstrdup(tr->metrics[i].name);
		}
	}
	return all;
}

static void repeat_finish(struct test_result *tr, bool settled, bool interrupted)
{
	struct repeat_outcome *r = &tr->repeat;
	if (!r->is_auto)
		return;
	spread_settled(tr);
	r->converged = settled && tr->n_metrics > 0;
	if (interrupted)
		r->stop = REPEAT_STOP_INTERRUPTED;
	else if (tr->status != STATUS_PASS)
		r->stop = REPEAT_STOP_FAILED;
	else if (!tr->n_metrics)
		r->stop = REPEAT_STOP_NO_METRICS;
	else
		r->stop = settled ? REPEAT_STOP_CONVERGED : REPEAT_STOP_CAP;
}

/* One try: every repeat the test asks for, then its expectations. */
static void execute_try(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	int runs = test->repeat_auto ? test->repeat_max : test->repeat;
	if (runs < 1)
		runs = 1;
	tr->status = STATUS_PASS;
	tr->repeat.is_auto = test->repeat_auto;
	tr->repeat.max_runs = runs;
	tr->repeat.target_pct = REPEAT_AUTO_RSD_PCT;
	bool settled = false, interrupted = false;
	for (int i = 0; i < runs && !settled; i++) {
		if (interrupt_requested()) {
			interrupted = true;
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
		if (test->repeat_auto && i + 1 >= REPEAT_AUTO_MIN)
			settled = spread_settled(tr);
	}
	repeat_finish(tr, settled, interrupted);
	for (size_t i = 0; i < tr->n_metrics; i++)
		metric_result_summarize(&tr->metrics[i]);
	if (tr->status == STATUS_PASS && metrics_check_expectations(test, tr))
		tr->status = STATUS_FAIL;
	command_leftovers_verdict(test, tr);
}

/*
 * Whether a try ended in an error of the infrastructure that another try
 * may clear (retry: { infra: N }): an error status (the board refused or
 * did not answer the connection, the session was lost, a push or power
 * command failed: execute.h's status rules), or a boot test whose boot
 * never reached its last phase (none over its budget). A test failure
 * (a command's exit status, a missed expectation) never is.
 */
static bool infra_retryable(const struct test *test, const struct test_result *tr)
{
	if (interrupt_requested())
		return false;
	if (tr->status == STATUS_ERROR)
		return true;
	if (test->kind != TEST_BOOT || tr->status != STATUS_FAIL || !tr->n_phases)
		return false;
	for (size_t i = 0; i < tr->n_phases; i++)
		if (tr->phases[i].over_budget)
			return false;
	return !tr->phases[tr->n_phases - 1].reached;
}

/* The files of a try that is tried again go to test_dir/attempt-N; the
 * folder relative to the run folder, or NULL when they could not move. */
static char *keep_try_logs(struct exec_context *ctx, const struct test_result *tr, int n)
{
	char *sub = log_dir_attempt(n);
	char *dest = fs_path_join(ctx->test_dir, sub);
	char err[256];
	char *rel = NULL;
	DIR *d = NULL;
	if (fs_mkdir_p(dest, err, sizeof(err)) < 0 || !(d = opendir(ctx->test_dir))) {
		log_warn("%s: %s: the logs of try %d stay where the next try writes: %s",
			 tr->board, tr->test, n, err);
		goto out;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    log_dir_is_attempt(e->d_name))
			continue;
		char *from = fs_path_join(ctx->test_dir, e->d_name);
		char *to = fs_path_join(dest, e->d_name);
		if (rename(from, to) < 0)
			log_warn("%s: %s: %s not kept for try %d: %s", tr->board, tr->test,
				 e->d_name, n, strerror(errno));
		free(from);
		free(to);
	}
	closedir(d);
	rel = tr->log_dir ? fs_path_join(tr->log_dir, sub) : xstrdup(sub);
out:
	free(dest);
	free(sub);
	return rel;
}

/* Between two tries: the pause, interrupted by Ctrl-C. */
static void backoff(int64_t ms)
{
	int64_t until = deadline_in_ms(ms);
	while (!deadline_expired(until) && !interrupt_requested()) {
		struct timespec ts = { 0, (long)deadline_poll_ms(until) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* Before the next try: a power cycle where the board has power control
 * (the link then waits for it to boot, up to the test's timeout), else the
 * link forgets it found the board down. Whether the board was cycled. */
static bool prepare_retry(struct exec_context *ctx)
{
	const struct board *b = ctx->item->board;
	struct board_caps caps;
	board_caps_of(b, &caps);
	if (caps.power) {
		char err[512];
		if (board_link_power(ctx->link, POWER_CYCLE, ctx->item->test->timeout_ms, err,
				     sizeof(err)) == 0)
			return true;
		log_warn("%s: power cycle before the next try failed: %s", b->name, err);
	}
	board_link_try_again(ctx->link);
	return false;
}

int execute_item(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	tr->start_wall_us = clock_wall_us();
	const char *why = test_unsupported(ctx->item->board, test);
	if (why) {
		tr->status = STATUS_SKIP;
		test_result_set_message(tr, "%s", why);
		tr->end_wall_us = tr->start_wall_us;
		return 0;
	}
	int tries = 1 + (test->retry_infra > 0 ? test->retry_infra : 0);
	int64_t start = clock_mono_us();
	bool cycled = false;
	for (int k = 1;; k++) {
		int64_t try_wall = clock_wall_us(), try_mono = clock_mono_us();
		execute_try(ctx, tr);
		bool again = k < tries && infra_retryable(test, tr);
		char *kept = again ? keep_try_logs(ctx, tr, k) : NULL;
		if (tries > 1)
			test_result_add_infra_attempt(tr, tr->status, tr->message, try_wall,
						      (double)(clock_mono_us() - try_mono) / 1e6,
						      cycled, kept);
		free(kept);
		if (!again)
			break;
		log_warn("%s: %s: try %d of %d ended in an infrastructure error (%s); "
			 "trying again in %.1f s", tr->board, tr->test, k, tries,
			 tr->message ? tr->message : result_status_name(tr->status),
			 (double)test->retry_backoff_ms / 1000.0);
		cycled = prepare_retry(ctx);
		backoff(test->retry_backoff_ms);
		if (interrupt_requested())
			break;   /* this try's error stays the result */
		test_result_clear_outcome(tr);
	}
	tr->flaky = tr->status == STATUS_PASS && tr->n_infra_attempts > 1;
	tr->end_wall_us = clock_wall_us();
	tr->duration_s = (double)(clock_mono_us() - start) / 1e6;
	return 0;
}
