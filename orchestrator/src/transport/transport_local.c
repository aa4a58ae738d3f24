#include "transport/transport_local.h"
#include "util/secret.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOCAL_CHUNK 65536
#define LOCAL_KILL_GRACE_MS 1000
#define LOCAL_OUTPUT_GRACE_MS 500   /* output after a reaped step's shell exited */

static int local_exec(struct transport *t, const struct transport_exec *req,
		      struct transport_status *st, char *err, size_t errlen);
static void local_free(struct transport *t);

static const struct transport_ops local_ops = {
	.name = "local",
	.reaps = true,
	.exec = local_exec,
	.free = local_free,
};

struct transport *transport_local_new(void)
{
	struct transport *t = xcalloc(1, sizeof(*t));
	t->ops = &local_ops;
	t->description = xstrdup("local");
	return t;
}

static void local_free(struct transport *t)
{
	if (!t)
		return;
	free(t->description);
	free(t);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The names a test's command keeps from orch's environment (minimal_env);
 * the test's own `env:` is set by its command line. */
static const char *const kept_env[] = { "PATH", "HOME", "LANG", "TERM", NULL };

static char default_path[] = "PATH=/usr/local/bin:/usr/bin:/bin";

/* The command's environment, built before the fork (the child may not
 * allocate): for minimal_env the kept names of environ (PATH given a
 * default when orch has none), else all of environ; with a step id,
 * ORCH_STEP_ID=<id> (step_var) in place of any orch has, so the shell
 * itself carries the token, not only what it starts. NULL: environ as it
 * is. Caller frees the array (its strings are borrowed). */
static char **local_env_new(const struct transport_exec *req, char *step_var)
{
	if (!req->minimal_env && !step_var)
		return NULL;
	size_t n = 0, max = 2;
	for (char **e = environ; e && *e; e++)
		max++;
	char **envp = xcalloc(max + 8, sizeof(*envp));
	if (req->minimal_env) {
		for (size_t i = 0; kept_env[i]; i++) {
			size_t len = strlen(kept_env[i]);
			size_t had = n;
			for (char **e = environ; e && *e; e++)
				if (strncmp(*e, kept_env[i], len) == 0 && (*e)[len] == '=') {
					envp[n++] = *e;
					break;
				}
			if (n == had && strcmp(kept_env[i], "PATH") == 0)
				envp[n++] = default_path;
		}
	} else {
		for (char **e = environ; e && *e; e++)
			if (strncmp(*e, "ORCH_STEP_ID=", 13) != 0)
				envp[n++] = *e;
	}
	if (step_var)
		envp[n++] = step_var;
	envp[n] = NULL;
	return envp;
}

/* The command's shell: never returns. Only async-signal-safe calls after
 * fork. An exec failure is reported as errno on sync_fd (closed by a good
 * exec). */
static void local_child(const char *command, char *const *envp, int in_fd, int out_fd,
			int err_fd, int sync_fd)
{
	int e;
	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	/* fds that others opened without O_CLOEXEC (libssh sockets of other
	 * boards, whatever our parent left us) must not reach the command. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	secret_child_restore();
	char sh[] = "sh", dash_c[] = "-c";
	char *cmd;
	memcpy(&cmd, &command, sizeof(cmd));   /* exec does not write it */
	char *const argv[] = { sh, dash_c, cmd, NULL };
	if (envp)
		execve("/bin/sh", argv, envp);
	else
		execv("/bin/sh", argv);
fail:
	e = errno;
	if (write(sync_fd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

/* Every fd but keep closed (the keeper must not hold other commands'
 * pipes open: it never execs, so O_CLOEXEC does not close them). */
static void keeper_close_all_but(int keep)
{
	if (keep > 0 && close_range(0, (unsigned)keep - 1, 0) < 0)
		for (int fd = 0; fd < keep; fd++)
			close(fd);
	if (close_range((unsigned)keep + 1, ~0U, 0) < 0) {
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = keep + 1; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			close(fd);
	}
}

/* The keeper: the command's own parent, between orch and its shell, so
 * that what the command does to $PPID reaches the keeper and never orch.
 * It leads a new session (a stop of the group reaches all), forks the
 * shell, closes everything but status_fd, waits for the shell and writes
 * its wait status there. It ignores TERM, INT and HUP, so a stop of the
 * group gives the shell its grace and the keeper still tells how the
 * shell ended; KILL ends it, as the group's last stop does. Never returns;
 * only async-signal-safe calls. */
static void local_keeper(const char *command, char *const *envp, int in_fd, int out_fd,
			 int err_fd, int sync_fd, int status_fd)
{
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	pid_t sh = fork();
	if (sh == 0)
		local_child(command, envp, in_fd, out_fd, err_fd, sync_fd);
	if (sh < 0) {
		int e = errno;
		if (write(sync_fd, &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	keeper_close_all_but(status_fd);
	int ws = 0;
	while (waitpid(sh, &ws, 0) < 0)
		if (errno != EINTR)
			_exit(125);
	if (write(status_fd, &ws, sizeof(ws)) < 0)
		_exit(126);
	_exit(0);
}

/* One command's state on the controller side. */
struct local_run {
	const struct transport_exec *req;
	struct transport_status *st;
	int out_pipe[2], err_pipe[2], in_pipe[2], sync_pipe[2], status_pipe[2];
	int wstatus;               /* the keeper's, then (local_reaped) the shell's */
	bool keeper_lost;          /* the keeper ended without the shell's status */
	int keeper_signal;         /* ...killed by this signal */
	bool stop;                 /* on_output asked to stop */
	pid_t pid;                 /* the command's keeper (its group) until reaped, else -1 */
	char *buf, *inbuf;
	size_t in_len, in_off;
	bool in_eof;
	int64_t in_sent;           /* bytes read from stdin_fd, for stdin_limit */
	bool exited;               /* the keeper reaped already */
	int64_t exited_ms;
	int64_t dl;
};

/* After a waitpid of the keeper: its wait status becomes the shell's,
 * as the keeper wrote it; a keeper that wrote none was killed first
 * (parent_signal: by what, when not by the transport's own stop). */
static void local_reaped(struct local_run *r)
{
	int ws = 0;
	ssize_t n;
	while ((n = read(r->status_pipe[0], &ws, sizeof(ws))) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(ws)) {
		r->wstatus = ws;
		return;
	}
	r->keeper_lost = true;
	if (WIFSIGNALED(r->wstatus))
		r->keeper_signal = WTERMSIG(r->wstatus);
}

/* TERM to the whole group, KILL after the grace period, and always reap. */
static void local_kill_and_reap(struct local_run *r)
{
	pid_t pid = r->pid;
	kill(-pid, SIGTERM);
	int64_t dl = deadline_in_ms(LOCAL_KILL_GRACE_MS);
	bool reaped = false;
	while (!deadline_expired(dl) && !interrupt_hurry()) {
		pid_t w = waitpid(pid, &r->wstatus, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			reaped = w == pid;
			break;
		}
		usleep(10000);
	}
	/* The keeper may be gone while others of its group linger: KILL them too. */
	kill(-pid, SIGKILL);
	if (!reaped) {
		pid_t w;
		while ((w = waitpid(pid, &r->wstatus, 0)) < 0 && errno == EINTR)
			;
		reaped = w == pid;
	}
	if (reaped)
		local_reaped(r);
	r->pid = -1;
}

/* write() that turns a closed pipe into EPIPE without a SIGPIPE for the process. */
static ssize_t write_nosigpipe(int fd, const void *data, size_t len)
{
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ssize_t w = write(fd, data, len);
	int saved = errno;
	if (w < 0 && errno == EPIPE) {
		struct timespec zero = { 0, 0 };
		sigset_t pending;
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE))
			sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return w;
}

static void deliver(const struct transport_exec *req, bool *stop, enum transport_stream s,
		    const char *buf, size_t n)
{
	if (req->on_output && !*stop && req->on_output(req->ctx, s, buf, n) < 0)
		*stop = true;
}


/* Pipes, the keeper's fork, and the wait for the shell's exec. 0, or -1
 * with err. */
static int local_start(struct local_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	int ret = -1;
	char *step_var = req->step_id ? xasprintf("ORCH_STEP_ID=%s", req->step_id) : NULL;
	char **envp = local_env_new(req, step_var);
	if (pipe2(r->out_pipe, O_CLOEXEC) < 0 || pipe2(r->err_pipe, O_CLOEXEC) < 0 ||
	    pipe2(r->sync_pipe, O_CLOEXEC) < 0 || pipe2(r->status_pipe, O_CLOEXEC) < 0 ||
	    (req->stdin_fd >= 0 && pipe2(r->in_pipe, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "local exec: pipe: %s", strerror(errno));
		goto out;
	}
	r->pid = fork();
	if (r->pid < 0) {
		snprintf(err, errlen, "local exec: fork: %s", strerror(errno));
		goto out;
	}
	if (r->pid == 0)
		local_keeper(req->command, envp, r->in_pipe[0], r->out_pipe[1], r->err_pipe[1],
			     r->sync_pipe[1], r->status_pipe[1]);
	r->st->pgid = r->pid;   /* the keeper calls setsid() */
	/* Wait for the exec: after it the shell is in the keeper's group, so a
	 * kill cannot miss anything it starts. */
	close_fd(&r->sync_pipe[1]);
	close_fd(&r->status_pipe[1]);
	int child_errno = 0;
	ssize_t sn;
	while ((sn = read(r->sync_pipe[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	if (sn == (ssize_t)sizeof(child_errno)) {
		snprintf(err, errlen, "local exec: /bin/sh: %s", strerror(child_errno));
		goto out;
	}
	fcntl(r->status_pipe[0], F_SETFL, fcntl(r->status_pipe[0], F_GETFL) | O_NONBLOCK);
	close_fd(&r->out_pipe[1]);
	close_fd(&r->err_pipe[1]);
	close_fd(&r->in_pipe[0]);
	if (r->in_pipe[1] >= 0) {
		fcntl(r->in_pipe[1], F_SETFL, fcntl(r->in_pipe[1], F_GETFL) | O_NONBLOCK);
		r->inbuf = xmalloc(LOCAL_CHUNK);
	}
	r->buf = xmalloc(LOCAL_CHUNK);
	ret = 0;
out:
	free(envp);
	free(step_var);
	return ret;
}

/* Whether the pump must end now (and why, in st): the keeper was
 * killed, the shell of a step with a reap exited a while ago, Ctrl-C, the
 * deadline, a stop. */
static bool local_pump_ends(struct local_run *r)
{
	const struct transport_exec *req = r->req;
	struct transport_status *st = r->st;
	if (!r->exited && waitpid(r->pid, &r->wstatus, WNOHANG) == r->pid) {
		r->exited = true;
		r->exited_ms = clock_mono_ms();
		local_reaped(r);
	}
	/* its keeper was killed: the command is stopped at once */
	if (r->keeper_lost)
		return true;
	/* its shell exited: what it left behind holding the output open
	 * does not hold the step up (the reap stops it) */
	if (req->reap && r->exited && clock_mono_ms() - r->exited_ms >= LOCAL_OUTPUT_GRACE_MS)
		return true;
	if (interrupt_requested() && !req->cleanup) {
		st->interrupted = true;
		return true;
	}
	if (deadline_expired(r->dl)) {
		st->timed_out = true;
		return true;
	}
	if (r->stop || transport_cancelled(req)) {
		st->stopped = true;
		return true;
	}
	return false;
}

/* Reads the next chunk of stdin_fd (poll said it is ready). 0, or -1
 * with err. */
static int local_read_stdin(struct local_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	size_t want = LOCAL_CHUNK;
	if (req->stdin_limit > 0 && (int64_t)want > req->stdin_limit - r->in_sent)
		want = (size_t)(req->stdin_limit - r->in_sent);
	ssize_t n = want ? read(req->stdin_fd, r->inbuf, want) : 0;
	if (n < 0 && errno != EINTR && errno != EAGAIN) {
		snprintf(err, errlen, "local exec: reading stdin: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		r->in_eof = true;
		close_fd(&r->in_pipe[1]);
	} else if (n > 0) {
		r->in_len = (size_t)n;
		r->in_off = 0;
		r->in_sent += n;
	}
	return 0;
}

static void local_write_stdin(struct local_run *r)
{
	ssize_t w = write_nosigpipe(r->in_pipe[1], r->inbuf + r->in_off, r->in_len - r->in_off);
	if (w > 0) {
		r->in_off += (size_t)w;
	} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
		/* EPIPE: the command stopped reading stdin; not our failure */
		close_fd(&r->in_pipe[1]);
		r->in_eof = true;
	}
}

/* One poll round: stdin in, output out. 0, or -1 with err. */
static int local_pump_once(struct local_run *r, char *err, size_t errlen)
{
	struct pollfd pf[4];
	int nf = 0;
	int idx_out = -1, idx_err = -1, idx_in = -1, idx_src = -1;
	/* stdin may be a pipe that stays silent: read it only when poll says so */
	if (r->in_pipe[1] >= 0 && r->in_len == r->in_off && !r->in_eof) {
		idx_src = nf;
		pf[nf++] = (struct pollfd){ .fd = r->req->stdin_fd, .events = POLLIN };
	}
	if (r->out_pipe[0] >= 0) {
		idx_out = nf;
		pf[nf++] = (struct pollfd){ .fd = r->out_pipe[0], .events = POLLIN };
	}
	if (r->err_pipe[0] >= 0) {
		idx_err = nf;
		pf[nf++] = (struct pollfd){ .fd = r->err_pipe[0], .events = POLLIN };
	}
	if (r->in_pipe[1] >= 0 && r->in_off < r->in_len) {
		idx_in = nf;
		pf[nf++] = (struct pollfd){ .fd = r->in_pipe[1], .events = POLLOUT };
	}
	int pr = poll(pf, (nfds_t)nf, deadline_poll_ms(r->dl));
	if (pr < 0 && errno != EINTR) {
		snprintf(err, errlen, "local exec: poll: %s", strerror(errno));
		return -1;
	}
	if (pr <= 0)
		return 0;
	if (idx_src >= 0 && pf[idx_src].revents && local_read_stdin(r, err, errlen) < 0)
		return -1;
	if (idx_in >= 0 && pf[idx_in].revents)
		local_write_stdin(r);
	for (int k = 0; k < 2; k++) {
		int idx = k == 0 ? idx_out : idx_err;
		int *fd = k == 0 ? &r->out_pipe[0] : &r->err_pipe[0];
		if (idx < 0 || !pf[idx].revents)
			continue;
		ssize_t n = read(*fd, r->buf, LOCAL_CHUNK);
		if (n > 0)
			deliver(r->req, &r->stop, k == 0 ? TRANSPORT_STDOUT : TRANSPORT_STDERR, r->buf,
				(size_t)n);
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			close_fd(fd);
	}
	return 0;
}

/* The status of a command that ended without a stop of ours: the
 * shell's exit status or signal. A keeper killed before its shell ended
 * is told as parent_lost, and its group (the shell may still run) is
 * killed. */
static void local_ended(struct local_run *r, pid_t group)
{
	struct transport_status *st = r->st;
	st->exit_code = -1;
	if (r->keeper_lost) {
		st->parent_lost = true;
		st->parent_signal = r->keeper_signal;
		kill(-group, SIGKILL);
	} else if (WIFEXITED(r->wstatus)) {
		st->exit_code = WEXITSTATUS(r->wstatus);
	} else if (WIFSIGNALED(r->wstatus)) {
		st->signal = WTERMSIG(r->wstatus);
	}
}

/* Both pipes closed: the shell is exiting; its keeper's waitpid is
 * bounded by the deadline too. 0 (st set), or -1 with err. */
static int local_wait_exit(struct local_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	struct transport_status *st = r->st;
	pid_t group = r->pid;
	for (;;) {
		pid_t w = waitpid(r->pid, &r->wstatus, WNOHANG);
		if (w == r->pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "local exec: waitpid: %s", strerror(errno));
			r->pid = -1;
			return -1;
		}
		if ((interrupt_requested() && !req->cleanup) || deadline_expired(r->dl)) {
			st->interrupted = interrupt_requested() && !req->cleanup;
			st->timed_out = !st->interrupted;
			local_kill_and_reap(r);
			st->exit_code = -1;
			return 0;
		}
		usleep(5000);
	}
	r->pid = -1;
	local_reaped(r);
	local_ended(r, group);
	return 0;
}

/* The status once the pump ended. 0, or -1 with err. */
static int local_finish(struct local_run *r, char *err, size_t errlen)
{
	struct transport_status *st = r->st;
	if (r->stop)
		st->stopped = true;
	bool ended = st->interrupted || st->timed_out || st->stopped;
	if (r->exited && !ended) {
		local_ended(r, r->pid);
		r->pid = -1;
		return 0;
	}
	if (r->exited) {
		kill(-r->pid, SIGKILL);   /* the group of a keeper already reaped */
		r->pid = -1;
		st->exit_code = -1;
		return 0;
	}
	if (ended) {
		local_kill_and_reap(r);
		st->exit_code = -1;
		if (!r->keeper_lost && WIFSIGNALED(r->wstatus))
			st->signal = WTERMSIG(r->wstatus);
		return 0;
	}
	return local_wait_exit(r, err, errlen);
}

static void local_release(struct local_run *r)
{
	if (r->pid > 0)
		local_kill_and_reap(r);
	for (int k = 0; k < 2; k++) {
		close_fd(&r->out_pipe[k]);
		close_fd(&r->err_pipe[k]);
		close_fd(&r->in_pipe[k]);
		close_fd(&r->sync_pipe[k]);
		close_fd(&r->status_pipe[k]);
	}
	free(r->buf);
	free(r->inbuf);
}

static int local_exec(struct transport *t, const struct transport_exec *req,
		      struct transport_status *st, char *err, size_t errlen)
{
	struct local_run r = {
		.req = req, .st = st, .pid = -1, .dl = deadline_in_ms(req->timeout_ms),
		.out_pipe = { -1, -1 }, .err_pipe = { -1, -1 }, .in_pipe = { -1, -1 },
		.sync_pipe = { -1, -1 }, .status_pipe = { -1, -1 },
	};
	int ret = -1;
	int64_t start = clock_mono_us();
	(void)t;
	if (local_start(&r, err, errlen) < 0)
		goto out;
	while (r.out_pipe[0] >= 0 || r.err_pipe[0] >= 0) {
		if (local_pump_ends(&r))
			break;
		if (local_pump_once(&r, err, errlen) < 0) {
			local_kill_and_reap(&r);
			goto out;
		}
	}
	ret = local_finish(&r, err, errlen);
out:
	local_release(&r);
	st->duration_us = clock_mono_us() - start;
	return ret;
}
