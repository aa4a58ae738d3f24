#ifndef ORCH_HEALTH_HEALTH_H
#define ORCH_HEALTH_HEALTH_H
/*
 * The boards' health state (offline, and infrastructure errors in a row)
 * for orch run, boards and who: the lock folder of this controller
 * (lock/board_offline.h), or with a database URL (--db, ORCH_DB) the table
 * board_health there, which every controller using it shares. Also the
 * scheduler's health hooks (schedule.h struct schedule_health) over it.
 * Thread-safe (the workers of a run call the hooks).
 */
#include <pthread.h>

#include "lock/board_offline.h"
#include "schedule/schedule.h"

struct db;

struct health_state {
	char *dir;                /* the lock folder, without a database */
	struct db *db;            /* the database, with one */
	pthread_mutex_t mu;
	bool open;
};

/* db_url NULL: the lock folder. 0, or -1 with err (then no board is ever
 * seen or taken offline). */
int health_state_open(struct health_state *hs, const char *db_url, char *err, size_t errlen);
void health_state_close(struct health_state *hs);
void health_state_hooks(struct health_state *hs, struct schedule_health *h);

/* As board_offline_get/_set/_clear/_list/_count, over either store. */
int health_get(struct health_state *hs, const char *board, struct board_offline_rec *rec,
	       char *err, size_t errlen);
int health_set(struct health_state *hs, const char *board, const char *reason, bool manual,
	       char *err, size_t errlen);
int health_clear(struct health_state *hs, const char *board, bool *had, char *err,
		 size_t errlen);
long health_list(struct health_state *hs, struct board_offline_rec **out, char *err,
		 size_t errlen);
int health_count(struct health_state *hs, const char *board, bool infra, char *err,
		 size_t errlen);

#endif
