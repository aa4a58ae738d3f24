#include "execute/command.h"
#include "config/model.h"
#include "util/units.h"

#include <stdio.h>
#include <string.h>

struct command_output {
	struct output_sink *sink;
	const struct command_spec *spec;
	struct command_outcome *out;
};

/* The transport's output callback: the capture, when asked for, then the sink. */
static int command_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct command_output *co = ctx;
	struct strbuf *capture = co->spec->capture;
	if (capture && stream == TRANSPORT_STDOUT) {
		if (capture->len + len > co->spec->capture_max)
			co->out->capture_overflow = true;
		else
			strbuf_append(capture, data, len);
	}
	return output_sink_write(co->sink, stream, data, len);
}

int command_run(struct transport *t, const struct command_spec *spec,
		struct command_outcome *out)
{
	memset(out, 0, sizeof(*out));
	out->st.exit_code = -1;
	struct output_sink *sink = output_sink_open(spec->dir, spec->stdout_name,
						    spec->stderr_name, out->err, sizeof(out->err));
	if (!sink)
		return out->ret = -1;
	if (spec->line_fn)
		output_sink_set_line_fn(sink, spec->line_fn, spec->line_ctx);
	output_sink_set_limit(sink, spec->log_limit ? spec->log_limit : LOG_LIMIT_DEFAULT);
	struct command_output co = { sink, spec, out };
	struct transport_exec req = {
		.command = spec->command,
		.timeout_ms = spec->timeout_ms,
		.stdin_fd = spec->stdin_fd,
		.on_output = command_output,
		.ctx = &co,
	};
	out->ret = transport_exec(t, &req, &out->st, out->err, sizeof(out->err));
	char close_err[256];
	out->log_cut = output_sink_cut(sink);
	if (output_sink_close(sink, close_err, sizeof(close_err)) < 0 && out->ret == 0) {
		snprintf(out->err, sizeof(out->err), "%s", close_err);
		out->ret = -1;
	}
	return out->ret;
}

bool command_judge(const struct command_outcome *out, int64_t timeout_ms, const char *what,
		   const char *last_stderr, struct test_result *tr)
{
	tr->exit_code = out->st.exit_code;
	if (out->log_cut)
		tr->log_cut = true;
	if (out->ret < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", out->err);
		return false;
	}
	if (out->st.interrupted) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "interrupted; %s on %s was stopped", what,
					tr->board ? tr->board : "the board");
		return false;
	}
	if (out->st.timed_out) {
		char d[32];
		units_format_duration(timeout_ms, d, sizeof(d));
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s timed out after %s; its process group was killed",
					what, d);
		return false;
	}
	if (out->st.exit_code != 0) {
		tr->status = STATUS_FAIL;
		const char *tail = last_stderr && *last_stderr ? last_stderr : NULL;
		if (out->st.exit_code < 0)
			test_result_set_message(tr, "%s was killed by signal %d%s%s", what,
						out->st.signal, tail ? ": " : "", tail ? tail : "");
		else
			test_result_set_message(tr, "%s exited with status %d%s%s", what,
						out->st.exit_code, tail ? ": " : "", tail ? tail : "");
		return false;
	}
	return true;
}
