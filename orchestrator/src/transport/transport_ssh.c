#include "transport/transport_ssh.h"
#include "transport/ssh_session.h"
#include "transport/net_connect.h"
#include "transport/ssh_runner.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"

#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>

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
void ssh_error_text(ssh_session s, char *buf, size_t len)
{
	const char *e = ssh_get_error(s);
	const char *p;
	if (!e || !*e)
		e = "libssh gave no reason";
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

/* ssh_options_set; when it fails, *failed names the option for the message. */
static bool opt_fails(ssh_session s, enum ssh_options_e type, const void *value,
		      const char *name, const char **failed)
{
	*failed = name;
	return ssh_options_set(s, type, value) < 0;
}

static int ssh_apply_options(ssh_session s, const struct ssh_target *t, char *err, size_t errlen)
{
	int ret = -1;
	bool no = false;
	char why[256];
	int64_t ms = t->connect_timeout_ms > 0 ? t->connect_timeout_ms : SSH_DEFAULT_CONNECT_MS;
	long secs = (long)(ms / 1000);
	long usecs = (long)(ms % 1000) * 1000;

	const char *failed = "";
	if (opt_fails(s, SSH_OPTIONS_HOST, t->host, "host", &failed))
		goto fail;
	/* ~/.ssh/config first: what the inventory says explicitly wins. */
	if (!t->ssh_config || *t->ssh_config) {
		if (t->ssh_config && access(t->ssh_config, R_OK) != 0) {
			snprintf(err, errlen, "ssh config '%s' for %s: %s", t->ssh_config,
				 target_name(t), strerror(errno));
			goto out;
		}
		failed = "ssh config";
		if (ssh_options_parse_config(s, t->ssh_config) < 0)
			goto fail;
	}
	if (opt_fails(s, SSH_OPTIONS_PROCESS_CONFIG, &no, "process_config", &failed))
		goto fail;
	if (t->port > 0) {
		unsigned int port = (unsigned int)t->port;
		if (opt_fails(s, SSH_OPTIONS_PORT, &port, "port", &failed))
			goto fail;
	}
	if (t->user && opt_fails(s, SSH_OPTIONS_USER, t->user, "user", &failed))
		goto fail;
	if (t->known_hosts &&
	    opt_fails(s, SSH_OPTIONS_KNOWNHOSTS, t->known_hosts, "known_hosts", &failed))
		goto fail;
	if (t->identity &&
	    opt_fails(s, SSH_OPTIONS_ADD_IDENTITY, t->identity, "identity", &failed))
		goto fail;
	/* commands are small packets answered by small packets: without
	 * TCP_NODELAY each channel open waits ~40 ms for Nagle (ssh_quickack) */
	int one = 1;
	if (opt_fails(s, SSH_OPTIONS_NODELAY, &one, "nodelay", &failed))
		goto fail;
	if (opt_fails(s, SSH_OPTIONS_TIMEOUT, &secs, "timeout", &failed) ||
	    opt_fails(s, SSH_OPTIONS_TIMEOUT_USEC, &usecs, "timeout", &failed))
		goto fail;
	/* AES-GCM first unless the inventory says otherwise: with AES-NI it
	 * moves bulk data (pushes) faster than ChaCha20 */
	const char *ciphers = t->ciphers ? t->ciphers : SSH_CIPHERS_AES_FIRST;
	if (opt_fails(s, SSH_OPTIONS_CIPHERS_C_S, ciphers, "ciphers", &failed) ||
	    opt_fails(s, SSH_OPTIONS_CIPHERS_S_C, ciphers, "ciphers", &failed))
		goto fail;
	if (t->macs && (opt_fails(s, SSH_OPTIONS_HMAC_C_S, t->macs, "macs", &failed) ||
			opt_fails(s, SSH_OPTIONS_HMAC_S_C, t->macs, "macs", &failed)))
		goto fail;
	ret = 0;
	goto out;
fail:
	ssh_error_text(s, why, sizeof(why));
	/* the host and user are no secrets, and libssh often says nothing more */
	const char *value = !strcmp(failed, "host") ? t->host : !strcmp(failed, "user") ? t->user
											 : NULL;
	snprintf(err, errlen, "ssh options for %s: the %s%s%s%s was refused: %s", target_name(t),
		 failed, value ? " '" : "", value ? value : "", value ? "'" : "", why);
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
			char why[256];
			ssh_error_text(st->session, why, sizeof(why));
			snprintf(err, errlen, "host key for %s (%s:%u): cannot add it to %s: %s",
				 st->name, st->host, st->port, kh, why);
			break;
		}
		snprintf(err, errlen,
			 "host key for %s (%s:%u) is not in %s (the server offers %s); add it, "
			 "or use host_key: accept-new", st->name, st->host, st->port, kh, fp);
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default: {
		char why[256];
		ssh_error_text(st->session, why, sizeof(why));
		snprintf(err, errlen, "host key for %s (%s:%u): cannot check %s: %s", st->name,
			 st->host, st->port, kh, why);
		break;
	}
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
		char why[256];
		ssh_error_text(st->session, why, sizeof(why));
		snprintf(err, errlen, "ssh options for %s: socket refused: %s", st->name, why);
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
int ssh_open(struct ssh_transport *st, char *err, size_t errlen)
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

int transport_ssh_algorithms(struct transport *t, char *buf, size_t len)
{
	if (!t || t->ops != &ssh_ops || !((struct ssh_transport *)t)->session)
		return -1;
	ssh_session s = ((struct ssh_transport *)t)->session;
	const char *cipher = ssh_get_cipher_out(s), *mac = ssh_get_hmac_out(s);
	snprintf(buf, len, "cipher %s, MAC %s", cipher ? cipher : "?", mac ? mac : "?");
	return 0;
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
	st->target.macs = st->own_macs = xstrdup_opt(target->macs);
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
	free(st->own_macs);
	free(st->host);
	free(st->user);
	free(st->peer);
	free(st->base.description);
	free(st);
}
