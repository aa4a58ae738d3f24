#ifndef ORCH_UTIL_LOCKDIR_H
#define ORCH_UTIL_LOCKDIR_H
/*
 * orch's lock folder, shared by every lock orch takes on things outside the
 * process (network consoles, boards): $ORCH_LOCK_DIR when set, else
 * /run/lock/orch when it can be made writable, else $XDG_RUNTIME_DIR/orch,
 * else /tmp/orch-locks-UID. A folder orch creates in a shared place is
 * sticky and world-writable (01777, like /run/lock) so users share it.
 *
 * Also how a lock's holder is named in messages: "pid 1234 (picocom -b
 * 115200 /dev/ttyUSB0)", from /proc/PID/cmdline.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The folder (caller frees), created if needed, or NULL with why in err. */
char *lockdir_path(char *err, size_t errlen);

/* "pid N (COMMAND LINE)", or "pid N" when the command line cannot be read
 * (another user's process, or gone); caller frees. */
char *lockdir_describe_pid(pid_t pid);

/* Whether pid names a live process (kill(pid, 0) does not say ESRCH). */
bool lockdir_pid_alive(pid_t pid);

#endif
