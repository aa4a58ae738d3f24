#include "transport/ssh_session.h"
#include "transport/reap.h"
#include "transport/ssh_runner.h"
#include "transport/ssh_wrap.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#define SSH_CHUNK 32768
#define SSH_READ_CHUNK 4096
#define SSH_KILL_DONE "orch-kill-done"
#define SSH_OUTPUT_GRACE_MS 500   /* output after a reaped step's exit status */
#define SSH_RUNNER_RETIRE_MS 1000 /* for an old runner's shell to end */

struct ssh_run {
	struct ssh_transport *st;
	const struct transport_exec *req;
	struct transport_status *status;
	long pgid;                 /* 0 until the wrapper's first line arrived */
	char head[32];             /* the first stdout line, until complete */
	size_t head_len;
	int exit_signal;
	int exit_status;
	bool got_exit_status;
	bool stop_requested;
	bool want_reap_line;       /* the wrapper prints the reap line last on stdout */
	int64_t exited_ms;         /* when the exit status came while output was still open */
	struct strbuf hold;        /* stdout held back while it may be that line */
};

static void on_exit_signal(ssh_session session, ssh_channel channel, const char *signal,
			   int core, const char *errmsg, const char *lang, void *userdata)
{
	struct ssh_run *run = userdata;
	run->exit_signal = ssh_signal_number(signal);
	if (!run->exit_signal)
		run->exit_signal = -1;
}

static void on_exit_status(ssh_session session, ssh_channel channel, int exit_status,
			   void *userdata)
{
	struct ssh_run *run = userdata;
	run->exit_status = exit_status;
	run->got_exit_status = true;
}

/* Gives up on a session whose peer stopped answering: once the exec has
 * let go of its channels (a disconnect frees them), ssh_drop_dead() closes
 * the socket without a goodbye, and the next exec opens a new session. */
static void ssh_mark_dead(struct ssh_transport *st)
{
	st->dead = true;
}

static void ssh_drop_dead(struct ssh_transport *st)
{
	if (!st->dead)
		return;
	/* a disconnect frees the session's channels: the runner's first */
	ssh_runner_close(st->runner, false);
	st->runner = NULL;
	if (st->session && ssh_is_connected(st->session))
		ssh_silent_disconnect(st->session);
}

/* Acknowledges what arrives at once instead of after the delayed-ACK timer
 * (~40 ms): an OpenSSH server sends small packets with Nagle on, so its
 * answer to a channel open waits behind its unacknowledged last packet
 * (after authentication, the host keys announcement) until our ACK. Linux
 * resets the flag by itself, so it is set before every wait for an answer. */
static void ssh_quickack(ssh_session s)
{
#ifdef TCP_QUICKACK
	socket_t fd = ssh_get_fd(s);
	int one = 1;
	if (fd != SSH_INVALID_SOCKET)
		setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
#else
	(void)s;
#endif
}

/* Waits until the session's socket has something to read, dl passes, or
 * DEADLINE_TICK_MS (callers loop). Returns -1 once dl has passed. */
static int ssh_wait_socket(struct ssh_transport *st, int64_t dl)
{
	if (deadline_expired(dl))
		return -1;
	socket_t fd = ssh_get_fd(st->session);
	if (fd == SSH_INVALID_SOCKET)
		return -1;
	ssh_quickack(st->session);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	poll(&pf, 1, deadline_poll_ms(dl));
	return 0;
}

/*
 * Opens a session channel and starts command on it, never blocking past dl
 * (libssh's blocking calls would wait for the session's connect timeout,
 * whatever the step's timeout says). Returns 0, -1 when the channel was
 * refused or the session failed, -2 when dl passed first, -3 when the
 * board closed the channel before the command started: dropbear before
 * 2024.86 does so when a process of the session ends in between, and
 * sends no reply to an exec request on it (libssh would wait for one).
 */
static int ssh_channel_start(struct ssh_transport *st, ssh_channel ch, const char *command,
			     int64_t dl)
{
	int ret = -1;
	int rc;
	ssh_set_blocking(st->session, 0);
	while ((rc = ssh_channel_open_session(ch)) == SSH_AGAIN)
		if (ssh_wait_socket(st, dl) < 0) {
			ret = -2;
			goto out;
		}
	if (rc != SSH_OK) {
		if (ssh_channel_is_eof(ch) && ssh_is_connected(st->session))
			ret = -3;   /* opened, then closed by the board */
		goto out;
	}
	while ((rc = ssh_channel_request_exec(ch, command)) == SSH_AGAIN) {
		if (ssh_channel_is_closed(ch) && ssh_is_connected(st->session)) {
			ret = -3;
			goto out;
		}
		if (ssh_wait_socket(st, dl) < 0) {
			ret = -2;
			goto out;
		}
	}
	ret = rc == SSH_OK ? 0 : -1;
out:
	ssh_set_blocking(st->session, 1);
	return ret;
}

static void ssh_pass(struct ssh_run *run, enum transport_stream stream, const char *data,
		     size_t len)
{
	if (len && run->req->on_output && !run->stop_requested &&
	    run->req->on_output(run->req->ctx, stream, data, len) < 0)
		run->stop_requested = true;
}

/* How much of p (n bytes, starting with \036) is the reap line: 0 when it
 * cannot be, -1 while it may still become it, else its length. */
static long reap_line_len(const char *p, size_t n)
{
	static const char mark[] = REAP_MARK;
	size_t ml = sizeof(mark) - 1;
	if (memcmp(p, mark, n < ml ? n : ml) != 0)
		return 0;
	if (n < ml)
		return -1;
	const char *close = memchr(p + ml, '\036', n - ml);
	if (!close)
		return n - ml > 4096 ? 0 : -1;
	if ((size_t)(close - p) + 1 >= n)
		return -1;
	return close[1] == '\n' ? (long)(close - p) + 2 : 0;
}

/* stdout while the wrapper may end it with the reap line: everything that
 * cannot be the start of that line goes on at once, the rest is held until
 * it is whole (then it is taken off the output and parsed) or cannot be. */
static void ssh_stdout(struct ssh_run *run, const char *data, size_t len)
{
	if (!run->want_reap_line || run->status->reaped) {
		ssh_pass(run, TRANSPORT_STDOUT, data, len);
		return;
	}
	strbuf_append(&run->hold, data, len);
	const char *b = run->hold.buf;
	size_t n = run->hold.len, from = n;
	for (const char *p = b; (p = memchr(p, '\036', (size_t)(b + n - p))) != NULL; p++) {
		long l = reap_line_len(p, (size_t)(b + n - p));
		if (l == 0)
			continue;
		from = (size_t)(p - b);
		if (l > 0) {
			ssh_pass(run, TRANSPORT_STDOUT, b, from);
			if (reap_parse(p, (size_t)l, &run->status->leftovers) == 0)
				run->status->reaped = true;
			ssh_pass(run, TRANSPORT_STDOUT, p + l, n - from - (size_t)l);
			strbuf_reset(&run->hold);
			return;
		}
		break;
	}
	ssh_pass(run, TRANSPORT_STDOUT, b, from);
	memmove(run->hold.buf, b + from, n - from);
	run->hold.len = n - from;
	run->hold.buf[run->hold.len] = '\0';
}

/* What stdout held back that was not the reap line, at the end. */
static void ssh_stdout_flush(struct ssh_run *run)
{
	if (run->hold.len)
		ssh_pass(run, TRANSPORT_STDOUT, run->hold.buf, run->hold.len);
	strbuf_release(&run->hold);
}

/* Hands a stdout/stderr chunk on, peeling the wrapper's pgid line off stdout first. */
static void ssh_deliver(struct ssh_run *run, enum transport_stream stream, const char *data,
			size_t len)
{
	if (stream == TRANSPORT_STDOUT && run->pgid == 0) {
		while (len > 0 && run->pgid == 0) {
			char c = *data++;
			len--;
			if (c == '\n') {
				run->head[run->head_len] = '\0';
				run->pgid = strtol(run->head, NULL, 10);
				if (run->pgid <= 0)
					run->pgid = -1;
			} else if (run->head_len + 1 < sizeof(run->head)) {
				run->head[run->head_len++] = c;
			}
		}
		if (len == 0)
			return;
	}
	if (stream == TRANSPORT_STDOUT)
		ssh_stdout(run, data, len);
	else
		ssh_pass(run, stream, data, len);
}

/* Reads what is buffered on both streams. Returns 0, or -1 on a channel error. */
static int ssh_drain(struct ssh_run *run, ssh_channel ch)
{
	/* on the stack of a worker thread per board: every KiB here is a KiB
	 * of memory times the boards (libssh keeps what is not read yet) */
	char buf[SSH_READ_CHUNK];
	for (int is_stderr = 0; is_stderr <= 1; is_stderr++) {
		for (;;) {
			int n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), is_stderr);
			if (n == SSH_ERROR)
				return -1;
			if (n <= 0)
				break;
			ssh_deliver(run, is_stderr ? TRANSPORT_STDERR : TRANSPORT_STDOUT, buf,
				    (size_t)n);
		}
	}
	return 0;
}

/* Runs a short helper command on its own channel until it ends or dl
 * passes. Returns 0 when its stdout held `confirm`, -1 otherwise. */
static int ssh_run_helper(struct ssh_transport *st, const char *command, const char *confirm,
			  int64_t dl)
{
	int ret = -1;
	struct strbuf out = STRBUF_INIT;
	ssh_channel ch = ssh_channel_new(st->session);
	if (!ch)
		return -1;
	if (ssh_channel_start(st, ch, command, dl) < 0)
		goto out;
	char buf[256];
	while (!ssh_channel_is_eof(ch) && !ssh_channel_is_closed(ch) && !deadline_expired(dl)) {
		int n = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0, deadline_poll_ms(dl));
		if (n == SSH_ERROR)
			goto out;
		if (n > 0 && out.len < 1024)
			strbuf_append(&out, buf, (size_t)n);
	}
	ret = strstr(strbuf_str(&out), confirm) ? 0 : -1;
out:
	if (ret == 0 && ssh_is_connected(st->session))
		ssh_channel_close(ch);
	ssh_channel_free(ch);
	strbuf_release(&out);
	return ret;
}

/* A command stopped before the wrapper's pid line came: waits for that line
 * (until dl, later output discarded) so that ssh_kill_group() can reach
 * what the command started instead of leaving it running on the board. */
static void ssh_await_pgid(struct ssh_run *run, ssh_channel ch, ssh_event ev, int64_t dl)
{
	run->stop_requested = true;
	while (run->pgid == 0 && !deadline_expired(dl) && !ssh_channel_is_eof(ch) &&
	       !ssh_channel_is_closed(ch)) {
		if (ssh_drain(run, ch) < 0 || run->pgid != 0)
			break;
		if (ssh_event_dopoll(ev, deadline_poll_ms(dl)) == SSH_ERROR &&
		    !ssh_is_connected(run->st->session))
			break;
	}
}

/* Runs "P=pid; script" over a second channel (tried again while dl
 * allows). Returns 0 once the board confirmed it ran to its end. */
static int ssh_kill_pid(struct ssh_transport *st, long pid, const char *script, int64_t dl)
{
	int ret = -1;
	struct strbuf cmd = STRBUF_INIT;
	strbuf_printf(&cmd, "P=%ld; %s; echo " SSH_KILL_DONE, pid, script);
	for (int i = 0; i < 2 && ret < 0 && !deadline_expired(dl) && ssh_is_connected(st->session);
	     i++)
		ret = ssh_run_helper(st, strbuf_str(&cmd), SSH_KILL_DONE, dl);
	strbuf_release(&cmd);
	return ret;
}

/* Kills the command's process group over a second channel (tried again
 * while dl allows) and waits for the board to confirm it. Returns 0 when
 * it is confirmed (or the command had already ended), -1 when the board
 * never confirmed: the command may still run there. */
static int ssh_kill_group(struct ssh_run *run, ssh_channel ch, int64_t dl)
{
	if (run->pgid < 0)
		return 0;
	if (run->pgid == 0)
		return ssh_channel_is_closed(ch) ? 0 : -1;
	return ssh_kill_pid(run->st, run->pgid,
			    interrupt_hurry() ? SSH_WRAP_KILL_NOW_SCRIPT : SSH_WRAP_KILL_SCRIPT, dl);
}

/* The exec channel's state for the output loop. */
struct ssh_io {
	ssh_channel ch;
	ssh_event ev;
	char *inbuf;
	size_t in_pending, in_off;
	bool in_done, eof_sent;
	uint32_t win_top;          /* the largest window the board gave: its own size */
	int64_t send_window;       /* current cap on unacknowledged bytes; 0: none */
	int64_t capped_since_ms;   /* when the cap last held stdin back, or 0 */
	int64_t in_left;           /* stdin bytes still to send under stdin_limit; -1: to EOF */
};

/* How many stdin bytes may go now: the board's window, less what the send
 * window holds back. A cap the board does not answer (its adjusts come
 * only after more than the cap was consumed) is doubled after
 * SSH_SEND_WINDOW_STALL_MS, so it can slow a transfer but never stall it. */
static uint32_t ssh_send_room(struct ssh_io *io)
{
	uint32_t win = ssh_channel_window_size(io->ch);
	if (win > io->win_top)
		io->win_top = win;
	if (io->send_window <= 0)
		return win;
	int64_t unacked = (int64_t)io->win_top - win;
	if (unacked < io->send_window) {
		io->capped_since_ms = 0;
		int64_t room = io->send_window - unacked;
		return room < win ? (uint32_t)room : win;
	}
	int64_t now = clock_mono_ms();
	if (io->capped_since_ms == 0) {
		io->capped_since_ms = now;
	} else if (now - io->capped_since_ms >= SSH_SEND_WINDOW_STALL_MS) {
		io->send_window *= 2;
		io->capped_since_ms = 0;
	}
	return 0;
}

/* Feeds stdin as far as the send room allows. Returns 0 for more to come, 1
 * when stdin is done, -1 when reading stdin failed (err set), -2 when the
 * channel refused the data. */
static int ssh_feed_stdin(struct ssh_io *io, int fd, char *err, size_t errlen)
{
	for (;;) {
		if (io->in_pending == 0) {
			/* a pipe with nothing yet must not block the output loop */
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			if (poll(&pf, 1, 0) == 0)
				return 0;
			size_t want = SSH_CHUNK;
			if (io->in_left >= 0 && (int64_t)want > io->in_left)
				want = (size_t)io->in_left;
			ssize_t n = want ? read(fd, io->inbuf, want) : 0;
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				snprintf(err, errlen, "reading stdin: %s", strerror(errno));
				return -1;
			}
			if (n == 0)
				return 1;
			if (io->in_left >= 0)
				io->in_left -= n;
			io->in_pending = (size_t)n;
			io->in_off = 0;
		}
		uint32_t room = ssh_send_room(io);
		if (room == 0)
			return 0;
		size_t len = io->in_pending < room ? io->in_pending : room;
		int w = ssh_channel_write(io->ch, io->inbuf + io->in_off, (uint32_t)len);
		if (w == SSH_ERROR)
			return -2;
		if (w <= 0)
			return 0;
		io->in_off += (size_t)w;
		io->in_pending -= (size_t)w;
	}
}

/* Whether the command has ended: its channel closed, or its output ended
 * and its exit status (or signal) arrived. Output ending alone is not the
 * end: a command may close its stdout and stderr and run on. */
static bool ssh_run_ended(struct ssh_run *run, ssh_channel ch)
{
	if (ssh_channel_is_closed(ch))
		return true;
	bool exited = run->got_exit_status || run->exit_signal;
	if (exited && ssh_channel_is_eof(ch))
		return true;
	/* a step whose leftovers are reaped: once its shell exited, a process it
	 * left behind holding the output open does not hold the step up (the
	 * reap stops that process) */
	if (!exited || !run->req->reap)
		return false;
	if (!run->exited_ms)
		run->exited_ms = clock_mono_ms();
	return clock_mono_ms() - run->exited_ms >= SSH_OUTPUT_GRACE_MS;
}

/* Moves output and stdin until the command ends, or it must be stopped
 * (status->stopped, interrupted or timed_out set). Returns 0, -1 when the
 * session failed, -2 when reading stdin failed (err set). */
static int ssh_pump(struct ssh_run *run, struct ssh_io *io, int64_t dl, char *err, size_t errlen)
{
	struct transport_status *status = run->status;
	ssh_session s = run->st->session;
	for (;;) {
		if (ssh_drain(run, io->ch) < 0)
			return -1;
		if (run->stop_requested || transport_cancelled(run->req)) {
			status->stopped = true;
			return 0;
		}
		if (ssh_run_ended(run, io->ch))
			return 0;
		if (interrupt_requested() && !run->req->cleanup) {
			status->interrupted = true;
			return 0;
		}
		if (deadline_expired(dl)) {
			status->timed_out = true;
			return 0;
		}
		if (!io->in_done) {
			int r = ssh_feed_stdin(io, run->req->stdin_fd, err, errlen);
			if (r == -1)
				return -2;
			if (r == -2 && !ssh_is_connected(s))
				return -1;
			if (r != 0)
				io->in_done = true;   /* -2: the command closed its stdin early */
		}
		if (io->in_done && !io->eof_sent) {
			ssh_channel_send_eof(io->ch);
			io->eof_sent = true;
		}
		/* held back by the send window: look again soon for the stall */
		int wait = deadline_poll_ms(dl);
		if (io->capped_since_ms && wait > SSH_SEND_WINDOW_STALL_MS)
			wait = SSH_SEND_WINDOW_STALL_MS;
		ssh_quickack(s);
		if (ssh_event_dopoll(io->ev, wait) == SSH_ERROR && !ssh_is_connected(s))
			return -1;
	}
}

/* The exit status of a command that ended. Returns 0, or -1 when the
 * session was lost before the status came. */
static int ssh_collect_exit(struct ssh_run *run, ssh_channel ch)
{
	struct transport_status *status = run->status;
	int code = run->got_exit_status ? run->exit_status
		 : ssh_channel_is_closed(ch) ? ssh_channel_get_exit_status(ch) : -1;
	if (run->exit_signal) {
		status->signal = run->exit_signal > 0 ? run->exit_signal : 0;
		status->exit_code = -1;
	} else if (code >= 0 && code <= 255) {
		status->exit_code = code;
	} else if (!ssh_is_connected(run->st->session)) {
		return -1;
	} else {
		status->exit_code = -1;
	}
	return 0;
}

/* The error of a stop the board did not confirm (err set; the session is
 * given up). */
static void ssh_unconfirmed(struct ssh_run *run, char *err, size_t errlen)
{
	struct ssh_transport *st = run->st;
	const struct transport_status *s = run->status;
	const char *what = s->timed_out ? "timed out" : s->interrupted ? "was interrupted"
										: "was stopped";
	if (interrupt_hurry())
		snprintf(err, errlen, "%s (%s:%u): the command %s, and the board did not confirm "
			 "that its process group was killed before orch was interrupted again and "
			 "gave up waiting; it may still be running there", st->name, st->host,
			 st->port, what);
	else
		snprintf(err, errlen, "%s (%s:%u) stopped answering: the command %s, and the board "
			 "did not confirm that its process group was killed within %d s; it may "
			 "still be running there", st->name, st->host, st->port, what,
			 SSH_KILL_WAIT_MS / 1000);
	ssh_mark_dead(st);
}

/* Stops a command that must not go on (timeout, Ctrl-C, callback, stdin
 * failure): its process group is killed and the board must confirm it
 * within SSH_KILL_WAIT_MS. Returns 0, or -1 (err set, session given up)
 * when the board never confirmed: it stopped answering, and the command
 * may still run there. */
static int ssh_stop_command(struct ssh_run *run, struct ssh_io *io, char *err, size_t errlen)
{
	struct ssh_transport *st = run->st;
	int64_t kdl = deadline_in_ms(SSH_KILL_WAIT_MS);
	ssh_await_pgid(run, io->ch, io->ev, kdl);
	ssh_event_remove_session(io->ev, st->session);
	ssh_event_free(io->ev);
	io->ev = NULL;
	run->status->exit_code = -1;
	if (ssh_kill_group(run, io->ch, kdl) == 0)
		return 0;
	ssh_unconfirmed(run, err, errlen);
	return -1;
}

/* Connects again when the session was lost or given up. */
static int ssh_ensure_session(struct ssh_transport *st, char *err, size_t errlen)
{
	if (!st->dead && ssh_is_connected(st->session))
		return 0;
	if (ssh_open(st, err, errlen) < 0)
		return -1;
	st->dead = false;
	return 0;
}

static void ssh_lost_message(struct ssh_transport *st, char *err, size_t errlen)
{
	char e[256];
	ssh_error_text(st->session, e, sizeof(e));
	if (ssh_is_connected(st->session))
		snprintf(err, errlen, "exec on %s (%s:%u): %s", st->name, st->host, st->port, e);
	else
		snprintf(err, errlen, "connection to %s (%s:%u) lost: %s", st->name, st->host,
			 st->port, e);
}

/* How long starting a channel may take: the step's time, at least
 * SSH_KILL_WAIT_MS (a tiny timeout still gets the kill's grace), at most
 * the connect timeout. */
static int64_t ssh_open_deadline(const struct ssh_transport *st, int64_t dl)
{
	int64_t cms = st->target.connect_timeout_ms > 0 ? st->target.connect_timeout_ms
							: SSH_DEFAULT_CONNECT_MS;
	int64_t open_dl = dl > deadline_in_ms(SSH_KILL_WAIT_MS) ? dl : deadline_in_ms(SSH_KILL_WAIT_MS);
	return open_dl > deadline_in_ms(cms) ? deadline_in_ms(cms) : open_dl;
}

static void ssh_no_reply(struct ssh_transport *st, int64_t t0, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s (%s:%u) stopped answering: no reply to starting a command "
		 "within %lld ms", st->name, st->host, st->port, (long long)(clock_mono_ms() - t0));
	ssh_mark_dead(st);
}

/* Opens the exec channel for the wrapped command within ssh_open_deadline().
 * Returns 0, or -1 with err set. */
static int ssh_exec_open(struct ssh_run *run, struct ssh_io *io,
			 struct ssh_channel_callbacks_struct *cb, int64_t dl, char *err,
			 size_t errlen)
{
	struct ssh_transport *st = run->st;
	int64_t t0 = clock_mono_ms();
	int64_t open_dl = ssh_open_deadline(st, dl);
	io->ch = ssh_channel_new(st->session);
	if (!io->ch) {
		ssh_lost_message(st, err, errlen);
		return -1;
	}
	cb->userdata = run;
	cb->channel_exit_signal_function = on_exit_signal;
	cb->channel_exit_status_function = on_exit_status;
	ssh_callbacks_init(cb);
	ssh_set_channel_callbacks(io->ch, cb);
	char *wrapped = ssh_wrap_command(run->req->command,
					 run->want_reap_line ? run->req->step_id : NULL,
					 !interrupt_hurry());
	int r = ssh_channel_start(st, io->ch, wrapped, open_dl);
	free(wrapped);
	if (r == -2) {
		ssh_no_reply(st, t0, err, errlen);
		return -1;
	}
	if (r == -3) {
		snprintf(err, errlen, "exec on %s (%s:%u): the board closed the channel before the "
			 "command started", st->name, st->host, st->port);
		return -1;
	}
	if (r < 0 || (io->in_done && ssh_channel_send_eof(io->ch) != SSH_OK)) {
		ssh_lost_message(st, err, errlen);
		return -1;
	}
	io->eof_sent = io->in_done;
	io->ev = ssh_event_new();
	if (!io->ev || ssh_event_add_session(io->ev, st->session) != SSH_OK) {
		snprintf(err, errlen, "exec on %s: cannot create a libssh event", st->name);
		return -1;
	}
	return 0;
}

/* ---- the command runner (transport/ssh_runner.h) ---- */

static int runner_start(void *ctx, ssh_channel ch, const char *command, int64_t dl)
{
	return ssh_channel_start(((struct ssh_run *)ctx)->st, ch, command, dl);
}

static void runner_wait(void *ctx, int64_t dl)
{
	ssh_wait_socket(((struct ssh_run *)ctx)->st, dl);
}

static int runner_kill(void *ctx, long pid, const char *script, int64_t dl)
{
	return ssh_kill_pid(((struct ssh_run *)ctx)->st, pid, script, dl);
}

/* The command's output on, through the reap line's peeling; once it is
 * being stopped, no more of it goes to the caller (as on a channel). */
static void runner_deliver(void *ctx, enum transport_stream stream, const char *data,
			   size_t len)
{
	struct ssh_run *run = ctx;
	const struct transport_status *s = run->status;
	if (s->timed_out || s->interrupted || s->stopped)
		run->stop_requested = true;
	if (stream == TRANSPORT_STDOUT)
		ssh_stdout(run, data, len);
	else
		ssh_pass(run, stream, data, len);
}

static bool runner_stop_asked(void *ctx)
{
	return ((struct ssh_run *)ctx)->stop_requested;
}

/* How long a runner's shell may take to end before the next channel
 * opens anyway (ssh_runner_retire): SSH_RUNNER_RETIRE_MS, within dl. */
static int64_t ssh_retire_deadline(int64_t dl)
{
	int64_t rdl = deadline_in_ms(SSH_RUNNER_RETIRE_MS);
	return dl < rdl ? dl : rdl;
}

/* Commands without stdin go to the session's runner, unless it is off. */
static bool ssh_runner_takes(const struct ssh_transport *st, const struct transport_exec *req)
{
	return !st->target.no_runner && !st->runner_off && req->stdin_fd < 0 && !req->cleanup &&
	       !req->own_channel;
}

/* Runs the command on the session's runner, opened at the first command
 * (and again after one was closed). Returns 0 or -1 like an exec, or 1
 * when no runner could take it (nothing ran): it then runs on a channel
 * of its own. A runner that fails before its first command is not tried
 * again on this session. */
static int ssh_exec_on_runner(struct ssh_run *run, int64_t dl, char *err, size_t errlen)
{
	struct ssh_transport *st = run->st;
	struct ssh_runner_host h = {
		.session = st->session, .ctx = run, .kill_wait_ms = SSH_KILL_WAIT_MS,
		.start = runner_start, .wait = runner_wait, .kill = runner_kill,
		.deliver = runner_deliver, .stop_asked = runner_stop_asked,
	};
	for (int tries = 0; tries < 2; tries++) {
		enum ssh_runner_rc rc = SSH_RUNNER_RAN;
		int64_t t0 = clock_mono_ms();
		bool fresh = !st->runner;
		if (fresh)
			st->runner = ssh_runner_open(&h, ssh_open_deadline(st, dl), &rc);
		if (st->runner)
			rc = ssh_runner_exec(st->runner, &h, run->req, run->status, dl, &run->pgid);
		bool fresh_failed = fresh && ssh_runner_done(st->runner) == 0;
		if (st->runner && !ssh_runner_usable(st->runner)) {
			if ((rc == SSH_RUNNER_RAN || rc == SSH_RUNNER_NOT_RUN) &&
			    ssh_is_connected(st->session))
				ssh_runner_retire(st->runner, &h, ssh_retire_deadline(dl));
			else
				ssh_runner_close(st->runner, false);
			st->runner = NULL;
		}
		switch (rc) {
		case SSH_RUNNER_RAN:
			return 0;
		case SSH_RUNNER_NOT_RUN:
			if (!fresh_failed)
				continue;
			log_debug("%s: no command runner on this session", st->name);
			st->runner_off = true;
			return 1;
		case SSH_RUNNER_LOST:
			ssh_lost_message(st, err, errlen);
			return -1;
		case SSH_RUNNER_NO_ANSWER:
			ssh_no_reply(st, t0, err, errlen);
			return -1;
		case SSH_RUNNER_UNCONFIRMED:
			ssh_unconfirmed(run, err, errlen);
			return -1;
		}
	}
	return 1;
}

int ssh_transport_exec(struct transport *t, const struct transport_exec *req,
		       struct transport_status *status, char *err, size_t errlen)
{
	struct ssh_transport *st = (struct ssh_transport *)t;
	struct ssh_run run = { .st = st, .req = req, .status = status,
			       .want_reap_line = req->reap && req->step_id };
	struct ssh_channel_callbacks_struct cb = { 0 };
	struct ssh_io io = { .in_done = req->stdin_fd < 0, .send_window = st->target.send_window,
			     .in_left = req->stdin_limit > 0 ? req->stdin_limit : -1 };
	int ret = -1;
	int64_t start = clock_mono_us();
	int64_t dl = deadline_in_ms(req->timeout_ms);

	if (ssh_ensure_session(st, err, errlen) < 0)
		goto out;
	if (ssh_runner_takes(st, req) && (ret = ssh_exec_on_runner(&run, dl, err, errlen)) <= 0)
		goto out;
	ret = -1;
	if (ssh_exec_open(&run, &io, &cb, dl, err, errlen) < 0)
		goto out;
	if (!io.in_done)
		io.inbuf = xmalloc(SSH_CHUNK);
	int r = ssh_pump(&run, &io, dl, err, errlen);
	if (r == -1) {
		ssh_lost_message(st, err, errlen);
	} else if (r == -2) {
		char keep[512];
		snprintf(keep, sizeof(keep), "%s", err);
		if (ssh_stop_command(&run, &io, err, errlen) == 0)
			snprintf(err, errlen, "%s", keep);
	} else if (status->stopped || status->interrupted || status->timed_out) {
		ret = ssh_stop_command(&run, &io, err, errlen);
	} else if (ssh_collect_exit(&run, io.ch) == 0) {
		ret = 0;
	} else {
		ssh_lost_message(st, err, errlen);
	}
out:
	if (io.ev) {
		ssh_event_remove_session(io.ev, st->session);
		ssh_event_free(io.ev);
	}
	if (io.ch) {
		/* libssh keeps a channel the server has not closed yet past
		 * ssh_channel_free(): it must not call back into this frame */
		ssh_remove_channel_callbacks(io.ch, &cb);
		if (!st->dead && ssh_is_connected(st->session))
			ssh_channel_close(io.ch);
		ssh_channel_free(io.ch);
	}
	ssh_stdout_flush(&run);
	ssh_drop_dead(st);
	status->pgid = run.pgid > 0 ? run.pgid : 0;
	status->duration_us = clock_mono_us() - start;
	free(io.inbuf);
	return ret;
}
