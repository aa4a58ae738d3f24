#ifndef ORCH_TRANSPORT_SSH_WRAP_H
#define ORCH_TRANSPORT_SSH_WRAP_H
#include <stdbool.h>
/*
 * The shell text the ssh transport sends around each command (private to
 * ssh_exec.c). The wrapper prints the pid of the process that becomes
 * the command's shell on the first stdout line, and makes sure that pid
 * leads its own process group:
 *   - OpenSSH starts every exec channel in a new session (setsid), so the
 *     wrapper shell already leads its group;
 *   - dropbear does not: all commands of one connection share the group of
 *     dropbear's connection process, so `kill -PGID` there would kill
 *     dropbear itself. The wrapper then runs `setsid` (util-linux, busybox),
 *     which, since the shell is not a group leader, calls setsid() without
 *     forking and keeps the pid.
 * Whether the shell leads its group is asked with `kill -0 -$$` (a group
 * with the shell's own id exists only if the shell leads it). Without
 * setsid, the pid still names the command's shell, and the kill script
 * falls back to killing that pid and its descendants.
 * The command runs in /bin/sh: with eval in the wrapper shell when that is
 * sh (the board user's usual shell: no process started for it), else with
 * `exec /bin/sh -c`; after setsid, with eval in the /bin/sh it started.
 * The command text is sent once (in a variable the command unsets), so a
 * long command stays under dropbear's limit of about 9 KB.
 */

/* `orch_c='CMD'; ... echo $$; eval "$orch_c"` (see above); caller frees. With reap_token
 * (transport/reap.h), the wrapper shell also stops what the command left
 * running as it exits and prints the reap line last on stdout (grace:
 * TERM and a second before KILL). */
char *ssh_wrap_command(const char *command, const char *reap_token, bool grace);

/* Kills process group $P (TERM, 1 s, KILL), or the tree under pid $P when
 * there is no such group. Prefix with "P=PGID; ". */
extern const char SSH_WRAP_KILL_SCRIPT[];
/* The same without the TERM and the grace: KILL at once (a second Ctrl-C). */
extern const char SSH_WRAP_KILL_NOW_SCRIPT[];

#endif
