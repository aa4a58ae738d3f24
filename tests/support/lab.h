#ifndef ORCH_TEST_LAB_H
#define ORCH_TEST_LAB_H
/*
 * A loopback rack of ssh boards for integration tests, run by
 * tests/lab/sshd-lab.sh in a scratch directory on a private address range
 * (one range per test file, so test files may run in parallel):
 *   board i    (OpenSSH)               BASE.i        (1..boards)
 *   password1  (OpenSSH, passwords)    BASE.100
 *   dropbear i (dropbear, no sftp)     BASE.(199+i)
 * all on port LAB_PORT, user `orchlab` (root) or the current user.
 * lab_up makes the test process a child subreaper so the daemons it starts
 * are reaped by lab_down (this machine's init does not reap orphans).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "transport/transport_ssh.h"

#define LAB_PORT 2222
/* LAB_PORT as a key of an inventory's ssh map */
#define LAB_PORT_KEY "port: " LAB_STR_(LAB_PORT)
#define LAB_STR_(x) LAB_STR__(x)
#define LAB_STR__(x) #x

struct lab {
	char *tmp;            /* scratch directory (removed by lab_down) */
	char *dir;            /* the lab directory inside it */
	char *base;           /* "127.0.21" */
	char *user;
	char *identity;       /* dir/id_ed25519 */
	char *known_hosts;    /* dir/known_hosts */
	char *ssh_config;     /* dir/ssh_config: Host lab1.., labdropbear1.., labproxy */
	char *password;       /* the password board's password, or NULL */
	int boards;
	int dropbears;
};

/* Starts the lab; NULL (with the script's output on stderr) on failure. */
struct lab *lab_up(const char *base, int boards, int dropbears, bool password);
/* Stops everything, reaps it, removes the directory and frees; accepts NULL. */
void lab_down(struct lab *lab);

enum lab_kind { LAB_OPENSSH = 0, LAB_PASSWORD, LAB_DROPBEAR };

/* A target for board `index` (1-based) of that kind, with the lab's user,
 * identity and known_hosts, strict host keys and no ~/.ssh/config. The
 * strings are owned by the lab, but host and name live in one of 8 static
 * slots used in turn: a target stays valid for the next 7 calls (not
 * thread-safe). */
struct ssh_target lab_target(const struct lab *lab, enum lab_kind kind, int index);
/* Exec channels OpenSSH board index has opened so far: its log's
 * "Starting session: command" lines (the lab runs sshd at LogLevel VERBOSE
 * where a test asks for it, SSHD_LAB_LOGLEVEL). */
int lab_sessions_started(const struct lab *lab, int index);
/* Kills the session processes of OpenSSH board index (each connection's
 * "sshd: USER..." process, children of its listener's children): its
 * connections drop. Every lab logs in as the same user, so a kill by user
 * would cut the labs of test files running beside it too. */
void lab_cut_sessions(const struct lab *lab, int index);

/* The group fixture of a test file that needs only the lab: as root (the
 * lab user) starts it into *lab and returns 0, or -1 when the lab would
 * not start (a failure); not root, the file skips (exit 77,
 * ts_require_root). lab_group_down stops it; returns 0. */
int lab_group_up(struct lab **lab, const char *base, int boards, int dropbears, bool password);
int lab_group_down(struct lab **lab);
/* lab_group_up with the environment variable VAR set to VALUE while the
 * lab starts (SSHD_LAB_EXTRA, LAB_DROPBEAR_ARGS: what tests/lab/sshd-lab.sh
 * reads), unset again after. */
int lab_group_up_with(struct lab **lab, const char *var, const char *value, const char *base,
		      int boards, int dropbears, bool password);

/* Writes DIR/NAME, an inventory for the lab's boards: "defaults:\n  ssh:
 * { user: USER, identity: IDENTITY, known_hosts: KNOWN_HOSTS, SSH_KEYS }\n"
 * (SSH_KEYS: more keys of that map, such as "port: 2222", or NULL), then
 * REST_FMT formatted with what follows (more defaults, "boards:\n...").
 * Returns the path (caller frees). */
char *lab_write_inventory(const struct lab *lab, const char *dir, const char *name,
			  const char *ssh_keys, const char *rest_fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A connected ssh transport for t (the caller frees it); fails the test
 * with the error when it cannot connect. */
struct transport *lab_connect_or_fail(struct ssh_target t);

/* What lab_exec_stalled saw: the first line the command printed, the
 * session's sshd (its shell's parent, SIGSTOPped; 0 when the line never
 * came) and the shell, then transport_exec's return, its error and how
 * long it took. */
struct lab_stall {
	char head[64];
	size_t len;
	pid_t sshd;
	pid_t shell;
	int ret;
	char err[512];
	long long took_ms;
};
/* Runs COMMAND on TR with TIMEOUT_MS: COMMAND begins by printing "$PPID
 * $$", and the session's sshd is frozen (SIGSTOP) as soon as that line
 * arrives, so the board stops answering mid-command. The caller sends
 * SIGCONT to s->sshd when it is done. */
void lab_exec_stalled(struct transport *tr, const char *command, int timeout_ms,
		      struct lab_stall *s);

/* VmRSS and VmHWM of this process in KiB (-1 if unknown); lab_reset_hwm
 * makes VmHWM start again from the current RSS. */
long lab_vm_kib(const char *field);
void lab_reset_hwm(void);

#endif
