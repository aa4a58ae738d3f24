/* `run:` tests: a shell command on the board, metrics from its output. */
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/context.h"
#include "execute/executors.h"
#include "execute/facts.h"
#include "execute/metrics.h"
#include "execute/parse_iperf3.h"
#include "execute/timing.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "util/log_dir.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* iperf3 -J prints one JSON document; anything this large is not one. */
#define IPERF3_MAX_OUTPUT (16u << 20)

struct run_arch {
	struct exec_context *ctx;
	struct transport *t;
};

/* {board.arch} of a board whose inventory has none: `uname -m`, kept. */
static int run_arch(void *arg, const struct board *b, const char **arch, char *err,
		    size_t errlen)
{
	struct run_arch *ra = arg;
	struct board_link *bc = ra->ctx->link;
	(void)b;
	if (exec_machine(ra->t, 10000, &bc->arch, err, errlen) < 0)
		return -1;
	*arch = bc->arch;
	return 0;
}

/* {board.host}: the address the link connected to. */
static const char *link_host(void *ctx, const struct board *b)
{
	(void)b;
	return board_link_host(ctx);
}

/* rate_of: metrics from the time the command took, and which clock said
 * so, beside orch's own, in the test's timing.log (a line per run). */
static void run_rates(struct exec_context *ctx, const struct command_outcome *out,
		      struct metric_collector *mc)
{
	enum timing_source src;
	double secs = timing_seconds(&out->marks, out->st.duration_us, &src);
	metric_collector_rates(mc, secs, timing_source_name(src));
	char *path = xasprintf("%s/timing.log", ctx->test_dir);
	FILE *f = fopen(path, "a");
	if (f) {
		fprintf(f, "%.6f s by %s; orch's clock around the exec: %.6f s\n", secs,
			timing_source_name(src), (double)out->st.duration_us / 1e6);
		fclose(f);
	}
	free(path);
}

int execute_run(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	struct transport *t;
	char err[512];
	bool ride;
	if (exec_transport_ride(ctx, tr, &t, &ride, err, sizeof(err)) < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", err);
		return 0;
	}
	struct run_arch ra = { ctx, t };
	struct vars_ctx vc = { test, ctx->item->board };
	struct subst_env env = { .board = ctx->item->board, .arch_fn = run_arch, .arch_ctx = &ra,
				 .lookup = vars_lookup, .lookup_ctx = &vc,
				 .host_fn = link_host, .host_ctx = ctx->link };
	char *with_env = vars_env_prefix(test->env, test->n_env, NULL, 0, test->run);
	char *command = substitute(with_env, &env, err, sizeof(err));
	free(with_env);
	if (!command) {
		facts_ride_end(ctx, t, 0, false, NULL);
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s", err);
		return 0;
	}
	if (artifact_push_all(t, ctx->item->board, test, tr) < 0) {
		/* a board that failed the push is asked again by its next test */
		facts_ride_end(ctx, t, tr->status == STATUS_ERROR ? -1 : 0, false, NULL);
		free(command);
		return 0;
	}
	struct metric_collector mc;
	metric_collector_init(&mc, test, test->parse && !strcmp(test->parse, "remote-bench"));
	struct command_spec spec = {
		.command = command,
		.timeout_ms = test->timeout_ms,
		.stdin_fd = -1,
		.dir = ctx->test_dir,
		.stdout_name = LOG_DIR_STDOUT,
		.stderr_name = LOG_DIR_STDERR,
		.line_fn = metric_collector_line,
		.line_ctx = &mc,
		.long_fn = metric_collector_long,
		.log_limit = test->log_limit,
		.reap = true,
	};
	bool iperf3 = test->parse && !strcmp(test->parse, "iperf3-json");
	struct strbuf capture = STRBUF_INIT;
	if (iperf3) {
		spec.capture = &capture;
		spec.capture_max = IPERF3_MAX_OUTPUT;
	}
	struct strbuf facts_out = STRBUF_INIT;
	char *facts_cmd = ride ? facts_prelude(ctx->item->board->workdir) : NULL;
	spec.prelude = facts_cmd;
	spec.prelude_out = ride ? &facts_out : NULL;
	spec.prelude_inline = true;
	spec.timed = metric_collector_timed(&mc);
	struct command_outcome out;
	int ran = command_run(t, &spec, &out);
	if (spec.timed && ran == 0)
		run_rates(ctx, &out, &mc);
	facts_ride_end(ctx, t, ran, out.prelude_done, strbuf_str(&facts_out));
	strbuf_release(&facts_out);
	free(facts_cmd);
	if (exec_conclude(ctx, t, ran, &out, "command", &mc, tr)) {
		if (iperf3 && out.capture_overflow) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "output too large for iperf3 JSON");
		} else if (iperf3 && parse_iperf3_text(strbuf_str(&capture), capture.len, tr, err,
							sizeof(err)) < 0) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "%s", err);
		}
	}
	metric_collector_release(&mc);
	strbuf_release(&capture);
	free(command);
	return 0;
}
