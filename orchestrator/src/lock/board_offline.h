#ifndef ORCH_LOCK_BOARD_OFFLINE_H
#define ORCH_LOCK_BOARD_OFFLINE_H
/*
 * A board's health state shared by every orch of this controller: files in
 * the lock folder (board_lock_dir()):
 *   board-NAME.offline   the board is offline: when, who said so, why (a
 *                        health check that failed, offline_after errors in
 *                        a row, or orch boards --offline --note TEXT);
 *                        removed by orch boards --online
 *   board-NAME.errors    infrastructure errors in a row (offline_after)
 * Each is written whole (a temporary file, then rename), so a reader never
 * sees half of one. Across controllers the same state lives in a
 * database instead (health/health.h, with --db).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct board_offline_rec {
	char board[128];
	int64_t since_us;          /* wall clock */
	char by[192];              /* user@host */
	char reason[512];
	bool manual;               /* set by a person (orch boards --offline) */
};

/* 1 and *rec when board is offline, 0 when not, -1 with err. */
int board_offline_get(const char *dir, const char *board, struct board_offline_rec *rec,
		      char *err, size_t errlen);
/* Marks board offline now for reason (one line; control characters become
 * spaces). 0, or -1 with err. */
int board_offline_set(const char *dir, const char *board, const char *reason, bool manual,
		      char *err, size_t errlen);
/* Back online (the errors in a row forgotten too); *had: it was offline. */
int board_offline_clear(const char *dir, const char *board, bool *had, char *err,
			size_t errlen);
/* Every offline board in the folder; how many (*out: free()), or -1. */
long board_offline_list(const char *dir, struct board_offline_rec **out, char *err,
			size_t errlen);
/* One more infrastructure error in a row of board (infra), or any other
 * result (the count starts again): the count after it, or -1 with err. */
int board_offline_count(const char *dir, const char *board, bool infra, char *err,
			size_t errlen);

#endif
