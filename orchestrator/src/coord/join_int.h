#ifndef ORCH_COORD_JOIN_INT_H
#define ORCH_COORD_JOIN_INT_H
/*
 * Inside the joined run (coord/join*.c only): the state one controller
 * keeps of the run, and the statements every part of it sends.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "coord/join.h"

struct join {
	struct coord_db *db;
	const struct plan *plan;
	char *name, *controller, *host, *folder;
	char *reach;                   /* the name the inventory's controllers: lists */
	bool name_given;
	int64_t join_wait_ms;
	struct run_locks *locks;
	pthread_mutex_t mu;            /* retried, done */
	bool *retried;                 /* per plan board: claimed again after a loss */
	bool **done;                   /* per plan board and item: recorded already */
	bool **mine;                   /* ... recorded by this controller (logs here) */
};

/* One statement: its rows (db_rows_free), or NULL with err. */
struct db_rows *join_qc(struct coord_db *c, const char *sql, int n, const char *const *p,
			char *err, size_t errlen);
/* The same on the run's connection. */
struct db_rows *join_q(struct join *j, const char *sql, int n, const char *const *p, char *err,
		       size_t errlen);
/* A statement whose rows do not matter: whether it ran. */
bool join_q_ok(struct join *j, const char *sql, int n, const char *const *p, char *err,
	       size_t errlen);
/* A cell's text, "" for NULL. */
const char *join_cell(const struct db_rows *r, int row, int col);
/* Units claimed by sessions that are gone go back to the queue. false
 * with err when the database failed. */
bool join_requeue_lost(struct join *j, char *err, size_t errlen);

#endif
