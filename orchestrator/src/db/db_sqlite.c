/* The SQLite back end: one connection per struct db, WAL, busy timeout. */
#include "db/db_impl.h"
#include "util/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DB_SQLITE_BUSY_MS 30000
#define DB_SQLITE_CACHE 16

struct db_sqlite_stmt {
	char *sql;
	sqlite3_stmt *st;
	unsigned long used;   /* 0: empty */
};

struct db_sqlite {
	sqlite3 *h;
	struct db_sqlite_stmt cache[DB_SQLITE_CACHE];
	unsigned long tick;
};

/* Ready for the next use: no row, no read lock, no parameter kept. */
static void db_sqlite_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

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

/* A prepared statement for sql: the one kept from an earlier call, or a
 * new one kept in place of the least recently used. Reset after each use,
 * so that none holds a read transaction open. */
static int db_sqlite_stmt(struct db_sqlite *s, const char *sql, sqlite3_stmt **out)
{
	struct db_sqlite_stmt *slot = &s->cache[0];
	for (int i = 0; i < DB_SQLITE_CACHE; i++) {
		struct db_sqlite_stmt *c = &s->cache[i];
		if (c->sql && !strcmp(c->sql, sql)) {
			c->used = ++s->tick;
			*out = c->st;
			return SQLITE_OK;
		}
		if (c->used < slot->used)
			slot = c;
	}
	int rc = sqlite3_prepare_v2(s->h, sql, -1, out, NULL);
	if (rc != SQLITE_OK || !*out)
		return rc;
	sqlite3_finalize(slot->st);
	free(slot->sql);
	slot->sql = xstrdup(sql);
	slot->st = *out;
	slot->used = ++s->tick;
	return SQLITE_OK;
}

/* The statement for sql with params bound, or an error in err. */
static int db_sqlite_ready(struct db *db, const char *sql, const struct db_val *params, int n,
			   sqlite3_stmt **st, char *err, size_t errlen)
{
	struct db_sqlite *s = db->handle;
	*st = NULL;
	int rc = db_sqlite_stmt(s, sql, st);
	if (rc == SQLITE_OK && !*st) {
		snprintf(err, errlen, "no statement in '%s'", sql);
		return DB_EQUERY;
	}
	if (rc == SQLITE_OK)
		rc = db_sqlite_bind(*st, params, n);
	if (rc == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s", sqlite3_errmsg(s->h));
	if (*st)
		db_sqlite_done(*st);
	*st = NULL;
	return db_sqlite_code(rc);
}

static int db_sqlite_exec(struct db *db, const char *sql, const struct db_val *params, int n,
			  struct db_rows **rows, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int out = db_sqlite_ready(db, sql, params, n, &st, err, errlen);
	if (out < 0)
		return out;
	int rc = db_sqlite_collect(st, rows);
	if (rc != SQLITE_DONE && rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(((struct db_sqlite *)db->handle)->h));
		out = db_sqlite_code(rc);
		if (rows) {
			db_rows_free(*rows);
			*rows = NULL;
		}
	}
	db_sqlite_done(st);
	return out;
}

static int db_sqlite_each(struct db *db, const char *sql, const struct db_val *params, int n,
			  db_row_fn *fn, void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int out = db_sqlite_ready(db, sql, params, n, &st, err, errlen);
	if (out < 0)
		return out;
	char buf[32];
	struct db_row row = { db, st, 0, buf };
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && (out = fn(&row, ctx)) >= 0)
		row.row++;
	if (out >= 0 && rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(((struct db_sqlite *)db->handle)->h));
		out = db_sqlite_code(rc);
	}
	db_sqlite_done(st);
	return out < 0 ? out : 0;
}

/* Cells as db_sqlite_cell() has them, read in place. */
static const char *db_sqlite_row_text(const struct db_row *row, int col)
{
	sqlite3_stmt *st = row->cursor;
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_FLOAT:
		snprintf(row->buf, 32, "%.17g", sqlite3_column_double(st, col));
		return row->buf;
	default:
		return (const char *)sqlite3_column_text(st, col);
	}
}

static int64_t db_sqlite_row_int(const struct db_row *row, int col, int64_t dflt)
{
	sqlite3_stmt *st = row->cursor;
	if (sqlite3_column_type(st, col) == SQLITE_INTEGER)
		return sqlite3_column_int64(st, col);
	return db_text_int(db_sqlite_row_text(row, col), dflt);
}

static double db_sqlite_row_real(const struct db_row *row, int col, double dflt)
{
	sqlite3_stmt *st = row->cursor;
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_FLOAT:
	case SQLITE_INTEGER:
		return sqlite3_column_double(st, col);
	default:
		return db_text_real(db_sqlite_row_text(row, col), dflt);
	}
}

static int db_sqlite_script(struct db *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(((struct db_sqlite *)db->handle)->h, sql, NULL, NULL, &msg);
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

static int64_t db_sqlite_changes(struct db *db)
{
	return sqlite3_changes(((struct db_sqlite *)db->handle)->h);
}

static void db_sqlite_close(struct db *db)
{
	struct db_sqlite *s = db->handle;
	for (int i = 0; s && i < DB_SQLITE_CACHE; i++) {
		sqlite3_finalize(s->cache[i].st);
		free(s->cache[i].sql);
	}
	if (s)
		sqlite3_close(s->h);
	free(s);
}

static const struct db_ops db_sqlite_ops = {
	.exec = db_sqlite_exec,
	.each = db_sqlite_each,
	.row_text = db_sqlite_row_text,
	.row_int = db_sqlite_row_int,
	.row_real = db_sqlite_row_real,
	.script = db_sqlite_script,
	.begin = db_sqlite_begin,
	.changes = db_sqlite_changes,
	.close = db_sqlite_close,
	.begin_read_sql = "BEGIN DEFERRED",
	.id_column = "INTEGER PRIMARY KEY AUTOINCREMENT",
	.dollar_params = 0,
};

/* SQLITE_OPEN_NOMUTEX: one thread at a time uses a struct db (db.h), so
 * no call needs the connection's mutex. */
int db_sqlite_open(struct db *db, const char *path, char *err, size_t errlen)
{
	sqlite3 *h = NULL;
	char detail[256];
	int rc = sqlite3_open_v2(path, &h,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path, h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
		sqlite3_close(h);
		return DB_EOPEN;
	}
	sqlite3_busy_timeout(h, DB_SQLITE_BUSY_MS);
	struct db_sqlite *s = xcalloc(1, sizeof(*s));
	s->h = h;
	db->ops = &db_sqlite_ops;
	db->handle = s;
	rc = db_sqlite_script(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
			      "PRAGMA foreign_keys=ON", detail, sizeof(detail));
	if (rc < 0) {
		snprintf(err, errlen, "cannot use '%s': %s", path, detail);
		db_sqlite_close(db);
		db->handle = NULL;
		db->ops = NULL;
		return rc == DB_EBUSY ? DB_EBUSY : DB_EOPEN;
	}
	return 0;
}
