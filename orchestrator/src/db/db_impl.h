#ifndef ORCH_DB_IMPL_H
#define ORCH_DB_IMPL_H
/*
 * The table of operations each back end (db_sqlite.c, db_pg.c) fills in;
 * db.c does the rest (placeholders, rows, migrations) once for both.
 */
#include "db/db.h"

struct db_ops {
	/* sql already has the back end's placeholders and `@ID@` expanded */
	int (*exec)(struct db *db, const char *sql, const struct db_val *params, int n,
		    struct db_rows **rows, char *err, size_t errlen);
	int (*script)(struct db *db, const char *sql, char *err, size_t errlen);
	int (*begin)(struct db *db, char *err, size_t errlen);
	void (*close)(struct db *db);
	const char *id_column;     /* what `@ID@` becomes */
	int dollar_params;         /* `?` -> $1, $2.. */
};

struct db {
	const struct db_ops *ops;
	enum db_kind kind;
	char *name;
	void *handle;
};

int db_sqlite_open(struct db *db, const char *path, char *err, size_t errlen);
int db_pg_open(struct db *db, const char *conninfo, char *err, size_t errlen);

/* Builds a db_rows of nrows x ncols with empty cells (caller fills). */
struct db_rows *db_rows_new(int nrows, int ncols);

#endif
