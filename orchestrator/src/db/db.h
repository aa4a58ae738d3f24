#ifndef ORCH_DB_DB_H
#define ORCH_DB_DB_H
/*
 * db: one small SQL interface over SQLite (libsqlite3, a file on this
 * machine, no setup) and PostgreSQL (libpq, a server several controllers
 * share). A database is named by a URL or a path:
 *   postgresql://USER@HOST:PORT/DB (or postgres://, or any libpq
 *   "key=value" string starting with "host=" / "dbname=")  -> PostgreSQL
 *   sqlite:PATH, or any other string, taken as a file path   -> SQLite
 * SQL is written once with `?` placeholders (rewritten to $1.. for
 * PostgreSQL) and portable types (INTEGER/BIGINT, DOUBLE PRECISION, TEXT);
 * in migrations `@ID@` stands for an auto-numbered primary key column.
 * Results are read whole into a db_rows table, or a row at a time with
 * db_each (what a long history reads). Threads may share a struct db: each
 * call holds it whole, and a transaction (db_begin .. db_commit/db_rollback)
 * holds it for the thread that began it; db_lock/db_unlock hold it across
 * several calls. SQLite statements are prepared once per connection and kept.
 * SQLite files are opened in WAL mode with a busy timeout, so several orch
 * runs may write to one file at once; transactions take the write lock up
 * front (BEGIN IMMEDIATE). Errors are negative DB_E* codes with the detail
 * in the caller's buffer; a password in a URL is never echoed back.
 */
#include <stddef.h>
#include <stdint.h>

enum db_kind { DB_SQLITE = 1, DB_POSTGRES = 2 };

enum db_error {
	DB_OK = 0,
	DB_EOPEN = -1,     /* cannot open the file / reach the server */
	DB_EQUERY = -2,    /* the statement failed (syntax, constraint, type) */
	DB_EBUSY = -3,     /* locked by another writer past the busy timeout */
	DB_ESCHEMA = -4,   /* schema newer than this orch, or a migration failed */
	DB_EUSAGE = -5,    /* bad argument (empty target, too many parameters) */
};

enum db_type { DB_T_NULL = 0, DB_T_INT, DB_T_REAL, DB_T_TEXT };

/* One parameter value; the text is borrowed for the call. */
struct db_val {
	enum db_type type;
	int64_t i;
	double d;
	const char *s;
};

#define DB_NULL ((struct db_val){ .type = DB_T_NULL })
#define DB_INT(v) ((struct db_val){ .type = DB_T_INT, .i = (v) })
#define DB_REAL(v) ((struct db_val){ .type = DB_T_REAL, .d = (v) })
/* A NULL string is stored as SQL NULL. */
#define DB_TEXT(v) ((struct db_val){ .type = (v) ? DB_T_TEXT : DB_T_NULL, .s = (v) })

#define DB_MAX_PARAMS 32

struct db;

/* A result read whole: rows x cols cells, each a string or NULL (SQL NULL). */
struct db_rows {
	int nrows;
	int ncols;
	char **names;   /* ncols column names */
	char **cells;   /* nrows * ncols, row-major */
};

/* Every PostgreSQL call is bounded: connecting by connect_timeout (this,
 * rounded up to seconds), each statement by the server's statement_timeout
 * (this; lock waits half of it) and on the client 2 s later, TCP
 * keepalives (idle 5 s, then 3 probes 2 s apart) and tcp_user_timeout so
 * that a peer that is gone is noticed in seconds. A call that outlasts its
 * deadline, or a wait after a second Ctrl-C (util/interrupt.h: ends within
 * INTERRUPT_HURRY_MS), gives the connection up: it fails with DB_EOPEN and
 * every later call on that struct db fails at once the same way; no new
 * connection is made after a second Ctrl-C. ORCH_DB_TIMEOUT_MS overrides
 * the default (tests, slow links). */
#define DB_CALL_TIMEOUT_MS 30000
int64_t db_call_timeout_ms(void);

/* Opens `target` (see above). Returns 0 and *out (caller closes), or a
 * DB_E* code with the reason in err. A target made shared with db_share is
 * not opened again: *out is that connection (closed by its last db_close). */
int db_open(struct db **out, const char *target, char *err, size_t errlen);
/* The same, taking target as PostgreSQL whatever its form (libpq's rules:
 * a bare NAME is a database on the default server). */
int db_open_postgres(struct db **out, const char *target, char *err, size_t errlen);
/* Later db_open calls of `target` in this process return db (one
 * connection per run: the board locks, joined runs and history of a run
 * share one session). */
void db_share(struct db *db, const char *target);
/* Closes; accepts NULL. */
void db_close(struct db *db);
enum db_kind db_kind(const struct db *db);
/* The target with any password replaced by "***"; owned by db. */
const char *db_name(const struct db *db);
/* Whether `target` names a PostgreSQL database. */
int db_target_is_postgres(const char *target);

/* Runs one statement with `n` parameters. With rows not NULL the result is
 * returned there (caller frees with db_rows_free), else it is dropped. */
int db_exec(struct db *db, const char *sql, const struct db_val *params, int n,
	    struct db_rows **rows, char *err, size_t errlen);
/* One row of a result read with db_each; valid during the callback only. */
struct db_row;
/* Called per row; a negative return stops the statement and is returned
 * by db_each (err is the callback's to fill). */
typedef int db_row_fn(const struct db_row *row, void *ctx);
/* Runs one statement and hands each row to fn without copying the result:
 * 0, fn's negative code, or a DB_E* code. fn must not run statements on db
 * itself: SQLite's kept statement is still stepping. */
int db_each(struct db *db, const char *sql, const struct db_val *params, int n, db_row_fn *fn,
	    void *ctx, char *err, size_t errlen);
/* Cell col of a db_each row, with the conversions of db_cell, db_cell_int
 * and db_cell_real: the text or NULL (valid during the callback); a number,
 * or dflt for NULL, out of range or text that is not one. */
const char *db_row_text(const struct db_row *row, int col);
int64_t db_row_int(const struct db_row *row, int col, int64_t dflt);
double db_row_real(const struct db_row *row, int col, double dflt);

/* Why the connection was given up (a call outlasted its deadline, a second
 * Ctrl-C, the server went away), or NULL while it is usable. A run that
 * held board locks over it no longer holds them. */
const char *db_lost(struct db *db);
/* A new session in place of a lost one (PostgreSQL): 0 (also when the
 * session was not lost), or DB_EOPEN with err. What the old session held
 * (advisory locks, a transaction) is gone: the caller takes it again. */
int db_reconnect(struct db *db, char *err, size_t errlen);
/* Rows the last statement (of this thread's db_lock or transaction)
 * inserted, updated or deleted. */
int64_t db_changes(struct db *db);
/* Holds db for this thread across several calls (recursive). */
void db_lock(struct db *db);
void db_unlock(struct db *db);

/* Runs several statements without parameters (`@ID@` expanded). */
int db_exec_script(struct db *db, const char *sql, char *err, size_t errlen);

/* Transactions: begin takes the write lock at once (SQLite) and waits for
 * it up to the busy timeout; rollback never fails the caller. A commit
 * that fails rolls back: the transaction is over either way. */
int db_begin(struct db *db, char *err, size_t errlen);
/* A transaction that only reads: every statement in it sees the database
 * as it was at its first one (SQLite's WAL snapshot; PostgreSQL's
 * REPEATABLE READ), without taking the write lock. Ends with db_commit. */
int db_begin_read(struct db *db, char *err, size_t errlen);
int db_commit(struct db *db, char *err, size_t errlen);
void db_rollback(struct db *db);

/* Cell (row, col): the text or NULL; out of range is NULL. */
const char *db_cell(const struct db_rows *r, int row, int col);
int64_t db_cell_int(const struct db_rows *r, int row, int col, int64_t dflt);
double db_cell_real(const struct db_rows *r, int row, int col, double dflt);
void db_rows_free(struct db_rows *r);

/* Schema migrations: version N's script turns schema N-1 into N. A set
 * of migrations names the table its version lives in, so several users of
 * one database (history, board locks) keep their own. */
struct db_migration {
	int version;        /* 1, 2, ... in order */
	const char *sql;    /* statements for db_exec_script */
};

struct db_schema {
	const char *version_table;   /* [a-z_]+, e.g. "history_schema" */
	const struct db_migration *migs;
	int n;
};

/* Brings the schema up to the last migration in one transaction (under an
 * advisory lock on PostgreSQL, so controllers starting together migrate
 * once). Returns 0, or DB_ESCHEMA when the database is newer than the
 * migrations know or one failed (nothing of it is kept). *from (when not
 * NULL) is set to the version found. */
int db_migrate(struct db *db, const struct db_schema *schema, int *from, char *err, size_t errlen);
/* The schema version recorded (0 for an empty database), or a DB_E* code. */
int db_schema_version(struct db *db, const char *version_table, char *err, size_t errlen);

#endif
