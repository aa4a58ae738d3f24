/* `run:` tests: a shell command on the board, metrics from its output. */
#include "execute/command.h"
#include "execute/execute.h"
#include "execute/metrics.h"
#include "execute/parse_iperf3.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* iperf3 -J prints one JSON document; anything this large is not one. */
#define IPERF3_MAX_OUTPUT (16u << 20)

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : 0;
}

/* Parses what this run appended to stdout.log (repeats append). */
static void parse_iperf3_output(const char *log, off_t from, struct test_result *tr)
{
	char err[512];
	char *text = NULL;
	off_t len = file_size(log) - from;
	FILE *f = fopen(log, "r");
	if (!f || len <= 0 || len > (off_t)IPERF3_MAX_OUTPUT || fseeko(f, from, SEEK_SET) < 0) {
		snprintf(err, sizeof(err), "no iperf3 JSON output in %s", log);
		goto fail;
	}
	text = xmalloc((size_t)len + 1);
	size_t got = fread(text, 1, (size_t)len, f);
	text[got] = '\0';
	if (parse_iperf3_text(text, got, tr, err, sizeof(err)) == 0)
		goto out;
fail:
	tr->status = STATUS_FAIL;
	test_result_set_message(tr, "%s", err);
out:
	if (f)
		fclose(f);
	free(text);
}

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
	char *log = fs_path_join(ctx->test_dir, "stdout.log");
	off_t log_start = file_size(log);
	struct command_outcome out;
	if (command_run(t, &spec, &out) < 0)
		board_conn_reset(ctx->conn);
	if (command_judge(&out, test->timeout_ms, "command", mc.last_stderr, tr)) {
		const char *missing;
		if (metric_collector_commit(&mc, tr, &missing)) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "metric '%s' not found in the output", missing);
		} else if (test->parse && !strcmp(test->parse, "iperf3-json")) {
			parse_iperf3_output(log, log_start, tr);
		}
	}
	metric_collector_release(&mc);
	free(log);
	return 0;
}
