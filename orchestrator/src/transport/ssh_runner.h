#ifndef ORCH_TRANSPORT_SSH_RUNNER_H
#define ORCH_TRANSPORT_SSH_RUNNER_H
/*
 * The board's command runner (private to ssh_exec.c, which owns one
 * per SSH session): one long-lived exec channel running /bin/sh, so that
 * a command costs the board a subshell instead of a new session channel
 * (sshd forking a session and exec'ing a shell: about 3 ms of a small
 * board's CPU per command).
 *
 * The runner's definitions are sent once, as the channel's exec command
 * (run with eval when the login shell is sh). The shell then takes its
 * requests as script text from the channel: with `.` on the channel's
 * pipe, or as `/bin/sh -s` (after `setsid` where the server did not start
 * it in a session of its own: dropbear; for bash and the like; or when
 * the pipe cannot be opened again), so dash and busybox ash read it in
 * blocks where their `read` builtin made one read(2) per byte (some 2400
 * per board for a first command carrying the facts). Per command orch
 * writes one request: "orch_t=TOKEN; orch_s=STEP; orch_g=GRACE;
 * orch_c='COMMAND'; eval "$orch_B"" with a fresh random token, the step
 * id or "-", 1 or 0 for the leftover reap's TERM grace, and the command
 * single-quoted (any text but NUL bytes passes unchanged, a syntax error
 * included: it stays inside the subshell's eval). orch_B runs the command
 * as `( ... ) </dev/null` with eval, in a subshell that first drops what
 * the runner set (its variables), saves the channel's stdout as fd 7 and
 * sets an EXIT trap like the channel wrapper's (ssh_wrap.h: the leftover
 * reap of transport/reap.h with P = the subshell's pid, read from the
 * Pid: line of /proc/self/status without a fork: about 70 one-byte reads
 * in dash, where the stat line took 300; the runner's ancestors were read
 * once, without a fork, as it started). Markers, each
 * "\036orch-KIND TOKEN N\036\n":
 *   run   (stdout and stderr) the subshell started; N = its pid
 *   exit  (stdout, from the trap) the command exited by itself with status N
 *   end   (stdout and stderr, from the runner) the subshell ended; N = $?
 * The bytes between run and end are the command's, passed on as they come;
 * only what may still become a marker at the end of a read is held back.
 * Anything outside them (a process left behind writing to the channel)
 * taints the runner: it is closed after the command and a new one opened.
 *
 * Exit status: exit's N when the trap ran; otherwise (the command exec'd,
 * or its shell died of a signal) end's N, with 129..192 read as a signal
 * like a channel's exit-signal (the one case that differs from a channel
 * of its own: an exec'd program that itself exits 129..192).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "transport/transport.h"
#include "util/strbuf.h"

#define SSH_RUNNER_TOKEN_LEN 16

/* ---- one command's framing (pure; exposed for the unit test) ---- */

struct ssh_runner_frame {
	char token[SSH_RUNNER_TOKEN_LEN + 1];
	char mark[3][48];          /* "\036orch-run TOKEN ", exit, end */
	struct {
		int phase;             /* before run, in the command, after end */
		struct strbuf hold;    /* what may still become a marker */
	} s[2];                    /* stdout, stderr */
	long pid;                  /* from run; 0 until then */
	int exit_code;             /* from exit; -1: none came */
	int end_code;              /* from end (stdout's); -1 until then */
	bool tainted;              /* bytes outside the command came */
};

typedef void (*ssh_runner_out_fn)(void *ctx, enum transport_stream stream, const char *data,
				  size_t len);

void ssh_runner_frame_init(struct ssh_runner_frame *f, const char *token);
void ssh_runner_frame_release(struct ssh_runner_frame *f);
/* Feeds bytes of one stream; the command's own bytes go to out. */
void ssh_runner_frame_feed(struct ssh_runner_frame *f, enum transport_stream stream,
			   const char *data, size_t len, ssh_runner_out_fn out, void *ctx);
/* Whether both streams brought their end marker. */
bool ssh_runner_frame_ended(const struct ssh_runner_frame *f);
/* Passes on what was held back (the command ended without its markers). */
void ssh_runner_frame_flush(struct ssh_runner_frame *f, ssh_runner_out_fn out, void *ctx);
/* The status the frame says, as a channel of its own would give it. */
void ssh_runner_frame_status(const struct ssh_runner_frame *f, struct transport_status *st);

/* The exec command that starts the runner; caller frees. */
char *ssh_runner_script(void);
/* What orch writes for one command (step: a step id, or NULL); caller frees. */
char *ssh_runner_request(const char *token, const char *step, bool grace, const char *command);

/* ---- the runner on its channel ---- */

/* The number of an SSH exit-signal name ("TERM"), 0 if unknown. */
int ssh_signal_number(const char *name);

/* What the runner needs from the transport that owns it. */
struct ssh_runner_host {
	ssh_session session;
	void *ctx;
	int64_t kill_wait_ms;      /* how long a stop may take to be confirmed */
	/* Opens a session channel and starts command on it within dl: 0, -1
	 * (refused, or the session failed), -2 (dl passed first), -3 (the
	 * board closed the channel before the command started). */
	int (*start)(void *ctx, ssh_channel ch, const char *command, int64_t dl);
	/* Waits until the session's socket has data, dl passes, or a tick. */
	void (*wait)(void *ctx, int64_t dl);
	/* Runs "P=pid; script" on a channel of its own: 0 once the board
	 * confirmed it ran to its end. */
	int (*kill)(void *ctx, long pid, const char *script, int64_t dl);
	/* The command's output, markers taken off. */
	void (*deliver)(void *ctx, enum transport_stream stream, const char *data, size_t len);
	/* Whether the command must be stopped (its output callback asked). */
	bool (*stop_asked)(void *ctx);
};

enum ssh_runner_rc {
	SSH_RUNNER_RAN = 0,        /* it ran (st set), or was stopped and the stop confirmed */
	SSH_RUNNER_NOT_RUN,        /* the runner could not take it: nothing ran */
	SSH_RUNNER_LOST,           /* the session failed */
	SSH_RUNNER_NO_ANSWER,      /* no reply to starting the runner within dl */
	SSH_RUNNER_UNCONFIRMED,    /* stopped, and the board did not confirm it */
};

struct ssh_runner;

/* Starts the runner on a new channel of h's session within dl. NULL with
 * *rc set (NOT_RUN: the channel was refused, or closed before the runner
 * started). */
struct ssh_runner *ssh_runner_open(const struct ssh_runner_host *h, int64_t dl,
				   enum ssh_runner_rc *rc);
/*
 * Runs req (no stdin) like a channel of its own would, within dl, setting
 * st's exit_code, signal, timed_out, interrupted, stopped; *pid: the
 * subshell's pid once known. A stop (timeout, cancel, Ctrl-C, the output
 * callback) kills the subshell's tree (ssh_wrap.h's kill script, P = its
 * pid) on a second channel and waits for the end marker within
 * h->kill_wait_ms. The command killing the runner's shell itself ends as
 * killed by that signal.
 */
enum ssh_runner_rc ssh_runner_exec(struct ssh_runner *r, const struct ssh_runner_host *h,
				   const struct transport_exec *req, struct transport_status *st,
				   int64_t dl, long *pid);
/* Whether r may take the next command (else close it: tainted, gone, or
 * a stop not confirmed). */
bool ssh_runner_usable(const struct ssh_runner *r);
/* Commands r ran to their end marker. */
unsigned long ssh_runner_done(const struct ssh_runner *r);
/* Closes the channel (polite: the session still answers) and frees r;
 * accepts NULL. Must come before the session lets go of its channels. */
void ssh_runner_close(struct ssh_runner *r, bool polite);
/*
 * Ends a runner the session goes on without (tainted, or it failed its
 * first command): sends the end of its requests, so its shell exits, and
 * waits (dl at most) until the board says the shell ended (its exit
 * status, or the channel's close) before it closes the channel and frees
 * r; accepts NULL. The next channel must not be opened before: dropbear
 * before 2024.86 closes every session channel whose command has not
 * started yet when a process of the session ends, so a channel opened
 * while the old shell exits is closed under the new runner (which then
 * gets no reply to its exec request at all).
 */
void ssh_runner_retire(struct ssh_runner *r, const struct ssh_runner_host *h, int64_t dl);

#endif
