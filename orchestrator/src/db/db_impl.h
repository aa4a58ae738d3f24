#ifndef ORCH_DB_IMPL_H
#define ORCH_DB_IMPL_H
/*
 * The table of operations each back end (db_sqlite.c, db_pg.c) fills in;
 * db.c does the rest (placeholders, rows, migrations) once for both.
 *
 * The one loop of calls this project allows, on purpose: db.c opens a
 * back end by its open function (db_sqlite_open, db_pg_open), the back end
 * fills struct db with its ops and calls db.c's shared helpers back (the
 * result rows, db_rows_new/db_rows_free, and a cell's text as a number,
 * db_text_int/db_text_real), and db.c calls it only through those ops.
 * A back end never calls the other; a new one adds its file, its ops and
 * one line in db_open.
 */
#include "db/db.h"

#include <pthread.h>

struct db_ops {
	/* sql already has the back end's placeholders and `@ID@` expanded */
	int (*exec)(struct db *db, const char *sql, const struct db_val *params, int n,
		    struct db_rows **rows, char *err, size_t errlen);
	int (*each)(struct db *db, const char *sql, const struct db_val *params, int n,
		    db_row_fn *fn, void *ctx, char *err, size_t errlen);
	/* a db_each row's cells, as db_row_text / db_row_int / db_row_real */
	const char *(*row_text)(const struct db_row *row, int col);
	int64_t (*row_int)(const struct db_row *row, int col, int64_t dflt);
	double (*row_real)(const struct db_row *row, int col, double dflt);
	int (*script)(struct db *db, const char *sql, char *err, size_t errlen);
	int (*begin)(struct db *db, char *err, size_t errlen);
	/* a new session in place of one that was given up (NULL: not possible) */
	int (*reconnect)(struct db *db, char *err, size_t errlen);
	/* rows the last statement inserted, updated or deleted */
	int64_t (*changes)(struct db *db);
	void (*close)(struct db *db);
	const char *begin_read_sql;/* starts a read-only transaction */
	const char *id_column;     /* what `@ID@` becomes */
	int dollar_params;         /* `?` -> $1, $2.. */
};

struct db {
	const struct db_ops *ops;
	enum db_kind kind;
	char *name;
	void *handle;
	pthread_mutex_t mu;        /* recursive: each call, and a transaction whole */
	int tx;                    /* inside db_begin / db_begin_read (mu held) */
	int refs;                  /* db_open of a shared target counts here */
	char *target;              /* as given, when shared (db_share) */
	char lost[256];            /* why the connection was given up, or "" */
	struct db *next_shared;
};

/* What db_each hands out: the back end's statement or result, and a row. */
struct db_row {
	struct db *db;
	void *cursor;
	int row;
	char *buf;      /* 32 bytes for a number's text, for row_text */
};

/* The conversions of db_cell_int / db_cell_real, on a cell's text. */
int64_t db_text_int(const char *s, int64_t dflt);
double db_text_real(const char *s, double dflt);

int db_sqlite_open(struct db *db, const char *path, char *err, size_t errlen);
int db_pg_open(struct db *db, const char *conninfo, char *err, size_t errlen);

/* Builds a db_rows of nrows x ncols with empty cells (caller fills). */
struct db_rows *db_rows_new(int nrows, int ncols);

#endif
