#ifndef ORCH_UTIL_LOCK_DIR_H
#define ORCH_UTIL_LOCK_DIR_H
/*
 * orch's lock folder, shared by every lock orch takes on things outside the
 * process (network consoles, boards): $ORCH_LOCK_DIR when set, else
 * /run/lock/orch when it can be made writable, else $XDG_RUNTIME_DIR/orch,
 * else /tmp/orch-locks-UID. A folder orch creates in a shared place is
 * sticky and world-writable (01777, like /run/lock) so users share it.
 *
 * Its records decide what orch stops on a board (a dead holder's token),
 * so a folder is used only when only their owners can change them: owned
 * by this user or root, and when others may write it, sticky (no one may
 * then rename or remove another's file). ORCH_LOCK_DIR naming another
 * folder is an error; a default one that is not is passed over.
 *
 * orch's locks, one word each:
 *   lock folder   this folder (lock_dir_*);
 *   board lock    one board on this controller (lock/board_lock.h);
 *   console lock  one serial or network console (transport/console_lock.h);
 *   run locks     the board locks of one run, with the database's advisory
 *                 locks when there is a database (coord/run_locks.h).
 *
 * Also how a lock's holder is named in messages: "pid 1234 (picocom -b
 * 115200 /dev/ttyUSB0)", from /proc/PID/cmdline.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The folder (caller frees), created if needed, or NULL with why in err. */
char *lock_dir_path(char *err, size_t errlen);

/* "pid N (COMMAND LINE)", or "pid N" when the command line cannot be read
 * (another user's process, or gone); caller frees. */
char *lock_dir_describe_pid(pid_t pid);

/* Whether pid names a live process (kill(pid, 0) does not say ESRCH). */
bool lock_dir_pid_alive(pid_t pid);

#endif
