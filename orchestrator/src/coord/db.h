#ifndef ORCH_COORD_DB_H
#define ORCH_COORD_DB_H
/*
 * The coordination database: one PostgreSQL session per orch process
 * (libpq), the only code here that talks to the server. Board locks are
 * session advisory locks keyed by the board name, so they die with the
 * session when orch dies; orch_board_holder rows say who holds them (rows
 * of sessions that are gone are ignored and swept). Reservations (orch
 * lock --db) are rows with an expiry that outlive their session. The
 * tables of joined runs are in join.h; every table is orch_*, made on
 * first use. Thread-safe: one mutex around the session.
 */
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/boardlock.h"

struct coord_db;

/* Connects to url (a libpq conninfo or postgresql:// URL) and makes the
 * tables. Returns the session (coord_db_close) or NULL with err. */
struct coord_db *coord_db_open(const char *url, char *err, size_t errlen);
void coord_db_close(struct coord_db *db);

/* Same contract as boardlock_try/_reserve/_unreserve/_list (BOARDLOCK_*),
 * across every controller that uses this database. */
int coord_db_board_try(struct coord_db *db, const char *board, const char *note,
		       struct board_holder *holder, char *err, size_t errlen);
void coord_db_board_release(struct coord_db *db, const char *board);
int coord_db_reserve(struct coord_db *db, const char *board, int64_t expires_us, const char *note,
		     struct board_holder *holder, char *err, size_t errlen);
int coord_db_unreserve(struct coord_db *db, const char *board, bool *had, char *err,
		       size_t errlen);
long coord_db_list(struct coord_db *db, struct board_holder **out, char *err, size_t errlen);

/* One statement with the session locked (see coord_db_exec). */
PGresult *coord_db_query(struct coord_db *db, const char *sql, int n, const char *const *params,
			 char *err, size_t errlen);
/* The same with every column of the result in binary (bytea as raw bytes,
 * text as it is). */
PGresult *coord_db_query_binary(struct coord_db *db, const char *sql, int n,
				const char *const *params, char *err, size_t errlen);
/* For join.c: runs f with the session locked (f returns 0 or -1). */
int coord_db_with(struct coord_db *db, int (*f)(PGconn *c, void *arg), void *arg);
/* Runs tx(c, arg) inside BEGIN ... COMMIT, rolled back when it fails.
 * Returns what tx returned, or FAIL (with the message in err) when BEGIN
 * or COMMIT failed. Call it with the session locked (coord_db_with). */
int coord_db_in_tx(PGconn *c, int (*tx)(PGconn *c, void *arg), void *arg, int fail, char *err,
		   size_t errlen);
/* One statement with text parameters; the result (caller PQclear()s) when
 * it succeeded, else NULL with the server's message in err. */
PGresult *coord_db_exec(PGconn *c, const char *sql, int n, const char *const *params,
			char *err, size_t errlen);

#endif
