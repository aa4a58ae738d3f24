#ifndef ORCH_TRANSPORT_CONSOLE_LOCK_H
#define ORCH_TRANSPORT_CONSOLE_LOCK_H
/*
 * Exclusive use of a serial console, for as long as it is open.
 *
 * A device (tty, USB adapter, pty) is locked the way minicom, lockdev and
 * ser2net do it, so they and orch keep out of each other's way:
 *   - a UUCP lock file in /var/lock (or /run/lock): LCK..NAME, where NAME
 *     is the device path without "/dev/" and with '/' made '_' (ttyUSB0,
 *     pts_3), holding the owner's pid as 10 ASCII characters and a newline.
 *     A lock whose pid is dead is stale and removed. When the device was
 *     named through a link (/dev/serial/by-id/...), the link's name is
 *     locked too. No lock folder, or one this user may not write, skips
 *     this part (like picocom);
 *   - flock(LOCK_EX | LOCK_NB) on a descriptor of the device, held open
 *     (picocom and screen use this one).
 * A network console (tcp://, rfc2217://) is locked by flock on a file in
 * orch's lock folder (util/lock_dir.h) named after the URL, holding the pid.
 *
 * The lock is taken before the device is opened for use, so a refused
 * opener never touches the holder's line settings. Inside one process the
 * lock is re-entrant (counted): the board link shares one console, and code
 * that still opens it twice in one run is not refused by itself.
 */
#include <stddef.h>

/* Returned when another process holds the console; err names it:
 * "console /dev/ttyUSB0 is in use by pid 812 (picocom -b 115200 /dev/ttyUSB0)". */
#define CONSOLE_LOCK_BUSY (-2)

struct console_lock;

/* Locks the device at path: 0 and *out (release with console_lock_release),
 * CONSOLE_LOCK_BUSY, or -1 with the reason in err (device missing, lock
 * file not writable for another reason than permissions). */
int console_lock_device(const char *path, struct console_lock **out, char *err, size_t errlen);
/* Locks a network console by its URL; same returns. */
int console_lock_url(const char *url, struct console_lock **out, char *err, size_t errlen);
/* Unlocks (removes the UUCP files when the last user in this process
 * lets go); accepts NULL. */
void console_lock_release(struct console_lock *l);

/* The UUCP lock folder in use (/var/lock, else /run/lock), or NULL when
 * there is none. Static string. */
const char *console_lock_uucp_dir(void);

#endif
