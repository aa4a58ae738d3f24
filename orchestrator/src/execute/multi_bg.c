/*
 * Background steps of a multi-host test: each runs in its own thread over
 * its own connection (from the board's link), prints its ready: pattern
 * before the next step starts, and is stopped when the test ends.
 *
 * Stopping a background step: its cancel flag is set (the transport kills
 * the remote process group within a tick); if the exec has not returned
 * after BG_CANCEL_WAIT_MS, the process group (learnt from a first stderr
 * line the wrapper prints, never logged) is killed over another
 * connection. A background step with a ready: pattern runs under
 * `stdbuf -oL -eL` where the board has it, so a program that block-buffers
 * a pipe (iperf3 -s) still shows its ready line at once.
 */
#include "execute/multi_int.h"
#include "execute/output.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/shquote.h"
#include "util/units.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BG_CANCEL_WAIT_MS 3000   /* the transport's own TERM, 1 s, KILL comes first */
#define BG_KILL_WAIT_MS 10000
#define BG_KILL_TIMEOUT_MS 10000
#define WAIT_SLICE_MS 10
#define PGID_TAG "orch-bg-pgid "

struct bg_step {
	const struct step *step;
	const struct board *board;
	const char *role;
	char *command;                 /* as sent: the pgid line, then the step */
	struct transport *t;           /* its own connection, used by its thread only */
	struct board_link *link;       /* where t came from (put back there), or NULL */
	struct output_sink *sink;
	pthread_t thread;
	bool started;
	atomic_int cancel;
	pthread_mutex_t lock;          /* guards what follows */
	bool ready;
	bool ready_limit;              /* the ready regex hit PCRE2's limit on a line */
	uint64_t long_lines;           /* lines too long for matching */
	bool done;
	int64_t started_ms;            /* its first output came (the pgid line: the command
					  started on the board), clock_mono_ms; 0 before */
	bool stop_requested;           /* we ended it: its exit status does not count */
	long pgid;
	struct tail tail;
	int ret;                       /* transport_exec's */
	struct transport_status st;
	char err[512];
	/* the first output, and the pgid line at the head of stderr; touched by
	 * the thread only */
	bool output_seen;
	char head[48];
	size_t head_len;
	bool head_done;
};

static int bg_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct bg_step *bg = ctx;
	pthread_mutex_lock(&bg->lock);
	multi_tail_add(&bg->tail, line);
	if (!bg->ready && !bg->ready_limit && bg->step->ready_src) {
		int rc = orch_regex_exec(&bg->step->ready, line, strlen(line), NULL, 0);
		if (rc == ORCH_REGEX_MATCHED)
			bg->ready = true;
		else if (rc == ORCH_REGEX_ELIMIT)
			bg->ready_limit = true;
	}
	pthread_mutex_unlock(&bg->lock);
	return 0;
}

static void bg_long_line(void *ctx, enum transport_stream stream, const char *head,
			 uint64_t len)
{
	struct bg_step *bg = ctx;
	(void)stream;
	(void)head;
	(void)len;
	pthread_mutex_lock(&bg->lock);
	bg->long_lines++;
	pthread_mutex_unlock(&bg->lock);
}

/* The transport's output callback: takes the pgid line off the head of
 * stderr, passes the rest to the sink. */
static int bg_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct bg_step *bg = ctx;
	if (!bg->output_seen) {
		bg->output_seen = true;
		pthread_mutex_lock(&bg->lock);
		bg->started_ms = clock_mono_ms();
		pthread_mutex_unlock(&bg->lock);
	}
	if (stream == TRANSPORT_STDERR && !bg->head_done) {
		while (len && !bg->head_done) {
			char c = *data++;
			len--;
			if (c != '\n' && bg->head_len + 1 < sizeof(bg->head)) {
				bg->head[bg->head_len++] = c;
				continue;
			}
			bg->head[bg->head_len] = '\0';
			bg->head_done = true;
			if (!strncmp(bg->head, PGID_TAG, strlen(PGID_TAG))) {
				pthread_mutex_lock(&bg->lock);
				bg->pgid = strtol(bg->head + strlen(PGID_TAG), NULL, 10);
				pthread_mutex_unlock(&bg->lock);
			} else {
				/* not ours after all: it is the command's output */
				output_sink_write(bg->sink, stream, bg->head, bg->head_len);
				if (c == '\n')
					output_sink_write(bg->sink, stream, "\n", 1);
				else
					output_sink_write(bg->sink, stream, &c, 1);
			}
		}
		if (!len)
			return 0;
	}
	return output_sink_write(bg->sink, stream, data, len);
}

static void *bg_thread(void *arg)
{
	struct bg_step *bg = arg;
	struct transport_exec req = {
		.command = bg->command,
		.timeout_ms = bg->step->timeout_ms,
		.stdin_fd = -1,
		.own_channel = true,   /* its pgid line needs a shell of its own */
		.on_output = bg_output,
		.ctx = bg,
		.cancel = &bg->cancel,
	};
	struct transport_status st;
	memset(&st, 0, sizeof(st));
	st.exit_code = -1;
	char err[512] = "";
	int ret = transport_exec(bg->t, &req, &st, err, sizeof(err));
	char cerr[256];
	output_sink_close(bg->sink, cerr, sizeof(cerr));
	bg->sink = NULL;
	pthread_mutex_lock(&bg->lock);
	bg->ret = ret;
	bg->st = st;
	snprintf(bg->err, sizeof(bg->err), "%s", err);
	bg->done = true;
	pthread_mutex_unlock(&bg->lock);
	return NULL;
}

static bool bg_is_done(struct bg_step *bg)
{
	pthread_mutex_lock(&bg->lock);
	bool done = bg->done;
	pthread_mutex_unlock(&bg->lock);
	return done;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Waits until every background step is done or deadline; true when all are. */
static bool bg_wait_all(struct multi_run *mr, int64_t deadline)
{
	for (;;) {
		bool all = true;
		for (size_t i = 0; i < mr->n_bgs; i++)
			if (mr->bgs[i]->started && !bg_is_done(mr->bgs[i]))
				all = false;
		if (all)
			return true;
		if (deadline_expired(deadline))
			return false;
		sleep_ms(WAIT_SLICE_MS);
	}
}

/* Kills bg's remote process group over another connection (the transport
 * did not stop it on cancel). */
static void bg_kill_group(struct multi_run *mr, struct bg_step *bg)
{
	pthread_mutex_lock(&bg->lock);
	long pgid = bg->pgid;
	pthread_mutex_unlock(&bg->lock);
	if (pgid <= 1) {
		log_warn("%s: background step '%s' on %s did not stop and its process group "
			 "is unknown", mr->item->test->name, multi_step_text(bg->step),
			 bg->board->name);
		return;
	}
	char err[512];
	struct transport *t;
	if (multi_peer_transport(mr, bg->board, &t, err, sizeof(err)) < 0) {
		log_warn("%s: cannot stop background step '%s' on %s: %s", mr->item->test->name,
			 multi_step_text(bg->step), bg->board->name, err);
		return;
	}
	char *cmd = xasprintf("kill -TERM -%ld 2>/dev/null || exit 0; for i in 1 2 3 4 5 6 7 8 9 10; "
			      "do sleep 0.1; kill -0 -%ld 2>/dev/null || exit 0; done; "
			      "kill -KILL -%ld 2>/dev/null; true", pgid, pgid, pgid);
	char *out = NULL;
	int code;
	if (transport_capture(t, cmd, BG_KILL_TIMEOUT_MS, 4096, &out, &code, err,
			      sizeof(err)) < 0) {
		log_warn("%s: cannot stop background step '%s' on %s: %s", mr->item->test->name,
			 multi_step_text(bg->step), bg->board->name, err);
		multi_peer_lost(mr, bg->board);
	}
	free(out);
	free(cmd);
}

static void bg_free(struct bg_step *bg)
{
	if (!bg)
		return;
	if (bg->link)
		board_link_put_extra(bg->link, bg->t);
	else
		transport_free(bg->t);
	free(bg->command);
	pthread_mutex_destroy(&bg->lock);
	free(bg);
}

static void bg_free_cb(void *arg)
{
	bg_free(arg);
}

/* Stops every background step, whatever state the test is in. */
void multi_bg_stop_all(struct multi_run *mr)
{
	if (!mr->n_bgs)
		return;
	for (size_t i = 0; i < mr->n_bgs; i++) {
		struct bg_step *bg = mr->bgs[i];
		pthread_mutex_lock(&bg->lock);
		if (!bg->done)
			bg->stop_requested = true;
		pthread_mutex_unlock(&bg->lock);
		atomic_store(&bg->cancel, 1);
	}
	if (!bg_wait_all(mr, deadline_in_ms(BG_CANCEL_WAIT_MS))) {
		for (size_t i = 0; i < mr->n_bgs; i++)
			if (mr->bgs[i]->started && !bg_is_done(mr->bgs[i]))
				bg_kill_group(mr, mr->bgs[i]);
		bg_wait_all(mr, deadline_in_ms(BG_KILL_WAIT_MS));
	}
	for (size_t i = 0; i < mr->n_bgs; i++) {
		struct bg_step *bg = mr->bgs[i];
		if (!bg->started) {
			bg_free(bg);
		} else if (bg_is_done(bg)) {
			pthread_join(bg->thread, NULL);
			mr->tr->long_lines += bg->long_lines;
			bg_free(bg);
		} else {
			/* Still stuck in its exec: its board's link joins it at the end
			 * of the run, before the scenario it reads is freed. */
			log_warn("%s: background step '%s' on %s could not be stopped yet",
				 mr->item->test->name, multi_step_text(bg->step), bg->board->name);
			struct board_link *bl = bg->link ? bg->link : mr->ctx->link;
			board_link_adopt(bl, bg->thread, bg_free_cb, bg);
		}
		mr->bgs[i] = NULL;
	}
	mr->n_bgs = 0;
}

/* A finished background step that ended on its own, badly: fail the test. */
static void bg_judge(struct multi_run *mr, struct bg_step *bg)
{
	pthread_mutex_lock(&bg->lock);
	bool ours = bg->stop_requested || !bg->done;
	int ret = bg->ret;
	struct transport_status st = bg->st;
	char *last = multi_tail_text(&bg->tail);
	pthread_mutex_unlock(&bg->lock);
	if (ours || st.interrupted) {
		free(last);
		return;
	}
	if (ret < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role,
				  multi_step_text(bg->step), bg->board->name, bg->err);
	} else if (st.timed_out) {
		char d[32];
		units_format_duration(bg->step->timeout_ms, d, sizeof(d));
		multi_set_outcome(mr, STATUS_FAIL,
				  "%s step '%s' on %s timed out after %s; last output: %s",
				  bg->role, multi_step_text(bg->step), bg->board->name, d, last);
	} else if (st.exit_code != 0) {
		multi_set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s exited with status %d; "
				  "last output: %s", bg->role, multi_step_text(bg->step),
				  bg->board->name, st.exit_code, last);
	}
	free(last);
}


void multi_bg_judge_all(struct multi_run *mr)
{
	for (size_t i = 0; i < mr->n_bgs; i++)
		if (mr->bgs[i]->started && !mr->failed)
			bg_judge(mr, mr->bgs[i]);
}

/* The background steps that fetch files (before multi_bg_stop_all frees them). */
struct bg_fetch *multi_bg_fetches(const struct multi_run *mr, size_t *n)
{
	struct bg_fetch *f = xcalloc(mr->n_bgs + 1, sizeof(*f));
	*n = 0;
	for (size_t i = 0; i < mr->n_bgs; i++)
		if (mr->bgs[i]->started && mr->bgs[i]->step->n_fetch)
			f[(*n)++] = (struct bg_fetch){ mr->bgs[i]->step, mr->bgs[i]->board };
	return f;
}

void multi_bg_fetch_all(struct multi_run *mr, const struct bg_fetch *f, size_t n)
{
	for (size_t i = 0; i < n && !interrupt_requested(); i++) {
		const struct role_binding *rb = multi_find_role(mr->item, f[i].step->on);
		if (rb && rb->role)
			multi_step_fetch(mr, f[i].step, rb, f[i].board);
	}
}

/* Waits for bg's ready pattern, its ready_timeout counted from the moment
 * the command started on its board (its first output), however long the
 * exec took to get there (the exec's own bounds, connect and step timeout,
 * end it as done). True once it printed the pattern, false when it ended,
 * hit the regex limit, timed out or the run was interrupted first. */
static bool bg_wait_ready(struct bg_step *bg)
{
	for (;;) {
		pthread_mutex_lock(&bg->lock);
		bool ready = bg->ready, done = bg->done, limit = bg->ready_limit;
		int64_t started = bg->started_ms;
		pthread_mutex_unlock(&bg->lock);
		if (ready)
			return true;
		bool late = started && clock_mono_ms() - started >= bg->step->ready_timeout_ms;
		if (done || limit || late || interrupt_requested())
			return false;
		sleep_ms(WAIT_SLICE_MS);
	}
}

/* bg did not print its ready pattern: the test's outcome says why. */
static void bg_not_ready(struct multi_run *mr, struct bg_step *bg)
{
	const struct step *step = bg->step;
	const struct board *b = bg->board;
	pthread_mutex_lock(&bg->lock);
	char *last = multi_tail_text(&bg->tail);
	bool done = bg->done;
	int ret = bg->ret;
	struct transport_status st = bg->st;
	bool limit = bg->ready_limit;
	uint64_t longs = bg->long_lines;
	pthread_mutex_unlock(&bg->lock);
	char d[32], why[160] = "";
	units_format_duration(step->ready_timeout_ms, d, sizeof(d));
	if (longs) {
		memcpy(why, " (", 3);
		output_long_lines_text(longs, why + 2, sizeof(why) - 3);
		strcat(why, ")");
	}
	if (limit) {
		multi_set_outcome(mr, STATUS_FAIL,
				  "%s step '%s' on %s: ready pattern '%s' hit PCRE2's match limit "
				  "on a line of its output; make the regex more specific",
				  bg->role, multi_step_text(step), b->name, step->ready_src);
	} else if (interrupt_requested()) {
		multi_set_outcome(mr, STATUS_ERROR,
				  "interrupted while waiting for %s step '%s' on %s", bg->role,
				  multi_step_text(step), b->name);
	} else if (done && ret < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role,
				  multi_step_text(step), b->name, bg->err);
	} else if (done) {
		multi_set_outcome(mr, STATUS_FAIL,
				  "%s step '%s' on %s ended (exit status %d) before "
				  "printing ready pattern '%s'%s; last output: %s", bg->role,
				  multi_step_text(step), b->name, st.exit_code, step->ready_src,
				  why, last);
	} else {
		multi_set_outcome(mr, STATUS_FAIL,
				  "%s step '%s' on %s never printed ready pattern '%s' "
				  "within %s%s; last output: %s", bg->role, multi_step_text(step),
				  b->name, step->ready_src, d, why, last);
	}
	free(last);
}

/* Starts step on b in the background and waits for its ready pattern. */
void multi_bg_start(struct multi_run *mr, const struct step *step,
		    const struct role_binding *rb, const struct board *b)
{
	char err[512];
	char *cmd = multi_step_command(mr, step, rb, b, err, sizeof(err));
	if (!cmd) {
		multi_set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s: %s", rb->role->name,
				  multi_step_text(step), b->name, err);
		return;
	}
	struct bg_step *bg = xcalloc(1, sizeof(*bg));
	pthread_mutex_init(&bg->lock, NULL);
	bg->step = step;
	bg->board = b;
	bg->role = rb->role->name;
	if (step->ready_src) {
		char *q = shquote(cmd);
		bg->command = xasprintf("echo " PGID_TAG "$$ >&2; if command -v stdbuf >/dev/null "
					"2>&1; then exec stdbuf -oL -eL /bin/sh -c %s; "
					"else exec /bin/sh -c %s; fi", q, q);
		free(q);
	} else {
		bg->command = xasprintf("echo " PGID_TAG "$$ >&2; %s", cmd);
	}
	free(cmd);
	mr->bgs = xrealloc(mr->bgs, (mr->n_bgs + 1) * sizeof(*mr->bgs));
	mr->bgs[mr->n_bgs++] = bg;

	bg->link = multi_link(mr, b);
	if (b->transport != TRANSPORT_KIND_SERIAL)   /* its facts, over its link's session */
		(void)multi_peer_transport(mr, b, &bg->t, err, sizeof(err));
	bg->t = board_link_get_extra(bg->link, mr->item->test->timeout_ms, err, sizeof(err));
	exec_note_orphans(bg->link, mr->tr);
	if (!bg->t) {
		multi_set_outcome(mr, STATUS_ERROR, "cannot start %s step '%s' on %s: %s", bg->role,
				  multi_step_text(step), b->name, err);
		return;
	}
	char *out_name, *err_name;
	multi_log_names(mr, rb, b, &out_name, &err_name);
	bg->sink = output_sink_open(mr->ctx->test_dir, out_name, err_name, err, sizeof(err));
	free(out_name);
	free(err_name);
	if (!bg->sink) {
		multi_set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role,
				  multi_step_text(step), b->name, err);
		return;
	}
	output_sink_set_line_fn(bg->sink, bg_line, bg);
	output_sink_set_long_fn(bg->sink, bg_long_line);
	if (pthread_create(&bg->thread, NULL, bg_thread, bg) != 0) {
		output_sink_close(bg->sink, err, sizeof(err));
		bg->sink = NULL;
		multi_set_outcome(mr, STATUS_ERROR, "cannot start a thread for %s step '%s'",
				  bg->role, multi_step_text(step));
		return;
	}
	bg->started = true;
	if (step->ready_src && !bg_wait_ready(bg))
		bg_not_ready(mr, bg);
}
