#ifndef ORCH_TRANSPORT_SERIAL_H
#define ORCH_TRANSPORT_SERIAL_H
/*
 * The serial transport: commands typed into a logged-in shell on a serial
 * console, for boards with no network. Opening it wakes the console, answers
 * "login:" and "Password:" prompts, waits for a shell prompt, then turns the
 * terminal's echo off, quiets kernel messages on the console (dmesg -n 1)
 * and sets a plain PS1.
 *
 * Each command is typed as one line:
 *   printf '__ORCH_BEGIN_%s__\n' N; /bin/sh -c "$__orch_sup" orch 'CMD' N
 *   2>&1 </dev/null; printf '\n__ORCH_END_%s__ %d\n' N $?
 * so neither marker appears in the echo of the typed line; everything between
 * them is the output (stdout and stderr merged, cleaned of escape sequences
 * and carriage returns) and the number after the end marker is the exit
 * status. $__orch_sup, set at login, is a supervisor that runs CMD in a
 * process group of its own: on a timeout, a cancel or Ctrl-C the transport
 * types Ctrl-C (Ctrl-\ after a second Ctrl-C), the supervisor stops the
 * group (TERM, KILL after 1 s; KILL at once) and says whether it is gone,
 * and st->stop_note says what was confirmed; an unconfirmed stop is an
 * error (the command may still run on the board).
 *
 * Limits: no stdin (stdin_fd must be -1); a command line longer than about
 * 4000 bytes does not fit a tty line; one command at a time.
 */
#include <stddef.h>

#include "transport/serial_port.h"
#include "transport/transport.h"

/*
 * Opens the console described by target, logs in as target->login_user
 * (default root) with password (may be NULL when none is asked), and
 * returns the transport (caller frees with transport_free), or NULL with
 * the reason in err ("serial console of NAME: no login prompt within 30s,
 * last line seen: '...'"). name is the board's, for messages.
 */
struct transport *transport_serial_new(const struct serial_target *target, const char *password,
				       const char *name, char *err, size_t errlen);

/* The same on a port the caller opened and keeps (the board link's console):
 * freeing the transport logs out but leaves the port open. */
struct transport *transport_serial_attach(struct serial_port *port,
					  const struct serial_target *target,
					  const char *password, const char *name, char *err,
					  size_t errlen);

#endif
