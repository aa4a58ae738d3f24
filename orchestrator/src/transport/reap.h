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
 * Only processes started after the command's shell (pid above P; the
 * kernel hands out pids in turn, and /proc/loadavg names the last one, so
 * a wrap-around is seen) can carry the token: the shell's builtins pick
 * those, and grep reads their environ files only when there are any. When
 * P is unknown or the pids wrapped, every environ file is read. The scan
 * itself carries no ORCH_STEP_ID (the token is only in its arguments).
 * Without /proc: the process group P, if anything is left in it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "transport/transport.h"

#define REAP_MARK "\036orch-reap"

/* Whether token is a usable step id ([A-Za-z0-9_-]+). */
bool reap_token_ok(const char *token);

/* The script for token (checked with reap_token_ok) and P given as shell
 * text (a number, or "$$"); grace: TERM and up to a second before KILL.
 * Caller frees. */
char *reap_script(const char *token, const char *pgid_expr, bool grace);

/* Parses the script's line out of text (it may stand anywhere). Returns
 * 0 with *out filled, or -1 when the line is not there (whole). */
int reap_parse(const char *text, size_t len, struct transport_leftovers *out);

#endif
