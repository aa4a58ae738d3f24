#ifndef ORCH_TRANSPORT_REAP_H
#define ORCH_TRANSPORT_REAP_H
/*
 * The board side of finding what a command left running (transport.h,
 * "Leftovers"), private to the transports: a POSIX sh script that lists
 * the processes carrying ORCH_STEP_ID=<token>, stops them and prints one
 * line, "\036orch-reap[, PID NAME]...\036\n". Run on its own (a second
 * command after the step) or, over ssh, from the step's own wrapper shell
 * as it exits, which saves the second command.
 *
 * Only processes started after the command's shell P can carry the
 * token, and each of them is P's descendant or, once orphaned, a child of
 * the nearest subreaper above P or of 1 (the kernel hands an orphan to
 * those). The shell's builtins find them without starting a process: P's
 * children and everything below them (/proc/PID/task/TID/children), and
 * the children of P's ancestors that this user may read whose pid lies
 * in the window of pids handed out since P (above P, up to the last pid
 * /proc/loadavg names; a wrap-around since P is seen) and that started no
 * earlier than P. Other sessions' processes (on a loopback rack all boards
 * share one /proc) hang off their own shells and are never read, and a
 * board whose pids wrapped long ago does not drag its old processes into
 * the window. All of it only when some process this user may read lies in
 * the window at all. grep reads the environ files of what was found, and
 * is not started when nothing was. A kernel without the children files:
 * the PPid of each process in the window, closed over P, its ancestors
 * and 1. When P is unknown or the pids wrapped since P, every environ
 * file is read. The scan itself carries no ORCH_STEP_ID (the token is
 * only in its arguments). Without /proc: the process group P, if anything
 * is left in it.
 *
 * P need not be the shell running the script: in the wrapper's EXIT trap
 * it is $$; in a subshell of a long-lived runner shell it is the
 * subshell's own pid (its parent, the runner, is then one of P's
 * ancestors); for a second command after the step it is the step's shell,
 * gone by then, and the running shell's ancestors stand in for P's.
 */
#include <stdbool.h>
#include <stddef.h>

#include "transport/transport.h"

#define REAP_MARK "\036orch-reap"

/* Whether token is a usable step id ([A-Za-z0-9_-]+). */
bool reap_token_ok(const char *token);

/* The script for token (checked with reap_token_ok) and P given as shell
 * text (a number, "$$", or a variable the caller's shell sets, such as a
 * subshell's own pid); grace: TERM and up to a second before KILL. What
 * it stops may start processes of its own meanwhile (a daemon forking, a
 * TERM handler), so after stopping some it searches again, at most three
 * passes, and stops only what it had not listed. The script reads pid_expr
 * (and anc_expr, grace_expr below) first, then sets variables of one or
 * two letters of its own (T P A g L C N M J W R ...).
 * Caller frees. */
char *reap_script(const char *token, const char *pid_expr, bool grace);

/* The same for a P whose parent is a long-lived shell (a command runner)
 * that read its own ancestors once with reap_ancestors_script: anc_expr
 * is shell text for that list, which spares the script reading P's
 * ancestors on every command. A list read earlier still holds every
 * ancestor P has now: an ancestor that dies hands its children to a
 * subreaper already on the list, or to 1. Empty: read them. grace_expr:
 * shell text that is 1 for the TERM grace, so one script serves both. */
char *reap_script_under(const char *token, const char *pid_expr, const char *anc_expr,
			const char *grace_expr);

/* reap_script_under without its line: the list is left in the script's
 * variable N (", PID NAME" for each process stopped), so the caller prints
 * it with what it prints next (one write: one packet of the board's sshd
 * fewer). Caller frees. */
char *reap_script_quiet(const char *token, const char *pid_expr, const char *anc_expr,
			const char *grace_expr);

/* Sets shell variable VAR to this shell's pid and its ancestors' up to 1
 * ("PID PPID ... 1") in the shell itself (no fork: a command
 * substitution's subshell cost a long-lived shell's start about as much
 * as the reads), starting from $PPID; meant for once per long-lived
 * shell. Its own variables VAR_x, VAR_q, VAR_i, VAR_k and VAR_v are unset
 * again. Caller frees. */
char *reap_ancestors_script(const char *var);

/* Parses the script's line out of text (it may stand anywhere). Returns
 * 0 with *out filled, or -1 when the line is not there (whole). */
int reap_parse(const char *text, size_t len, struct transport_leftovers *out);

#endif
