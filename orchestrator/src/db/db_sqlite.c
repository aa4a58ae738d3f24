/* The SQLite back end: one connection per struct db, WAL, busy timeout. */
#include "db/db_impl.h"
#include "util/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DB_SQLITE_BUSY_MS 30000

static int db_sqlite_code(int rc)
{
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? DB_EBUSY : DB_EQUERY;
}

static int db_sqlite_bind(sqlite3_stmt *st, const struct db_val *params, int n)
{
	int rc = SQLITE_OK;
	for (int i = 0; i < n && rc == SQLITE_OK; i++) {
		switch (params[i].type) {
		case DB_T_INT: rc = sqlite3_bind_int64(st, i + 1, params[i].i); break;
		case DB_T_REAL: rc = sqlite3_bind_double(st, i + 1, params[i].d); break;
		case DB_T_TEXT: rc = sqlite3_bind_text(st, i + 1, params[i].s, -1, SQLITE_TRANSIENT); break;
		default: rc = sqlite3_bind_null(st, i + 1); break;
		}
	}
	return rc;
}

static char *db_sqlite_cell(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_FLOAT:
		return xasprintf("%.17g", sqlite3_column_double(st, col));
	default:
		return xstrdup((const char *)sqlite3_column_text(st, col));
	}
}

/* Steps through the statement, collecting the rows when asked. */
static int db_sqlite_collect(sqlite3_stmt *st, struct db_rows **rows)
{
	int ncols = sqlite3_column_count(st);
	char **cells = NULL;
	size_t ncells = 0, cap = 0;
	int nrows = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!rows)
			continue;
		if (ncells + (size_t)ncols > cap) {
			cap = cap ? cap * 2 : (size_t)ncols * 16 + 16;
			cells = xrealloc(cells, cap * sizeof(char *));
		}
		for (int c = 0; c < ncols; c++)
			cells[ncells++] = db_sqlite_cell(st, c);
		nrows++;
	}
	if (rows) {
		struct db_rows *r = db_rows_new(nrows, ncols);
		for (int c = 0; c < ncols; c++)
			r->names[c] = xstrdup(sqlite3_column_name(st, c));
		if (ncells)
			memcpy(r->cells, cells, ncells * sizeof(char *));
		free(cells);
		*rows = r;
	}
	return rc;
}

static int db_sqlite_exec(struct db *db, const char *sql, const struct db_val *params, int n,
			  struct db_rows **rows, char *err, size_t errlen)
{
	sqlite3 *h = db->handle;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = db_sqlite_bind(st, params, n);
	if (rc == SQLITE_OK)
		rc = db_sqlite_collect(st, rows);
	int out = 0;
	if (rc != SQLITE_DONE && rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		out = db_sqlite_code(rc);
		if (rows) {
			db_rows_free(*rows);
			*rows = NULL;
		}
	}
	sqlite3_finalize(st);
	return out;
}

static int db_sqlite_script(struct db *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->handle, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return db_sqlite_code(rc);
	}
	return 0;
}

static int db_sqlite_begin(struct db *db, char *err, size_t errlen)
{
	return db_sqlite_script(db, "BEGIN IMMEDIATE", err, errlen);
}

static void db_sqlite_close(struct db *db)
{
	sqlite3_close(db->handle);
}

static const struct db_ops db_sqlite_ops = {
	.exec = db_sqlite_exec,
	.script = db_sqlite_script,
	.begin = db_sqlite_begin,
	.close = db_sqlite_close,
	.id_column = "INTEGER PRIMARY KEY AUTOINCREMENT",
	.dollar_params = 0,
};

int db_sqlite_open(struct db *db, const char *path, char *err, size_t errlen)
{
	sqlite3 *h = NULL;
	char detail[256];
	int rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path, h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
		sqlite3_close(h);
		return DB_EOPEN;
	}
	sqlite3_busy_timeout(h, DB_SQLITE_BUSY_MS);
	db->ops = &db_sqlite_ops;
	db->handle = h;
	rc = db_sqlite_script(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
			      "PRAGMA foreign_keys=ON", detail, sizeof(detail));
	if (rc < 0) {
		snprintf(err, errlen, "cannot use '%s': %s", path, detail);
		sqlite3_close(h);
		db->handle = NULL;
		db->ops = NULL;
		return rc == DB_EBUSY ? DB_EBUSY : DB_EOPEN;
	}
	return 0;
}
