#ifndef ORCH_TS_DB_H
#define ORCH_TS_DB_H
/*
 * What the db module's tests share across its two backends (SQLite in
 * tests/unit/test_db.c, PostgreSQL in tests/integration/test_db_pg.c): a
 * two-version test schema, and two processes writing at once.
 */
#include "db/db.h"

/* Version 1: table t (id, name, v, n); version 2 adds t.note and an index. */
extern const struct db_migration ts_db_migs[2];

/* Forks two processes that each open TARGET (an SQLite path or a
 * postgresql:// URL), migrate it to ts_db_migs version 2 and insert 200
 * rows into t (name "a" or "b"), one transaction a row. Fails the current
 * test unless both succeed; each says what went wrong on stderr. */
void ts_db_two_writers(const char *target);

/* db_each and db_begin_read on TARGET (migrated to version 2, table t
 * empty): each row's cells read as db_exec's are (text, integers, reals,
 * NULL, numbers as text), a callback that stops the statement, an error;
 * a statement run again after the table changed; a read transaction that
 * does not see what another connection commits meanwhile. */
void ts_db_each(const char *target);

/* On DB (migrated to version 2, table t empty): a row inserted with a
 * quote and a '?' in its text, a real, a 64-bit integer and a NULL comes
 * back as it went in (id 1, RETURNING read; the '?' inside a literal is no
 * parameter; a cell past the last row is NULL). Fails the current test
 * otherwise. */
void ts_db_round_trip(struct db *db);

#endif
