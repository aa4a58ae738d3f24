#ifndef ORCH_COORD_DB_H
#define ORCH_COORD_DB_H
/*
 * The coordination database: orch's tables in PostgreSQL, over the run's
 * one db/ connection (db/db.h: bounded, interruptible calls; the history
 * of the run shares it). Board locks are session advisory locks keyed by
 * the board name, so they die with the session when orch dies;
 * orch_board_holder rows say who holds them (rows of sessions that are
 * gone are ignored and swept). Reservations (orch lock --db) are rows with
 * an expiry that outlive their session. The tables of joined runs are in
 * join.h; every table is orch_*, made by db_migrate (version table
 * orch_coord_schema) when the database is opened. Thread-safe: db/ holds
 * the connection for one call, or one transaction, at a time.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "lock/board_lock.h"

struct coord_db;

/* Connects to url (a libpq conninfo or postgresql:// URL) and brings the
 * tables to the last version (a database newer than this orch is
 * refused). Returns the session (coord_db_close) or NULL with err. Later
 * db_open calls of url in this process share its connection. */
struct coord_db *coord_db_open(const char *url, char *err, size_t errlen);
void coord_db_close(struct coord_db *db);

/* Same contract as board_lock_try/_reserve/_unreserve/_list (BOARD_LOCK_*),
 * across every controller that uses this database. The run's row keeps
 * token (orch_board_holder.steps); *previous: the row of a run that held
 * the board and is gone (session ended, lease run out), whose commands may
 * still run there (previous->token "" when none). */
int coord_db_board_try(struct coord_db *db, const char *board, const char *note,
		       const char *token, struct board_holder *holder,
		       struct board_holder *previous, char *err, size_t errlen);
void coord_db_board_release(struct coord_db *db, const char *board);
/* A run's board lock is a session advisory lock plus a lease on its row
 * (orch_board_holder.lease_until, renewed every lease/6 by a thread of this
 * process): another controller treats the board as held while the session
 * lives, or, after a server restart (which ends every session), while the
 * lease runs. When the session is lost the thread makes a new one and takes
 * the locks again while their leases run; a board whose lease ran out
 * first, or whose lock another session took, is lost. Whether board is
 * still held: false with why once lost. */
bool coord_db_board_held(struct coord_db *db, const char *board, char *why, size_t len);
/* The lease: twice the database call timeout (db_call_timeout_ms). */
int64_t coord_db_lease_ms(void);
int coord_db_reserve(struct coord_db *db, const char *board, int64_t expires_us, const char *note,
		     struct board_holder *holder, char *err, size_t errlen);
int coord_db_unreserve(struct coord_db *db, const char *board, bool *had, char *err,
		       size_t errlen);
long coord_db_list(struct coord_db *db, struct board_holder **out, char *err, size_t errlen);

/* Why the run's session was given up or lost (db_lost), or NULL: the
 * board locks it held are gone with it. */
const char *coord_db_lost(struct coord_db *db);
/* The connection (for db_lock, db_changes). */
struct db *coord_db_sql(struct coord_db *db);
/* One statement with n text parameters (PostgreSQL's $1.. in sql): 0 and
 * *rows when rows is not NULL (db_rows_free), or -1 with "database: ..." in
 * err. */
int coord_db_run(struct coord_db *db, const char *sql, const char *const *params, int n,
		 struct db_rows **rows, char *err, size_t errlen);
/* Runs tx(db, arg) inside BEGIN ... COMMIT, rolled back when it returns
 * non-zero. Returns what tx returned, or `fail` (with the message in err)
 * when BEGIN or COMMIT failed. */
int coord_db_in_tx(struct coord_db *db, int (*tx)(struct coord_db *db, void *arg), void *arg,
		   int fail, char *err, size_t errlen);

#endif
