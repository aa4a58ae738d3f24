#ifndef ORCH_TS_CONSOLE_H
#define ORCH_TS_CONSOLE_H
/*
 * A fake serial console for the run tests: socat gives a shell script a
 * pty of its own (its controlling terminal, as a getty's) and links the
 * other side where an inventory's serial: port names it. The script is
 * the "board": a login loop, a chatty kernel, whatever the test writes.
 */
#include <sys/types.h>

/* Writes SCRIPT to DIR/NAME.sh and starts socat serving it, the console
 * linked at DIR/NAME: *link (caller frees) and *pid (stop it with
 * ts_stop). Returns 0, or -1 when the link did not appear within 5 s. */
int ts_console_start(const char *dir, const char *name, const char *script, char **link,
		     pid_t *pid);
/* A getty's loop for such a console: "BOARD login: ", then "Password: "
 * (not echoed), user root with PASSWORD gets `/bin/sh -i`, anything else
 * "Login incorrect"; again after each logout. Caller frees. */
char *ts_console_login_script(const char *board, const char *password);

#endif
