/* The PostgreSQL back end: one libpq connection per struct db, driven with
 * libpq's asynchronous calls and poll(), so that every call ends by its
 * deadline, a second Ctrl-C, or a peer that is gone (TCP keepalives). */
#include "db/db_impl.h"
#include "db/pq_load.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The connection of a struct db: NULL once a call was abandoned. */
struct db_pg {
	PGconn *c;
	int64_t changes;
	char *conninfo;       /* for db_reconnect */
};

/* The keepalives notice a peer that is gone (host down, network cut) in
 * idle + interval x count seconds; tcp_user_timeout bounds unacknowledged
 * writes to the call timeout. The server's side of the session gets the
 * same settings, so that the backend of a controller behind a frozen
 * network path ends (and its advisory board locks with it) in seconds,
 * not after the server's default two hours of idle. */
#define DB_PG_KEEPALIVE_IDLE "5"
#define DB_PG_KEEPALIVE_INTERVAL "2"
#define DB_PG_KEEPALIVE_COUNT "3"
/* A call waits this much longer than the server's statement_timeout, so
 * that the server's own error (the connection still usable) comes first. */
#define DB_PG_CLIENT_MARGIN_MS 2000

int64_t db_call_timeout_ms(void)
{
	const char *env = getenv("ORCH_DB_TIMEOUT_MS");
	char *end;
	long long v = env && *env ? strtoll(env, &end, 10) : 0;
	return env && *env && !*end && v > 0 ? (int64_t)v : DB_CALL_TIMEOUT_MS;
}

/* Gives the connection up (the server did not answer in time, or Ctrl-C):
 * its state is unknown, so no later call uses it. */
static int pg_abandon(struct db *db, const char *why, char *err, size_t errlen)
{
	struct db_pg *pg = db->handle;
	snprintf(db->lost, sizeof(db->lost), "%s", why);
	if (err != why)
		snprintf(err, errlen, "%s", db->lost);
	PQfinish(pg->c);
	pg->c = NULL;
	return DB_EOPEN;
}

/* Waits until the socket is ready for ev or the deadline: 1 ready, 0 keep
 * waiting (a tick passed), -1 with the reason in why. */
static int pg_wait(PGconn *c, short ev, int64_t deadline_ms, const char **why)
{
	int64_t hurry = interrupt_hurry_deadline_ms();
	if (hurry < deadline_ms)
		deadline_ms = hurry;
	if (deadline_expired(deadline_ms)) {
		*why = interrupt_hurry() ? "interrupted" : "no answer in time";
		return -1;
	}
	struct pollfd pfd = { PQsocket(c), ev, 0 };
	if (pfd.fd < 0) {
		*why = "no connection";
		return -1;
	}
	int n = poll(&pfd, 1, deadline_poll_ms(deadline_ms));
	if (n < 0 && errno != EINTR) {
		*why = strerror(errno);
		return -1;
	}
	return n > 0;
}

/* Sends what libpq has queued: 0, or -1 with why. */
static int pg_flush(PGconn *c, int64_t deadline_ms, const char **why)
{
	for (;;) {
		int f = PQflush(c);
		if (f == 0)
			return 0;
		if (f < 0) {
			*why = PQerrorMessage(c);
			return -1;
		}
		if (pg_wait(c, POLLOUT | POLLIN, deadline_ms, why) < 0)
			return -1;
		if (!PQconsumeInput(c)) {
			*why = PQerrorMessage(c);
			return -1;
		}
	}
}

/* The last result of the query sent (the others cleared), by the deadline.
 * NULL with why when the server did not answer in time or went away. */
static PGresult *pg_result(PGconn *c, int64_t deadline_ms, const char **why)
{
	if (pg_flush(c, deadline_ms, why) < 0)
		return NULL;
	PGresult *last = NULL;
	for (;;) {
		while (!PQisBusy(c)) {
			PGresult *r = PQgetResult(c);
			if (!r) {
				if (!last)
					*why = PQerrorMessage(c);
				return last;
			}
			if (last && PQresultStatus(last) != PGRES_COMMAND_OK &&
			    PQresultStatus(last) != PGRES_TUPLES_OK &&
			    PQresultStatus(last) != PGRES_EMPTY_QUERY) {
				PQclear(r);   /* keep the first error of a script */
				continue;
			}
			PQclear(last);
			last = r;
		}
		int w = pg_wait(c, POLLIN, deadline_ms, why);
		if (w < 0) {
			PQclear(last);
			return NULL;
		}
		if (w > 0 && !PQconsumeInput(c)) {
			PQclear(last);
			*why = PQerrorMessage(c);
			return NULL;
		}
	}
}

static void db_pg_error(PGconn *c, PGresult *res, char *err, size_t errlen)
{
	const char *msg = res ? PQresultErrorMessage(res) : c ? PQerrorMessage(c) : NULL;
	if ((!msg || !*msg) && c)
		msg = PQerrorMessage(c);
	if (!msg)
		msg = "no connection";
	snprintf(err, errlen, "%s", msg);
	size_t n = strlen(err);
	while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = '\0';
}

static int db_pg_code(PGconn *c, PGresult *res)
{
	if (!c || PQstatus(c) != CONNECTION_OK)
		return DB_EOPEN;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	/* 40001 serialization, 40P01 deadlock, 55P03 lock not available */
	if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03")))
		return DB_EBUSY;
	return DB_EQUERY;
}

static struct db_rows *db_pg_rows(PGresult *res)
{
	int nrows = PQntuples(res), ncols = PQnfields(res);
	struct db_rows *r = db_rows_new(nrows, ncols);
	for (int c = 0; c < ncols; c++)
		r->names[c] = xstrdup(PQfname(res, c));
	for (int i = 0; i < nrows; i++)
		for (int c = 0; c < ncols; c++)
			r->cells[(size_t)i * (size_t)ncols + (size_t)c] =
				PQgetisnull(res, i, c) ? NULL : xstrdup(PQgetvalue(res, i, c));
	return r;
}

/* Sends sql (with n text parameters, or as a script when values is NULL
 * and n < 0) and waits for its result by the call's deadline: 0 and *out
 * (caller clears; NULL for an empty script), or a DB_E* code. */
static int db_pg_send(struct db *db, const char *sql, int n, const char *const *values,
		      PGresult **out, char *err, size_t errlen)
{
	struct db_pg *pg = db->handle;
	*out = NULL;
	if (!pg->c) {
		snprintf(err, errlen, "the connection to %s was given up earlier: %s", db->name,
			 db->lost);
		return DB_EOPEN;
	}
	int64_t deadline = deadline_in_ms(db_call_timeout_ms() + DB_PG_CLIENT_MARGIN_MS);
	int sent = n < 0 ? PQsendQuery(pg->c, sql)
			 : PQsendQueryParams(pg->c, sql, n, NULL, values, NULL, NULL, 0);
	if (!sent) {
		db_pg_error(pg->c, NULL, err, errlen);
		if (PQstatus(pg->c) != CONNECTION_OK)
			pg_abandon(db, err, err, errlen);
		return DB_EOPEN;
	}
	const char *why = NULL;
	PGresult *res = pg_result(pg->c, deadline, &why);
	if (!res && why && (deadline_expired(deadline) || interrupt_hurry())) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s did not answer within %" PRId64 " ms%s", db->name,
			 db_call_timeout_ms() + DB_PG_CLIENT_MARGIN_MS, interrupt_hurry() ? " (interrupted)" : "");
		if (interrupt_hurry() && !deadline_expired(deadline))
			snprintf(msg, sizeof(msg), "%s: call abandoned (interrupted)", db->name);
		return pg_abandon(db, msg, err, errlen);
	}
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !(n < 0 && st == PGRES_EMPTY_QUERY)) {
		if (res)
			db_pg_error(pg->c, res, err, errlen);
		else
			snprintf(err, errlen, "%s", why ? why : "no result");
		size_t k = strlen(err);
		while (k > 0 && (err[k - 1] == '\n' || err[k - 1] == ' '))
			err[--k] = '\0';
		int rc = db_pg_code(pg->c, res);
		PQclear(res);
		if (PQstatus(pg->c) != CONNECTION_OK)
			pg_abandon(db, err, err, errlen);
		return rc;
	}
	pg->changes = res ? strtoll(PQcmdTuples(res), NULL, 10) : 0;
	*out = res;
	return 0;
}

/* Runs sql: 0 and *out (caller clears), or a DB_E* code with *out NULL. */
static int db_pg_run(struct db *db, const char *sql, const struct db_val *params, int n,
		     PGresult **out, char *err, size_t errlen)
{
	const char *values[DB_MAX_PARAMS];
	char numbers[DB_MAX_PARAMS][32];
	for (int i = 0; i < n; i++) {
		switch (params[i].type) {
		case DB_T_INT:
			snprintf(numbers[i], sizeof(numbers[i]), "%" PRId64, params[i].i);
			values[i] = numbers[i];
			break;
		case DB_T_REAL:
			snprintf(numbers[i], sizeof(numbers[i]), "%.17g", params[i].d);
			values[i] = numbers[i];
			break;
		case DB_T_TEXT: values[i] = params[i].s; break;
		default: values[i] = NULL; break;
		}
	}
	*out = NULL;
	return db_pg_send(db, sql, n, values, out, err, errlen);
}

static int db_pg_exec(struct db *db, const char *sql, const struct db_val *params, int n,
		      struct db_rows **rows, char *err, size_t errlen)
{
	PGresult *res = NULL;
	int rc = db_pg_run(db, sql, params, n, &res, err, errlen);
	if (rc == 0 && rows)
		*rows = db_pg_rows(res);
	PQclear(res);
	return rc;
}

static int db_pg_each(struct db *db, const char *sql, const struct db_val *params, int n,
		      db_row_fn *fn, void *ctx, char *err, size_t errlen)
{
	PGresult *res = NULL;
	int rc = db_pg_run(db, sql, params, n, &res, err, errlen);
	struct db_row row = { db, res, 0, NULL };
	int tuples = rc == 0 ? PQntuples(res) : 0;
	for (; rc >= 0 && row.row < tuples; row.row++)
		rc = fn(&row, ctx);
	PQclear(res);
	return rc < 0 ? rc : 0;
}

static const char *db_pg_row_text(const struct db_row *row, int col)
{
	PGresult *res = row->cursor;
	if (col < 0 || col >= PQnfields(res) || PQgetisnull(res, row->row, col))
		return NULL;
	return PQgetvalue(res, row->row, col);
}

static int64_t db_pg_row_int(const struct db_row *row, int col, int64_t dflt)
{
	return db_text_int(db_pg_row_text(row, col), dflt);
}

static double db_pg_row_real(const struct db_row *row, int col, double dflt)
{
	return db_text_real(db_pg_row_text(row, col), dflt);
}

static int db_pg_script(struct db *db, const char *sql, char *err, size_t errlen)
{
	PGresult *res = NULL;
	int rc = db_pg_send(db, sql, -1, NULL, &res, err, errlen);
	PQclear(res);
	return rc;
}

static int db_pg_begin(struct db *db, char *err, size_t errlen)
{
	return db_pg_script(db, "BEGIN", err, errlen);
}

static int64_t db_pg_changes(struct db *db)
{
	return ((struct db_pg *)db->handle)->changes;
}

static void db_pg_close(struct db *db)
{
	struct db_pg *pg = db->handle;
	if (pg) {
		PQfinish(pg->c);
		free(pg->conninfo);
	}
	free(pg);
}

static PGconn *pg_connect(struct db *db, const char *conninfo, char *err, size_t errlen);

static int db_pg_reconnect(struct db *db, char *err, size_t errlen)
{
	struct db_pg *pg = db->handle;
	PGconn *c = pg_connect(db, pg->conninfo, err, errlen);
	if (!c)
		return DB_EOPEN;
	PQfinish(pg->c);
	pg->c = c;
	return 0;
}

static const struct db_ops db_pg_ops = {
	.exec = db_pg_exec,
	.each = db_pg_each,
	.row_text = db_pg_row_text,
	.row_int = db_pg_row_int,
	.row_real = db_pg_row_real,
	.script = db_pg_script,
	.begin = db_pg_begin,
	.changes = db_pg_changes,
	.reconnect = db_pg_reconnect,
	.close = db_pg_close,
	.begin_read_sql = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
	.id_column = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
	.dollar_params = 1,
};

/* Connects by the deadline: 0, or -1 with why. */
static int pg_connect_wait(PGconn *c, int64_t deadline_ms, const char **why)
{
	for (;;) {
		PostgresPollingStatusType st = PQconnectPoll(c);
		if (st == PGRES_POLLING_OK)
			return 0;
		if (st == PGRES_POLLING_FAILED) {
			*why = PQerrorMessage(c);
			return -1;
		}
		short ev = st == PGRES_POLLING_WRITING ? POLLOUT : POLLIN;
		int w;
		while ((w = pg_wait(c, ev, deadline_ms, why)) == 0)
			;
		if (w < 0)
			return -1;
	}
}

/* A new bounded connection, or NULL with err. */
static PGconn *pg_connect(struct db *db, const char *conninfo, char *err, size_t errlen)
{
	if (interrupt_hurry()) {
		snprintf(err, errlen, "cannot connect to %s: interrupted", db->name);
		return NULL;
	}
	char app[128], host[64] = "?", connect_s[16], tcp_ms[24], options[320];
	gethostname(host, sizeof(host) - 1);
	snprintf(app, sizeof(app), "orch %s pid %ld", host, (long)getpid());
	int64_t timeout = db_call_timeout_ms();
	snprintf(connect_s, sizeof(connect_s), "%" PRId64, (timeout + 999) / 1000);
	snprintf(tcp_ms, sizeof(tcp_ms), "%" PRId64, timeout + DB_PG_CLIENT_MARGIN_MS);
	snprintf(options, sizeof(options), "-c statement_timeout=%" PRId64 " -c lock_timeout=%" PRId64
		 " -c client_min_messages=warning -c tcp_keepalives_idle=" DB_PG_KEEPALIVE_IDLE
		 " -c tcp_keepalives_interval=" DB_PG_KEEPALIVE_INTERVAL " -c tcp_keepalives_count="
		 DB_PG_KEEPALIVE_COUNT " -c tcp_user_timeout=%" PRId64, timeout, timeout / 2,
		 timeout + DB_PG_CLIENT_MARGIN_MS);
	const char *keys[] = { "dbname", "connect_timeout", "application_name", "options",
			       "keepalives", "keepalives_idle", "keepalives_interval",
			       "keepalives_count", "tcp_user_timeout", NULL };
	const char *vals[] = { conninfo, connect_s, app, options, "1", DB_PG_KEEPALIVE_IDLE, DB_PG_KEEPALIVE_INTERVAL,
			       DB_PG_KEEPALIVE_COUNT, tcp_ms, NULL };
	PGconn *c = PQconnectStartParams(keys, vals, 1);
	const char *why = NULL;
	if (c && PQstatus(c) != CONNECTION_BAD)
		pg_connect_wait(c, deadline_in_ms(timeout), &why);
	if (!c || PQstatus(c) != CONNECTION_OK || PQsetnonblocking(c, 1) != 0) {
		char detail[512];
		if (c && why)
			snprintf(detail, sizeof(detail), "%s", why);
		else
			db_pg_error(c, NULL, detail, sizeof(detail));
		size_t k = strlen(detail);
		while (k > 0 && (detail[k - 1] == '\n' || detail[k - 1] == ' '))
			detail[--k] = '\0';
		snprintf(err, errlen, "cannot connect to %s: %s", db->name,
			 c ? detail : pq_load_error() ? pq_load_error() : "out of memory");
		PQfinish(c);
		return NULL;
	}
	return c;
}

int db_pg_open(struct db *db, const char *conninfo, char *err, size_t errlen)
{
	PGconn *c = pg_connect(db, conninfo, err, errlen);
	if (!c)
		return DB_EOPEN;
	struct db_pg *pg = xcalloc(1, sizeof(*pg));
	pg->c = c;
	pg->conninfo = xstrdup(conninfo);
	db->ops = &db_pg_ops;
	db->handle = pg;
	return 0;
}
