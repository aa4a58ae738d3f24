#include "coord/db.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The advisory lock class of board locks ("orch" in ASCII); the object is
 * a 32-bit FNV-1a hash of the board name. */
#define BOARD_LOCK_CLASS "1869767528"

struct coord_db {
	struct db *db;
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

/* "database: " and the first line of the back end's message. */
static void db_message(char *err, size_t errlen, const char *detail)
{
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", detail);
	snprintf(err, errlen, "database: %.*s", (int)strcspn(copy, "\n"), copy);
}

int coord_db_run(struct coord_db *db, const char *sql, const char *const *params, int n,
		 struct db_rows **rows, char *err, size_t errlen)
{
	struct db_val v[DB_MAX_PARAMS];
	for (int i = 0; i < n && i < DB_MAX_PARAMS; i++)
		v[i] = DB_TEXT(params[i]);
	char detail[512] = "";
	int rc = db_exec(db->db, sql, v, n, rows, detail, sizeof(detail));
	if (rc < 0)
		db_message(err, errlen, detail);
	return rc < 0 ? -1 : 0;
}

static bool exec_ok(struct coord_db *db, const char *sql, int n, const char *const *params,
		    char *err, size_t errlen)
{
	return coord_db_run(db, sql, params, n, NULL, err, errlen) == 0;
}

struct coord_db *coord_db_open(const char *url, char *err, size_t errlen)
{
	struct db *d = NULL;
	char detail[512] = "";
	if (db_open_postgres(&d, url, detail, sizeof(detail)) < 0) {
		const char *m = strstr(detail, ": ") ? strstr(detail, ": ") + 2 : detail;
		snprintf(err, errlen, "database: cannot connect: %.*s", (int)strcspn(m, "\n"), m);
		return NULL;
	}
	db_share(d, url);
	if (db_exec_script(d, schema_sql, detail, sizeof(detail)) < 0) {
		snprintf(err, errlen, "database: making orch's tables: %.*s",
			 (int)strcspn(detail, "\n"), detail);
		db_exec_script(d, "ROLLBACK", detail, sizeof(detail));
		db_close(d);
		return NULL;
	}
	struct coord_db *db = xcalloc(1, sizeof(*db));
	db->db = d;
	return db;
}

void coord_db_close(struct coord_db *db)
{
	if (!db)
		return;
	db_close(db->db);
	free(db);
}

struct db *coord_db_sql(struct coord_db *db)
{
	return db->db;
}

int coord_db_in_tx(struct coord_db *db, int (*tx)(struct coord_db *db, void *arg), void *arg,
		   int fail, char *err, size_t errlen)
{
	char detail[512] = "";
	if (db_begin(db->db, detail, sizeof(detail)) < 0) {
		db_message(err, errlen, detail);
		return fail;
	}
	int ret = tx(db, arg);
	if (ret == 0 && db_commit(db->db, detail, sizeof(detail)) < 0) {
		db_message(err, errlen, detail);
		return fail;
	}
	if (ret != 0)
		db_rollback(db->db);
	return ret;
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

/* A cell's text, "" for NULL. */
static const char *cell(const struct db_rows *r, int row, int col)
{
	const char *v = db_cell(r, row, col);
	return v ? v : "";
}

static void row_holder(const struct db_rows *r, int row, struct board_holder *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->board, sizeof(h->board), "%s", cell(r, row, 0));
	h->reservation = !strcmp(cell(r, row, 1), "reservation");
	snprintf(h->user, sizeof(h->user), "%s", cell(r, row, 2));
	snprintf(h->host, sizeof(h->host), "%s", cell(r, row, 3));
	h->pid = (long)db_cell_int(r, row, 4, 0);
	h->since_us = db_cell_int(r, row, 5, 0);
	h->expires_us = db_cell_int(r, row, 6, 0);
	snprintf(h->note, sizeof(h->note), "%s", cell(r, row, 7));
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
static int find_holder(struct coord_db *c, const char *board, const char *kind,
		       struct board_holder *h, char *err, size_t errlen)
{
	char *sql = with_now("SELECT " HOLDER_COLS " FROM orch_board_holder h WHERE board = $1 "
			     "AND ($2::text IS NULL OR kind = $2) AND (" LIVE_SQL ") "
			     "ORDER BY since_us LIMIT 1");
	const char *p[] = { board, kind };
	struct db_rows *r = NULL;
	int rc = coord_db_run(c, sql, p, 2, &r, err, errlen);
	free(sql);
	if (rc < 0)
		return -1;
	int found = r->nrows > 0;
	if (found)
		row_holder(r, 0, h);
	db_rows_free(r);
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

/* The first cell of a one-row result is "t". */
static bool first_true(struct db_rows *r)
{
	bool t = r && r->nrows > 0 && !strcmp(cell(r, 0, 0), "t");
	db_rows_free(r);
	return t;
}

static int try_locked(struct coord_db *c, struct try_args *a)
{
	char key[16], pid[24], since[32], ignored[256];
	board_key(a->board, key, sizeof(key));
	const char *pk[] = { key };
	struct db_rows *r = NULL;
	if (coord_db_run(c, "SELECT pg_try_advisory_lock(" BOARD_LOCK_CLASS ", $1::int)", pk, 1, &r,
			 a->err, a->errlen) < 0)
		return BOARDLOCK_ERROR;
	bool got = first_true(r);
	if (!got) {
		int f = find_holder(c, a->board, "run", a->holder, a->err, a->errlen);
		if (f == 0)
			unknown_holder(a->holder, a->board);
		return f < 0 ? BOARDLOCK_ERROR : BOARDLOCK_HELD;
	}
	int f = find_holder(c, a->board, "reservation", a->holder, a->err, a->errlen);
	if (f != 0) {
		exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, pk, ignored,
			sizeof(ignored));
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
		exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, pk, ignored,
			sizeof(ignored));
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
	db_lock(db->db);
	int ret = try_locked(db, &a);
	db_unlock(db->db);
	return ret;
}

void coord_db_board_release(struct coord_db *c, const char *board)
{
	char key[16], err[256];
	board_key(board, key, sizeof(key));
	const char *p[] = { board, key };
	db_lock(c->db);
	exec_ok(c, "DELETE FROM orch_board_holder WHERE board = $1 AND kind = 'run' "
		   "AND backend_pid = pg_backend_pid()", 1, p, err, sizeof(err));
	exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, p + 1, err,
		sizeof(err));
	db_unlock(c->db);
}


struct reserve_args {
	const char *board;
	struct board_holder *holder, self;
	char *err;
	size_t errlen;
};

static int reserve_tx(struct coord_db *c, void *arg)
{
	struct reserve_args *a = arg;
	char key[16], pid[24], since[32], expires[32];
	board_key(a->board, key, sizeof(key));
	const char *pk[] = { key };
	struct db_rows *r = NULL;
	if (coord_db_run(c, "SELECT pg_try_advisory_xact_lock(" BOARD_LOCK_CLASS ", $1::int)", pk, 1,
			 &r, a->err, a->errlen) < 0)
		return BOARDLOCK_ERROR;
	bool got = first_true(r);
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

int coord_db_reserve(struct coord_db *db, const char *board, int64_t expires_us, const char *note,
		     struct board_holder *holder, char *err, size_t errlen)
{
	struct reserve_args a = { .board = board, .holder = holder, .err = err, .errlen = errlen };
	board_holder_self(&a.self, board, note);
	a.self.expires_us = expires_us;
	return coord_db_in_tx(db, reserve_tx, &a, BOARDLOCK_ERROR, err, errlen);
}

int coord_db_unreserve(struct coord_db *db, const char *board, bool *had, char *err,
		       size_t errlen)
{
	const char *p[] = { board };
	*had = false;
	db_lock(db->db);
	int rc = coord_db_run(db, "DELETE FROM orch_board_holder WHERE board = $1 AND "
			      "kind = 'reservation'", p, 1, NULL, err, errlen);
	if (rc == 0)
		*had = db_changes(db->db) > 0;
	db_unlock(db->db);
	return rc < 0 ? BOARDLOCK_ERROR : 0;
}

long coord_db_list(struct coord_db *db, struct board_holder **out, char *err, size_t errlen)
{
	*out = NULL;
	char *sql = with_now("SELECT " HOLDER_COLS " FROM orch_board_holder h WHERE " LIVE_SQL
			     " ORDER BY kind, board");
	struct db_rows *r = NULL;
	int rc = coord_db_run(db, sql, NULL, 0, &r, err, errlen);
	free(sql);
	if (rc < 0)
		return -1;
	int n = r->nrows;
	*out = xcalloc(n ? (size_t)n : 1, sizeof(**out));
	for (int i = 0; i < n; i++)
		row_holder(r, i, &(*out)[i]);
	db_rows_free(r);
	return n;
}
