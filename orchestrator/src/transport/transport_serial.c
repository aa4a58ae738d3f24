#include "transport/transport_serial.h"
#include "transport/serial_capture.h"
#include <stddef.h>
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOGIN_TIMEOUT_MS 30000
#define PROMPT_QUIET_MS 300
#define NUDGE_MS 2000
#define RESYNC_MS 5000
#define MAX_QUEUED_LINES 4096
#define STOP_WAIT_MS 4000      /* the supervisor's TERM grace (1 s) and checks (1.5 s) */
#define STOP_END_MS 500        /* the end marker after the supervisor's stop line */
#define STOP_BEGIN_MS 1000     /* the begin marker, before Ctrl-C is typed */

/*
 * The supervisor every command runs under, `/bin/sh -c "$__orch_sup" orch
 * CMD NONCE` (setup_shell sets $__orch_sup in the console shell). It runs
 * CMD as a background job in a process group of its own (set -m), so the
 * console's Ctrl-C (SIGINT) and Ctrl-\ (SIGQUIT) reach the supervisor
 * alone, whatever CMD ignores. On either it sends TERM to CMD's process
 * group (its process when set -m failed), KILL after a grace of 1 s
 * (Ctrl-\: at once; a Ctrl-\ during the grace: at once), waits up to
 * 1.5 s for the group to be empty (zombies the board's init has yet to
 * reap do not count, where /proc tells them apart) and prints
 *   __ORCH_STOP_NONCE__ TARGET KILLED LEFT
 * TARGET "-PGID", "PID" or "none" (stopped before CMD started), KILLED 9
 * when KILL was sent, LEFT gone|left;
 * then it exits 130 and the console shell prints the end marker.
 */
static const char supervisor[] =
	"N=$2; a() { kill -0 $g 2>/dev/null || return 1; case $g in -*) ;; *) return 0;; esac; "
	"[ -r /proc/self/stat ] || return 0; for f in /proc/[0-9]*/stat; do "
	"read -r l 2>/dev/null <$f || continue; l=${l##*\") \"}; set -- $l; "
	"[ \"$1\" != Z ] && [ \"-$3\" = \"$g\" ] && return 0; done; return 1; }; "
	"o() { trap \"\" INT; p=$!; [ -n \"$p\" ] || { printf \"\\n__ORCH_STOP_%s__ none 0 gone\\n\" "
	"$N; exit 130; }; g=-$p; kill -TERM $g 2>/dev/null || "
	"{ g=$p; kill -TERM $g 2>/dev/null; }; trap \"kill -KILL $g 2>/dev/null; q=9\" QUIT; "
	"(sleep $1; a && kill -KILL $g 2>/dev/null && exit 9; exit 0) & "
	"t=$!; wait $p; n=0; while a && [ $n -lt 15 ]; do "
	"sleep 0.1 2>/dev/null || sleep 1; n=$((n+1)); done; kill -KILL -$t 2>/dev/null || "
	"kill -KILL $t 2>/dev/null; wait $t; k=${q:-$?}; v=gone; a && v=left; "
	"printf \"\\n__ORCH_STOP_%s__ %s %s %s\\n\" $N $g $k $v; exit 130; }; "
	"trap \"o 1\" INT; trap \"o 0\" QUIT; set -m 2>/dev/null; "
	"/bin/sh -c \"$1\" </dev/null 2>&1 & wait $!";
/* its assignment is one line of its own: busybox's line editor takes 1023 */
_Static_assert(sizeof(supervisor) < 1000, "the supervisor must fit one console line");

struct serial_transport {
	struct transport base;
	struct serial_port *port;
	bool port_borrowed;        /* attached to a port its caller keeps open */
	char *name;
	int64_t char_delay_us;
	struct serial_linebuf lb;
	char **lines;              /* complete lines not yet consumed */
	bool *cont;                /* lines[i] is a piece of a line over the cap that
				      goes on in lines[i + 1] */
	size_t n_lines;
	size_t cap_lines;
	struct strbuf partial;     /* the open line, when output paused inside it */
	int64_t last_rx_ms;
	char last_line[256];
	unsigned long nonce_seed;
	unsigned counter;
	bool broken;
};

static void on_line(void *ctx, const struct serial_line *l)
{
	struct serial_transport *s = ctx;
	strbuf_reset(&s->partial);
	if (l->partial) {
		strbuf_append(&s->partial, l->text, l->len);
		return;
	}
	if (l->len > 0)
		snprintf(s->last_line, sizeof(s->last_line), "%s", l->text);
	if (s->n_lines >= MAX_QUEUED_LINES) {
		free(s->lines[0]);
		memmove(s->lines, s->lines + 1, (s->n_lines - 1) * sizeof(char *));
		memmove(s->cont, s->cont + 1, (s->n_lines - 1) * sizeof(bool));
		s->n_lines--;
	}
	if (s->n_lines == s->cap_lines) {
		s->cap_lines = s->cap_lines ? s->cap_lines * 2 : 16;
		s->lines = xrealloc(s->lines, s->cap_lines * sizeof(char *));
		s->cont = xrealloc(s->cont, s->cap_lines * sizeof(bool));
	}
	s->cont[s->n_lines] = l->cont;
	s->lines[s->n_lines++] = xstrndup(l->text, l->len);
}

/* Takes the oldest complete line (caller frees), or NULL; *cont (may be
 * NULL): it is a piece of a line over the cap that the next one goes on. */
static char *pop_line_cont(struct serial_transport *s, bool *cont)
{
	if (s->n_lines == 0)
		return NULL;
	char *l = s->lines[0];
	if (cont)
		*cont = s->cont[0];
	memmove(s->lines, s->lines + 1, (s->n_lines - 1) * sizeof(char *));
	memmove(s->cont, s->cont + 1, (s->n_lines - 1) * sizeof(bool));
	s->n_lines--;
	return l;
}

static char *pop_line(struct serial_transport *s)
{
	return pop_line_cont(s, NULL);
}

static void drop_lines(struct serial_transport *s)
{
	char *l;
	while ((l = pop_line(s)) != NULL)
		free(l);
}

/* Reads what arrives within wait_ms: 1 if anything did, 0 if not, -1 on error. */
static int pump(struct serial_transport *s, int wait_ms, char *err, size_t errlen)
{
	int r = serial_port_wait(s->port, wait_ms, err, errlen);
	if (r <= 0)
		return r;
	char buf[4096];
	ssize_t n = serial_port_read(s->port, buf, sizeof(buf), err, errlen);
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	s->last_rx_ms = clock_mono_ms();
	serial_linebuf_feed(&s->lb, buf, (size_t)n, clock_mono_us(), clock_wall_us(), on_line, s);
	return 1;
}

static int type_text(struct serial_transport *s, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	if (s->char_delay_us <= 0)
		return serial_port_write(s->port, text, len, 10000, err, errlen);
	for (size_t i = 0; i < len; i++) {
		if (serial_port_write(s->port, text + i, 1, 10000, err, errlen) < 0)
			return -1;
		struct timespec ts = { (time_t)(s->char_delay_us / 1000000),
				       (long)(s->char_delay_us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The partial line with trailing blanks removed, in buf. */
static const char *prompt_text(struct serial_transport *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strbuf_str(&s->partial));
	size_t n = strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return buf;
}

static int login(struct serial_transport *s, const char *user, const char *password,
		 int64_t timeout_ms, char *err, size_t errlen)
{
	int64_t deadline = deadline_in_ms(timeout_ms);
	int64_t last_tx = clock_mono_ms();
	int answered_user = 0, answered_pass = 0;
	if (type_text(s, "\r", err, errlen) < 0)
		return -1;
	for (;;) {
		if (interrupt_requested()) {
			snprintf(err, errlen, "serial console of %s: interrupted while logging in",
				 s->name);
			return -1;
		}
		if (deadline_expired(deadline)) {
			snprintf(err, errlen, "serial console of %s (%s): no shell prompt within "
				 "%llds, last line seen: '%s'", s->name,
				 serial_port_describe(s->port), (long long)(timeout_ms / 1000),
				 s->partial.len ? strbuf_str(&s->partial) : s->last_line);
			return -1;
		}
		char perr[256];
		if (pump(s, DEADLINE_TICK_MS, perr, sizeof(perr)) < 0) {
			snprintf(err, errlen, "serial console of %s: %s while logging in, last line "
				 "seen: '%s'", s->name, perr, s->last_line);
			return -1;
		}
		char *l;
		while ((l = pop_line(s)) != NULL) {
			bool bad = strstr(l, "Login incorrect") || strstr(l, "Login failed");
			free(l);
			if (bad && answered_pass + answered_user > 2) {
				snprintf(err, errlen, "serial console of %s: login as '%s' refused",
					 s->name, user);
				return -1;
			}
		}
		int64_t now = clock_mono_ms();
		int64_t quiet = now - (s->last_rx_ms > last_tx ? s->last_rx_ms : last_tx);
		char p[512];
		prompt_text(s, p, sizeof(p));
		if (p[0] && quiet >= PROMPT_QUIET_MS) {
			const char *answer = NULL;
			if (ends_with(p, "login:")) {
				if (answered_user++ > 3) {
					snprintf(err, errlen, "serial console of %s: login as '%s' "
						 "refused", s->name, user);
					return -1;
				}
				answer = user;
			} else if (ends_with(p, "assword:")) {
				if (!password) {
					snprintf(err, errlen, "serial console of %s asks for a password "
						 "and none is set (serial password_env)", s->name);
					return -1;
				}
				answered_pass++;
				answer = password;
			} else if (ends_with(p, "#") || ends_with(p, "$") || ends_with(p, ">")) {
				strbuf_reset(&s->partial);
				return 0;
			}
			if (answer) {
				strbuf_reset(&s->partial);
				if (type_text(s, answer, err, errlen) < 0 ||
				    type_text(s, "\r", err, errlen) < 0)
					return -1;
				last_tx = clock_mono_ms();
				continue;
			}
		}
		if (quiet >= NUDGE_MS) {
			if (type_text(s, "\r", err, errlen) < 0)
				return -1;
			last_tx = clock_mono_ms();
		}
	}
}

static char *make_nonce(struct serial_transport *s)
{
	s->nonce_seed = s->nonce_seed * 6364136223846793005UL + 1442695040888963407UL;
	return xasprintf("%lx%u", (s->nonce_seed >> 24) & 0xffffffUL, ++s->counter);
}

/* Types line and waits for a line ending with marker: 0, or -1. A Ctrl-C
 * of orch's ends the wait unless through_interrupt (a stop's check, bounded
 * by timeout_ms and, after a second Ctrl-C, by the hurry deadline). */
static int sync_on(struct serial_transport *s, const char *line, const char *marker,
		   int64_t timeout_ms, bool through_interrupt, char *err, size_t errlen)
{
	drop_lines(s);
	if (type_text(s, line, err, errlen) < 0)
		return -1;
	int64_t deadline = deadline_in_ms(timeout_ms);
	while (!deadline_expired(deadline)) {
		if (interrupt_requested() && !through_interrupt) {
			snprintf(err, errlen, "serial console of %s: interrupted", s->name);
			return -1;
		}
		if (pump(s, DEADLINE_TICK_MS, err, errlen) < 0)
			return -1;
		char *l;
		while ((l = pop_line(s)) != NULL) {
			bool hit = ends_with(l, marker);
			free(l);
			if (hit)
				return 0;
		}
	}
	snprintf(err, errlen, "serial console of %s: the shell did not answer within %llds, "
		 "last line seen: '%s'", s->name, (long long)(timeout_ms / 1000), s->last_line);
	return -1;
}

static int setup_shell(struct serial_transport *s, char *err, size_t errlen)
{
	char *nonce = make_nonce(s);
	char *marker = xasprintf("__ORCH_READY_%s__", nonce);
	char *sup = shquote(supervisor);
	/* two lines: busybox's line editor takes at most 1023 characters a line */
	char *line = xasprintf("__orch_sup=%s\rstty -echo 2>/dev/null; dmesg -n 1 2>/dev/null; "
			       "PS1='orch$ '; PS2=''; export PS1 PS2; "
			       "printf '__ORCH_READY_%%s__\\n' %s\r", sup, nonce);
	free(sup);
	int ret = sync_on(s, line, marker, RESYNC_MS * 2, false, err, errlen);
	free(nonce);
	free(marker);
	free(line);
	return ret;
}

static int resync(struct serial_transport *s, char *err, size_t errlen)
{
	char *nonce = make_nonce(s);
	char *marker = xasprintf("__ORCH_SYNC_%s__", nonce);
	char *line = xasprintf("\003\rprintf '__ORCH_SYNC_%%s__\\n' %s\r", nonce);
	int ret = sync_on(s, line, marker, RESYNC_MS, true, err, errlen);
	free(nonce);
	free(marker);
	free(line);
	if (ret < 0)
		s->broken = true;
	return ret;
}

/* One command on the console: its markers and where its output stands. */
struct serial_run {
	struct serial_transport *s;
	const struct transport_exec *req;
	struct transport_status *st;
	char *begin, *end, *stop;  /* "__ORCH_BEGIN_N__", "__ORCH_END_N__ ", "__ORCH_STOP_N__ " */
	bool in_body, pending_nl, done, cancelled;
	/* the supervisor's stop line */
	bool stop_seen, stop_killed, stop_left;
	char stop_target[32];      /* "-PGID" or "PID" */
};

static void take_stop_line(struct serial_run *r, const char *mark)
{
	char target[32] = "", left[8] = "";
	int killed = 0;
	if (sscanf(mark + strlen(r->stop), "%31s %d %7s", target, &killed, left) != 3)
		return;
	r->stop_seen = true;
	r->stop_killed = killed == 9;
	r->stop_left = strcmp(left, "gone") != 0;
	snprintf(r->stop_target, sizeof(r->stop_target), "%s", target);
}

/* Takes the lines read so far: the output to on_output (until cancelled),
 * the end marker (done, with the exit status), the supervisor's stop line. */
static void take_lines(struct serial_run *r)
{
	const struct transport_exec *req = r->req;
	char *l;
	bool cont;
	while (!r->done && (l = pop_line_cont(r->s, &cont)) != NULL) {
		char *mark;
		if (!r->in_body) {
			r->in_body = ends_with(l, r->begin);
		} else if ((mark = strstr(l, r->end)) != NULL) {
			r->st->exit_code = atoi(mark + strlen(r->end));
			r->done = true;
		} else if (r->cancelled) {
			if ((mark = strstr(l, r->stop)) != NULL)
				take_stop_line(r, mark);
		} else if (req->on_output) {
			int rc = 0;
			if (r->pending_nl)
				rc = req->on_output(req->ctx, TRANSPORT_STDOUT, "\n", 1);
			if (rc >= 0 && *l)
				rc = req->on_output(req->ctx, TRANSPORT_STDOUT, l, strlen(l));
			r->pending_nl = !cont;   /* the pieces of a long line stay one line */
			if (rc < 0) {
				r->st->stopped = true;
				r->cancelled = true;
			}
		}
		free(l);
	}
}

/* Reads the command's output until its end marker, a timeout, Ctrl-C or a
 * cancel (r->cancelled, with the reason in st): 0, or -1 when the console
 * failed. */
static int serial_follow(struct serial_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	struct transport_status *st = r->st;
	int64_t deadline = deadline_in_ms(req->timeout_ms);
	while (!r->done && !r->cancelled) {
		if (deadline_expired(deadline) || interrupt_requested() ||
		    transport_cancelled(req)) {
			if (interrupt_requested())
				st->interrupted = true;
			else if (transport_cancelled(req))
				st->stopped = true;
			else
				st->timed_out = true;
			r->cancelled = true;
			break;
		}
		if (pump(r->s, DEADLINE_TICK_MS, err, errlen) < 0)
			return -1;
		take_lines(r);
	}
	return 0;
}

/* What the stop verified, in st->stop_note: 0, or -1 when the command may
 * still run on the board. */
static int stop_verdict(struct serial_run *r, bool quit, bool shell_back)
{
	char *note = r->st->stop_note;
	size_t len = sizeof(r->st->stop_note);
	const char *shell = shell_back ? "the console shell's prompt came back"
				       : "the console shell did not answer afterwards";
	if (!r->stop_seen || !strcmp(r->stop_target, "none")) {
		if (r->done)
			snprintf(note, len, "it had ended, or not started, when it was stopped; %s",
				 shell);
		else
			snprintf(note, len, "the console shell did not confirm within %d s that it "
				 "ended: it may still run on the board", STOP_WAIT_MS / 1000);
		return r->done && shell_back ? 0 : -1;
	}
	bool group = r->stop_target[0] == '-';
	const char *id = group ? r->stop_target + 1 : r->stop_target;
	const char *what = group ? "its process group" : "its process (no job control on the "
							  "console: not its children)";
	if (r->stop_left)
		snprintf(note, len, "%s %s still had processes 1.5 s after SIGKILL: they may still "
			 "run on the board", what, id);
	else if (!r->stop_killed)
		snprintf(note, len, "%s %s ended on SIGTERM; %s", what, id, shell);
	else if (quit)
		snprintf(note, len, "%s %s was killed (SIGKILL); %s", what, id, shell);
	else
		snprintf(note, len, "%s %s ignored SIGTERM for 1 s and ended on SIGKILL; %s",
			 what, id, shell);
	r->st->signal = r->stop_killed ? 9 : 15;
	return r->stop_left || !shell_back ? -1 : 0;
}

/* Stops the command: Ctrl-C to its supervisor (Ctrl-\ after a second
 * Ctrl-C of orch's: no grace), its stop line and the end marker awaited,
 * then the shell made to answer. 0, or -1 with err set when the stop was
 * not verified (the console is given up when the shell does not answer). */
static int serial_stop(struct serial_run *r, char *err, size_t errlen)
{
	struct serial_transport *s = r->s;
	bool quit = interrupt_hurry();
	char perr[256] = "";
	r->st->exit_code = -1;
	r->st->signal = 2;
	/* the command line runs once its begin marker is printed (a Ctrl-C before
	 * the supervisor set its trap ends it before CMD starts) */
	int64_t begin_deadline = deadline_in_ms(STOP_BEGIN_MS);
	while (!r->in_body && !r->done && !deadline_expired(begin_deadline) &&
	       pump(s, DEADLINE_TICK_MS, perr, sizeof(perr)) >= 0)
		take_lines(r);
	if (type_text(s, quit ? "\034" : "\003", perr, sizeof(perr)) < 0) {
		snprintf(err, errlen, "serial console of %s: %s", s->name, perr);
		s->broken = true;
		return -1;
	}
	int64_t deadline = deadline_in_ms(STOP_WAIT_MS), end_deadline = DEADLINE_NONE;
	while (!r->done && !deadline_expired(deadline) && !deadline_expired(end_deadline)) {
		if (!quit && interrupt_hurry()) {
			quit = true;
			type_text(s, "\034", perr, sizeof(perr));
		}
		if (pump(s, DEADLINE_TICK_MS, perr, sizeof(perr)) < 0)
			break;
		take_lines(r);
		if (r->stop_seen && end_deadline == DEADLINE_NONE)
			end_deadline = deadline_in_ms(STOP_END_MS);
	}
	r->st->exit_code = -1;   /* the end marker's status is the supervisor's */
	bool shell_back = r->done || resync(s, perr, sizeof(perr)) == 0;
	if (stop_verdict(r, quit, shell_back) < 0) {
		snprintf(err, errlen, "serial console of %s: the command %s; %s", s->name,
			 r->st->timed_out ? "timed out" : r->st->interrupted ? "was interrupted"
									   : "was stopped",
			 r->st->stop_note);
		if (!shell_back)
			s->broken = true;
		return -1;
	}
	return 0;
}

static int serial_exec(struct transport *t, const struct transport_exec *req,
		       struct transport_status *st, char *err, size_t errlen)
{
	struct serial_transport *s = (struct serial_transport *)t;
	if (s->broken) {
		snprintf(err, errlen, "serial console of %s does not answer", s->name);
		return -1;
	}
	if (req->stdin_fd >= 0) {
		snprintf(err, errlen, "serial console of %s: commands cannot be given stdin",
			 s->name);
		return -1;
	}
	char *nonce = make_nonce(s);
	struct serial_run r = {
		.s = s, .req = req, .st = st,
		.begin = xasprintf("__ORCH_BEGIN_%s__", nonce),
		.end = xasprintf("__ORCH_END_%s__ ", nonce),
		.stop = xasprintf("__ORCH_STOP_%s__ ", nonce),
	};
	char *quoted = shquote(req->command);
	char *line = xasprintf("printf '__ORCH_BEGIN_%%s__\\n' %s; /bin/sh -c \"$__orch_sup\" orch "
			       "%s %s 2>&1 </dev/null; printf '\\n__ORCH_END_%%s__ %%d\\n' %s $?\r",
			       nonce, quoted, nonce, nonce);
	int64_t start = clock_mono_us();
	int ret = -1;

	drop_lines(s);
	if (type_text(s, line, err, errlen) < 0 || serial_follow(&r, err, errlen) < 0)
		goto out;
	ret = 0;
	if (r.cancelled && !r.done && serial_stop(&r, err, errlen) < 0 && !st->interrupted)
		ret = -1;   /* after Ctrl-C the command still ends interrupted, with the note */
out:
	st->duration_us = clock_mono_us() - start;
	free(nonce);
	free(r.begin);
	free(r.end);
	free(r.stop);
	free(quoted);
	free(line);
	return ret;
}

static void serial_free(struct transport *t)
{
	struct serial_transport *s = (struct serial_transport *)t;
	if (!s)
		return;
	char err[64];
	if (!s->broken)
		type_text(s, "exit\r", err, sizeof(err));
	if (!s->port_borrowed)
		serial_port_close(s->port);
	drop_lines(s);
	free(s->lines);
	free(s->cont);
	serial_linebuf_release(&s->lb);
	strbuf_release(&s->partial);
	free(s->name);
	free(s->base.description);
	free(s);
}

static const struct transport_ops serial_ops = {
	.name = "serial",
	.no_stdin = true,
	.exec = serial_exec,
	.free = serial_free,
};

static struct transport *serial_login(struct serial_port *port, bool borrowed,
				      const struct serial_target *target, const char *password,
				      const char *name, char *err, size_t errlen)
{
	struct serial_transport *s = xcalloc(1, sizeof(*s));
	s->base.ops = &serial_ops;
	s->base.description = xasprintf("serial %s", serial_port_describe(port));
	s->port = port;
	s->port_borrowed = borrowed;
	s->name = xstrdup(name ? name : "board");
	s->char_delay_us = target->char_delay_us;
	s->nonce_seed = (unsigned long)clock_wall_us() ^ ((unsigned long)getpid() << 16);
	serial_linebuf_init(&s->lb);
	int64_t timeout = target->connect_timeout_ms > 0 ? target->connect_timeout_ms
							  : LOGIN_TIMEOUT_MS;
	if (login(s, target->login_user ? target->login_user : "root", password, timeout,
		  err, errlen) < 0 ||
	    setup_shell(s, err, errlen) < 0) {
		s->broken = true;
		serial_free(&s->base);
		return NULL;
	}
	return &s->base;
}

struct transport *transport_serial_new(const struct serial_target *target, const char *password,
				       const char *name, char *err, size_t errlen)
{
	struct serial_port *port = serial_port_open(target, err, errlen);
	if (!port)
		return NULL;
	return serial_login(port, false, target, password, name, err, errlen);
}

struct transport *transport_serial_attach(struct serial_port *port,
					  const struct serial_target *target,
					  const char *password, const char *name, char *err,
					  size_t errlen)
{
	return serial_login(port, true, target, password, name, err, errlen);
}
