#ifndef ORCH_TRANSPORT_SSH_SESSION_H
#define ORCH_TRANSPORT_SSH_SESSION_H
/*
 * The ssh transport's inside, shared by its two halves (private to
 * transport/): the session (transport_ssh.c: options, connect, host key,
 * authentication, reconnecting) and the commands on it (ssh_exec.c:
 * channels, the command runner, stopping and reaping).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libssh/libssh.h>

#include "transport/transport.h"
#include "transport/transport_ssh.h"

#define SSH_DEFAULT_CONNECT_MS 10000
#define SSH_KILL_WAIT_MS 5000

struct ssh_runner;

struct ssh_transport {
	struct transport base;
	ssh_session session;
	struct ssh_target target;  /* copy for reconnecting; strings point at own_* */
	char *own_host, *own_user, *own_identity, *own_password, *own_known_hosts, *own_ssh_config;
	char *own_ciphers;
	char *own_macs;
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

/* A fresh session for st (any earlier one ended first): options, connect,
 * host key, authentication. 0, or -1 with err. */
int ssh_open(struct ssh_transport *st, char *err, size_t errlen);

/* libssh's last error on s as orch words it ("connection refused"). */
void ssh_error_text(ssh_session s, char *buf, size_t len);

/* transport_ops.exec of the ssh transport (ssh_exec.c). */
int ssh_transport_exec(struct transport *t, const struct transport_exec *req,
		       struct transport_status *status, char *err, size_t errlen);

#endif
