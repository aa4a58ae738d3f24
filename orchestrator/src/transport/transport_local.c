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

/* Child side: never returns. Only async-signal-safe calls after fork. An
 * exec failure is reported as errno on sync_fd (closed by a good exec). */
/* The names a test's command keeps from orch's environment (minimal_env);
 * the test's own `env:` is set by its command line. */
static const char *const kept_env[] = { "PATH", "HOME", "LANG", "TERM", NULL };

/* The environment for a minimal_env child, built before the fork (the
 * child may not allocate): "NAME=value" pointers into environ, PATH given
 * a default when orch has none. */
static char default_path[] = "PATH=/usr/local/bin:/usr/bin:/bin";

static void minimal_env(char *envp[8])
{
	size_t n = 0;
	for (size_t i = 0; kept_env[i]; i++) {
		size_t len = strlen(kept_env[i]);
		for (char **e = environ; e && *e; e++)
			if (strncmp(*e, kept_env[i], len) == 0 && (*e)[len] == '=') {
				envp[n++] = *e;
				break;
			}
		if (n == i && strcmp(kept_env[i], "PATH") == 0)
			envp[n++] = default_path;
	}
	envp[n] = NULL;
}

static void local_child(const char *command, char *const *envp, int in_fd, int out_fd,
			int err_fd, int sync_fd)
{
	int e;
	setsid();
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

/* TERM to the whole group, KILL after the grace period, and always reap. */
static void local_kill_and_reap(pid_t pid, int *wstatus)
{
	kill(-pid, SIGTERM);
	int64_t dl = deadline_in_ms(LOCAL_KILL_GRACE_MS);
	bool reaped = false;
	while (!deadline_expired(dl) && !interrupt_hurry()) {
		pid_t r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR)) {
			reaped = true;
			break;
		}
		usleep(10000);
	}
	/* The leader may be gone while others of its group linger: KILL them too. */
	kill(-pid, SIGKILL);
	if (!reaped)
		while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
			;
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

/* One command's state on the controller side. */
struct local_run {
	const struct transport_exec *req;
	struct transport_status *st;
	int out_pipe[2], err_pipe[2], in_pipe[2], sync_pipe[2];
	int wstatus;
	bool stop;                 /* on_output asked to stop */
	pid_t pid;                 /* the command's shell until reaped, else -1 */
	char *buf, *inbuf;
	size_t in_len, in_off;
	bool in_eof;
	int64_t in_sent;           /* bytes read from stdin_fd, for stdin_limit */
	bool exited;               /* reaped already (a step whose leftovers are reaped) */
	int64_t exited_ms;
	int64_t dl;
};

/* Pipes, fork, and the wait for the child's exec. 0, or -1 with err. */
static int local_start(struct local_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	if (pipe2(r->out_pipe, O_CLOEXEC) < 0 || pipe2(r->err_pipe, O_CLOEXEC) < 0 ||
	    pipe2(r->sync_pipe, O_CLOEXEC) < 0 ||
	    (req->stdin_fd >= 0 && pipe2(r->in_pipe, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "local exec: pipe: %s", strerror(errno));
		return -1;
	}
	char *envp[8];
	if (req->minimal_env)
		minimal_env(envp);
	r->pid = fork();
	if (r->pid < 0) {
		snprintf(err, errlen, "local exec: fork: %s", strerror(errno));
		return -1;
	}
	if (r->pid == 0)
		local_child(req->command, req->minimal_env ? envp : NULL, r->in_pipe[0],
			    r->out_pipe[1], r->err_pipe[1], r->sync_pipe[1]);
	r->st->pgid = r->pid;   /* it calls setsid() */
	/* Wait for the exec: after it the child leads its own group, so a kill
	 * cannot miss anything it starts. */
	close_fd(&r->sync_pipe[1]);
	int child_errno = 0;
	ssize_t sn;
	while ((sn = read(r->sync_pipe[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	if (sn == (ssize_t)sizeof(child_errno)) {
		snprintf(err, errlen, "local exec: /bin/sh: %s", strerror(child_errno));
		return -1;
	}
	close_fd(&r->out_pipe[1]);
	close_fd(&r->err_pipe[1]);
	close_fd(&r->in_pipe[0]);
	if (r->in_pipe[1] >= 0) {
		fcntl(r->in_pipe[1], F_SETFL, fcntl(r->in_pipe[1], F_GETFL) | O_NONBLOCK);
		r->inbuf = xmalloc(LOCAL_CHUNK);
	}
	r->buf = xmalloc(LOCAL_CHUNK);
	return 0;
}

/* Whether the pump must end now (and why, in st): the shell exited a
 * while ago, Ctrl-C, the deadline, a stop. */
static bool local_pump_ends(struct local_run *r)
{
	const struct transport_exec *req = r->req;
	struct transport_status *st = r->st;
	if (req->reap && !r->exited && waitpid(r->pid, &r->wstatus, WNOHANG) == r->pid) {
		r->exited = true;
		r->exited_ms = clock_mono_ms();
	}
	/* its shell exited: what it left behind holding the output open
	 * does not hold the step up (the reap stops it) */
	if (r->exited && clock_mono_ms() - r->exited_ms >= LOCAL_OUTPUT_GRACE_MS)
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

/* Both pipes closed: the shell is exiting; its waitpid is bounded by the
 * deadline too. 0 (st set), or -1 with err. */
static int local_wait_exit(struct local_run *r, char *err, size_t errlen)
{
	const struct transport_exec *req = r->req;
	struct transport_status *st = r->st;
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
			local_kill_and_reap(r->pid, &r->wstatus);
			r->pid = -1;
			st->exit_code = -1;
			return 0;
		}
		usleep(5000);
	}
	r->pid = -1;
	if (WIFEXITED(r->wstatus)) {
		st->exit_code = WEXITSTATUS(r->wstatus);
	} else if (WIFSIGNALED(r->wstatus)) {
		st->exit_code = -1;
		st->signal = WTERMSIG(r->wstatus);
	}
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
		st->exit_code = WIFEXITED(r->wstatus) ? WEXITSTATUS(r->wstatus) : -1;
		if (WIFSIGNALED(r->wstatus))
			st->signal = WTERMSIG(r->wstatus);
		r->pid = -1;
		return 0;
	}
	if (r->exited) {
		kill(-r->pid, SIGKILL);   /* the group of a shell already reaped */
		r->pid = -1;
		st->exit_code = -1;
		return 0;
	}
	if (ended) {
		local_kill_and_reap(r->pid, &r->wstatus);
		r->pid = -1;
		st->exit_code = -1;
		if (WIFSIGNALED(r->wstatus))
			st->signal = WTERMSIG(r->wstatus);
		return 0;
	}
	return local_wait_exit(r, err, errlen);
}

static void local_release(struct local_run *r)
{
	if (r->pid > 0)
		local_kill_and_reap(r->pid, &r->wstatus);
	for (int k = 0; k < 2; k++) {
		close_fd(&r->out_pipe[k]);
		close_fd(&r->err_pipe[k]);
		close_fd(&r->in_pipe[k]);
		close_fd(&r->sync_pipe[k]);
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
		.sync_pipe = { -1, -1 },
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
			local_kill_and_reap(r.pid, &r.wstatus);
			r.pid = -1;
			goto out;
		}
	}
	ret = local_finish(&r, err, errlen);
out:
	local_release(&r);
	st->duration_us = clock_mono_us() - start;
	return ret;
}
