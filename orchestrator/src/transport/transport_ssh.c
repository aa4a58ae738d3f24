#include "transport/transport_ssh.h"
#include "transport/ssh_wrap.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#define SSH_DEFAULT_CONNECT_MS 10000
#define SSH_CHUNK 32768
#define SSH_KILL_WAIT_MS 5000
#define SSH_CLOSE_WAIT_MS 5000

struct ssh_transport {
	struct transport base;
	ssh_session session;
	struct ssh_target target;  /* copy for reconnecting; strings point at own_* */
	char *own_host, *own_user, *own_identity, *own_password, *own_known_hosts, *own_ssh_config;
	char *name;
	char *host;                /* as resolved by ssh_config, for messages */
	unsigned int port;
	char *user;
};

struct ssh_run {
	struct ssh_transport *st;
	const struct transport_exec *req;
	struct transport_status *status;
	long pgid;                 /* 0 until the wrapper's first line arrived */
	char head[32];             /* the first stdout line, until complete */
	size_t head_len;
	int exit_signal;
	bool stop_requested;
};

static pthread_once_t ssh_once = PTHREAD_ONCE_INIT;

static void ssh_do_init(void)
{
	ssh_init();
}

void transport_ssh_global_init(void)
{
	pthread_once(&ssh_once, ssh_do_init);
}

static void lowercase_first(char *s)
{
	if (s && s[0] && isupper((unsigned char)s[0]) && !isupper((unsigned char)s[1]))
		s[0] = (char)tolower((unsigned char)s[0]);
}

/* libssh says "Failed to connect: Connection refused"; we want "connection refused". */
static void ssh_error_text(ssh_session s, char *buf, size_t len)
{
	const char *e = ssh_get_error(s);
	const char *p;
	if (!e || !*e)
		e = "unknown error";
	if ((p = strstr(e, "Failed to connect: ")) != NULL)
		e = p + strlen("Failed to connect: ");
	snprintf(buf, len, "%s", e);
	lowercase_first(buf);
	size_t n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '.'))
		buf[--n] = '\0';
}

static const char *target_name(const struct ssh_target *t)
{
	return t->name ? t->name : t->host;
}

static int ssh_apply_options(ssh_session s, const struct ssh_target *t, char *err, size_t errlen)
{
	int ret = -1;
	bool no = false;
	int64_t ms = t->connect_timeout_ms > 0 ? t->connect_timeout_ms : SSH_DEFAULT_CONNECT_MS;
	long secs = (long)(ms / 1000);
	long usecs = (long)(ms % 1000) * 1000;

	if (ssh_options_set(s, SSH_OPTIONS_HOST, t->host) < 0)
		goto fail;
	/* ~/.ssh/config first: what the inventory says explicitly wins. */
	if (!t->ssh_config || *t->ssh_config) {
		if (t->ssh_config && access(t->ssh_config, R_OK) != 0) {
			snprintf(err, errlen, "ssh config '%s' for %s: %s", t->ssh_config,
				 target_name(t), strerror(errno));
			goto out;
		}
		if (ssh_options_parse_config(s, t->ssh_config) < 0)
			goto fail;
	}
	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0)
		goto fail;
	if (t->port > 0) {
		unsigned int port = (unsigned int)t->port;
		if (ssh_options_set(s, SSH_OPTIONS_PORT, &port) < 0)
			goto fail;
	}
	if (t->user && ssh_options_set(s, SSH_OPTIONS_USER, t->user) < 0)
		goto fail;
	if (t->known_hosts && ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, t->known_hosts) < 0)
		goto fail;
	if (t->identity && ssh_options_set(s, SSH_OPTIONS_ADD_IDENTITY, t->identity) < 0)
		goto fail;
	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &secs) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usecs) < 0)
		goto fail;
	ret = 0;
	goto out;
fail:
	snprintf(err, errlen, "ssh options for %s: %s", target_name(t), ssh_get_error(s));
out:
	return ret;
}

static void ssh_fill_resolved(struct ssh_transport *st)
{
	char *v = NULL;
	if (ssh_options_get(st->session, SSH_OPTIONS_HOST, &v) == SSH_OK) {
		st->host = xstrdup(v);
		ssh_string_free_char(v);
	}
	v = NULL;
	if (ssh_options_get(st->session, SSH_OPTIONS_USER, &v) == SSH_OK) {
		st->user = xstrdup(v);
		ssh_string_free_char(v);
	}
	if (ssh_options_get_port(st->session, &st->port) != SSH_OK)
		st->port = 22;
	if (!st->host)
		st->host = xstrdup("?");
	if (!st->user)
		st->user = xstrdup("?");
}

static char *ssh_known_hosts_path(ssh_session s)
{
	char *v = NULL;
	char *path = NULL;
	if (ssh_options_get(s, SSH_OPTIONS_KNOWNHOSTS, &v) == SSH_OK && v) {
		path = xstrdup(v);
		ssh_string_free_char(v);
	}
	return path ? path : xstrdup("~/.ssh/known_hosts");
}

static char *ssh_server_fingerprint(ssh_session s)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp = NULL;
	char *out = NULL;
	if (ssh_get_server_publickey(s, &key) == SSH_OK &&
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == SSH_OK)
		fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	out = xasprintf("%s %s", key ? ssh_key_type_to_char(ssh_key_type(key)) : "?",
			fp ? fp : "?");
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return out;
}

static int ssh_check_host_key(struct ssh_transport *st, const struct ssh_target *t,
			      char *err, size_t errlen)
{
	if (t->host_key == SSH_HOSTKEY_OFF)
		return 0;
	enum ssh_known_hosts_e state = ssh_session_is_known_server(st->session);
	if (state == SSH_KNOWN_HOSTS_OK)
		return 0;
	int ret = -1;
	char *kh = ssh_known_hosts_path(st->session);
	char *fp = ssh_server_fingerprint(st->session);
	switch (state) {
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		snprintf(err, errlen,
			 "host key for %s (%s:%u) does not match %s: the server offers %s "
			 "(possible man-in-the-middle, or the board was reinstalled: remove the "
			 "old line to accept it)", st->name, st->host, st->port, kh, fp);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (t->host_key == SSH_HOSTKEY_ACCEPT_NEW) {
			if (ssh_session_update_known_hosts(st->session) == SSH_OK) {
				ret = 0;
				break;
			}
			snprintf(err, errlen, "host key for %s (%s:%u): cannot add it to %s: %s",
				 st->name, st->host, st->port, kh, ssh_get_error(st->session));
			break;
		}
		snprintf(err, errlen,
			 "host key for %s (%s:%u) is not in %s (the server offers %s); add it, "
			 "or use host_key: accept-new", st->name, st->host, st->port, kh, fp);
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		snprintf(err, errlen, "host key for %s (%s:%u): cannot check %s: %s", st->name,
			 st->host, st->port, kh, ssh_get_error(st->session));
		break;
	}
	free(kh);
	free(fp);
	return ret;
}

/* keyboard-interactive answering every hidden prompt with the password
 * (servers with PAM often offer only this for passwords). */
static int ssh_auth_kbdint(ssh_session s, const char *password)
{
	int rc = ssh_userauth_kbdint(s, NULL, NULL);
	for (int round = 0; rc == SSH_AUTH_INFO && round < 4; round++) {
		int n = ssh_userauth_kbdint_getnprompts(s);
		for (int i = 0; i < n; i++) {
			char echo = 0;
			ssh_userauth_kbdint_getprompt(s, (unsigned int)i, &echo);
			if (ssh_userauth_kbdint_setanswer(s, (unsigned int)i, echo ? "" : password) < 0)
				return SSH_AUTH_ERROR;
		}
		rc = ssh_userauth_kbdint(s, NULL, NULL);
	}
	return rc;
}

/* Identity file, agent, default keys, then password (or keyboard-interactive). */
static int ssh_authenticate(struct ssh_transport *st, const struct ssh_target *t,
			    char *err, size_t errlen)
{
	ssh_session s = st->session;
	int rc = ssh_userauth_none(s, NULL);
	const char *why = "no accepted key";
	char idfail[256] = "";
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_ERROR)
		goto lost;
	if (t->identity) {
		ssh_key key = NULL;
		if (ssh_pki_import_privkey_file(t->identity, NULL, NULL, NULL, &key) != SSH_OK) {
			snprintf(idfail, sizeof(idfail), " (cannot read identity '%s')", t->identity);
		} else {
			rc = ssh_userauth_publickey(s, NULL, key);
			ssh_key_free(key);
			if (rc == SSH_AUTH_SUCCESS)
				return 0;
			if (rc == SSH_AUTH_ERROR)
				goto lost;
		}
	}
	if (getenv("SSH_AUTH_SOCK")) {
		rc = ssh_userauth_agent(s, NULL);
		if (rc == SSH_AUTH_SUCCESS)
			return 0;
	}
	rc = ssh_userauth_publickey_auto(s, NULL, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_ERROR && !ssh_is_connected(s))
		goto lost;
	if (t->password) {
		int methods = ssh_userauth_list(s, NULL);
		if (methods & SSH_AUTH_METHOD_PASSWORD) {
			rc = ssh_userauth_password(s, NULL, t->password);
			if (rc == SSH_AUTH_SUCCESS)
				return 0;
			if (rc == SSH_AUTH_ERROR && !ssh_is_connected(s))
				goto lost;
		}
		if (methods & SSH_AUTH_METHOD_INTERACTIVE) {
			rc = ssh_auth_kbdint(s, t->password);
			if (rc == SSH_AUTH_SUCCESS)
				return 0;
			if (rc == SSH_AUTH_ERROR && !ssh_is_connected(s))
				goto lost;
		}
		why = methods & (SSH_AUTH_METHOD_PASSWORD | SSH_AUTH_METHOD_INTERACTIVE)
			? "no accepted key, password refused"
			: "no accepted key, and the server does not take passwords";
	}
	snprintf(err, errlen, "authentication to %s (%s@%s:%u) failed: %s%s", st->name, st->user,
		 st->host, st->port, why, idfail);
	return -1;
lost: {
	char e[256];
	ssh_error_text(s, e, sizeof(e));
	snprintf(err, errlen, "authentication to %s (%s@%s:%u) failed: %s", st->name, st->user,
		 st->host, st->port, e);
	return -1;
}
}

/*
 * ssh_connect in non-blocking mode, so Ctrl-C is noticed and the connect
 * timeout covers TCP connect, banner and key exchange as one deadline.
 */
static int ssh_connect_bounded(struct ssh_transport *st, const struct ssh_target *t,
			       char *err, size_t errlen)
{
	int64_t ms = t->connect_timeout_ms > 0 ? t->connect_timeout_ms : SSH_DEFAULT_CONNECT_MS;
	int64_t dl = deadline_in_ms(ms);
	bool connected = false;
	int rc;
	char e[256];

	ssh_set_blocking(st->session, 0);
	while ((rc = ssh_connect(st->session)) == SSH_AGAIN) {
		if (interrupt_requested()) {
			snprintf(err, errlen, "connect to %s (%s:%u): interrupted", st->name, st->host,
				 st->port);
			goto fail;
		}
		if (deadline_expired(dl)) {
			snprintf(err, errlen, "connect to %s (%s:%u): timed out after %lld ms",
				 st->name, st->host, st->port, (long long)ms);
			goto fail;
		}
		socket_t fd = ssh_get_fd(st->session);
		if (fd == SSH_INVALID_SOCKET) {
			usleep(10000);
			continue;
		}
		/* POLLOUT only until the TCP connect completed, else it spins. */
		struct pollfd pf = { .fd = fd, .events = POLLIN | (connected ? 0 : POLLOUT) };
		if (poll(&pf, 1, deadline_poll_ms(dl)) > 0 && (pf.revents & POLLOUT))
			connected = true;
	}
	ssh_set_blocking(st->session, 1);
	if (rc == SSH_OK)
		return 0;
	ssh_error_text(st->session, e, sizeof(e));
	snprintf(err, errlen, "connect to %s (%s:%u): %s", st->name, st->host, st->port, e);
	return -1;
fail:
	ssh_set_blocking(st->session, 1);
	return -1;
}

static int ssh_transport_exec(struct transport *t, const struct transport_exec *req,
			      struct transport_status *status, char *err, size_t errlen);
static void ssh_transport_free(struct transport *t);

static const struct transport_ops ssh_ops = {
	.name = "ssh",
	.exec = ssh_transport_exec,
	.free = ssh_transport_free,
};

/* A fresh session: options, connect, host key, authentication. */
static int ssh_open(struct ssh_transport *st, char *err, size_t errlen)
{
	const struct ssh_target *target = &st->target;
	if (st->session) {
		if (ssh_is_connected(st->session))
			ssh_disconnect(st->session);
		ssh_free(st->session);
	}
	free(st->host);
	free(st->user);
	st->host = st->user = NULL;
	st->session = ssh_new();
	if (!st->session) {
		snprintf(err, errlen, "ssh to %s: cannot create a libssh session", st->name);
		return -1;
	}
	if (ssh_apply_options(st->session, target, err, errlen) < 0)
		return -1;
	ssh_fill_resolved(st);
	if (ssh_connect_bounded(st, target, err, errlen) < 0 ||
	    ssh_check_host_key(st, target, err, errlen) < 0 ||
	    ssh_authenticate(st, target, err, errlen) < 0)
		return -1;
	free(st->base.description);
	st->base.description = xasprintf("%s@%s:%u", st->user, st->host, st->port);
	return 0;
}

static char *xstrdup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct transport *transport_ssh_new(const struct ssh_target *target, char *err, size_t errlen)
{
	transport_ssh_global_init();
	struct ssh_transport *st = xcalloc(1, sizeof(*st));
	st->base.ops = &ssh_ops;
	st->name = xstrdup(target_name(target));
	st->target = *target;
	st->target.name = st->name;
	st->target.host = st->own_host = xstrdup_opt(target->host);
	st->target.user = st->own_user = xstrdup_opt(target->user);
	st->target.identity = st->own_identity = xstrdup_opt(target->identity);
	st->target.password = st->own_password = xstrdup_opt(target->password);
	st->target.known_hosts = st->own_known_hosts = xstrdup_opt(target->known_hosts);
	st->target.ssh_config = st->own_ssh_config = xstrdup_opt(target->ssh_config);
	if (!target->host || !*target->host) {
		snprintf(err, errlen, "ssh to %s: no host", st->name);
		goto fail;
	}
	if (ssh_open(st, err, errlen) < 0)
		goto fail;
	return &st->base;
fail:
	ssh_transport_free(&st->base);
	return NULL;
}

static void ssh_transport_free(struct transport *t)
{
	struct ssh_transport *st = (struct ssh_transport *)t;
	if (!st)
		return;
	if (st->session) {
		if (ssh_is_connected(st->session))
			ssh_disconnect(st->session);
		ssh_free(st->session);
	}
	free(st->name);
	free(st->own_host);
	free(st->own_user);
	free(st->own_identity);
	if (st->own_password) {
		explicit_bzero(st->own_password, strlen(st->own_password));
		free(st->own_password);
	}
	free(st->own_known_hosts);
	free(st->own_ssh_config);
	free(st->host);
	free(st->user);
	free(st->base.description);
	free(st);
}

static int signal_from_name(const char *name)
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

static void on_exit_signal(ssh_session session, ssh_channel channel, const char *signal,
			   int core, const char *errmsg, const char *lang, void *userdata)
{
	struct ssh_run *run = userdata;
	run->exit_signal = signal_from_name(signal);
	if (!run->exit_signal)
		run->exit_signal = -1;
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
	if (run->req->on_output && !run->stop_requested &&
	    run->req->on_output(run->req->ctx, stream, data, len) < 0)
		run->stop_requested = true;
}

/* Reads what is buffered on both streams. Returns 0, or -1 on a channel error. */
static int ssh_drain(struct ssh_run *run, ssh_channel ch)
{
	char buf[SSH_CHUNK];
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

/* Runs a short helper command on its own channel and waits for it (bounded). */
static int ssh_run_helper(struct ssh_transport *st, const char *command, int64_t wait_ms)
{
	int ret = -1;
	ssh_channel ch = ssh_channel_new(st->session);
	if (!ch)
		return -1;
	if (ssh_channel_open_session(ch) != SSH_OK || ssh_channel_request_exec(ch, command) != SSH_OK)
		goto out;
	int64_t dl = deadline_in_ms(wait_ms);
	char buf[256];
	while (!ssh_channel_is_eof(ch) && !ssh_channel_is_closed(ch) && !deadline_expired(dl)) {
		int n = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0, deadline_poll_ms(dl));
		if (n == SSH_ERROR)
			goto out;
	}
	ret = 0;
out:
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return ret;
}

/* A command stopped before the wrapper's pid line came: waits for that line
 * (bounded, later output discarded) so that ssh_kill_group() can reach what
 * the command started instead of leaving it running on the board. */
static void ssh_await_pgid(struct ssh_run *run, ssh_channel ch, ssh_event ev)
{
	int64_t dl = deadline_in_ms(SSH_KILL_WAIT_MS);
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

/* Kills the command's process group over a second channel; tried twice,
 * and said out loud when it fails, since the command then goes on running. */
static void ssh_kill_group(struct ssh_run *run)
{
	if (run->pgid == 0) {
		log_warn("%s: the stopped command never reported its process id; it may still "
			 "be running on the board", run->st->name);
		return;
	}
	if (run->pgid < 0)
		return;
	struct strbuf cmd = STRBUF_INIT;
	strbuf_printf(&cmd, "P=%ld; ", run->pgid);
	strbuf_puts(&cmd, SSH_WRAP_KILL_SCRIPT);
	if (ssh_run_helper(run->st, strbuf_str(&cmd), SSH_KILL_WAIT_MS) < 0 &&
	    ssh_run_helper(run->st, strbuf_str(&cmd), SSH_KILL_WAIT_MS) < 0)
		log_warn("%s: could not kill process group %ld of a stopped command: %s",
			 run->st->name, run->pgid, ssh_get_error(run->st->session));
	strbuf_release(&cmd);
}

/* Feeds stdin as far as the remote window allows. Returns 0 for more to come, 1
 * when stdin is done, -1 when reading stdin failed (err set), -2 when the
 * channel refused the data. */
static int ssh_feed_stdin(ssh_channel ch, int fd, char *buf, size_t *pending, size_t *off,
			  char *err, size_t errlen)
{
	for (;;) {
		if (*pending == 0) {
			/* a pipe with nothing yet must not block the output loop */
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			if (poll(&pf, 1, 0) == 0)
				return 0;
			ssize_t n = read(fd, buf, SSH_CHUNK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				snprintf(err, errlen, "reading stdin: %s", strerror(errno));
				return -1;
			}
			if (n == 0)
				return 1;
			*pending = (size_t)n;
			*off = 0;
		}
		uint32_t win = ssh_channel_window_size(ch);
		if (win == 0)
			return 0;
		size_t len = *pending < win ? *pending : win;
		int w = ssh_channel_write(ch, buf + *off, (uint32_t)len);
		if (w == SSH_ERROR)
			return -2;
		if (w <= 0)
			return 0;
		*off += (size_t)w;
		*pending -= (size_t)w;
	}
}

static int ssh_transport_exec(struct transport *t, const struct transport_exec *req,
			      struct transport_status *status, char *err, size_t errlen)
{
	struct ssh_transport *st = (struct ssh_transport *)t;
	struct ssh_run run = { .st = st, .req = req, .status = status };
	struct ssh_channel_callbacks_struct cb = { 0 };
	ssh_channel ch = NULL;
	ssh_event ev = NULL;
	char *wrapped = NULL;
	char *inbuf = NULL;
	size_t in_pending = 0, in_off = 0;
	bool in_done = req->stdin_fd < 0;
	bool eof_sent = false;
	int ret = -1;
	int64_t start = clock_mono_us();
	int64_t dl = deadline_in_ms(req->timeout_ms);
	char e[256];

	/* A board that rebooted or dropped us: one new connection, then go on. */
	if (!ssh_is_connected(st->session) && ssh_open(st, err, errlen) < 0)
		goto out;
	ch = ssh_channel_new(st->session);
	if (!ch || ssh_channel_open_session(ch) != SSH_OK)
		goto lost;
	cb.userdata = &run;
	cb.channel_exit_signal_function = on_exit_signal;
	ssh_callbacks_init(&cb);
	ssh_set_channel_callbacks(ch, &cb);
	wrapped = ssh_wrap_command(req->command);
	if (ssh_channel_request_exec(ch, wrapped) != SSH_OK)
		goto lost;
	if (in_done) {
		if (ssh_channel_send_eof(ch) != SSH_OK)
			goto lost;
		eof_sent = true;
	} else {
		inbuf = xmalloc(SSH_CHUNK);
	}
	ev = ssh_event_new();
	if (!ev || ssh_event_add_session(ev, st->session) != SSH_OK) {
		snprintf(err, errlen, "exec on %s: cannot create a libssh event", st->name);
		goto out;
	}

	for (;;) {
		if (ssh_drain(&run, ch) < 0)
			goto lost;
		if (run.stop_requested || transport_cancelled(req)) {
			status->stopped = true;
			break;
		}
		if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch))
			break;
		if (interrupt_requested()) {
			status->interrupted = true;
			break;
		}
		if (deadline_expired(dl)) {
			status->timed_out = true;
			break;
		}
		if (!in_done) {
			int r = ssh_feed_stdin(ch, req->stdin_fd, inbuf, &in_pending, &in_off, err,
					       errlen);
			if (r == -1)
				goto out_kill;
			if (r == -2 && !ssh_is_connected(st->session))
				goto lost;
			if (r != 0)
				in_done = true;   /* -2: the command closed its stdin early */
		}
		if (in_done && !eof_sent) {
			ssh_channel_send_eof(ch);
			eof_sent = true;
		}
		if (ssh_event_dopoll(ev, deadline_poll_ms(dl)) == SSH_ERROR &&
		    !ssh_is_connected(st->session))
			goto lost;
	}

	if (status->stopped || status->interrupted || status->timed_out) {
		ssh_await_pgid(&run, ch, ev);
		ssh_event_remove_session(ev, st->session);
		ssh_event_free(ev);
		ev = NULL;
		ssh_kill_group(&run);
		status->exit_code = -1;
		ret = 0;
		goto out;
	}
	/* Output is complete; the exit status comes with (or just before) the close. */
	int64_t close_dl = deadline_in_ms(SSH_CLOSE_WAIT_MS);
	while (!ssh_channel_is_closed(ch) && !deadline_expired(close_dl) && !interrupt_requested()) {
		if (ssh_drain(&run, ch) < 0)
			break;
		if (ssh_event_dopoll(ev, deadline_poll_ms(close_dl)) == SSH_ERROR &&
		    !ssh_is_connected(st->session))
			break;
	}
	ssh_event_remove_session(ev, st->session);
	ssh_event_free(ev);
	ev = NULL;
	int code = ssh_channel_get_exit_status(ch);
	if (run.exit_signal) {
		status->signal = run.exit_signal > 0 ? run.exit_signal : 0;
		status->exit_code = -1;
	} else if (code >= 0 && code <= 255) {
		status->exit_code = code;
	} else if (!ssh_is_connected(st->session)) {
		goto lost;
	} else {
		status->exit_code = -1;
	}
	ret = 0;
	goto out;

out_kill:
	ssh_await_pgid(&run, ch, ev);
	ssh_kill_group(&run);
	goto out;
lost:
	ssh_error_text(st->session, e, sizeof(e));
	if (ssh_is_connected(st->session))
		snprintf(err, errlen, "exec on %s (%s:%u): %s", st->name, st->host, st->port, e);
	else
		snprintf(err, errlen, "connection to %s (%s:%u) lost: %s", st->name, st->host,
			 st->port, e);
out:
	if (ev) {
		ssh_event_remove_session(ev, st->session);
		ssh_event_free(ev);
	}
	if (ch) {
		/* libssh keeps a channel the server has not closed yet past
		 * ssh_channel_free(): it must not call back into this frame */
		ssh_remove_channel_callbacks(ch, &cb);
		if (ssh_is_connected(st->session))
			ssh_channel_close(ch);
		ssh_channel_free(ch);
	}
	status->duration_us = clock_mono_us() - start;
	free(wrapped);
	free(inbuf);
	return ret;
}
