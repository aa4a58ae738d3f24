/* `run:` tests: a shell command on the board, metrics from its output. */
#include "execute/command.h"
#include "execute/execute.h"
#include "execute/metrics.h"

#include <string.h>

int execute_run(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	struct transport *t;
	char err[512];
	if (board_conn_get(ctx->conn, &t, err, sizeof(err)) < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", err);
		return 0;
	}
	struct metric_collector mc;
	metric_collector_init(&mc, test, test->parse && !strcmp(test->parse, "remote-bench"));
	struct command_spec spec = {
		.command = test->run,
		.timeout_ms = test->timeout_ms,
		.stdin_fd = -1,
		.dir = ctx->test_dir,
		.stdout_name = "stdout.log",
		.stderr_name = "stderr.log",
		.line_fn = metric_collector_line,
		.line_ctx = &mc,
	};
	struct command_outcome out;
	if (command_run(t, &spec, &out) < 0)
		board_conn_reset(ctx->conn);
	if (command_judge(&out, test->timeout_ms, "command", mc.last_stderr, tr)) {
		const char *missing;
		if (metric_collector_commit(&mc, tr, &missing)) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "metric '%s' not found in the output", missing);
		}
	}
	metric_collector_release(&mc);
	return 0;
}
