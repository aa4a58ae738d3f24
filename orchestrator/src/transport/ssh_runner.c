#include "transport/ssh_runner.h"
#include "transport/reap.h"
#include "transport/ssh_wrap.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/shquote.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNNER_READ_CHUNK 4096
#define RUNNER_READS_PER_PASS 256   /* then the loop looks at its deadline again */
#define RUNNER_WRITE_CHUNK 32768
#define RUNNER_GONE_GRACE_MS 500    /* for a start marker still on its way */

enum { PH_BEFORE = 0, PH_IN, PH_AFTER };
enum { MK_RUN = 0, MK_EXIT, MK_END };
static const char *const mark_kind[] = { "run", "exit", "end" };

/* ---- the board side ---- */

/* One command (orch_B, run with eval by the runner shell for each request
 * line, which sets orch_t, orch_s, orch_g and orch_c first). orch_R: the
 * leftover reap, T, P and G (1: with its TERM grace) set in front of it,
 * and A: the runner shell's own ancestors (orch_a), read by orch_W before
 * the second command (a session of one command, a fan-out's, never pays
 * for them: the first command's reap reads them itself, only when it
 * needs them). The subshell's pid is the name of its one task in
 * /proc/self/task (a glob: a directory read, where reading it from
 * /proc/self/status took ~80 one-byte reads). The channel's stderr is fd
 * 8 while the runner runs, its own stderr /dev/null (a shell says
 * "Killed" there when a subshell dies of a signal). The subshell takes
 * stderr back and drops the runner's variables before the command runs;
 * the EXIT trap it sets holds the values it needs as text, and writes the
 * reap's line and the exit marker at once (each write is a packet of the
 * board's sshd). */
static const char RUNNER_BODY[] =
	"case $orch_a in '') case $orch_n in 1) eval \"$orch_W\";; esac; orch_n=1;; esac\n"
	"(\n"
	"exec 2>&8 8>&-\n"
	"orch_p=; for orch_x in /proc/self/task/[0-9]*; do orch_p=${orch_x##*/}; done; "
	"case $orch_p in ''|*[!0-9]*) orch_p=$(exec /bin/sh -c 'echo $PPID');; esac\n"
	"printf '\\036orch-run %s %s\\036\\n' \"$orch_t\" \"$orch_p\"\n"
	"printf '\\036orch-run %s %s\\036\\n' \"$orch_t\" \"$orch_p\" >&2\n"
	"orch_r=\"printf '\\\\036orch-exit $orch_t %s\\\\036\\\\n' \\$orch_e\"\n"
	"case $orch_s in -) ;; *) orch_r=\"T=$orch_s; P=$orch_p; A='$orch_a'; G=$orch_g; $orch_R; "
	"printf '\\\\036orch-reap%s\\\\036\\\\n\\\\036orch-exit $orch_t %s\\\\036\\\\n' \\\"\\$N\\\" "
	"\\$orch_e\";; esac\n"
	"exec 7>&1\n"
	"trap \"orch_e=\\$?; trap - EXIT; if [ -p /proc/self/fd/7 ] || [ -S /proc/self/fd/7 ]; "
	"then { $orch_r; } >&7 2>/dev/null; fi; exit \\$orch_e\" EXIT\n"
	"unset orch_t orch_s orch_g orch_p orch_x orch_r orch_R orch_e orch_a orch_B orch_W orch_n\n"
	"eval \"unset orch_c; $orch_c\"\n"
	") </dev/null\n"
	"orch_e=$?\n"
	"printf '\\036orch-end %s %s\\036\\n' \"$orch_t\" \"$orch_e\"\n"
	"printf '\\036orch-end %s %s\\036\\n' \"$orch_t\" \"$orch_e\" >&8\n";

/* How the runner shell takes its requests: as script text read from the
 * channel, which dash and busybox ash read in blocks (8 KiB, 1 KiB) where
 * their `read` builtin makes one read(2) per byte. With `.` on the
 * channel's pipe the shell that ran the definitions reads it itself, no
 * program started. Otherwise `/bin/sh -s` takes over (the same process:
 * the ancestors read hold), with the definitions in its environment (the
 * subshell unsets them before the command):
 *   - a shell that is not the leader of its own process group (dropbear
 *     starts commands in its connection's group) gets `setsid` in front,
 *     as ssh_wrap.c does: it calls setsid() without forking;
 *   - bash, zsh and the ksh family read a whole file for `.` before
 *     running any of it (bash also reads a pipe byte-wise with -s, as its
 *     `read` did);
 *   - a channel that is no pipe, or one this user may not open again
 *     through /dev/stdin (dropbear's belong to root).
 * $0 is then the name the program was started by: `sh` when PATH finds
 * /bin/sh by that name (as on a channel of its own), else /bin/sh. */
static const char RUNNER_READER[] =
	"exec 8>&2 2>/dev/null\n"
	"orch_S=; kill -0 -$$ || { command -v setsid >/dev/null && orch_S=setsid; }\n"
	"if [ -z \"$orch_S${BASH_VERSION-}${ZSH_VERSION-}${KSH_VERSION-}${YASH_VERSION-}\" ] && "
	"[ -p /dev/stdin ] && [ -r /dev/stdin ]; then unset orch_S; . /dev/stdin; exit 0; fi\n"
	"export orch_R orch_B orch_a orch_W; orch_x=/bin/sh; orch_f=$IFS; IFS=:; set -f\n"
	"for orch_d in $PATH; do [ -x \"${orch_d:-.}/sh\" ] || continue; "
	"[ \"${orch_d:-.}/sh\" -ef /bin/sh ] && orch_x=sh; break; done\n"
	"IFS=$orch_f; set +f; exec $orch_S $orch_x -s\n";

/* The definitions in orch_l, run by /bin/sh: with eval when the login
 * shell already is sh. */
char *ssh_runner_script(void)
{
	struct strbuf defs = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	char *reap = reap_script_quiet("$T", "$P", "$A", "$G");
	char *anc = reap_ancestors_script("orch_a");
	strbuf_puts(&defs, "unset orch_l orch_n; orch_a=; orch_R=");
	strbuf_shquote(&defs, reap);
	free(reap);
	strbuf_puts(&defs, "; orch_B=");
	strbuf_shquote(&defs, RUNNER_BODY);
	strbuf_puts(&defs, "; orch_W=");
	strbuf_shquote(&defs, anc);
	strbuf_puts(&defs, "\n");
	free(anc);
	strbuf_puts(&defs, RUNNER_READER);
	strbuf_puts(&out, "orch_l=");
	strbuf_shquote(&out, strbuf_str(&defs));
	strbuf_puts(&out, "; set --; case ${0##*/} in sh) eval \"$orch_l\";; "
		    "*) exec /bin/sh -c \"$orch_l\" sh;; esac");
	strbuf_release(&defs);
	return strbuf_detach(&out);
}

/* One line of script (the command's text single-quoted: whatever it holds,
 * a syntax error included, stays inside the subshell's eval). */
char *ssh_runner_request(const char *token, const char *step, bool grace, const char *command)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "orch_t=%s; orch_s=%s; orch_g=%d; orch_c=", token,
		      step && reap_token_ok(step) ? step : "-", grace ? 1 : 0);
	strbuf_shquote(&sb, command);
	strbuf_puts(&sb, "; eval \"$orch_B\"\n");
	return strbuf_detach(&sb);
}

/* ---- framing ---- */

void ssh_runner_frame_init(struct ssh_runner_frame *f, const char *token)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->token, sizeof(f->token), "%s", token);
	for (int k = MK_RUN; k <= MK_END; k++)
		snprintf(f->mark[k], sizeof(f->mark[k]), "\036orch-%s %s ", mark_kind[k], f->token);
	f->exit_code = -1;
	f->end_code = -1;
}

void ssh_runner_frame_release(struct ssh_runner_frame *f)
{
	for (int i = 0; i < 2; i++)
		strbuf_release(&f->s[i].hold);
}

/* How much of p (n bytes, p[0] == '\036') is marker k: 0 when it cannot
 * be, -1 while it may still become it, else its length with *num set. */
static long marker_len(const struct ssh_runner_frame *f, int k, const char *p, size_t n,
		       long *num)
{
	const char *m = f->mark[k];
	size_t ml = strlen(m);
	if (memcmp(p, m, n < ml ? n : ml) != 0)
		return 0;
	if (n < ml)
		return -1;
	size_t i = ml;
	long v = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		if (i - ml >= 9)
			return 0;
		v = v * 10 + (p[i] - '0');
	}
	if (i == n)
		return -1;
	if (i == ml || p[i] != '\036')
		return 0;
	if (i + 1 == n)
		return -1;
	if (p[i + 1] != '\n')
		return 0;
	*num = v;
	return (long)(i + 2);
}

/* Bytes that are no marker: the command's while it runs, else a taint. */
static void frame_plain(struct ssh_runner_frame *f, int phase, enum transport_stream stream,
			const char *p, size_t n, ssh_runner_out_fn out, void *ctx)
{
	if (!n)
		return;
	if (phase == PH_IN)
		out(ctx, stream, p, n);
	else
		f->tainted = true;
}

/* Marker k with number num on stream i. */
static void frame_mark(struct ssh_runner_frame *f, int i, int k, long num)
{
	if (k == MK_RUN) {
		if (i == 0)
			f->pid = num;
		f->s[i].phase = PH_IN;
	} else if (k == MK_EXIT) {
		f->exit_code = (int)(num & 255);
	} else {
		if (i == 0)
			f->end_code = (int)(num & 255);
		f->s[i].phase = PH_AFTER;
	}
}

/* The marker kinds a stream may bring in its phase: the first, and how many. */
static int phase_marks(int phase, int *count)
{
	*count = phase == PH_BEFORE ? 1 : phase == PH_IN ? 2 : 0;
	return phase == PH_BEFORE ? MK_RUN : MK_EXIT;
}

void ssh_runner_frame_feed(struct ssh_runner_frame *f, enum transport_stream stream,
			   const char *data, size_t len, ssh_runner_out_fn out, void *ctx)
{
	int i = stream == TRANSPORT_STDERR;
	struct strbuf *hold = &f->s[i].hold;
	if (!len)
		return;
	strbuf_append(hold, data, len);
	const char *b = hold->buf;
	size_t n = hold->len, start = 0, q = 0;
	for (;;) {
		const char *p = memchr(b + q, '\036', n - q);
		if (!p) {
			frame_plain(f, f->s[i].phase, stream, b + start, n - start, out, ctx);
			start = n;
			break;
		}
		size_t at = (size_t)(p - b);
		int count, k0 = phase_marks(f->s[i].phase, &count), k = -1;
		long l = 0, num = 0;
		for (int j = k0; j < k0 + count && l == 0; j++) {
			l = marker_len(f, j, p, n - at, &num);
			k = j;
		}
		if (l == 0) {
			q = at + 1;
			continue;
		}
		frame_plain(f, f->s[i].phase, stream, b + start, at - start, out, ctx);
		start = at;
		if (l < 0)
			break;   /* may still become a marker: held */
		frame_mark(f, i, k, num);
		start = q = at + (size_t)l;
	}
	memmove(hold->buf, b + start, n - start);
	hold->len = n - start;
	hold->buf[hold->len] = '\0';
}

bool ssh_runner_frame_ended(const struct ssh_runner_frame *f)
{
	return f->s[0].phase == PH_AFTER && f->s[1].phase == PH_AFTER;
}

void ssh_runner_frame_flush(struct ssh_runner_frame *f, ssh_runner_out_fn out, void *ctx)
{
	for (int i = 0; i < 2; i++) {
		struct strbuf *hold = &f->s[i].hold;
		frame_plain(f, f->s[i].phase, i ? TRANSPORT_STDERR : TRANSPORT_STDOUT, hold->buf,
			    hold->len, out, ctx);
		strbuf_reset(hold);
	}
}

void ssh_runner_frame_status(const struct ssh_runner_frame *f, struct transport_status *st)
{
	st->signal = 0;
	if (f->exit_code >= 0) {
		st->exit_code = f->exit_code;
	} else if (f->end_code > 128 && f->end_code <= 128 + 64) {
		st->exit_code = -1;
		st->signal = f->end_code - 128;
	} else {
		st->exit_code = f->end_code;
	}
}

/* ---- the runner on its channel ---- */

struct ssh_runner {
	ssh_channel ch;
	struct ssh_channel_callbacks_struct cb;
	bool exited;               /* the runner's shell itself ended */
	int exit_status;           /* -1 unless it exited */
	int exit_signal;           /* > 0: the signal it died of; -1: an unknown one */
	bool broken;               /* tainted, gone, or a stop not confirmed */
	unsigned long done;
};

/* One command on the runner. */
struct runner_cmd {
	struct ssh_runner *r;
	const struct ssh_runner_host *h;
	const struct transport_exec *req;
	struct transport_status *st;
	struct ssh_runner_frame f;
	char *request;
	size_t req_len, req_off;
};

int ssh_signal_number(const char *name)
{
	static const struct { const char *name; int sig; } map[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
		{ "ABRT", SIGABRT }, { "FPE", SIGFPE }, { "KILL", SIGKILL }, { "SEGV", SIGSEGV },
		{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "BUS", SIGBUS }, { "TRAP", SIGTRAP },
	};
	for (size_t i = 0; name && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(name, map[i].name) == 0)
			return map[i].sig;
	return 0;
}

static void on_runner_signal(ssh_session session, ssh_channel channel, const char *signal,
			     int core, const char *errmsg, const char *lang, void *userdata)
{
	struct ssh_runner *r = userdata;
	r->exited = true;
	r->exit_signal = ssh_signal_number(signal);
	if (!r->exit_signal)
		r->exit_signal = -1;
}

static void on_runner_status(ssh_session session, ssh_channel channel, int exit_status,
			     void *userdata)
{
	struct ssh_runner *r = userdata;
	r->exited = true;
	r->exit_status = exit_status;
}

struct ssh_runner *ssh_runner_open(const struct ssh_runner_host *h, int64_t dl,
				   enum ssh_runner_rc *rc)
{
	struct ssh_runner *r = xcalloc(1, sizeof(*r));
	r->exit_status = -1;
	r->ch = ssh_channel_new(h->session);
	if (!r->ch) {
		free(r);
		*rc = SSH_RUNNER_LOST;
		return NULL;
	}
	r->cb.userdata = r;
	r->cb.channel_exit_signal_function = on_runner_signal;
	r->cb.channel_exit_status_function = on_runner_status;
	ssh_callbacks_init(&r->cb);
	ssh_set_channel_callbacks(r->ch, &r->cb);
	char *script = ssh_runner_script();
	int s = h->start(h->ctx, r->ch, script, dl);
	free(script);
	if (s == 0)
		return r;
	*rc = s == -2 ? SSH_RUNNER_NO_ANSWER
	    : ssh_is_connected(h->session) ? SSH_RUNNER_NOT_RUN : SSH_RUNNER_LOST;
	ssh_runner_close(r, false);
	return NULL;
}

void ssh_runner_close(struct ssh_runner *r, bool polite)
{
	if (!r)
		return;
	/* libssh keeps a channel the server has not closed yet past
	 * ssh_channel_free(): it must not call back into r */
	ssh_remove_channel_callbacks(r->ch, &r->cb);
	if (polite)
		ssh_channel_close(r->ch);
	ssh_channel_free(r->ch);
	free(r);
}

bool ssh_runner_usable(const struct ssh_runner *r)
{
	return r && !r->broken;
}

unsigned long ssh_runner_done(const struct ssh_runner *r)
{
	return r ? r->done : 0;
}

static bool runner_gone(const struct ssh_runner *r)
{
	return r->exited || ssh_channel_is_eof(r->ch) || ssh_channel_is_closed(r->ch);
}

static void cmd_out(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct runner_cmd *c = ctx;
	c->h->deliver(c->h->ctx, stream, data, len);
}

/* Writes what the channel's window takes of the request. -1: the session failed. */
static int cmd_send(struct runner_cmd *c)
{
	while (c->req_off < c->req_len) {
		uint32_t win = ssh_channel_window_size(c->r->ch);
		size_t len = c->req_len - c->req_off;
		if (len > win)
			len = win;
		if (len > RUNNER_WRITE_CHUNK)
			len = RUNNER_WRITE_CHUNK;
		if (!len)
			return 0;
		int w = ssh_channel_write(c->r->ch, c->request + c->req_off, (uint32_t)len);
		if (w == SSH_ERROR)
			return -1;
		if (w <= 0)
			return 0;
		c->req_off += (size_t)w;
	}
	return 0;
}

/* Reads what is buffered on both streams into the frame, until a pass
 * finds nothing (or RUNNER_READS_PER_PASS chunks). -1 on a channel error. */
static int cmd_drain(struct runner_cmd *c)
{
	char buf[RUNNER_READ_CHUNK];
	for (int reads = 0, got = 1; got && reads < RUNNER_READS_PER_PASS;) {
		got = 0;
		for (int e = 0; e <= 1; e++) {
			int n = ssh_channel_read_nonblocking(c->r->ch, buf, sizeof(buf), e);
			if (n == SSH_ERROR)
				return -1;
			if (n > 0) {
				got = 1;
				reads++;
				ssh_runner_frame_feed(&c->f, e ? TRANSPORT_STDERR : TRANSPORT_STDOUT,
						      buf, (size_t)n, cmd_out, c);
			}
		}
	}
	return 0;
}

enum pump_end { PUMP_ENDED, PUMP_GONE, PUMP_STOP, PUMP_LOST };

/* Moves the request and the output until the command ends or must stop. */
static enum pump_end cmd_pump(struct runner_cmd *c, int64_t dl)
{
	struct transport_status *st = c->st;
	for (;;) {
		if (cmd_send(c) < 0 || cmd_drain(c) < 0)
			return PUMP_LOST;
		if (ssh_runner_frame_ended(&c->f))
			return PUMP_ENDED;
		if (!ssh_is_connected(c->h->session))
			return PUMP_LOST;
		if (runner_gone(c->r))
			return PUMP_GONE;
		if (c->h->stop_asked(c->h->ctx) || transport_cancelled(c->req)) {
			st->stopped = true;
			return PUMP_STOP;
		}
		if (interrupt_requested() && !c->req->cleanup) {
			st->interrupted = true;
			return PUMP_STOP;
		}
		if (deadline_expired(dl)) {
			st->timed_out = true;
			return PUMP_STOP;
		}
		c->h->wait(c->h->ctx, dl);
	}
}

/* Keeps reading until kdl, or the subshell's pid is known (all: its end). */
static void cmd_await(struct runner_cmd *c, int64_t kdl, bool all)
{
	while (!deadline_expired(kdl)) {
		if (cmd_send(c) < 0 || cmd_drain(c) < 0 || !ssh_is_connected(c->h->session))
			return;
		if (ssh_runner_frame_ended(&c->f) || runner_gone(c->r) || (!all && c->f.pid > 0))
			return;
		c->h->wait(c->h->ctx, kdl);
	}
}

/* A stop (timeout, cancel, Ctrl-C): the subshell's tree is killed over a
 * second channel, and its end marker must come within the kill wait. */
static enum ssh_runner_rc cmd_stop(struct runner_cmd *c)
{
	int64_t kdl = deadline_in_ms(c->h->kill_wait_ms);
	c->st->exit_code = -1;
	cmd_await(c, kdl, false);
	if (ssh_runner_frame_ended(&c->f))
		return SSH_RUNNER_RAN;     /* it ended by itself meanwhile */
	bool confirmed = false;
	if (c->f.pid > 0) {
		const char *script = interrupt_hurry() ? SSH_WRAP_KILL_NOW_SCRIPT
						       : SSH_WRAP_KILL_SCRIPT;
		confirmed = c->h->kill(c->h->ctx, c->f.pid, script, kdl) == 0;
		cmd_await(c, kdl, true);
	}
	if (ssh_runner_frame_ended(&c->f))
		return SSH_RUNNER_RAN;
	c->r->broken = true;
	if (!ssh_is_connected(c->h->session))
		return SSH_RUNNER_LOST;
	/* the runner itself ended: its channel closed, the command went with it */
	if (runner_gone(c->r) && (confirmed || c->f.pid <= 0))
		return SSH_RUNNER_RAN;
	return SSH_RUNNER_UNCONFIRMED;
}

/* The runner's shell ended before the command's end marker: the command
 * killed it (`kill -9 $$`). Reported like a command whose shell was killed
 * on a channel of its own; the subshell, orphaned, is killed too, and
 * what it started is left to the leftover reap. NOT_RUN when the command
 * never started. */
static enum ssh_runner_rc cmd_gone(struct runner_cmd *c)
{
	struct ssh_runner *r = c->r;
	r->broken = true;
	if (c->f.pid <= 0 && !ssh_channel_is_eof(r->ch) && !ssh_channel_is_closed(r->ch))
		cmd_await(c, deadline_in_ms(RUNNER_GONE_GRACE_MS), false);
	if (!ssh_is_connected(c->h->session))
		return SSH_RUNNER_LOST;
	if (c->f.pid <= 0)
		return SSH_RUNNER_NOT_RUN;
	ssh_runner_frame_flush(&c->f, cmd_out, c);
	c->st->exit_code = r->exit_signal == 0 && r->exit_status >= 0 ? r->exit_status : -1;
	c->st->signal = r->exit_signal > 0 ? r->exit_signal : 0;
	c->h->kill(c->h->ctx, c->f.pid, "kill -KILL $P 2>/dev/null", deadline_in_ms(c->h->kill_wait_ms));
	return SSH_RUNNER_RAN;
}

void ssh_runner_retire(struct ssh_runner *r, const struct ssh_runner_host *h, int64_t dl)
{
	if (!r)
		return;
	char buf[RUNNER_READ_CHUNK];
	bool sent = ssh_channel_send_eof(r->ch) == SSH_OK;
	while (sent && !r->exited && !ssh_channel_is_closed(r->ch) && !deadline_expired(dl) &&
	       ssh_is_connected(h->session)) {
		/* what the old shell still says is no command's: read and dropped */
		int got = 0;
		for (int e = 0; e <= 1; e++) {
			int n = ssh_channel_read_nonblocking(r->ch, buf, sizeof(buf), e);
			if (n == SSH_ERROR)
				sent = false;
			got |= n > 0;
		}
		if (!got && sent && !r->exited && !ssh_channel_is_closed(r->ch))
			h->wait(h->ctx, dl);
	}
	ssh_runner_close(r, ssh_is_connected(h->session));
}

/* Anything on the channel between commands, or the runner gone: it cannot
 * take the next one. */
static bool runner_idle_clean(struct ssh_runner *r)
{
	char buf[256];
	for (int e = 0; e <= 1; e++) {
		int n = ssh_channel_read_nonblocking(r->ch, buf, sizeof(buf), e);
		if (n > 0 || n == SSH_ERROR) {
			log_debug("ssh runner: %s between commands: a new runner",
				  n > 0 ? "output" : "channel error");
			return false;
		}
	}
	return !runner_gone(r);
}

enum ssh_runner_rc ssh_runner_exec(struct ssh_runner *r, const struct ssh_runner_host *h,
				   const struct transport_exec *req, struct transport_status *st,
				   int64_t dl, long *pid)
{
	if (!runner_idle_clean(r)) {
		r->broken = true;
		return ssh_is_connected(h->session) ? SSH_RUNNER_NOT_RUN : SSH_RUNNER_LOST;
	}
	struct runner_cmd c = { .r = r, .h = h, .req = req, .st = st };
	char token[SSH_RUNNER_TOKEN_LEN + 8];
	transport_new_step_id(token, sizeof(token));
	ssh_runner_frame_init(&c.f, token);
	c.request = ssh_runner_request(token, req->reap ? req->step_id : NULL, !interrupt_hurry(),
				       req->command);
	c.req_len = strlen(c.request);
	enum ssh_runner_rc rc = SSH_RUNNER_RAN;
	switch (cmd_pump(&c, dl)) {
	case PUMP_ENDED:
		ssh_runner_frame_status(&c.f, st);
		r->done++;
		break;
	case PUMP_STOP:
		rc = cmd_stop(&c);
		break;
	case PUMP_GONE:
		rc = cmd_gone(&c);
		break;
	case PUMP_LOST:
		r->broken = true;
		rc = SSH_RUNNER_LOST;
		break;
	}
	if (c.f.tainted) {
		log_debug("ssh runner: output outside a command: a new runner for the next one");
		r->broken = true;
	}
	*pid = c.f.pid;
	ssh_runner_frame_release(&c.f);
	free(c.request);
	return rc;
}
