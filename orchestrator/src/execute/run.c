/* `run:` tests: a shell command on the board, metrics from its output. */
#include "execute/command.h"
#include "execute/execute.h"
#include "execute/metrics.h"
#include "execute/parse_iperf3.h"
#include "util/strbuf.h"

#include <string.h>

/* iperf3 -J prints one JSON document; anything this large is not one. */
#define IPERF3_MAX_OUTPUT (16u << 20)

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
	bool iperf3 = test->parse && !strcmp(test->parse, "iperf3-json");
	struct strbuf capture = STRBUF_INIT;
	if (iperf3) {
		spec.capture = &capture;
		spec.capture_max = IPERF3_MAX_OUTPUT;
	}
	struct command_outcome out;
	if (command_run(t, &spec, &out) < 0)
		board_conn_reset(ctx->conn);
	if (command_judge(&out, test->timeout_ms, "command", mc.last_stderr, tr)) {
		const char *missing;
		if (metric_collector_commit(&mc, tr, &missing)) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "metric '%s' not found in the output", missing);
		} else if (iperf3 && out.capture_overflow) {
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
	return 0;
}
