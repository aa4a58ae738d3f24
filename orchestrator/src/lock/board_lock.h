#ifndef ORCH_LOCK_BOARD_LOCK_H
#define ORCH_LOCK_BOARD_LOCK_H
/*
 * Board locks on one controller: who is using a board right now, and who
 * reserved it for later. Files in the lock folder (ORCH_LOCK_DIR, else
 * /run/lock/orch when writable, else $XDG_RUNTIME_DIR/orch, else
 * /tmp/orch-locks-UID), the same folder the console locks use:
 *   board-NAME.lock      flock(LOCK_EX) held by the process using the
 *                        board; the kernel drops it when that process
 *                        dies (kill -9 included). Its text names the
 *                        holder: user, host, pid, since, note, and the
 *                        token its commands on the board carry
 *                        (util/board_token.h). A clean release empties
 *                        it, so a record found under a free flock is a
 *                        holder that died with the board in use: its
 *                        commands may still run there.
 *   board-NAME.reserved  a reservation by a person (orch lock), with an
 *                        expiry; it outlives the orch that wrote it and
 *                        blocks runs the same way until it expires or
 *                        orch unlock removes it.
 * A run takes the flock, then looks for a live reservation; orch lock
 * takes the flock too while it writes one, so the two never both win.
 * The files are never unlinked (an unlink races with a waiting flock).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct board_holder {
	char board[128];
	char user[64];
	char host[128];
	long pid;
	int64_t since_us;          /* wall clock */
	int64_t expires_us;        /* reservations; 0: none */
	char note[256];
	bool reservation;          /* a person's reservation, not a running orch */
	char where[16];            /* "local" or "db" */
	char token[32];            /* its commands' board token, or "" */
};

/* Error codes (negative); 0 is success. */
#define BOARD_LOCK_HELD (-1)    /* someone holds it: the holder is filled in */
#define BOARD_LOCK_ERROR (-2)   /* the lock folder or file failed: err says why */

/* The lock folder, created if missing (caller frees), or NULL with err:
 * util/lock_dir.h's, shared with the console locks. */
char *board_lock_dir(char *err, size_t errlen);

/* This process as a holder: user, host, pid, now, note (may be NULL). */
void board_holder_self(struct board_holder *h, const char *board, const char *note);
/* "alice@lab1 pid 4242 since 2026-12-03T04:10:00Z (note)", or for a
 * reservation "alice@lab1, reserved since ... until ... (note)". */
void board_holder_describe(const struct board_holder *h, char *buf, size_t len);

/* Takes board's lock for this process, recording token (this process's
 * board token, or NULL). 0 and *fd (keep it open while the board is used;
 * board_lock_release gives it back), with *previous the record of a holder
 * that died holding the board (previous->token is "" when there was none);
 * BOARD_LOCK_HELD with *holder filled (a running orch, or a live
 * reservation); BOARD_LOCK_ERROR. */
int board_lock_try(const char *dir, const char *board, const char *note, const char *token,
		  int *fd, struct board_holder *holder, struct board_holder *previous, char *err,
		  size_t errlen);
/* As board_lock_try, for a person's manual work (orch power, orch
 * console): a live reservation of this same user does not refuse, so the
 * person who reserved the board with orch lock may use it. */
int board_lock_try_person(const char *dir, const char *board, const char *note, int *fd,
			  struct board_holder *holder, char *err, size_t errlen);
void board_lock_release(int fd);

/* Writes a reservation of board until expires_us (0: no expiry). Fails
 * with BOARD_LOCK_HELD when a run holds it or someone else's reservation is
 * live; a reservation of the same user is renewed. */
int board_lock_reserve(const char *dir, const char *board, int64_t expires_us, const char *note,
		      struct board_holder *holder, char *err, size_t errlen);
/* Removes board's reservation. 0 (also when there was none: *had is false),
 * or BOARD_LOCK_ERROR. */
int board_lock_unreserve(const char *dir, const char *board, bool *had, char *err, size_t errlen);

/* Every live holder in the folder (running orchs, then reservations);
 * returns how many, *out owned by the caller (free()), or -1 with err. */
long board_lock_list(const char *dir, struct board_holder **out, char *err, size_t errlen);

/* Holder text (the lock file's content) <-> struct; parse returns 0 or -1. */
void board_holder_format(const struct board_holder *h, char *buf, size_t len);
int board_holder_parse(const char *text, struct board_holder *h);

#endif
