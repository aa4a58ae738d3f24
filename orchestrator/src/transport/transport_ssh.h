#ifndef ORCH_TRANSPORT_SSH_H
#define ORCH_TRANSPORT_SSH_H
/*
 * The ssh transport (libssh). One session per board, opened once and reused
 * for every command; each command is its own exec channel. A session found
 * closed (the board rebooted, the link dropped), or given up because the
 * board stopped answering (no reply to a channel open within the connect
 * timeout, or a kill not confirmed within 5 s), is opened again once at
 * the next exec. ~/.ssh/config (or target->ssh_config) is read first, so it
 * supplies what the inventory leaves unset (Host aliases, HostName, Port,
 * User, IdentityFile, UserKnownHostsFile, ProxyCommand, ProxyJump); libssh
 * 0.10 runs ProxyJump as `ssh -W` through OpenSSH's client, which reads the
 * user's own ~/.ssh/config for the jump host.
 *
 * A command without stdin runs on the session's command runner
 * (transport/ssh_runner.h: one long-lived channel whose /bin/sh loop runs
 * each command in a subshell), opened at the first such command; with
 * no_runner, and for stdin, cleanup and own_channel commands, a command is
 * its own exec channel, run as `echo $$; exec /bin/sh -c CMD` so the first
 * stdout line carries the pid of the remote process group leader (OpenSSH
 * starts each command in its own session; dropbear does not, so the
 * wrapper calls setsid there: see ssh_wrap.h). On a timeout a second
 * channel kills the command: `kill -TERM -PGID`, then `kill -KILL -PGID`
 * (on the runner: the subshell's tree).
 */
/* How the message of a host key that differs from known_hosts begins (the
 * board link does not wait for such a board: it is an error at once). */
#define TRANSPORT_SSH_HOSTKEY_MISMATCH "host key mismatch"

#include <stdint.h>

#include "transport/transport.h"

enum ssh_host_key_check { SSH_HOSTKEY_STRICT = 0, SSH_HOSTKEY_ACCEPT_NEW, SSH_HOSTKEY_OFF };

struct ssh_target {
	const char *name;          /* board name, for messages ("connect to NAME (host:port)") */
	const char *host;          /* host name, address, or ~/.ssh/config alias */
	int port;                  /* 0: config or 22 */
	const char *user;          /* NULL: config or local user */
	const char *identity;      /* private key file, or NULL (agent, config, defaults) */
	const char *password;      /* the password itself (from password_env), or NULL */
	enum ssh_host_key_check host_key;
	const char *known_hosts;   /* NULL: ~/.ssh/known_hosts */
	const char *ssh_config;    /* NULL: ~/.ssh/config; "" to read none */
	int64_t connect_timeout_ms;
	/* libssh cipher names, first preferred (both directions); NULL:
	 * SSH_CIPHERS_AES_FIRST */
	const char *ciphers;
	/* libssh MAC names, first preferred (both directions); NULL: libssh's */
	const char *macs;
	/* stdin bytes sent ahead of the board's window adjusts: at most this
	 * many, so the board's sshd keeps small buffers (an OpenSSH server
	 * handed its whole 2 MiB window spends ~3x the CPU per byte reallocating
	 * and moving them); raised when the board's adjusts do not come within
	 * SSH_SEND_WINDOW_STALL_MS. 0: as much as the board's window allows. */
	int64_t send_window;
	/* every command on a channel of its own, never on the command runner
	 * (inventory `ssh: { runner: false }`) */
	bool no_runner;
};

/* The cipher orders orch offers (docs/orch-inventory.5.md "ciphers"):
 * AES-GCM first for boards with AES instructions (x86-64 AES-NI, ARMv8
 * crypto), ChaCha20-Poly1305 first for boards without (i586, 32-bit ARM,
 * MIPS), where it is several times faster in software. */
#define SSH_CIPHERS_AES_FIRST "aes128-gcm@openssh.com,aes256-gcm@openssh.com," \
	"chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr"
#define SSH_CIPHERS_CHACHA_FIRST "chacha20-poly1305@openssh.com," \
	"aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr"
#define SSH_SEND_WINDOW_STALL_MS 20


/*
 * Connects and authenticates (publickey from identity/agent/defaults, then
 * password when one is given). Returns the transport (caller frees with
 * transport_free) or NULL with a message in err, e.g.
 *   "connect to bifferboard (192.168.1.50:22): connection refused"
 *   "host key for bifferboard (127.0.0.2:22) does not match known_hosts ..."
 */
struct transport *transport_ssh_new(const struct ssh_target *target, char *err, size_t errlen);

/* The host t's session reached: the peer's numeric address for a direct TCP
 * connection, else the host name after ~/.ssh/config (HostName; through a
 * ProxyJump/ProxyCommand the name the proxy connected to). Borrowed; valid
 * until t's next exec or free. NULL if t is not an ssh transport. */
const char *transport_ssh_connected_host(struct transport *t);

/* The algorithms t's session agreed on, "cipher CIPHER, MAC MAC" (to the
 * board; the MAC is libssh's name, "aead-gcm" or "aead-poly1305" for an
 * AEAD cipher) into buf. 0, or -1 if t is not a connected ssh transport. */
int transport_ssh_algorithms(struct transport *t, char *buf, size_t len);

/* Calls libssh's global init once; safe from any thread before the first connect. */
void transport_ssh_global_init(void);

#endif
