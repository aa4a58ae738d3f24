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

static int local_exec(struct transport *t, const struct transport_exec *req,
		      struct transport_status *st, char *err, size_t errlen)
{
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, in_pipe[2] = { -1, -1 };
	int sync_pipe[2] = { -1, -1 };
	int ret = -1;
	int wstatus = 0;
	bool stop = false;
	pid_t pid = -1;
	char *buf = NULL;
	char *inbuf = NULL;
	size_t in_len = 0, in_off = 0;
	bool in_eof = false;
	int64_t in_sent = 0;          /* bytes read from stdin_fd, for stdin_limit */
	int64_t start = clock_mono_us();
	int64_t dl = deadline_in_ms(req->timeout_ms);

	if (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0 ||
	    pipe2(sync_pipe, O_CLOEXEC) < 0 ||
	    (req->stdin_fd >= 0 && pipe2(in_pipe, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "local exec: pipe: %s", strerror(errno));
		goto out;
	}
	char *envp[8];
	if (req->minimal_env)
		minimal_env(envp);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "local exec: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		local_child(req->command, req->minimal_env ? envp : NULL, in_pipe[0],
			    out_pipe[1], err_pipe[1], sync_pipe[1]);
	st->pgid = pid;   /* it calls setsid() */
	/* Wait for the exec: after it the child leads its own group, so a kill
	 * cannot miss anything it starts. */
	close_fd(&sync_pipe[1]);
	int child_errno = 0;
	ssize_t sn;
	while ((sn = read(sync_pipe[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	if (sn == (ssize_t)sizeof(child_errno)) {
		snprintf(err, errlen, "local exec: /bin/sh: %s", strerror(child_errno));
		goto out;
	}
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[1]);
	close_fd(&in_pipe[0]);
	if (in_pipe[1] >= 0) {
		fcntl(in_pipe[1], F_SETFL, fcntl(in_pipe[1], F_GETFL) | O_NONBLOCK);
		inbuf = xmalloc(LOCAL_CHUNK);
	}
	buf = xmalloc(LOCAL_CHUNK);

	bool exited = false;   /* reaped already (a step whose leftovers are reaped) */
	int64_t exited_ms = 0;
	while (out_pipe[0] >= 0 || err_pipe[0] >= 0) {
		if (req->reap && !exited && waitpid(pid, &wstatus, WNOHANG) == pid) {
			exited = true;
			exited_ms = clock_mono_ms();
		}
		/* its shell exited: what it left behind holding the output open
		 * does not hold the step up (the reap stops it) */
		if (exited && clock_mono_ms() - exited_ms >= LOCAL_OUTPUT_GRACE_MS)
			break;
		if (interrupt_requested() && !req->cleanup) {
			st->interrupted = true;
			break;
		}
		if (deadline_expired(dl)) {
			st->timed_out = true;
			break;
		}
		if (stop || transport_cancelled(req)) {
			st->stopped = true;
			break;
		}
		struct pollfd pf[4];
		int nf = 0;
		int idx_out = -1, idx_err = -1, idx_in = -1, idx_src = -1;
		/* stdin may be a pipe that stays silent: read it only when poll says so */
		if (in_pipe[1] >= 0 && in_len == in_off && !in_eof) {
			idx_src = nf;
			pf[nf++] = (struct pollfd){ .fd = req->stdin_fd, .events = POLLIN };
		}
		if (out_pipe[0] >= 0) {
			idx_out = nf;
			pf[nf++] = (struct pollfd){ .fd = out_pipe[0], .events = POLLIN };
		}
		if (err_pipe[0] >= 0) {
			idx_err = nf;
			pf[nf++] = (struct pollfd){ .fd = err_pipe[0], .events = POLLIN };
		}
		if (in_pipe[1] >= 0 && in_off < in_len) {
			idx_in = nf;
			pf[nf++] = (struct pollfd){ .fd = in_pipe[1], .events = POLLOUT };
		}
		int r = poll(pf, (nfds_t)nf, deadline_poll_ms(dl));
		if (r < 0 && errno != EINTR) {
			snprintf(err, errlen, "local exec: poll: %s", strerror(errno));
			local_kill_and_reap(pid, &wstatus);
			pid = -1;
			goto out;
		}
		if (r <= 0)
			continue;
		if (idx_src >= 0 && pf[idx_src].revents) {
			size_t want = LOCAL_CHUNK;
			if (req->stdin_limit > 0 && (int64_t)want > req->stdin_limit - in_sent)
				want = (size_t)(req->stdin_limit - in_sent);
			ssize_t n = want ? read(req->stdin_fd, inbuf, want) : 0;
			if (n < 0 && errno != EINTR && errno != EAGAIN) {
				snprintf(err, errlen, "local exec: reading stdin: %s", strerror(errno));
				local_kill_and_reap(pid, &wstatus);
				pid = -1;
				goto out;
			}
			if (n == 0) {
				in_eof = true;
				close_fd(&in_pipe[1]);
			} else if (n > 0) {
				in_len = (size_t)n;
				in_off = 0;
				in_sent += n;
			}
		}
		if (idx_in >= 0 && pf[idx_in].revents) {
			ssize_t w = write_nosigpipe(in_pipe[1], inbuf + in_off, in_len - in_off);
			if (w > 0) {
				in_off += (size_t)w;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				/* EPIPE: the command stopped reading stdin; not our failure */
				close_fd(&in_pipe[1]);
				in_eof = true;
			}
		}
		for (int k = 0; k < 2; k++) {
			int idx = k == 0 ? idx_out : idx_err;
			int *fd = k == 0 ? &out_pipe[0] : &err_pipe[0];
			if (idx < 0 || !pf[idx].revents)
				continue;
			ssize_t n = read(*fd, buf, LOCAL_CHUNK);
			if (n > 0)
				deliver(req, &stop, k == 0 ? TRANSPORT_STDOUT : TRANSPORT_STDERR, buf,
					(size_t)n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				close_fd(fd);
		}
	}
	if (stop)
		st->stopped = true;

	if (exited && !(st->interrupted || st->timed_out || st->stopped)) {
		st->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
		if (WIFSIGNALED(wstatus))
			st->signal = WTERMSIG(wstatus);
		pid = -1;
		ret = 0;
		goto out;
	}
	if (exited) {
		kill(-pid, SIGKILL);   /* the group of a shell already reaped */
		pid = -1;
		st->exit_code = -1;
		ret = 0;
		goto out;
	}
	if (st->interrupted || st->timed_out || st->stopped) {
		local_kill_and_reap(pid, &wstatus);
		pid = -1;
		st->exit_code = -1;
		if (WIFSIGNALED(wstatus))
			st->signal = WTERMSIG(wstatus);
		ret = 0;
		goto out;
	}
	/* Both pipes closed: the shell is exiting; its waitpid is bounded by the deadline too. */
	for (;;) {
		pid_t r = waitpid(pid, &wstatus, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			snprintf(err, errlen, "local exec: waitpid: %s", strerror(errno));
			pid = -1;
			goto out;
		}
		if ((interrupt_requested() && !req->cleanup) || deadline_expired(dl)) {
			st->interrupted = interrupt_requested() && !req->cleanup;
			st->timed_out = !st->interrupted;
			local_kill_and_reap(pid, &wstatus);
			pid = -1;
			st->exit_code = -1;
			ret = 0;
			goto out;
		}
		usleep(5000);
	}
	pid = -1;
	if (WIFEXITED(wstatus)) {
		st->exit_code = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		st->exit_code = -1;
		st->signal = WTERMSIG(wstatus);
	}
	ret = 0;
out:
	if (pid > 0)
		local_kill_and_reap(pid, &wstatus);
	close_fd(&out_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[0]);
	close_fd(&err_pipe[1]);
	close_fd(&in_pipe[0]);
	close_fd(&in_pipe[1]);
	close_fd(&sync_pipe[0]);
	close_fd(&sync_pipe[1]);
	free(buf);
	free(inbuf);
	st->duration_us = clock_mono_us() - start;
	(void)t;
	return ret;
}
