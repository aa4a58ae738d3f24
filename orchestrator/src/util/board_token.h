#ifndef ORCH_UTIL_BOARD_TOKEN_H
#define ORCH_UTIL_BOARD_TOKEN_H
/*
 * The token this orch process marks its commands on one board with
 * (transport.h "Leftovers": every command's ORCH_STEP_ID begins with it),
 * recorded with the board's lock so that whoever takes the board next can
 * find and stop what this process left running there. "RUN-BOARD": 16 hex
 * digits drawn once per process from the kernel's random source, a dash,
 * 8 hex digits of the board name's FNV-1a hash. The same board gives the
 * same token for the whole process, so the lock and the board link agree
 * without passing it between them.
 */
#include <stdbool.h>
#include <stddef.h>

#define BOARD_TOKEN_LEN 25         /* without the NUL */

/* The token for board into buf (at least BOARD_TOKEN_LEN + 1 bytes). */
void board_token(const char *board, char *buf, size_t len);

/* Whether text is a token board_token could have made (a record read back
 * from a lock file or the database). */
bool board_token_ok(const char *text);

/* Whether text is a token board_token could have made for board, by any
 * process: well formed and its board part board's hash. A record's token
 * decides what orphan cleanup stops on a board, so one of another board
 * (a live run's, copied into a planted record) is never taken. */
bool board_token_of(const char *text, const char *board);

#endif
