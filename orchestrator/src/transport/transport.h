#ifndef ORCH_TRANSPORT_TRANSPORT_H
#define ORCH_TRANSPORT_TRANSPORT_H
/*
 * A transport runs shell commands on one board and moves bytes: ssh
 * (libssh), local (fork/exec on the controller) and serial (a logged-in
 * console) behind one table of functions. It knows nothing of scenarios,
 * tests or run folders.
 *
 * Output is handed to a callback as it arrives, never collected whole.
 * Every exec has a timeout, which bounds it whatever the command does with
 * its output (a command that closes its stdout runs on until it exits or
 * times out); when it expires, or when interrupt_requested() becomes true,
 * the remote process group is killed (TERM, then KILL; on the ssh command
 * runner, transport/ssh_runner.h, the command's subshell and every process
 * under it) and the exec returns with timed_out or interrupted set. When
 * the board does not confirm the kill (it stopped answering), the exec
 * fails instead (-1): that is the board's trouble, not the command's, and
 * the command may still run there.
 *
 * Each command runs as if alone: in the login directory, with the
 * session's environment, nothing another command set (variables, cd,
 * traps), stdin empty unless stdin_fd is given, and the exit status,
 * stdout and stderr bytes it produces (a command killed by a signal, its
 * shell included: exit_code -1 and the signal). Output a command's
 * background processes write after its shell ended belongs to it only
 * where the transport still reads it (a channel of its own does, until
 * they close it; the ssh command runner does not).
 *
 * Leftovers: with step_id set, the command runs with ORCH_STEP_ID=<step_id>
 * in its environment, which every process it starts inherits (a daemon that
 * calls setsid and forks twice too); on the local transport the command's
 * shell itself has it in its environment (/proc/PID/environ), so whatever
 * stops the processes carrying a token stops the shell too and the
 * command ends by that signal, never as if it had run to its end. With reap also set, once the command
 * has ended (any way: exit, timeout, Ctrl-C) the processes of the board
 * user that still carry it in /proc/PID/environ (where the board has no
 * /proc: that are still in the command's process group) are listed in
 * st->leftovers and stopped: TERM, up to a second, KILL (KILL at once
 * after a second Ctrl-C). ssh and local transports; a serial console
 * only marks the environment.
 *
 * A transport given a mark (transport_set_mark: the board's token,
 * util/board_token.h) prefixes every command's step id with it, and gives
 * commands without a step id ORCH_STEP_ID=MARK-x, so every process a run
 * started on the board carries ORCH_STEP_ID=MARK-...: transport_reap with
 * the mark alone finds them all (the grep matches the prefix), which is how
 * the next holder of the board stops what a killed run left behind. ssh
 * and local transports; a serial console's shell is never marked.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct transport;

enum transport_stream { TRANSPORT_STDOUT = 1, TRANSPORT_STDERR = 2 };

/* Called with each chunk of output; return < 0 to stop the command (it is
 * then killed like on a timeout, and the exec reports stopped). */
typedef int (*transport_output_fn)(void *ctx, enum transport_stream stream,
				   const char *data, size_t len);

struct transport_exec {
	const char *command;       /* run by the board's /bin/sh */
	int64_t timeout_ms;        /* <= 0: no timeout (still interruptible) */
	int stdin_fd;              /* read to EOF and sent as stdin; -1: none (stdin is empty) */
	int64_t stdin_limit;       /* > 0: only this many bytes of stdin_fd are sent, then
				      EOF (a transfer test reads /dev/zero) */
	transport_output_fn on_output;  /* may be NULL: output discarded */
	void *ctx;
	/* NULL, or a flag another thread may set: once *cancel is non-zero the
	 * command is stopped within DEADLINE_TICK_MS like when on_output returns
	 * < 0 (process group killed, st->stopped set), even while it is silent. */
	const atomic_int *cancel;
	/* set by transport_exec from the transport's halt flag (see
	 * transport_set_halt): checked like cancel */
	const atomic_int *halt;
	const char *step_id;       /* NULL, or [A-Za-z0-9_-]+ unique to this command: see above */
	bool reap;                 /* stop what the command left running (needs step_id) */
	bool minimal_env;          /* local: the command gets PATH, HOME, LANG and TERM of
				      orch's environment and nothing else (a test's
				      command: never orch's settings or secrets) */
	bool cleanup;              /* runs on after Ctrl-C (a kill, a reap), within its timeout */
	bool own_channel;          /* ssh: a channel of its own, not the board's command
				      runner (pushes, fetches, background steps) */
};

#define TRANSPORT_LEFTOVERS_MAX 240

/* The longest line any pattern is matched against, on every transport
 * (a command's output, execute/output.h; console lines,
 * serial_capture.h): a longer line is reported as too long for matching,
 * never matched in pieces. */
#define TRANSPORT_LINE_MAX (1024 * 1024)

struct transport_leftovers {
	int n;                     /* processes found (and stopped) */
	char list[TRANSPORT_LEFTOVERS_MAX];   /* "1234 sleep, 1240 iperf3", cut with "..." */
	bool unconfirmed;          /* the board did not confirm they were stopped */
};

struct transport_status {
	int exit_code;             /* 0-255; -1 when it died of a signal or was killed */
	int signal;                /* signal number, if known */
	bool timed_out;
	bool interrupted;          /* Ctrl-C */
	bool stopped;              /* on_output asked to stop */
	/* local: the command's own parent (the keeper between orch and its
	 * shell, transport_local.h) ended before the shell, killed by
	 * parent_signal (0: unknown), and the transport did not stop it: the
	 * command was then killed (exit_code -1) */
	bool parent_lost;
	int parent_signal;
	int64_t duration_us;
	long pgid;                 /* the command's process group on the board, 0 if unknown */
	struct transport_leftovers leftovers;   /* with req->reap */
	bool reaped;               /* the transport did the reap itself (no second command) */
	/* After a stop (timeout, Ctrl-C, cancel): what the transport verified
	 * about it, as a clause for the result's message ("its process group
	 * 812 ended on SIGTERM and the console shell's prompt came back"), or
	 * "" when the transport's stop is confirmed as a whole (ssh, local). */
	char stop_note[200];
};

struct transport_ops {
	const char *name;          /* "ssh", "local", "serial" */
	bool no_stdin;             /* exec refuses stdin_fd (a console shell): files are
				      pushed as typed commands (execute/push_console.h) */
	bool reaps;                /* req->reap is honoured (the board has a separate
				      channel for it) */
	int (*exec)(struct transport *t, const struct transport_exec *req,
		    struct transport_status *st, char *err, size_t errlen);
	void (*free)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	char *description;         /* "root@127.0.0.2:2222", for messages */
	char mark[32];             /* the board token its commands carry, or "" */
	const atomic_int *halt;    /* see transport_set_halt, or NULL */
};

/* A flag another thread may set to stop whatever command runs on t (the
 * board's owner lost the board): once *halt is non-zero, the command in
 * flight and every later one is stopped like on req->cancel (cleanup
 * commands excepted: the reap of what a stopped command left). */
void transport_set_halt(struct transport *t, const atomic_int *halt);

/* Sets t's mark (see "Leftovers" above); a mark that is not a usable step
 * id is ignored. */
void transport_set_mark(struct transport *t, const char *mark);

/*
 * Runs req->command. Returns 0 when the command ran (whatever its exit
 * status, timeout included: see st), or -1 when the transport failed (lost
 * connection, channel refused) with a message in err.
 */
int transport_exec(struct transport *t, const struct transport_exec *req,
		   struct transport_status *st, char *err, size_t errlen);
const char *transport_describe(const struct transport *t);
void transport_free(struct transport *t);   /* closes; accepts NULL */

/* Stops what the command marked with step_id left running on t's board
 * (see above); pgid: its process group, for boards without /proc (0:
 * unknown). Returns 0 with *out filled (out->n == 0: nothing was left), or
 * -1 with err set when the board could not be asked. */
int transport_reap(struct transport *t, const char *step_id, long pgid,
		   struct transport_leftovers *out, char *err, size_t errlen);

/* A fresh step id (16 hex digits from the kernel's random source) into
 * buf (at least 17 bytes). */
void transport_new_step_id(char *buf, size_t len);

/* Whether req's cancel flag (or its transport's halt flag) has been set. */
bool transport_cancelled(const struct transport_exec *req);

/* What a command printed, kept by transport_output_keep (an on_output
 * callback, ctx a struct transport_output): the first out_max bytes of
 * stdout and err_max of stderr, and how many stdout bytes came. Release
 * with transport_output_release. */
struct transport_output {
	struct strbuf out, err;
	size_t out_max, err_max;
	uint64_t out_bytes;
};
#define TRANSPORT_OUTPUT_INIT(out_max, err_max) { STRBUF_INIT, STRBUF_INIT, (out_max), (err_max), 0 }
int transport_output_keep(void *ctx, enum transport_stream stream, const char *data, size_t len);
void transport_output_release(struct transport_output *o);

/* Runs a command collecting at most max bytes of stdout into *out (caller
 * frees; NUL-terminated); for short probes like `uname -m`. */
int transport_capture(struct transport *t, const char *command, int64_t timeout_ms,
		      size_t max, char **out, int *exit_code, char *err, size_t errlen);
/* The same for a cleanup command (req->cleanup: runs on after Ctrl-C). */
int transport_capture_cleanup(struct transport *t, const char *command, int64_t timeout_ms,
			      size_t max, char **out, int *exit_code, char *err, size_t errlen);

#endif
