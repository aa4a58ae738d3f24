/*
 * Multi-host tests (roles: + steps:): the steps run in order, each on the
 * boards of its role. A background step runs in its own thread over its own
 * connection and must print its ready: pattern before the next step starts;
 * every background step is stopped when the test ends, however it ends.
 *
 * Stopping a background step: its cancel flag is set (the transport kills
 * the remote process group within a tick); if the exec has not returned
 * after BG_CANCEL_WAIT_MS, the process group (learnt from a first stderr
 * line the wrapper prints, never logged) is killed over another
 * connection. A background step with a ready: pattern runs under
 * `stdbuf -oL -eL` where the board has it, so a program that block-buffers
 * a pipe (iperf3 -s) still shows its ready line at once.
 *
 * Logs: steps on the item's own board (the `each` role) write stdout.log /
 * stderr.log; other roles write ROLE.stdout.log (or ROLE.BOARD.stdout.log
 * when the role has several boards).
 */
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/execute.h"
#include "execute/metrics.h"
#include "execute/output.h"
#include "execute/parse_iperf3.h"
#include "execute/substitute.h"
#include "execute/vars.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BG_CANCEL_WAIT_MS 3000   /* the transport's own TERM, 1 s, KILL comes first */
#define BG_KILL_WAIT_MS 10000
#define BG_KILL_TIMEOUT_MS 10000
#define WAIT_SLICE_MS 10
#define TAIL_LINES 3
#define TAIL_LINE_MAX 160
#define PARSE_CAPTURE_MAX (64u << 20)
#define PGID_TAG "orch-bg-pgid "

/* The last few lines of output, for "last output: ..." in messages. */
struct tail {
	char lines[TAIL_LINES][TAIL_LINE_MAX];
	int next;
	int n;
};

/* A board of this item with the connection its foreground steps use. */
struct peer {
	const struct board *board;
	struct transport *t;           /* owned unless borrowed */
	struct board_link *link;       /* b's link when the scheduler gave one, or NULL */
	bool borrowed;                 /* t is link's transport */
	char *arch;                    /* from `uname -m`, when the inventory has none */
};

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
	bool stop_requested;           /* we ended it: its exit status does not count */
	long pgid;
	struct tail tail;
	int ret;                       /* transport_exec's */
	struct transport_status st;
	char err[512];
	/* the pgid line at the head of stderr; touched by the thread only */
	char head[48];
	size_t head_len;
	bool head_done;
};

struct multi_run {
	struct exec_context *ctx;
	struct test_result *tr;
	const struct plan_item *item;
	struct peer *peers;
	size_t n_peers;
	struct bg_step **bgs;
	size_t n_bgs;
	struct metric_collector metrics;   /* the test's metrics: on the item's board */
	bool failed;                       /* tr holds a fail or error: stop running steps */
};

/* Line callback state of one foreground step. */
struct fg_lines {
	struct metric_collector *metrics;  /* the test's regexes, or NULL */
	struct metric_collector *bench;    /* parse: remote-bench, or NULL */
	struct output_checker *checks;     /* the step's expect:, or NULL */
	struct tail tail;
	char last_stderr[256];
};

static void tail_add(struct tail *t, const char *line)
{
	if (!*line)
		return;
	snprintf(t->lines[t->next], TAIL_LINE_MAX, "%s", line);
	t->next = (t->next + 1) % TAIL_LINES;
	if (t->n < TAIL_LINES)
		t->n++;
}

/* "a | b | c", or "(none)". Caller frees. */
static char *tail_text(const struct tail *t)
{
	if (!t->n)
		return xstrdup("(none)");
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < t->n; i++) {
		int k = (t->next - t->n + i + TAIL_LINES) % TAIL_LINES;
		strbuf_printf(&sb, "%s%s", i ? " | " : "", t->lines[k]);
	}
	return strbuf_detach(&sb);
}

static const struct role_binding *find_role(const struct plan_item *item, const char *name)
{
	for (size_t i = 0; i < item->n_roles; i++)
		if (item->roles[i].role && !strcmp(item->roles[i].role->name, name))
			return &item->roles[i];
	return NULL;
}

/* b's board link: the item's own, or the scheduler's for a role board
 * (exec_context.link_of is mandatory for multi-host tests: a board is
 * reached only through its link). */
static struct board_link *multi_link(struct multi_run *mr, const struct board *b)
{
	if (b == mr->item->board)
		return mr->ctx->link;
	return mr->ctx->link_of(mr->ctx->links_ctx, b);
}

/* The boards a step of role rb runs on: the item's board for `each`. */
static void role_boards(const struct plan_item *item, const struct role_binding *rb,
			const struct board *const **boards, size_t *n)
{
	if (rb->role->each) {
		*boards = &item->board;
		*n = 1;
	} else {
		*boards = rb->boards;
		*n = rb->n_boards;
	}
}

static bool is_own_board(const struct multi_run *mr, const struct role_binding *rb,
			 const struct board *b)
{
	return rb->role->each && b == mr->item->board;
}

static void log_names(const struct multi_run *mr, const struct role_binding *rb,
		      const struct board *b, char **out_name, char **err_name)
{
	if (is_own_board(mr, rb, b)) {
		*out_name = xstrdup("stdout.log");
		*err_name = xstrdup("stderr.log");
	} else if (rb->n_boards > 1) {
		*out_name = xasprintf("%s.%s.stdout.log", rb->role->name, b->name);
		*err_name = xasprintf("%s.%s.stderr.log", rb->role->name, b->name);
	} else {
		*out_name = xasprintf("%s.stdout.log", rb->role->name);
		*err_name = xasprintf("%s.stderr.log", rb->role->name);
	}
}

static void set_outcome(struct multi_run *mr, enum result_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_outcome(struct multi_run *mr, enum result_status st, const char *fmt, ...)
{
	if (mr->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	struct strbuf sb = STRBUF_INIT;
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	mr->tr->status = st;
	test_result_set_message(mr->tr, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	mr->failed = true;
}

static struct peer *peer_for(struct multi_run *mr, const struct board *b)
{
	for (size_t i = 0; i < mr->n_peers; i++)
		if (mr->peers[i].board == b)
			return &mr->peers[i];
	mr->peers = xrealloc(mr->peers, (mr->n_peers + 1) * sizeof(*mr->peers));
	struct peer *p = &mr->peers[mr->n_peers++];
	memset(p, 0, sizeof(*p));
	p->board = b;
	p->link = multi_link(mr, b);
	return p;
}

/* The foreground connection to b: 0, or -1 with the reason in err. */
static int peer_transport(struct multi_run *mr, const struct board *b, struct transport **t,
			  char *err, size_t errlen)
{
	struct peer *p = peer_for(mr, b);
	if (!p->t) {
		if (b == mr->item->board) {
			if (exec_transport(mr->ctx, mr->tr, &p->t, err, errlen) < 0)
				return -1;
			p->borrowed = true;
		} else {
			if (board_link_get(p->link, mr->item->test->timeout_ms, &p->t, err, errlen) < 0)
				return -1;
			p->borrowed = true;
		}
	}
	*t = p->t;
	return 0;
}

/* A transport failure on b's foreground connection: drop it. */
static void peer_lost(struct multi_run *mr, const struct board *b)
{
	struct peer *p = peer_for(mr, b);
	if (p->borrowed)
		board_link_reset(p->link);
	else
		transport_free(p->t);
	p->t = NULL;
	p->borrowed = false;
}

static int detect_arch(void *ctx, const struct board *b, const char **arch, char *err,
		       size_t errlen)
{
	struct multi_run *mr = ctx;
	struct peer *p = peer_for(mr, b);
	if (p->link && p->link->arch) {
		*arch = p->link->arch;
		return 0;
	}
	if (!p->arch) {
		struct transport *t;
		if (peer_transport(mr, b, &t, err, errlen) < 0 ||
		    exec_machine(t, 10000, &p->arch, err, errlen) < 0)
			return -1;
	}
	*arch = p->arch;
	return 0;
}

/* How a step is named in messages: its command, or its remote-bench program. */
static const char *step_text(const struct step *step)
{
	return step->run ? step->run : step->bench;
}

/* An argument of a bench step as one shell word, its substitutions made
 * (quoted, then substituted: a value stays inside the word). */
static int append_bench_arg(struct subst_vars *vars, struct strbuf *sb, const char *arg,
			    const struct subst_env *env, char *err, size_t errlen)
{
	char *q = shquote(arg);
	int rc = subst_append(vars, sb, q, env, err, errlen);
	free(q);
	return rc;
}

/* The command line of a bench step on b: the program (pushed when the
 * board does not have it yet) and its arguments. NULL with err set; a push
 * that failed has already made the test an error. */
static char *bench_command(struct multi_run *mr, const struct step *step, const struct board *b,
			   const struct subst_env *env, char *err, size_t errlen)
{
	struct transport *t;
	if (peer_transport(mr, b, &t, err, errlen) < 0) {
		set_outcome(mr, STATUS_ERROR, "%s", err);
		return NULL;
	}
	struct peer *p = peer_for(mr, b);
	if (!p->arch && b->arch)
		p->arch = xstrdup(b->arch);
	struct bench_target bt = {
		.board = b, .t = t,
		.machine = p->link ? &p->link->arch : &p->arch,
		.bench_dir = mr->ctx->bench_dir, .log_dir = mr->ctx->test_dir,
	};
	/* only the item's own board reports its push rate */
	char *remote = bench_ensure(&bt, step->bench, b == mr->item->board ? mr->tr : NULL, err,
				    errlen);
	if (!remote) {
		set_outcome(mr, STATUS_ERROR, "%s", err);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	struct subst_vars vars = SUBST_VARS_INIT;
	char *exports = vars_env_prefix(mr->item->test->env, mr->item->test->n_env, step->env,
					step->n_env, "");
	char *cmd = NULL;
	size_t i = 0;
	if (subst_append(&vars, &sb, exports, env, err, errlen) < 0)
		i = step->n_args + 1;
	free(exports);
	strbuf_shquote(&sb, remote);
	free(remote);
	for (; i < step->n_args; i++) {
		strbuf_putc(&sb, ' ');
		if (append_bench_arg(&vars, &sb, step->args[i], env, err, errlen) < 0)
			break;
	}
	if (i == step->n_args)
		cmd = subst_finish(&vars, strbuf_str(&sb));
	subst_vars_release(&vars);
	strbuf_release(&sb);
	return cmd;
}

/* {ROLE.host}: the address orch's connection to b reached (connecting
 * through b's link if needed), else NULL: the inventory's. */
static const char *connected_host(void *ctx, const struct board *b)
{
	struct multi_run *mr = ctx;
	struct peer *p = peer_for(mr, b);
	struct transport *t;
	char err[512];
	if (b->transport == TRANSPORT_KIND_SSH)
		(void)peer_transport(mr, b, &t, err, sizeof(err));   /* connects the link */
	return board_link_host(p->link);
}

/* The step's command for board b (running in role rb), substitutions made. */
static char *step_command(struct multi_run *mr, const struct step *step,
			  const struct role_binding *rb, const struct board *b,
			  char *err, size_t errlen)
{
	const struct plan_item *item = mr->item;
	struct subst_role *roles = xcalloc(item->n_roles ? item->n_roles : 1, sizeof(*roles));
	const struct board *self[1] = { b };
	for (size_t i = 0; i < item->n_roles; i++) {
		const struct role_binding *r = &item->roles[i];
		roles[i].name = r->role->name;
		if (r == rb) {
			roles[i].boards = self;
			roles[i].n_boards = 1;
		} else {
			role_boards(item, r, &roles[i].boards, &roles[i].n_boards);
		}
	}
	struct vars_ctx vc = { item->test, b };
	struct subst_env env = {
		.board = b, .roles = roles, .n_roles = item->n_roles,
		.arch_fn = detect_arch, .arch_ctx = mr, .lookup = vars_lookup, .lookup_ctx = &vc,
		.host_fn = connected_host, .host_ctx = mr,
	};
	char *cmd = NULL;
	if (step->bench) {
		cmd = bench_command(mr, step, b, &env, err, errlen);
	} else {
		char *with_env = vars_env_prefix(item->test->env, item->test->n_env, step->env,
						 step->n_env, step->run);
		cmd = substitute(with_env, &env, err, errlen);
		free(with_env);
	}
	free(roles);
	return cmd;
}

/* ---- background steps ---- */

static int bg_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct bg_step *bg = ctx;
	pthread_mutex_lock(&bg->lock);
	tail_add(&bg->tail, line);
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

static void bg_long_line(void *ctx, enum transport_stream stream)
{
	struct bg_step *bg = ctx;
	(void)stream;
	pthread_mutex_lock(&bg->lock);
	bg->long_lines++;
	pthread_mutex_unlock(&bg->lock);
}

/* The transport's output callback: takes the pgid line off the head of
 * stderr, passes the rest to the sink. */
static int bg_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct bg_step *bg = ctx;
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
			 "is unknown", mr->item->test->name, step_text(bg->step), bg->board->name);
		return;
	}
	char err[512];
	struct transport *t;
	if (peer_transport(mr, bg->board, &t, err, sizeof(err)) < 0) {
		log_warn("%s: cannot stop background step '%s' on %s: %s", mr->item->test->name,
			 step_text(bg->step), bg->board->name, err);
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
			 step_text(bg->step), bg->board->name, err);
		peer_lost(mr, bg->board);
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
static void bg_stop_all(struct multi_run *mr)
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
				 mr->item->test->name, step_text(bg->step), bg->board->name);
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
	char *last = tail_text(&bg->tail);
	pthread_mutex_unlock(&bg->lock);
	if (ours || st.interrupted) {
		free(last);
		return;
	}
	if (ret < 0) {
		set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role, step_text(bg->step),
			    bg->board->name, bg->err);
	} else if (st.timed_out) {
		char d[32];
		units_format_duration(bg->step->timeout_ms, d, sizeof(d));
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s timed out after %s; last output: %s",
			    bg->role, step_text(bg->step), bg->board->name, d, last);
	} else if (st.exit_code != 0) {
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s exited with status %d; "
			    "last output: %s", bg->role, step_text(bg->step), bg->board->name,
			    st.exit_code, last);
	}
	free(last);
}

/* ---- a step's files ---- */

/* The step's push: files to b, before it runs. 0, or -1 with the outcome set. */
static int step_push(struct multi_run *mr, const struct step *step,
		     const struct role_binding *rb, const struct board *b)
{
	char err[1024];
	struct transport *t;
	if (!step->n_push)
		return 0;
	if (peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		set_outcome(mr, STATUS_ERROR, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < step->n_push; i++) {
		bool infra = false;
		if (artifact_push(t, b, &step->push[i], step->timeout_ms, &infra, NULL, err,
				  sizeof(err)) < 0) {
			if (infra)
				peer_lost(mr, b);
			set_outcome(mr, infra ? STATUS_ERROR : STATUS_FAIL, "%s step '%s' on %s: %s",
				    rb->role->name, step_text(step), b->name, err);
			return -1;
		}
	}
	return 0;
}

/* The step's fetch: files from b into the test's folder, under ROLE/ (or
 * ROLE.BOARD/ when the role has several boards) unless b is the test's own
 * board. Whatever the step's outcome; the first failure is the test's. */
static void step_fetch(struct multi_run *mr, const struct step *step,
		       const struct role_binding *rb, const struct board *b)
{
	char err[1024];
	struct transport *t;
	if (!step->n_fetch)
		return;
	if (peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		set_outcome(mr, STATUS_ERROR, "%s", err);
		return;
	}
	for (size_t i = 0; i < step->n_fetch; i++) {
		struct artifact a = step->fetch[i];
		char *dest = is_own_board(mr, rb, b) ? xstrdup(a.dest)
			     : rb->n_boards > 1 ? xasprintf("%s.%s/%s", rb->role->name, b->name, a.dest)
			     : xasprintf("%s/%s", rb->role->name, a.dest);
		a.dest = dest;
		bool infra = false;
		if (artifact_fetch(t, b, &a, mr->ctx->test_dir, step->timeout_ms, &infra, err,
				   sizeof(err)) == 0) {
			test_result_add_artifact(mr->tr, dest);
		} else {
			if (infra)
				peer_lost(mr, b);
			bool was = mr->failed;
			mr->failed = false;    /* a fetch after a failed step still reports */
			if (!was || mr->tr->status == STATUS_PASS)
				set_outcome(mr, infra ? STATUS_ERROR : STATUS_FAIL, "%s step '%s' on %s: %s",
					    rb->role->name, step_text(step), b->name, err);
			mr->failed = true;
		}
		free(dest);
		if (infra)
			break;
	}
}

/* A background step whose files are fetched once it was stopped. */
struct bg_fetch {
	const struct step *step;
	const struct board *board;
};

/* The background steps that fetch files (before bg_stop_all frees them). */
static struct bg_fetch *bg_fetches(const struct multi_run *mr, size_t *n)
{
	struct bg_fetch *f = xcalloc(mr->n_bgs + 1, sizeof(*f));
	*n = 0;
	for (size_t i = 0; i < mr->n_bgs; i++)
		if (mr->bgs[i]->started && mr->bgs[i]->step->n_fetch)
			f[(*n)++] = (struct bg_fetch){ mr->bgs[i]->step, mr->bgs[i]->board };
	return f;
}

static void bg_fetch_all(struct multi_run *mr, const struct bg_fetch *f, size_t n)
{
	for (size_t i = 0; i < n && !interrupt_requested(); i++) {
		const struct role_binding *rb = find_role(mr->item, f[i].step->on);
		if (rb && rb->role)
			step_fetch(mr, f[i].step, rb, f[i].board);
	}
}

/* Starts step on b in the background and waits for its ready pattern. */
static void bg_start(struct multi_run *mr, const struct step *step,
		     const struct role_binding *rb, const struct board *b)
{
	char err[512];
	char *cmd = step_command(mr, step, rb, b, err, sizeof(err));
	if (!cmd) {
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s: %s", rb->role->name, step_text(step),
			    b->name, err);
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
	bg->t = board_link_get_extra(bg->link, mr->item->test->timeout_ms, err, sizeof(err));
	if (!bg->t) {
		set_outcome(mr, STATUS_ERROR, "cannot start %s step '%s' on %s: %s", bg->role,
			    step_text(step), b->name, err);
		return;
	}
	char *out_name, *err_name;
	log_names(mr, rb, b, &out_name, &err_name);
	bg->sink = output_sink_open(mr->ctx->test_dir, out_name, err_name, err, sizeof(err));
	free(out_name);
	free(err_name);
	if (!bg->sink) {
		set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role, step_text(step),
			    b->name, err);
		return;
	}
	output_sink_set_line_fn(bg->sink, bg_line, bg);
	output_sink_set_long_fn(bg->sink, bg_long_line);
	if (pthread_create(&bg->thread, NULL, bg_thread, bg) != 0) {
		output_sink_close(bg->sink, err, sizeof(err));
		bg->sink = NULL;
		set_outcome(mr, STATUS_ERROR, "cannot start a thread for %s step '%s'", bg->role,
			    step_text(step));
		return;
	}
	bg->started = true;
	if (!step->ready_src)
		return;

	int64_t dl = deadline_in_ms(step->ready_timeout_ms);
	for (;;) {
		pthread_mutex_lock(&bg->lock);
		bool ready = bg->ready, done = bg->done, limit = bg->ready_limit;
		pthread_mutex_unlock(&bg->lock);
		if (ready)
			return;
		if (done || limit || deadline_expired(dl) || interrupt_requested())
			break;
		sleep_ms(WAIT_SLICE_MS);
	}
	pthread_mutex_lock(&bg->lock);
	char *last = tail_text(&bg->tail);
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
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s: ready pattern '%s' hit PCRE2's "
			    "match limit on a line of its output; make the regex more specific",
			    bg->role, step_text(step), b->name, step->ready_src);
	} else if (interrupt_requested()) {
		set_outcome(mr, STATUS_ERROR, "interrupted while waiting for %s step '%s' on %s",
			    bg->role, step_text(step), b->name);
	} else if (done && ret < 0) {
		set_outcome(mr, STATUS_ERROR, "%s step '%s' on %s: %s", bg->role, step_text(step),
			    b->name, bg->err);
	} else if (done) {
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s ended (exit status %d) before "
			    "printing ready pattern '%s'%s; last output: %s", bg->role, step_text(step),
			    b->name, st.exit_code, step->ready_src, why, last);
	} else {
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s never printed ready pattern '%s' "
			    "within %s%s; last output: %s", bg->role, step_text(step), b->name,
			    step->ready_src, d, why, last);
	}
	free(last);
}

/* ---- foreground steps ---- */

static int fg_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct fg_lines *fl = ctx;
	tail_add(&fl->tail, line);
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

static void fg_run(struct multi_run *mr, const struct step *step, const struct role_binding *rb,
		   const struct board *b)
{
	char err[512];
	struct transport *t;
	if (peer_transport(mr, b, &t, err, sizeof(err)) < 0) {
		set_outcome(mr, STATUS_ERROR, "%s", err);
		return;
	}
	char *cmd = step_command(mr, step, rb, b, err, sizeof(err));
	if (!cmd) {
		set_outcome(mr, STATUS_FAIL, "%s step '%s' on %s: %s", rb->role->name, step_text(step),
			    b->name, err);
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
	log_names(mr, rb, b, &out_name, &err_name);
	struct command_spec spec = {
		.command = cmd, .timeout_ms = step->timeout_ms, .stdin_fd = -1,
		.dir = mr->ctx->test_dir, .stdout_name = out_name, .stderr_name = err_name,
		.line_fn = fg_line, .line_ctx = &fl,
		.capture = iperf3 ? &capture : NULL, .capture_max = PARSE_CAPTURE_MAX,
		.reap = true,
	};
	struct command_outcome out;
	if (command_run(t, &spec, &out) < 0)
		peer_lost(mr, b);
	char *what = xasprintf("%s step '%s' on %s", rb->role->name, step_text(step), b->name);
	command_leftovers(&out, b->name, what, mr->tr);
	struct test_result verdict;
	memset(&verdict, 0, sizeof(verdict));
	mr->tr->long_lines += out.long_lines;
	if (!command_judge_expect(&out, step->timeout_ms, what, fl.last_stderr, &step->output,
				  &verdict)) {
		set_outcome(mr, verdict.status, "%s", verdict.message ? verdict.message : what);
		mr->tr->exit_code = verdict.exit_code;
	} else {
		mr->tr->exit_code = verdict.exit_code;
		if (iperf3) {
			if (out.capture_overflow)
				set_outcome(mr, STATUS_FAIL, "%s: output too large for iperf3 JSON", what);
			else if (parse_iperf3_text(strbuf_str(&capture), capture.len, mr->tr, err,
						   sizeof(err)) < 0)
				set_outcome(mr, STATUS_FAIL, "%s: %s", what, err);
		}
		if (bench) {
			if (!bench_mc.n_values)
				set_outcome(mr, STATUS_FAIL, "%s: no remote-bench metric lines in its "
					    "output", what);
			else
				(void)metric_collector_commit(&bench_mc, mr->tr);
		}
		char why[512];
		if (has_checks && output_checker_verdict(&checks, why, sizeof(why)) < 0)
			set_outcome(mr, STATUS_FAIL, "%s: %s", what, why);
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

/* ---- the test ---- */

static void run_steps(struct multi_run *mr)
{
	const struct test *test = mr->item->test;
	for (size_t i = 0; i < test->n_steps && !mr->failed; i++) {
		const struct step *step = &test->steps[i];
		if (interrupt_requested()) {
			set_outcome(mr, STATUS_ERROR, "interrupted before step '%s'",
				    step_text(step));
			break;
		}
		const struct role_binding *rb = find_role(mr->item, step->on);
		if (!rb || !rb->role) {
			set_outcome(mr, STATUS_ERROR, "step %zu runs on role '%s', which the plan "
				    "does not bind", i + 1, step->on);
			break;
		}
		const struct board *const *boards;
		size_t n;
		role_boards(mr->item, rb, &boards, &n);
		if (!n) {
			set_outcome(mr, STATUS_ERROR, "role '%s' has no board", rb->role->name);
			break;
		}
		for (size_t k = 0; k < n && !mr->failed; k++) {
			if (step_push(mr, step, rb, boards[k]) < 0)
				break;
			if (step->background) {
				bg_start(mr, step, rb, boards[k]);
			} else {
				fg_run(mr, step, rb, boards[k]);
				step_fetch(mr, step, rb, boards[k]);
			}
		}
	}
}

int execute_multi(struct exec_context *ctx, struct test_result *tr)
{
	struct multi_run mr;
	memset(&mr, 0, sizeof(mr));
	mr.ctx = ctx;
	mr.tr = tr;
	mr.item = ctx->item;
	if (!tr->start_wall_us)
		tr->start_wall_us = clock_wall_us();
	metric_collector_init(&mr.metrics, mr.item->test, false);

	run_steps(&mr);
	for (size_t i = 0; i < mr.n_bgs; i++)
		if (mr.bgs[i]->started && !mr.failed)
			bg_judge(&mr, mr.bgs[i]);
	size_t n_fetch;
	struct bg_fetch *fetches = bg_fetches(&mr, &n_fetch);
	bg_stop_all(&mr);
	bg_fetch_all(&mr, fetches, n_fetch);
	free(fetches);
	if (interrupt_requested() && !mr.failed)
		set_outcome(&mr, STATUS_ERROR, "interrupted; background steps were stopped");

	if (!mr.failed) {
		metric_collector_files(&mr.metrics, ctx->test_dir);
		if (metric_collector_commit(&mr.metrics, tr) < 0)
			tr->status = STATUS_FAIL;
	}
	metric_collector_release(&mr.metrics);
	for (size_t i = 0; i < mr.n_peers; i++) {
		if (!mr.peers[i].borrowed)
			transport_free(mr.peers[i].t);
		free(mr.peers[i].arch);
	}
	free(mr.peers);
	free(mr.bgs);
	tr->end_wall_us = clock_wall_us();
	return 0;
}
