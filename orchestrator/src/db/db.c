#include "db/db_impl.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int db_target_is_postgres(const char *target)
{
	if (!target)
		return 0;
	return strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0 ||
	       strncmp(target, "host=", 5) == 0 || strncmp(target, "dbname=", 7) == 0;
}

/* "scheme://user:secret@host" -> "scheme://user:***@host"; key=value strings
 * lose their password=... value the same way. */
static char *db_redact(const char *target)
{
	struct strbuf sb = STRBUF_INIT;
	const char *scheme = strstr(target, "://");
	const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
	const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
	const char *pw = strstr(target, "password=");
	if (colon) {
		strbuf_append(&sb, target, (size_t)(colon + 1 - target));
		strbuf_puts(&sb, "***");
		strbuf_puts(&sb, at);
	} else if (pw && !scheme) {
		strbuf_append(&sb, target, (size_t)(pw + 9 - target));
		strbuf_puts(&sb, "***");
		const char *end = strchr(pw, ' ');
		if (end)
			strbuf_puts(&sb, end);
	} else {
		strbuf_puts(&sb, target);
	}
	return strbuf_detach(&sb);
}

/* Connections handed to later db_open calls of the same target (db_share). */
static pthread_mutex_t db_shared_mu = PTHREAD_MUTEX_INITIALIZER;
static struct db *db_shared;

static struct db *db_shared_find(const char *target)
{
	for (struct db *d = db_shared; d; d = d->next_shared)
		if (!strcmp(d->target, target))
			return d;
	return NULL;
}

static int db_open_as(struct db **out, const char *target, bool postgres, char *err,
		      size_t errlen)
{
	*out = NULL;
	if (!target || !*target) {
		snprintf(err, errlen, "no database given");
		return DB_EUSAGE;
	}
	pthread_mutex_lock(&db_shared_mu);
	struct db *shared = db_shared_find(target);
	if (shared)
		shared->refs++;
	pthread_mutex_unlock(&db_shared_mu);
	if (shared) {
		*out = shared;
		return 0;
	}
	struct db *db = xcalloc(1, sizeof(*db));
	db->name = db_redact(target);
	db->refs = 1;
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&db->mu, &attr);
	pthread_mutexattr_destroy(&attr);
	int rc;
	if (postgres || db_target_is_postgres(target)) {
		db->kind = DB_POSTGRES;
		rc = db_pg_open(db, target, err, errlen);
	} else {
		db->kind = DB_SQLITE;
		rc = db_sqlite_open(db, strncmp(target, "sqlite:", 7) == 0 ? target + 7 : target, err,
				    errlen);
	}
	if (rc < 0) {
		pthread_mutex_destroy(&db->mu);
		free(db->name);
		free(db);
		return rc;
	}
	*out = db;
	return 0;
}

int db_open(struct db **out, const char *target, char *err, size_t errlen)
{
	return db_open_as(out, target, false, err, errlen);
}

int db_open_postgres(struct db **out, const char *target, char *err, size_t errlen)
{
	return db_open_as(out, target, true, err, errlen);
}

void db_share(struct db *db, const char *target)
{
	pthread_mutex_lock(&db_shared_mu);
	if (!db->target && !db_shared_find(target)) {
		db->target = xstrdup(target);
		db->next_shared = db_shared;
		db_shared = db;
	}
	pthread_mutex_unlock(&db_shared_mu);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	pthread_mutex_lock(&db_shared_mu);
	int left = --db->refs;
	if (left == 0 && db->target)
		for (struct db **p = &db_shared; *p; p = &(*p)->next_shared)
			if (*p == db) {
				*p = db->next_shared;
				break;
			}
	pthread_mutex_unlock(&db_shared_mu);
	if (left > 0)
		return;
	if (db->ops)
		db->ops->close(db);
	pthread_mutex_destroy(&db->mu);
	free(db->target);
	free(db->name);
	free(db);
}

void db_lock(struct db *db)
{
	pthread_mutex_lock(&db->mu);
}

void db_unlock(struct db *db)
{
	pthread_mutex_unlock(&db->mu);
}

int db_reconnect(struct db *db, char *err, size_t errlen)
{
	pthread_mutex_lock(&db->mu);
	int rc = 0;
	if (db->lost[0] && !db->ops->reconnect) {
		snprintf(err, errlen, "%s", db->lost);
		rc = DB_EOPEN;
	} else if (db->lost[0] && (rc = db->ops->reconnect(db, err, errlen)) == 0) {
		db->lost[0] = '\0';
	}
	pthread_mutex_unlock(&db->mu);
	return rc;
}

const char *db_lost(struct db *db)
{
	pthread_mutex_lock(&db->mu);
	const char *why = db->lost[0] ? db->lost : NULL;
	pthread_mutex_unlock(&db->mu);
	return why;
}

int64_t db_changes(struct db *db)
{
	pthread_mutex_lock(&db->mu);
	int64_t n = db->ops->changes(db);
	pthread_mutex_unlock(&db->mu);
	return n;
}

enum db_kind db_kind(const struct db *db)
{
	return db->kind;
}

const char *db_name(const struct db *db)
{
	return db->name;
}

/* Rewrites `?` to $1.. outside quotes and expands `@ID@`. */
static char *db_prepare_sql(const struct db *db, const char *sql)
{
	struct strbuf sb = STRBUF_INIT;
	int param = 0;
	char quote = 0;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			strbuf_putc(&sb, *p);
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
			strbuf_putc(&sb, *p);
		} else if (*p == '?' && db->ops->dollar_params) {
			strbuf_printf(&sb, "$%d", ++param);
		} else if (strncmp(p, "@ID@", 4) == 0) {
			strbuf_puts(&sb, db->ops->id_column);
			p += 3;
		} else {
			strbuf_putc(&sb, *p);
		}
	}
	return strbuf_detach(&sb);
}

int db_exec(struct db *db, const char *sql, const struct db_val *params, int n,
	    struct db_rows **rows, char *err, size_t errlen)
{
	if (rows)
		*rows = NULL;
	if (n < 0 || n > DB_MAX_PARAMS) {
		snprintf(err, errlen, "%d parameters (at most %d)", n, DB_MAX_PARAMS);
		return DB_EUSAGE;
	}
	char *text = db_prepare_sql(db, sql);
	pthread_mutex_lock(&db->mu);
	int rc = db->ops->exec(db, text, params, n, rows, err, errlen);
	pthread_mutex_unlock(&db->mu);
	free(text);
	return rc;
}

int db_each(struct db *db, const char *sql, const struct db_val *params, int n, db_row_fn *fn,
	    void *ctx, char *err, size_t errlen)
{
	if (n < 0 || n > DB_MAX_PARAMS) {
		snprintf(err, errlen, "%d parameters (at most %d)", n, DB_MAX_PARAMS);
		return DB_EUSAGE;
	}
	char *text = db_prepare_sql(db, sql);
	pthread_mutex_lock(&db->mu);
	int rc = db->ops->each(db, text, params, n, fn, ctx, err, errlen);
	pthread_mutex_unlock(&db->mu);
	free(text);
	return rc;
}

const char *db_row_text(const struct db_row *row, int col)
{
	return row->db->ops->row_text(row, col);
}

int64_t db_row_int(const struct db_row *row, int col, int64_t dflt)
{
	return row->db->ops->row_int(row, col, dflt);
}

double db_row_real(const struct db_row *row, int col, double dflt)
{
	return row->db->ops->row_real(row, col, dflt);
}

int db_exec_script(struct db *db, const char *sql, char *err, size_t errlen)
{
	char *text = db_prepare_sql(db, sql);
	pthread_mutex_lock(&db->mu);
	int rc = db->ops->script(db, text, err, errlen);
	pthread_mutex_unlock(&db->mu);
	free(text);
	return rc;
}

/* A transaction keeps db->mu from its begin to its end, so that other
 * threads sharing the connection wait instead of running inside it. */
static int db_begin_with(struct db *db, const char *sql, char *err, size_t errlen)
{
	pthread_mutex_lock(&db->mu);
	int rc = sql ? db->ops->script(db, sql, err, errlen) : db->ops->begin(db, err, errlen);
	if (rc == 0)
		db->tx++;
	else
		pthread_mutex_unlock(&db->mu);
	return rc;
}

int db_begin(struct db *db, char *err, size_t errlen)
{
	return db_begin_with(db, NULL, err, errlen);
}

int db_begin_read(struct db *db, char *err, size_t errlen)
{
	return db_begin_with(db, db->ops->begin_read_sql, err, errlen);
}

/* Ends the transaction this thread holds (db->mu is held by the caller). */
static void db_end_tx(struct db *db)
{
	db->tx--;
	pthread_mutex_unlock(&db->mu);
}

int db_commit(struct db *db, char *err, size_t errlen)
{
	pthread_mutex_lock(&db->mu);
	int rc = db->ops->script(db, "COMMIT", err, errlen);
	if (db->tx > 0) {
		if (rc < 0) {   /* a commit that failed leaves nothing open */
			char ignored[256];
			db->ops->script(db, "ROLLBACK", ignored, sizeof(ignored));
		}
		db_end_tx(db);
	}
	pthread_mutex_unlock(&db->mu);
	return rc;
}

void db_rollback(struct db *db)
{
	pthread_mutex_lock(&db->mu);
	if (db->tx > 0) {
		char err[256];
		db->ops->script(db, "ROLLBACK", err, sizeof(err));
		db_end_tx(db);
	}
	pthread_mutex_unlock(&db->mu);
}

struct db_rows *db_rows_new(int nrows, int ncols)
{
	struct db_rows *r = xcalloc(1, sizeof(*r));
	r->nrows = nrows;
	r->ncols = ncols;
	r->names = xcalloc((size_t)ncols + 1, sizeof(char *));
	r->cells = xcalloc((size_t)nrows * (size_t)ncols + 1, sizeof(char *));
	return r;
}

const char *db_cell(const struct db_rows *r, int row, int col)
{
	if (!r || row < 0 || col < 0 || row >= r->nrows || col >= r->ncols)
		return NULL;
	return r->cells[(size_t)row * (size_t)r->ncols + (size_t)col];
}

int64_t db_text_int(const char *s, int64_t dflt)
{
	char *end;
	if (!s || !*s)
		return dflt;
	long long v = strtoll(s, &end, 10);
	return *end ? dflt : (int64_t)v;
}

double db_text_real(const char *s, double dflt)
{
	char *end;
	if (!s || !*s)
		return dflt;
	double v = strtod(s, &end);
	return *end ? dflt : v;
}

int64_t db_cell_int(const struct db_rows *r, int row, int col, int64_t dflt)
{
	return db_text_int(db_cell(r, row, col), dflt);
}

double db_cell_real(const struct db_rows *r, int row, int col, double dflt)
{
	return db_text_real(db_cell(r, row, col), dflt);
}

void db_rows_free(struct db_rows *r)
{
	if (!r)
		return;
	for (int c = 0; c < r->ncols; c++)
		free(r->names[c]);
	for (size_t i = 0; i < (size_t)r->nrows * (size_t)r->ncols; i++)
		free(r->cells[i]);
	free(r->names);
	free(r->cells);
	free(r);
}

int db_schema_version(struct db *db, const char *version_table, char *err, size_t errlen)
{
	struct db_rows *r = NULL;
	char *create = xasprintf("CREATE TABLE IF NOT EXISTS %s (version INTEGER NOT NULL)", version_table);
	char *select = xasprintf("SELECT MAX(version) FROM %s", version_table);
	int rc = db_exec_script(db, create, err, errlen);
	if (rc == 0)
		rc = db_exec(db, select, NULL, 0, &r, err, errlen);
	if (rc == 0)
		rc = (int)db_cell_int(r, 0, 0, 0);
	db_rows_free(r);
	free(create);
	free(select);
	return rc;
}

static int db_migrate_locked(struct db *db, const struct db_schema *schema, int *from,
			     char *err, size_t errlen)
{
	char detail[512];
	const struct db_migration *migs = schema->migs;
	int n = schema->n;
	char *del = xasprintf("DELETE FROM %s", schema->version_table);
	char *ins = xasprintf("INSERT INTO %s (version) VALUES (?)", schema->version_table);
	int rc = 0;
	int have = db_schema_version(db, schema->version_table, err, errlen);
	if (have < 0) {
		rc = have;
		goto out;
	}
	if (from)
		*from = have;
	int last = n > 0 ? migs[n - 1].version : 0;
	if (have > last) {
		snprintf(err, errlen, "database schema version %d is newer than this orch knows (%d)",
			 have, last);
		rc = DB_ESCHEMA;
		goto out;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		if (migs[i].version <= have)
			continue;
		rc = db_exec_script(db, migs[i].sql, detail, sizeof(detail));
		if (rc == 0) {
			struct db_val v = DB_INT(migs[i].version);
			rc = db_exec(db, del, NULL, 0, NULL, detail, sizeof(detail));
			if (rc == 0)
				rc = db_exec(db, ins, &v, 1, NULL, detail, sizeof(detail));
		}
		if (rc < 0) {
			snprintf(err, errlen, "migration to schema version %d failed: %s", migs[i].version,
				 detail);
			rc = DB_ESCHEMA;
		}
	}
out:
	free(del);
	free(ins);
	return rc;
}

int db_migrate(struct db *db, const struct db_schema *schema, int *from, char *err, size_t errlen)
{
	int rc = db_begin(db, err, errlen);
	if (rc < 0)
		return rc;
	if (db->kind == DB_POSTGRES)
		rc = db_exec(db, "SELECT pg_advisory_xact_lock(7272010)", NULL, 0, NULL, err, errlen);
	if (rc == 0)
		rc = db_migrate_locked(db, schema, from, err, errlen);
	if (rc == 0)
		rc = db_commit(db, err, errlen);
	if (rc < 0)
		db_rollback(db);
	return rc;
}
