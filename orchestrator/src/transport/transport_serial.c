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

/* Types line and waits for a line ending with marker: 0, or -1. */
static int sync_on(struct serial_transport *s, const char *line, const char *marker,
		   int64_t timeout_ms, char *err, size_t errlen)
{
	drop_lines(s);
	if (type_text(s, line, err, errlen) < 0)
		return -1;
	int64_t deadline = deadline_in_ms(timeout_ms);
	while (!deadline_expired(deadline)) {
		if (interrupt_requested()) {
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
	char *line = xasprintf("stty -echo 2>/dev/null; dmesg -n 1 2>/dev/null; PS1='orch$ '; "
			       "PS2=''; export PS1 PS2; printf '__ORCH_READY_%%s__\\n' %s\r",
			       nonce);
	int ret = sync_on(s, line, marker, RESYNC_MS * 2, err, errlen);
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
	int ret = sync_on(s, line, marker, RESYNC_MS, err, errlen);
	free(nonce);
	free(marker);
	free(line);
	if (ret < 0)
		s->broken = true;
	return ret;
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
	char *begin = xasprintf("__ORCH_BEGIN_%s__", nonce);
	char *end = xasprintf("__ORCH_END_%s__ ", nonce);
	char *quoted = shquote(req->command);
	char *line = xasprintf("printf '__ORCH_BEGIN_%%s__\\n' %s; /bin/sh -c %s 2>&1 </dev/null; "
			       "printf '\\n__ORCH_END_%%s__ %%d\\n' %s $?\r",
			       nonce, quoted, nonce);
	int64_t start = clock_mono_us();
	int64_t deadline = deadline_in_ms(req->timeout_ms);
	bool in_body = false, pending_nl = false, done = false, cancelled = false;
	int ret = -1;

	drop_lines(s);
	if (type_text(s, line, err, errlen) < 0)
		goto out;
	while (!done) {
		if (!cancelled && (deadline_expired(deadline) || interrupt_requested() ||
				   transport_cancelled(req))) {
			if (interrupt_requested())
				st->interrupted = true;
			else if (transport_cancelled(req))
				st->stopped = true;
			else
				st->timed_out = true;
			cancelled = true;
			break;
		}
		if (pump(s, DEADLINE_TICK_MS, err, errlen) < 0)
			goto out;
		char *l;
		bool cont;
		while (!done && (l = pop_line_cont(s, &cont)) != NULL) {
			char *mark;
			if (!in_body) {
				in_body = ends_with(l, begin);
			} else if ((mark = strstr(l, end)) != NULL) {
				st->exit_code = atoi(mark + strlen(end));
				done = true;
			} else if (!cancelled && req->on_output) {
				int r = 0;
				if (pending_nl)
					r = req->on_output(req->ctx, TRANSPORT_STDOUT, "\n", 1);
				if (r >= 0 && *l)
					r = req->on_output(req->ctx, TRANSPORT_STDOUT, l, strlen(l));
				pending_nl = !cont;   /* the pieces of a long line stay one line */
				if (r < 0) {
					st->stopped = true;
					cancelled = true;
				}
			}
			free(l);
		}
		if (cancelled && !done)
			break;
	}
	if (cancelled && !done) {
		st->exit_code = -1;
		st->signal = 2;
		/* after Ctrl-C on our side there is no waiting for the shell: the
		 * command still ends interrupted, the console is given up */
		if (resync(s, err, errlen) < 0 && !st->interrupted)
			goto out;
	}
	ret = 0;
out:
	st->duration_us = clock_mono_us() - start;
	free(nonce);
	free(begin);
	free(end);
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
