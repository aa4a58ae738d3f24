#include "coord/db.h"
#include "util/pq_load.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The advisory lock class of board locks ("orch" in ASCII); the object is
 * a 32-bit FNV-1a hash of the board name. */
#define BOARD_LOCK_CLASS "1869767528"

struct coord_db {
	PGconn *conn;
	pthread_mutex_t mu;
};

static const char schema_sql[] =
	"BEGIN;"
	"SELECT pg_advisory_xact_lock(1869767528, 0);"
	"CREATE TABLE IF NOT EXISTS orch_board_holder ("
	"  board text NOT NULL, kind text NOT NULL, user_name text NOT NULL,"
	"  host text NOT NULL, pid integer NOT NULL, since_us bigint NOT NULL,"
	"  expires_us bigint, note text NOT NULL DEFAULT '',"
	"  backend_pid integer, backend_start timestamptz);"
	"CREATE INDEX IF NOT EXISTS orch_board_holder_board ON orch_board_holder (board);"
	"CREATE TABLE IF NOT EXISTS orch_run ("
	"  name text PRIMARY KEY, scenario text NOT NULL, plan_sha text NOT NULL,"
	"  created timestamptz NOT NULL DEFAULT now(), merged_by text, merged_folder text,"
	"  merger_pid integer, merger_start timestamptz, exit_code integer);"
	"CREATE TABLE IF NOT EXISTS orch_unit ("
	"  run text NOT NULL REFERENCES orch_run(name) ON DELETE CASCADE, idx integer NOT NULL,"
	"  board text NOT NULL, controllers text[], state text NOT NULL DEFAULT 'queued',"
	"  claimed_by text, claimed_pid integer, claimed_start timestamptz,"
	"  claims integer NOT NULL DEFAULT 0, facts text, PRIMARY KEY (run, idx));"
	"CREATE TABLE IF NOT EXISTS orch_item ("
	"  run text NOT NULL, unit integer NOT NULL, seq integer NOT NULL,"
	"  board text NOT NULL, test text NOT NULL, done boolean NOT NULL DEFAULT false,"
	"  retried boolean NOT NULL DEFAULT false, controller text, result text,"
	"  PRIMARY KEY (run, unit, seq), FOREIGN KEY (run, unit) REFERENCES orch_unit ON DELETE CASCADE);"
	"CREATE TABLE IF NOT EXISTS orch_item_file ("
	"  run text NOT NULL, unit integer NOT NULL, seq integer NOT NULL, name text NOT NULL,"
	"  data bytea NOT NULL, PRIMARY KEY (run, unit, seq, name),"
	"  FOREIGN KEY (run, unit, seq) REFERENCES orch_item ON DELETE CASCADE);"
	"CREATE TABLE IF NOT EXISTS orch_controller ("
	"  run text NOT NULL REFERENCES orch_run(name) ON DELETE CASCADE, name text NOT NULL,"
	"  backend_pid integer, backend_start timestamptz, host text, folder text,"
	"  reach text, PRIMARY KEY (run, name));"
	"COMMIT;";

PGresult *coord_db_exec(PGconn *c, const char *sql, int n, const char *const *params,
			char *err, size_t errlen)
{
	PGresult *r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return r;
	const char *msg = PQresultErrorMessage(r);
	if (!msg || !*msg)
		msg = PQerrorMessage(c);
	snprintf(err, errlen, "database: %.*s", (int)strcspn(msg, "\n"), msg);
	PQclear(r);
	return NULL;
}

static bool exec_ok(PGconn *c, const char *sql, int n, const char *const *params, char *err,
		    size_t errlen)
{
	PGresult *r = coord_db_exec(c, sql, n, params, err, errlen);
	PQclear(r);
	return r != NULL;
}

struct coord_db *coord_db_open(const char *url, char *err, size_t errlen)
{
	char app[128], host[64] = "?";
	gethostname(host, sizeof(host) - 1);
	snprintf(app, sizeof(app), "orch %s pid %ld", host, (long)getpid());
	const char *keys[] = { "dbname", "application_name", "connect_timeout", NULL };
	const char *vals[] = { url, app, "10", NULL };
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		const char *m = c ? PQerrorMessage(c) : pq_load_error() ? pq_load_error() : "out of memory";
		snprintf(err, errlen, "database: cannot connect: %.*s", (int)strcspn(m, "\n"), m);
		PQfinish(c);
		return NULL;
	}
	PGresult *r = PQexec(c, "SET client_min_messages = warning;"
				"SET statement_timeout = '60s'; SET lock_timeout = '30s';");
	PQclear(r);
	r = PQexec(c, schema_sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		const char *m = PQresultErrorMessage(r);
		snprintf(err, errlen, "database: making orch's tables: %.*s", (int)strcspn(m, "\n"), m);
		PQclear(r);
		PQclear(PQexec(c, "ROLLBACK"));
		PQfinish(c);
		return NULL;
	}
	PQclear(r);
	struct coord_db *db = xcalloc(1, sizeof(*db));
	db->conn = c;
	pthread_mutex_init(&db->mu, NULL);
	return db;
}

void coord_db_close(struct coord_db *db)
{
	if (!db)
		return;
	PQfinish(db->conn);
	pthread_mutex_destroy(&db->mu);
	free(db);
}

int coord_db_with(struct coord_db *db, int (*f)(PGconn *c, void *arg), void *arg)
{
	pthread_mutex_lock(&db->mu);
	int ret = f(db->conn, arg);
	pthread_mutex_unlock(&db->mu);
	return ret;
}

PGresult *coord_db_query(struct coord_db *db, const char *sql, int n, const char *const *params,
			 char *err, size_t errlen)
{
	pthread_mutex_lock(&db->mu);
	PGresult *r = coord_db_exec(db->conn, sql, n, params, err, errlen);
	pthread_mutex_unlock(&db->mu);
	return r;
}

PGresult *coord_db_query_binary(struct coord_db *db, const char *sql, int n,
				const char *const *params, char *err, size_t errlen)
{
	pthread_mutex_lock(&db->mu);
	PGresult *r = PQexecParams(db->conn, sql, n, NULL, params, NULL, NULL, 1);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *m = PQresultErrorMessage(r);
		snprintf(err, errlen, "database: %.*s", (int)strcspn(m, "\n"), m);
		PQclear(r);
		r = NULL;
	}
	pthread_mutex_unlock(&db->mu);
	return r;
}

static void board_key(const char *board, char *buf, size_t len)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)board; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(buf, len, "%" PRId32, (int32_t)h);
}

#define LIVE_SQL \
	"(h.kind = 'reservation' AND (h.expires_us IS NULL OR h.expires_us > $NOW)) OR " \
	"(h.kind = 'run' AND EXISTS (SELECT 1 FROM pg_stat_activity a " \
	"  WHERE a.pid = h.backend_pid AND a.backend_start = h.backend_start))"

#define HOLDER_COLS "board, kind, user_name, host, pid, since_us, coalesce(expires_us, 0), note"

static void row_holder(PGresult *r, int row, struct board_holder *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->board, sizeof(h->board), "%s", PQgetvalue(r, row, 0));
	h->reservation = !strcmp(PQgetvalue(r, row, 1), "reservation");
	snprintf(h->user, sizeof(h->user), "%s", PQgetvalue(r, row, 2));
	snprintf(h->host, sizeof(h->host), "%s", PQgetvalue(r, row, 3));
	h->pid = atol(PQgetvalue(r, row, 4));
	h->since_us = strtoll(PQgetvalue(r, row, 5), NULL, 10);
	h->expires_us = strtoll(PQgetvalue(r, row, 6), NULL, 10);
	snprintf(h->note, sizeof(h->note), "%s", PQgetvalue(r, row, 7));
	snprintf(h->where, sizeof(h->where), "db");
}

/* sql with $NOW replaced by the wall clock in microseconds (caller frees). */
static char *with_now(const char *sql)
{
	struct strbuf sb = STRBUF_INIT;
	char now[32];
	snprintf(now, sizeof(now), "%" PRId64, clock_wall_us());
	for (const char *p = sql; *p;) {
		const char *m = strstr(p, "$NOW");
		if (!m) {
			strbuf_puts(&sb, p);
			break;
		}
		strbuf_append(&sb, p, (size_t)(m - p));
		strbuf_puts(&sb, now);
		p = m + 4;
	}
	return strbuf_detach(&sb);
}

/* The live holder of board of the given kind ("run", "reservation" or NULL
 * for either): 1 with *h, 0 when none, -1 on error. */
static int find_holder(PGconn *c, const char *board, const char *kind, struct board_holder *h,
		       char *err, size_t errlen)
{
	char *sql = with_now("SELECT " HOLDER_COLS " FROM orch_board_holder h WHERE board = $1 "
			     "AND ($2::text IS NULL OR kind = $2) AND (" LIVE_SQL ") "
			     "ORDER BY since_us LIMIT 1");
	const char *p[] = { board, kind };
	PGresult *r = coord_db_exec(c, sql, 2, p, err, errlen);
	free(sql);
	if (!r)
		return -1;
	int found = PQntuples(r) > 0;
	if (found)
		row_holder(r, 0, h);
	PQclear(r);
	return found;
}

static void unknown_holder(struct board_holder *h, const char *board)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->board, sizeof(h->board), "%s", board);
	snprintf(h->user, sizeof(h->user), "?");
	snprintf(h->host, sizeof(h->host), "?");
	snprintf(h->where, sizeof(h->where), "db");
}

struct try_args {
	const char *board, *note;
	struct board_holder *holder, self;
	char *err;
	size_t errlen;
};

static int try_locked(PGconn *c, void *arg)
{
	struct try_args *a = arg;
	char key[16], pid[24], since[32];
	board_key(a->board, key, sizeof(key));
	const char *pk[] = { key };
	PGresult *r = coord_db_exec(c, "SELECT pg_try_advisory_lock(" BOARD_LOCK_CLASS ", $1::int)",
				    1, pk, a->err, a->errlen);
	if (!r)
		return BOARDLOCK_ERROR;
	bool got = !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	if (!got) {
		int f = find_holder(c, a->board, "run", a->holder, a->err, a->errlen);
		if (f == 0)
			unknown_holder(a->holder, a->board);
		return f < 0 ? BOARDLOCK_ERROR : BOARDLOCK_HELD;
	}
	int f = find_holder(c, a->board, "reservation", a->holder, a->err, a->errlen);
	if (f != 0) {
		PQclear(PQexecParams(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1,
				     NULL, pk, NULL, NULL, 0));
		return f < 0 ? BOARDLOCK_ERROR : BOARDLOCK_HELD;
	}
	snprintf(pid, sizeof(pid), "%ld", a->self.pid);
	snprintf(since, sizeof(since), "%" PRId64, a->self.since_us);
	const char *p[] = { a->board, a->self.user, a->self.host, pid, since, a->self.note };
	if (!exec_ok(c, "DELETE FROM orch_board_holder h WHERE board = $1 AND kind = 'run' AND NOT "
			"EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = h.backend_pid AND "
			"a.backend_start = h.backend_start)", 1, p, a->err, a->errlen) ||
	    !exec_ok(c, "INSERT INTO orch_board_holder (board, kind, user_name, host, pid, since_us,"
			" note, backend_pid, backend_start) SELECT $1, 'run', $2, $3, $4::int,"
			" $5::bigint, $6, pid, backend_start FROM pg_stat_activity"
			" WHERE pid = pg_backend_pid()", 6, p, a->err, a->errlen)) {
		PQclear(PQexecParams(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1,
				     NULL, pk, NULL, NULL, 0));
		return BOARDLOCK_ERROR;
	}
	return 0;
}

int coord_db_board_try(struct coord_db *db, const char *board, const char *note,
		       struct board_holder *holder, char *err, size_t errlen)
{
	struct try_args a = { .board = board, .note = note, .holder = holder, .err = err,
			      .errlen = errlen };
	board_holder_self(&a.self, board, note);
	return coord_db_with(db, try_locked, &a);
}

static int release_locked(PGconn *c, void *arg)
{
	const char *board = *(const char **)arg;
	char key[16], err[256];
	board_key(board, key, sizeof(key));
	const char *p[] = { board, key };
	exec_ok(c, "DELETE FROM orch_board_holder WHERE board = $1 AND kind = 'run' "
		   "AND backend_pid = pg_backend_pid()", 1, p, err, sizeof(err));
	exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, p + 1, err,
		sizeof(err));
	return 0;
}

void coord_db_board_release(struct coord_db *db, const char *board)
{
	coord_db_with(db, release_locked, &board);
}

struct reserve_args {
	const char *board;
	struct board_holder *holder, self;
	char *err;
	size_t errlen;
};

static int reserve_tx(PGconn *c, void *arg)
{
	struct reserve_args *a = arg;
	char key[16], pid[24], since[32], expires[32];
	board_key(a->board, key, sizeof(key));
	const char *pk[] = { key };
	PGresult *r = coord_db_exec(c, "SELECT pg_try_advisory_xact_lock(" BOARD_LOCK_CLASS
				       ", $1::int)", 1, pk, a->err, a->errlen);
	if (!r)
		return BOARDLOCK_ERROR;
	bool got = !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	int f = find_holder(c, a->board, got ? "reservation" : "run", a->holder, a->err, a->errlen);
	if (f < 0)
		return BOARDLOCK_ERROR;
	if (!got) {
		if (f == 0)
			unknown_holder(a->holder, a->board);
		return BOARDLOCK_HELD;
	}
	if (f > 0 && strcmp(a->holder->user, a->self.user))
		return BOARDLOCK_HELD;
	snprintf(pid, sizeof(pid), "%ld", a->self.pid);
	snprintf(since, sizeof(since), "%" PRId64, a->self.since_us);
	snprintf(expires, sizeof(expires), "%" PRId64, a->self.expires_us);
	const char *p[] = { a->board, a->self.user, a->self.host, pid, since, a->self.note, expires };
	if (!exec_ok(c, "DELETE FROM orch_board_holder WHERE board = $1 AND kind = 'reservation'", 1,
		     p, a->err, a->errlen) ||
	    !exec_ok(c, "INSERT INTO orch_board_holder (board, kind, user_name, host, pid, since_us,"
			" note, expires_us) VALUES ($1, 'reservation', $2, $3, $4::int, $5::bigint,"
			" $6, nullif($7::bigint, 0))", 7, p, a->err, a->errlen))
		return BOARDLOCK_ERROR;
	return 0;
}

int coord_db_in_tx(PGconn *c, int (*tx)(PGconn *c, void *arg), void *arg, int fail, char *err,
		   size_t errlen)
{
	if (!exec_ok(c, "BEGIN", 0, NULL, err, errlen))
		return fail;
	int ret = tx(c, arg);
	if (ret == 0 && !exec_ok(c, "COMMIT", 0, NULL, err, errlen))
		ret = fail;
	if (ret != 0) {
		char ignored[256];
		exec_ok(c, "ROLLBACK", 0, NULL, ignored, sizeof(ignored));
	}
	return ret;
}

static int reserve_locked(PGconn *c, void *arg)
{
	struct reserve_args *a = arg;
	return coord_db_in_tx(c, reserve_tx, a, BOARDLOCK_ERROR, a->err, a->errlen);
}

int coord_db_reserve(struct coord_db *db, const char *board, int64_t expires_us, const char *note,
		     struct board_holder *holder, char *err, size_t errlen)
{
	struct reserve_args a = { .board = board, .holder = holder, .err = err, .errlen = errlen };
	board_holder_self(&a.self, board, note);
	a.self.expires_us = expires_us;
	return coord_db_with(db, reserve_locked, &a);
}

struct unreserve_args {
	const char *board;
	bool *had;
	char *err;
	size_t errlen;
};

static int unreserve_locked(PGconn *c, void *arg)
{
	struct unreserve_args *a = arg;
	const char *p[] = { a->board };
	PGresult *r = coord_db_exec(c, "DELETE FROM orch_board_holder WHERE board = $1 AND "
				       "kind = 'reservation'", 1, p, a->err, a->errlen);
	if (!r)
		return BOARDLOCK_ERROR;
	*a->had = atoi(PQcmdTuples(r)) > 0;
	PQclear(r);
	return 0;
}

int coord_db_unreserve(struct coord_db *db, const char *board, bool *had, char *err,
		       size_t errlen)
{
	struct unreserve_args a = { board, had, err, errlen };
	*had = false;
	return coord_db_with(db, unreserve_locked, &a);
}

struct list_args {
	struct board_holder **out;
	long n;
	char *err;
	size_t errlen;
};

static int list_locked(PGconn *c, void *arg)
{
	struct list_args *a = arg;
	char *sql = with_now("SELECT " HOLDER_COLS " FROM orch_board_holder h WHERE " LIVE_SQL
			     " ORDER BY kind, board");
	PGresult *r = coord_db_exec(c, sql, 0, NULL, a->err, a->errlen);
	free(sql);
	if (!r)
		return -1;
	int n = PQntuples(r);
	*a->out = xcalloc(n ? (size_t)n : 1, sizeof(**a->out));
	for (int i = 0; i < n; i++)
		row_holder(r, i, &(*a->out)[i]);
	a->n = n;
	PQclear(r);
	return 0;
}

long coord_db_list(struct coord_db *db, struct board_holder **out, char *err, size_t errlen)
{
	struct list_args a = { out, 0, err, errlen };
	*out = NULL;
	return coord_db_with(db, list_locked, &a) < 0 ? -1 : a.n;
}
