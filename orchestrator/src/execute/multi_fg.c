/*
 * Foreground steps of a multi-host test, and the files a step pushes to its
 * boards and fetches back: a foreground step runs to its end on the
 * board's foreground connection, its output logged per role and fed to the
 * test's metrics (on the item's own board), its parse: and its expect:.
 */
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/multi_int.h"
#include "execute/output.h"
#include "execute/parse_iperf3.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARSE_CAPTURE_MAX (64u << 20)

/* Line callback state of one foreground step. */
struct fg_lines {
	struct metric_collector *metrics;  /* the test's regexes, or NULL */
	struct metric_collector *bench;    /* parse: remote-bench, or NULL */
	struct output_checker *checks;     /* the step's expect:, or NULL */
	struct tail tail;
	char last_stderr[256];
};

/* The step's push: files to b, before it runs. 0, or -1 with the outcome set. */
int multi_step_push(struct multi_run *mr, const struct step *step,
		    const struct role_binding *rb, const struct board *b)
{
	char err[1024];
	struct transport *t;
	if (!step->n_push)
		return 0;
	if (multi_peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < step->n_push; i++) {
		bool infra = false;
		if (artifact_push(t, b, &step->push[i], step->timeout_ms, &infra, NULL, err,
				  sizeof(err)) < 0) {
			if (infra)
				multi_peer_lost(mr, b);
			multi_set_outcome(mr, infra ? STATUS_ERROR : STATUS_FAIL,
					  "%s step '%s' on %s: %s", rb->role->name,
					  multi_step_text(step), b->name, err);
			return -1;
		}
	}
	return 0;
}

/* The step's fetch: files from b into the test's folder, under ROLE/ (or
 * ROLE.BOARD/ when the role has several boards) unless b is the test's own
 * board. Whatever the step's outcome; the first failure is the test's. */
void multi_step_fetch(struct multi_run *mr, const struct step *step,
		      const struct role_binding *rb, const struct board *b)
{
	char err[1024];
	struct transport *t;
	if (!step->n_fetch)
		return;
	if (multi_peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s", err);
		return;
	}
	for (size_t i = 0; i < step->n_fetch; i++) {
		struct artifact a = step->fetch[i];
		char *dest = multi_is_own_board(mr, rb, b) ? xstrdup(a.dest)
			     : rb->n_boards > 1 ? xasprintf("%s.%s/%s", rb->role->name, b->name, a.dest)
			     : xasprintf("%s/%s", rb->role->name, a.dest);
		a.dest = dest;
		bool infra = false;
		if (artifact_fetch(t, b, &a, mr->ctx->test_dir, step->timeout_ms, &infra, err,
				   sizeof(err)) == 0) {
			test_result_add_artifact(mr->tr, dest);
		} else {
			if (infra)
				multi_peer_lost(mr, b);
			bool was = mr->failed;
			mr->failed = false;    /* a fetch after a failed step still reports */
			if (!was || mr->tr->status == STATUS_PASS)
				multi_set_outcome(mr, infra ? STATUS_ERROR : STATUS_FAIL,
						  "%s step '%s' on %s: %s", rb->role->name,
						  multi_step_text(step), b->name, err);
			mr->failed = true;
		}
		free(dest);
		if (infra)
			break;
	}
}


static int fg_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct fg_lines *fl = ctx;
	multi_tail_add(&fl->tail, line);
	if (stream == TRANSPORT_STDERR && *line)
		snprintf(fl->last_stderr, sizeof(fl->last_stderr), "%s", line);
	if (fl->metrics)
		metric_collector_line(fl->metrics, stream, line);
	if (fl->bench)
		metric_collector_line(fl->bench, stream, line);
	if (fl->checks)
		output_checker_line(fl->checks, stream, line);
	return 0;
}

static void fg_long(void *ctx, enum transport_stream stream, const char *head, uint64_t len)
{
	struct fg_lines *fl = ctx;
	if (fl->checks)
		output_checker_long(fl->checks, stream, head, len);
}

void multi_fg_run(struct multi_run *mr, const struct step *step, const struct role_binding *rb,
		  const struct board *b)
{
	char err[512];
	struct transport *t;
	if (multi_peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s", err);
		return;
	}
	char *cmd = multi_step_command(mr, step, rb, b, err, sizeof(err));
	if (!cmd) {
		multi_set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s: %s", rb->role->name,
				  multi_step_text(step), b->name, err);
		return;
	}
	bool iperf3 = step->parse && !strcmp(step->parse, "iperf3-json");
	bool bench = (step->bench && !step->parse) ||
		     (step->parse && !strcmp(step->parse, "remote-bench"));
	struct test no_specs;
	memset(&no_specs, 0, sizeof(no_specs));
	struct metric_collector bench_mc;
	metric_collector_init(&bench_mc, &no_specs, true);
	struct fg_lines fl;
	memset(&fl, 0, sizeof(fl));
	fl.metrics = b == mr->item->board ? &mr->metrics : NULL;
	fl.bench = bench ? &bench_mc : NULL;
	struct output_checker checks;
	bool has_checks = output_expect_any(&step->output);
	if (has_checks) {
		output_checker_init(&checks, &step->output);
		fl.checks = &checks;
	}
	struct strbuf capture = STRBUF_INIT;
	char *out_name, *err_name;
	multi_log_names(mr, rb, b, &out_name, &err_name);
	struct command_spec spec = {
		.command = cmd, .timeout_ms = step->timeout_ms, .stdin_fd = -1,
		.dir = mr->ctx->test_dir, .stdout_name = out_name, .stderr_name = err_name,
		.line_fn = fg_line, .line_ctx = &fl, .long_fn = fg_long,
		.capture = iperf3 ? &capture : NULL, .capture_max = PARSE_CAPTURE_MAX,
		.reap = true,
	};
	struct command_outcome out;
	if (command_run(t, &spec, &out) < 0)
		multi_peer_lost(mr, b);
	char *what = xasprintf("%s step '%s' on %s", rb->role->name, multi_step_text(step),
			       b->name);
	command_leftovers(&out, b->name, what, mr->tr);
	struct test_result verdict;
	memset(&verdict, 0, sizeof(verdict));
	mr->tr->long_lines += out.long_lines;
	if (!command_judge_expect(&out, step->timeout_ms, what, fl.last_stderr, &step->output,
				  &verdict)) {
		multi_set_outcome(mr, verdict.status, "%s",
				  verdict.message ? verdict.message : what);
		mr->tr->exit_code = verdict.exit_code;
	} else {
		mr->tr->exit_code = verdict.exit_code;
		if (iperf3) {
			if (out.capture_overflow)
				multi_set_outcome(mr, STATUS_FAIL,
						  "%s: output too large for iperf3 JSON", what);
			else if (parse_iperf3_text(strbuf_str(&capture), capture.len, mr->tr, err,
						   sizeof(err)) < 0)
				multi_set_outcome(mr, STATUS_FAIL, "%s: %s", what, err);
		}
		if (bench) {
			if (!bench_mc.n_values)
				multi_set_outcome(mr, STATUS_FAIL,
						  "%s: no remote-bench metric lines in its "
						  "output", what);
			else
				(void)metric_collector_commit(&bench_mc, mr->tr);
		}
		char why[512];
		if (has_checks && output_checker_verdict(&checks, why, sizeof(why)) < 0)
			multi_set_outcome(mr, STATUS_FAIL, "%s: %s", what, why);
	}
	if (has_checks)
		output_checker_release(&checks);
	test_result_release(&verdict);
	free(what);
	free(out_name);
	free(err_name);
	strbuf_release(&capture);
	metric_collector_release(&bench_mc);
	free(cmd);
}

