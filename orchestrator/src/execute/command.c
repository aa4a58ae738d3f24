#include "execute/command.h"
#include "execute/output_check.h"
#include "config/model.h"
#include "util/log.h"
#include "util/units.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* More prelude output than this without its end line: it was not ours. */
#define PRELUDE_MAX (64 * 1024)

struct command_output {
	struct output_sink *sink;
	const struct command_spec *spec;
	struct command_outcome *out;
	bool in_prelude;
	char end[48];                  /* "\nEND-LINE\n" */
	bool timed;
	struct timing_filter timing[2];   /* spec.timed: per stream, the clocks' line out */
};

static int command_pass(struct command_output *co, enum transport_stream stream,
			const char *data, size_t len);

/* A random end line, so neither the prelude's output nor a board's files
 * can end it early. */
static void prelude_end_line(char *buf, size_t len)
{
	unsigned long long r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (unsigned long long)time(NULL) * 2654435761ULL ^ (unsigned long long)getpid() ^
		    (unsigned long long)(uintptr_t)buf;
	snprintf(buf, len, "\norch-prelude-end-%016llx\n", r);
}

char *command_prelude_text(const struct command_spec *spec, const char *end)
{
	int n = (int)strlen(end) - 2;   /* without the two newlines */
	if (spec->prelude_inline)
		return xasprintf("{ %s\n} </dev/null 2>/dev/null; printf '%%s\\n%%s\\n' \"$orch_o\" "
				 "'%.*s'; unset orch_o\n%s", spec->prelude, n, end + 1, spec->command);
	return xasprintf("( %s\n) </dev/null 2>/dev/null; printf '\\n%%s\\n' '%.*s'\n%s",
			 spec->prelude, n, end + 1, spec->command);
}

/* Stdout while the prelude runs: into prelude_out up to the end line, the
 * rest on to the logs. Output that never ends (not a prelude's) goes to
 * the logs after all. */
static int prelude_feed(struct command_output *co, const char *data, size_t len)
{
	struct strbuf *pre = co->spec->prelude_out;
	strbuf_append(pre, data, len);
	size_t elen = strlen(co->end);
	const char *hit = memmem(pre->buf, pre->len, co->end, elen);
	/* The limit holds whatever the reads' sizes: an end line found past it
	 * is treated as if a later read had brought it. */
	if (hit && (size_t)(hit - pre->buf) <= PRELUDE_MAX) {
		size_t at = (size_t)(hit - pre->buf);
		size_t rest = pre->len - at - elen;
		char *tail = xmalloc(rest + 1);
		memcpy(tail, hit + elen, rest);
		pre->len = at;
		pre->buf[at] = '\0';
		co->in_prelude = false;
		co->out->prelude_done = true;
		int r = rest ? command_pass(co, TRANSPORT_STDOUT, tail, rest) : 0;
		free(tail);
		return r;
	}
	if (pre->len <= PRELUDE_MAX)
		return 0;
	co->in_prelude = false;
	int r = command_pass(co, TRANSPORT_STDOUT, pre->buf, pre->len);
	strbuf_reset(pre);
	return r;
}

static int command_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct command_output *co = ctx;
	if (co->in_prelude && stream == TRANSPORT_STDOUT)
		return prelude_feed(co, data, len);
	return command_pass(co, stream, data, len);
}

static int command_deliver(struct command_output *co, enum transport_stream stream,
			   const char *data, size_t len);

static int deliver_stdout(void *ctx, const char *data, size_t len)
{
	return command_deliver(ctx, TRANSPORT_STDOUT, data, len);
}

static int deliver_stderr(void *ctx, const char *data, size_t len)
{
	return command_deliver(ctx, TRANSPORT_STDERR, data, len);
}

/* A timed command's clocks are taken out of both streams (a console
 * transport sends stderr on stdout). */
static int command_pass(struct command_output *co, enum transport_stream stream,
			const char *data, size_t len)
{
	if (!co->timed)
		return command_deliver(co, stream, data, len);
	bool err = stream == TRANSPORT_STDERR;
	return timing_filter_feed(&co->timing[err], data, len, err ? deliver_stderr : deliver_stdout,
				  co);
}

/* The capture, when asked for, then the sink. */
static int command_deliver(struct command_output *co, enum transport_stream stream,
			   const char *data, size_t len)
{
	struct strbuf *capture = co->spec->capture;
	if (capture && stream == TRANSPORT_STDOUT) {
		if (capture->len + len > co->spec->capture_max)
			co->out->capture_overflow = true;
		else
			strbuf_append(capture, data, len);
	}
	return output_sink_write(co->sink, stream, data, len);
}

int command_run(struct transport *t, const struct command_spec *given,
		struct command_outcome *out)
{
	memset(out, 0, sizeof(*out));
	struct command_spec timed = *given;
	const struct command_spec *spec = &timed;
	char tag[32], *wrapped = NULL;
	out->st.exit_code = -1;
	struct output_sink *sink = output_sink_open(spec->dir, spec->stdout_name,
						    spec->stderr_name, out->err, sizeof(out->err));
	if (!sink)
		return out->ret = -1;
	if (given->timed) {
		timing_new_tag(tag, sizeof(tag));
		timed.command = wrapped = timing_wrap(given->command, tag);
	}
	if (spec->line_fn)
		output_sink_set_line_fn(sink, spec->line_fn, spec->line_ctx);
	if (spec->long_fn)
		output_sink_set_long_fn(sink, spec->long_fn);
	output_sink_set_limit(sink, spec->log_limit ? spec->log_limit : LOG_LIMIT_DEFAULT);
	struct command_output co = { .sink = sink, .spec = spec, .out = out, .timed = spec->timed };
	if (co.timed) {
		timing_filter_init(&co.timing[0], tag, &out->marks);
		timing_filter_init(&co.timing[1], tag, &out->marks);
	}
	char *combined = NULL;
	if (spec->prelude && spec->prelude_out) {
		prelude_end_line(co.end, sizeof(co.end));
		combined = command_prelude_text(spec, co.end);
		co.in_prelude = true;
		strbuf_reset(spec->prelude_out);
	}
	struct transport_exec req = {
		.command = combined ? combined : spec->command,
		.timeout_ms = spec->timeout_ms,
		.stdin_fd = spec->stdin_fd,
		.on_output = command_output,
		.ctx = &co,
		.minimal_env = true,
	};
	char step_id[24];
	if (spec->reap) {
		transport_new_step_id(step_id, sizeof(step_id));
		req.step_id = step_id;
		req.reap = true;
	}
	out->ret = transport_exec(t, &req, &out->st, out->err, sizeof(out->err));
	free(combined);
	if (co.in_prelude && spec->prelude_out->len) {
		/* no end line: whatever came is the command's, kept in its log */
		command_pass(&co, TRANSPORT_STDOUT, spec->prelude_out->buf, spec->prelude_out->len);
		strbuf_reset(spec->prelude_out);
	}
	if (co.timed) {
		timing_filter_finish(&co.timing[0], deliver_stdout, &co);
		timing_filter_finish(&co.timing[1], deliver_stderr, &co);
		free(wrapped);
	}
	char close_err[256];
	out->log_cut = output_sink_cut(sink);
	out->long_lines = output_sink_long_lines(sink);
	if (output_sink_close(sink, close_err, sizeof(close_err)) < 0 && out->ret == 0) {
		snprintf(out->err, sizeof(out->err), "%s", close_err);
		out->ret = -1;
	}
	return out->ret;
}

bool command_judge(const struct command_outcome *out, int64_t timeout_ms, const char *what,
		   const char *last_stderr, struct test_result *tr)
{
	return command_judge_expect(out, timeout_ms, what, last_stderr, NULL, tr);
}

/* Whether a signal that kills is one orch sends when it stops a command
 * (a timeout, Ctrl-C, a cleanup of leftovers): one orch did not send came
 * from outside the run. A crash (SEGV, ABRT, ...) is the command's own. */
static bool command_stop_signal(int sig)
{
	return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* A command killed by something other than its own run (its parent, or
 * itself by a stop signal orch did not send): an error of the rig, never
 * the command's verdict. True when it was (tr set). */
static bool command_killed_outside(const struct command_outcome *out, const char *what,
				   struct test_result *tr)
{
	const struct transport_status *st = &out->st;
	if (st->stopped)
		return false;
	if (st->parent_lost) {
		tr->status = STATUS_ERROR;
		if (st->parent_signal > 0)
			test_result_set_message(tr, "%s: its parent process was killed by signal %d "
						"from outside the run (not by orch); orch stopped it",
						what, st->parent_signal);
		else
			test_result_set_message(tr, "%s: its parent process ended before it (not "
						"by orch); orch stopped it", what);
		return true;
	}
	if (st->exit_code >= 0 || !command_stop_signal(st->signal))
		return false;
	tr->status = STATUS_ERROR;
	test_result_set_message(tr, "%s was killed by signal %d from outside the run (orch "
				"sent none)", what, st->signal);
	return true;
}

bool command_judge_expect(const struct command_outcome *out, int64_t timeout_ms,
			  const char *what, const char *last_stderr,
			  const struct output_expect *x, struct test_result *tr)
{
	tr->exit_code = out->st.exit_code;
	if (out->log_cut)
		tr->log_cut = true;
	tr->long_lines += out->long_lines;
	if (out->ret < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", out->err);
		return false;
	}
	if (out->st.interrupted) {
		tr->status = STATUS_ERROR;
		if (out->st.stop_note[0])
			test_result_set_message(tr, "interrupted; %s on %s: %s", what,
						tr->board ? tr->board : "the board",
						out->st.stop_note);
		else
			test_result_set_message(tr, "interrupted; %s on %s was stopped", what,
						tr->board ? tr->board : "the board");
		return false;
	}
	if (out->st.timed_out) {
		char d[32];
		units_format_duration(timeout_ms, d, sizeof(d));
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s timed out after %s; %s", what, d,
					out->st.stop_note[0] ? out->st.stop_note
							     : "its process group was killed");
		return false;
	}
	if (command_killed_outside(out, what, tr))
		return false;
	if (out->st.exit_code < 0 || !output_expect_exit_ok(x, out->st.exit_code)) {
		tr->status = STATUS_FAIL;
		const char *tail = last_stderr && *last_stderr ? last_stderr : NULL;
		char codes[64];
		if (out->st.exit_code < 0)
			test_result_set_message(tr, "%s was killed by signal %d%s%s", what,
						out->st.signal, tail ? ": " : "", tail ? tail : "");
		else if (x && x->n_exit_codes)
			test_result_set_message(tr, "expect exit_code %s: %s exited with status %d%s%s",
						output_expect_exit_text(x, codes, sizeof(codes)),
						what, out->st.exit_code, tail ? "; last stderr: " : "",
						tail ? tail : "");
		else
			test_result_set_message(tr, "%s exited with status %d%s%s", what,
						out->st.exit_code, tail ? ": " : "", tail ? tail : "");
		return false;
	}
	return true;
}

void command_leftovers(const struct command_outcome *out, const char *board, const char *step,
		       struct test_result *tr)
{
	const struct transport_leftovers *l = &out->st.leftovers;
	if (out->ret < 0 || (!l->n && !l->unconfirmed))
		return;
	char *text;
	if (l->n)
		text = xasprintf("%s%s%s%s", step ? step : "", step ? ": " : "", l->list,
				 l->unconfirmed ? " (not confirmed stopped)" : "");
	else
		text = xasprintf("%s%snot checked: %s", step ? step : "", step ? ": " : "",
				 l->list[0] ? l->list : "the board did not answer");
	test_result_add_leftover(tr, text);
	/* a check that gets no answer usually fails for every test run of a
	 * loaded controller: the log says it once, summary.txt counts them */
	static atomic_bool unchecked_said;
	if (!l->n && !atomic_exchange(&unchecked_said, true))
		log_warn("%s %s: processes left running not checked: %s (said once a run; the "
			 "summary counts every test run not checked)", board, tr->test ? tr->test : "",
			 l->list[0] ? l->list : "the board did not answer");
	if (l->n)
		log_warn("%s %s: left %d process%s running after it ended; orch stopped %s: %s",
			 board, tr->test ? tr->test : "", l->n, l->n == 1 ? "" : "es",
			 l->n == 1 ? "it" : "them", text);
	free(text);
}

void command_leftovers_verdict(const struct test *test, struct test_result *tr)
{
	if (!test->leftovers_fail || !tr->n_leftovers || tr->status != STATUS_PASS)
		return;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < tr->n_leftovers; i++) {
		if (i)
			strbuf_puts(&sb, "; ");
		strbuf_puts(&sb, tr->leftovers[i]);
	}
	tr->status = STATUS_FAIL;
	test_result_set_message(tr, "left processes running after it ended (leftovers: fail); "
				"orch stopped them: %s", strbuf_str(&sb));
	strbuf_release(&sb);
}
