#include "transport/transport_ssh.h"
#include "transport/net_connect.h"
#include "transport/reap.h"
#include "transport/ssh_runner.h"
#include "transport/ssh_wrap.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#define SSH_DEFAULT_CONNECT_MS 10000
#define SSH_CHUNK 32768
#define SSH_READ_CHUNK 4096
#define SSH_KILL_WAIT_MS 5000
#define SSH_KILL_DONE "orch-kill-done"
#define SSH_OUTPUT_GRACE_MS 500   /* output after a reaped step's exit status */

struct ssh_transport {
	struct transport base;
	ssh_session session;
	struct ssh_target target;  /* copy for reconnecting; strings point at own_* */
	char *own_host, *own_user, *own_identity, *own_password, *own_known_hosts, *own_ssh_config;
	char *own_ciphers;
	char *name;
	char *host;                /* as resolved by ssh_config, for messages */
	unsigned int port;
	char *user;
	char *peer;                /* numeric peer address of the last session, or NULL */
	int fd;                    /* the socket orch connected and gave libssh, or -1 */
	bool dead;                 /* stopped answering: reopen before the next exec */
	struct ssh_runner *runner; /* the session's command runner, or NULL */
	bool runner_off;           /* this session's board cannot run one */
};

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
	/* commands are small packets answered by small packets: without
	 * TCP_NODELAY each channel open waits ~40 ms for Nagle (ssh_quickack) */
	int one = 1;
	if (ssh_options_set(s, SSH_OPTIONS_NODELAY, &one) < 0)
		goto fail;
	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &secs) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usecs) < 0)
		goto fail;
	/* AES-GCM first unless the inventory says otherwise: with AES-NI it
	 * moves bulk data (pushes) faster than ChaCha20 */
	const char *ciphers = t->ciphers ? t->ciphers : SSH_CIPHERS_AES_FIRST;
	if (ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, ciphers) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, ciphers) < 0)
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

/* "TYPE SHA256:..." of the key the known_hosts file kh has for host:port
 * (a plain "[host]:port" or, for port 22, "host" entry; hashed entries are
 * not read), or "an unreadable entry"; caller frees. */
static char *known_fingerprint(const char *kh, const char *host, unsigned port)
{
	char *want = port == 22 ? xstrdup(host) : xasprintf("[%s]:%u", host, port);
	char *out = NULL;
	char *path = kh[0] == '~' && getenv("HOME") ? xasprintf("%s%s", getenv("HOME"), kh + 1)
						   : xstrdup(kh);
	FILE *f = fopen(path, "re");
	char line[8192];
	while (f && !out && fgets(line, sizeof(line), f)) {
		char *save = NULL, *hosts = strtok_r(line, " \t\r\n", &save);
		char *type = strtok_r(NULL, " \t\r\n", &save);
		char *b64 = strtok_r(NULL, " \t\r\n", &save);
		if (!hosts || !type || !b64 || hosts[0] == '#')
			continue;
		bool match = false;
		for (char *h = strtok_r(hosts, ",", &save); h && !match; h = strtok_r(NULL, ",", &save))
			match = strcmp(h, want) == 0;
		ssh_key key = NULL;
		unsigned char *hash = NULL;
		size_t hlen = 0;
		if (match && ssh_pki_import_pubkey_base64(b64, ssh_key_type_from_name(type), &key) ==
				     SSH_OK &&
		    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == SSH_OK) {
			char *fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
			out = xasprintf("%s %s", type, fp ? fp : "?");
			ssh_string_free_char(fp);
		}
		ssh_clean_pubkey_hash(&hash);
		ssh_key_free(key);
	}
	if (f)
		fclose(f);
	free(path);
	free(want);
	return out ? out : xstrdup("an entry orch cannot read (hashed, or another key type)");
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
	case SSH_KNOWN_HOSTS_OTHER: {
		char *want = known_fingerprint(kh, st->host, st->port);
		snprintf(err, errlen,
			 TRANSPORT_SSH_HOSTKEY_MISMATCH " for %s (%s:%u): %s expects %s, the "
			 "server offers %s (possible man-in-the-middle, or the board was "
			 "reinstalled: remove the old line to accept it)", st->name, st->host,
			 st->port, kh, want, fp);
		free(want);
		break;
	}
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
	const char *why = "no accepted key";
	char idfail[256] = "";
	int rc;
	/* the identity first: one round trip fewer than asking for "none" */
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
	rc = ssh_userauth_none(s, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_ERROR)
		goto lost;
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
 * Unless a ProxyCommand (or ProxyJump) carries the session, orch makes the
 * TCP connection itself, name lookup included, both bounded by dl and
 * Ctrl-C (libssh's own getaddrinfo() is not), and hands the socket to
 * libssh, which keeps the host name for the known_hosts check. 0, or -1
 * with err set.
 */
static int ssh_attach_socket(struct ssh_transport *st, int64_t dl, char *err, size_t errlen)
{
	char *proxy = NULL;
	if (ssh_options_get(st->session, SSH_OPTIONS_PROXYCOMMAND, &proxy) == SSH_OK && proxy) {
		bool none = strcasecmp(proxy, "none") == 0;
		ssh_string_free_char(proxy);
		if (!none)
			return 0;
	}
	char e[256];
	int fd = net_connect(st->host, st->port, dl, e, sizeof(e));
	if (fd < 0) {
		snprintf(err, errlen, "connect to %s (%s:%u): %s", st->name, st->host, st->port, e);
		return -1;
	}
	socket_t sock = fd;
	st->fd = fd;
	/* libssh sets SSH_OPTIONS_NODELAY only on sockets it makes itself */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ssh_options_set(st->session, SSH_OPTIONS_FD, &sock) < 0) {
		close(fd);
		st->fd = -1;
		snprintf(err, errlen, "ssh options for %s: %s", st->name, ssh_get_error(st->session));
		return -1;
	}
	return 0;
}

/*
 * ssh_connect in non-blocking mode, so Ctrl-C is noticed and the connect
 * timeout covers name lookup, TCP connect, banner and key exchange as one
 * deadline (dl).
 */
static int ssh_connect_bounded(struct ssh_transport *st, int64_t dl, int64_t ms, char *err,
			       size_t errlen)
{
	bool connected = false;
	int rc;
	char e[256];

	if (ssh_attach_socket(st, dl, err, errlen) < 0)
		return -1;
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
	.reaps = true,
	.exec = ssh_transport_exec,
	.free = ssh_transport_free,
};

/* The numeric address at the other end of a direct TCP session (none
 * through a proxy command: its socket is a pipe). */
static void ssh_fill_peer(struct ssh_transport *st)
{
	free(st->peer);
	st->peer = NULL;
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[NI_MAXHOST];
	socket_t fd = ssh_get_fd(st->session);
	if (fd == SSH_INVALID_SOCKET || getpeername(fd, (struct sockaddr *)&sa, &len) < 0 ||
	    (sa.ss_family != AF_INET && sa.ss_family != AF_INET6))
		return;
	if (getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), NULL, 0,
			NI_NUMERICHOST) == 0)
		st->peer = xstrdup(host);
}

/* Says goodbye and frees st's session. libssh closes a socket it was
 * given on some paths (a silent disconnect, ssh_free() of a session still
 * holding it) and only forgets it on others (ssh_disconnect()), and this
 * differs between its versions: so the socket is closed here, exactly when
 * libssh still holds it, after ssh_disconnect() let go of it. */
static void ssh_session_end(struct ssh_transport *st)
{
	if (!st->session)
		return;
	ssh_runner_close(st->runner, !st->dead && ssh_is_connected(st->session));
	st->runner = NULL;
	bool ours = st->fd >= 0 && ssh_get_fd(st->session) == st->fd;
	if (ours || ssh_is_connected(st->session))
		ssh_disconnect(st->session);
	if (ours)
		close(st->fd);
	st->fd = -1;
	ssh_free(st->session);
	st->session = NULL;
}

/* A fresh session: options, connect, host key, authentication. */
static int ssh_open(struct ssh_transport *st, char *err, size_t errlen)
{
	const struct ssh_target *target = &st->target;
	ssh_session_end(st);
	st->runner_off = false;
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
	int64_t ms = target->connect_timeout_ms > 0 ? target->connect_timeout_ms
						     : SSH_DEFAULT_CONNECT_MS;
	if (ssh_connect_bounded(st, deadline_in_ms(ms), ms, err, errlen) < 0 ||
	    ssh_check_host_key(st, target, err, errlen) < 0 ||
	    ssh_authenticate(st, target, err, errlen) < 0)
		return -1;
	free(st->base.description);
	st->base.description = xasprintf("%s@%s:%u", st->user, st->host, st->port);
	ssh_fill_peer(st);
	log_debug("%s: cipher %s (to the board), %s (back)", st->name,
		  ssh_get_cipher_out(st->session), ssh_get_cipher_in(st->session));
	return 0;
}

const char *transport_ssh_connected_host(struct transport *t)
{
	if (!t || t->ops != &ssh_ops)
		return NULL;
	struct ssh_transport *st = (struct ssh_transport *)t;
	return st->peer ? st->peer : st->host;
}

static char *xstrdup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* OpenSSH's rule: a private key of ours that group or others may read is
 * not used ("UNPROTECTED PRIVATE KEY FILE"). 0, or -1 with err. */
static int identity_protected(const char *name, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (!path || stat(path, &sb) < 0)
		return 0;   /* a missing file is reported when it is read */
	if (sb.st_uid == getuid() && (sb.st_mode & 077)) {
		snprintf(err, errlen, "ssh to %s: identity '%s' is accessible by others (mode "
			 "%04o): UNPROTECTED PRIVATE KEY FILE, refused as OpenSSH does "
			 "(chmod 600 '%s')", name, path, (unsigned)(sb.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

struct transport *transport_ssh_new(const struct ssh_target *target, char *err, size_t errlen)
{
	transport_ssh_global_init();
	struct ssh_transport *st = xcalloc(1, sizeof(*st));
	st->base.ops = &ssh_ops;
	st->fd = -1;
	st->name = xstrdup(target_name(target));
	st->target = *target;
	st->target.name = st->name;
	st->target.host = st->own_host = xstrdup_opt(target->host);
	st->target.user = st->own_user = xstrdup_opt(target->user);
	st->target.identity = st->own_identity = xstrdup_opt(target->identity);
	st->target.password = st->own_password = xstrdup_opt(target->password);
	st->target.known_hosts = st->own_known_hosts = xstrdup_opt(target->known_hosts);
	st->target.ssh_config = st->own_ssh_config = xstrdup_opt(target->ssh_config);
	st->target.ciphers = st->own_ciphers = xstrdup_opt(target->ciphers);
	if (!target->host || !*target->host) {
		snprintf(err, errlen, "ssh to %s: no host", st->name);
		goto fail;
	}
	if (identity_protected(st->name, target->identity, err, errlen) < 0)
		goto fail;
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
	ssh_session_end(st);
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
	free(st->own_ciphers);
	free(st->host);
	free(st->user);
	free(st->peer);
	free(st->base.description);
	free(st);
}

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
 * refused or the session failed, -2 when dl passed first.
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
	if (rc != SSH_OK)
		goto out;
	while ((rc = ssh_channel_request_exec(ch, command)) == SSH_AGAIN)
		if (ssh_wait_socket(st, dl) < 0) {
			ret = -2;
			goto out;
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
			ssh_runner_close(st->runner, (rc == SSH_RUNNER_RAN || rc == SSH_RUNNER_NOT_RUN) &&
						  ssh_is_connected(st->session));
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

static int ssh_transport_exec(struct transport *t, const struct transport_exec *req,
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
