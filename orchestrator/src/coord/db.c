#include "coord/db.h"
#include "util/board_token.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include "util/log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The advisory lock class of board locks ("orch" in ASCII); the object is
 * a 32-bit FNV-1a hash of the board name. */
#define BOARD_LOCK_CLASS "1869767528"

/* A board this process holds through the database. */
struct coord_board {
	char *name;
	char lost[256];            /* why it is no longer held, or "" */
};

struct coord_db {
	struct db *db;
	char token[96];            /* this process's rows: "HOST pid PID start US" */
	pthread_mutex_t mu;        /* boards, keeper state */
	pthread_cond_t wake;
	struct coord_board *boards;
	size_t n, cap;
	pthread_t keeper;
	bool keeper_running, stop;
	int64_t renewed_ms;        /* CLOCK_MONOTONIC of the last renewal sent that succeeded */
};

/* The coordination tables, through db_migrate like every table of orch's.
 * IF NOT EXISTS because databases made before the schema had a version
 * (orch made these tables on first use, and added the columns of version 2
 * to them later) hold some or all of them already: such a database is at
 * version 0 and comes up to the last version with its rows kept. */
static const struct db_migration coord_migs[] = {
	{ 1, "CREATE TABLE IF NOT EXISTS orch_board_holder ("
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
	     "  PRIMARY KEY (run, unit, seq),"
	     "  FOREIGN KEY (run, unit) REFERENCES orch_unit ON DELETE CASCADE);"
	     "CREATE TABLE IF NOT EXISTS orch_item_file ("
	     "  run text NOT NULL, unit integer NOT NULL, seq integer NOT NULL, name text NOT NULL,"
	     "  data bytea NOT NULL, PRIMARY KEY (run, unit, seq, name),"
	     "  FOREIGN KEY (run, unit, seq) REFERENCES orch_item ON DELETE CASCADE);"
	     "CREATE TABLE IF NOT EXISTS orch_controller ("
	     "  run text NOT NULL REFERENCES orch_run(name) ON DELETE CASCADE, name text NOT NULL,"
	     "  backend_pid integer, backend_start timestamptz, host text, folder text,"
	     "  reach text, PRIMARY KEY (run, name))" },
	/* a run's lock row: its token, lease and steps (coord_db_board_held) */
	{ 2, "ALTER TABLE orch_board_holder ADD COLUMN IF NOT EXISTS token text;"
	     "ALTER TABLE orch_board_holder ADD COLUMN IF NOT EXISTS lease_until timestamptz;"
	     "ALTER TABLE orch_board_holder ADD COLUMN IF NOT EXISTS server_start timestamptz;"
	     "ALTER TABLE orch_board_holder ADD COLUMN IF NOT EXISTS steps text" },
};
static const struct db_schema coord_schema = {
	"orch_coord_schema", coord_migs, (int)(sizeof(coord_migs) / sizeof(coord_migs[0])),
};

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
	if (db_migrate(d, &coord_schema, NULL, detail, sizeof(detail)) < 0) {
		snprintf(err, errlen, "database: making orch's tables: %.*s",
			 (int)strcspn(detail, "\n"), detail);
		db_close(d);
		return NULL;
	}
	struct coord_db *db = xcalloc(1, sizeof(*db));
	db->db = d;
	char host[64] = "?";
	gethostname(host, sizeof(host) - 1);
	snprintf(db->token, sizeof(db->token), "%s pid %ld start %" PRId64, host, (long)getpid(),
		 clock_wall_us());
	pthread_mutex_init(&db->mu, NULL);
	pthread_cond_init(&db->wake, NULL);
	return db;
}

void coord_db_close(struct coord_db *db)
{
	if (!db)
		return;
	pthread_mutex_lock(&db->mu);
	db->stop = true;
	pthread_cond_broadcast(&db->wake);
	bool joined = db->keeper_running;
	pthread_mutex_unlock(&db->mu);
	if (joined)
		pthread_join(db->keeper, NULL);
	for (size_t i = 0; i < db->n; i++)
		free(db->boards[i].name);
	free(db->boards);
	pthread_cond_destroy(&db->wake);
	pthread_mutex_destroy(&db->mu);
	db_close(db->db);
	free(db);
}

const char *coord_db_lost(struct coord_db *db)
{
	return db ? db_lost(db->db) : NULL;
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

/* A run's row is live while its session is, or, when the server restarted
 * since the row was written (which ends every session), while its lease
 * runs: the holder may still be running and takes the board again on a new
 * session. A session that ended while the server ran (the holder died, or
 * was cut off) frees the board at once, as the advisory lock does. */
#define SESSION_SQL \
	"EXISTS (SELECT 1 FROM pg_stat_activity a " \
	"  WHERE a.pid = h.backend_pid AND a.backend_start = h.backend_start)"
#define LIVE_SQL \
	"(h.kind = 'reservation' AND (h.expires_us IS NULL OR h.expires_us > $NOW)) OR " \
	"(h.kind = 'run' AND (" SESSION_SQL " OR (h.lease_until > now() AND " \
	"  h.server_start < pg_postmaster_start_time())))"

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
	struct board_holder *holder, self, *previous;
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

/* The row of a run that held board and is gone (its session ended, its
 * lease ran out) with the token of its commands, into a->previous: its
 * commands may still run on the board. 0 (previous->token "" when there
 * is none), or -1 with err. */
static int dead_holder(struct coord_db *c, struct try_args *a)
{
	memset(a->previous, 0, sizeof(*a->previous));
	struct db_rows *r = NULL;
	const char *p[] = { a->board };
	if (coord_db_run(c, "SELECT " HOLDER_COLS ", steps FROM orch_board_holder h WHERE board = $1"
			    " AND kind = 'run' AND steps IS NOT NULL AND NOT (" SESSION_SQL " OR"
			    " (h.lease_until > now() AND h.server_start < pg_postmaster_start_time()))"
			    " ORDER BY since_us DESC LIMIT 1", p, 1, &r, a->err, a->errlen) < 0)
		return -1;
	if (r->nrows > 0 && board_token_of(cell(r, 0, 8), a->board)) {
		row_holder(r, 0, a->previous);
		snprintf(a->previous->token, sizeof(a->previous->token), "%s", cell(r, 0, 8));
	}
	db_rows_free(r);
	return 0;
}

static int try_locked(struct coord_db *c, struct try_args *a)
{
	char key[16], pid[24], since[32], ignored[256];
	board_key(a->board, key, sizeof(key));
	const char *pk[] = { key };
	struct db_rows *r = NULL;
	if (coord_db_run(c, "SELECT pg_try_advisory_lock(" BOARD_LOCK_CLASS ", $1::int)", pk, 1, &r,
			 a->err, a->errlen) < 0)
		return BOARD_LOCK_ERROR;
	bool got = first_true(r);
	if (!got) {
		int f = find_holder(c, a->board, "run", a->holder, a->err, a->errlen);
		if (f == 0)
			unknown_holder(a->holder, a->board);
		return f < 0 ? BOARD_LOCK_ERROR : BOARD_LOCK_HELD;
	}
	int f = find_holder(c, a->board, NULL, a->holder, a->err, a->errlen);
	if (f != 0) {
		exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, pk, ignored,
			sizeof(ignored));
		return f < 0 ? BOARD_LOCK_ERROR : BOARD_LOCK_HELD;
	}
	if (dead_holder(c, a) < 0) {
		exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, pk, ignored,
			sizeof(ignored));
		return BOARD_LOCK_ERROR;
	}
	snprintf(pid, sizeof(pid), "%ld", a->self.pid);
	snprintf(since, sizeof(since), "%" PRId64, a->self.since_us);
	char lease[32];
	snprintf(lease, sizeof(lease), "%" PRId64 " milliseconds", coord_db_lease_ms());
	const char *p[] = { a->board, a->self.user, a->self.host, pid, since, a->self.note,
			    c->token, lease, a->self.token };
	if (!exec_ok(c, "DELETE FROM orch_board_holder h WHERE board = $1 AND kind = 'run' AND NOT ("
			SESSION_SQL " OR (h.lease_until > now() AND h.server_start <"
			" pg_postmaster_start_time()))", 1, p, a->err, a->errlen) ||
	    !exec_ok(c, "INSERT INTO orch_board_holder (board, kind, user_name, host, pid, since_us,"
			" note, backend_pid, backend_start, token, lease_until, server_start, steps)"
			" SELECT $1, 'run', $2, $3, $4::int, $5::bigint, $6, pid, backend_start, $7,"
			" now() + $8::interval, pg_postmaster_start_time(), nullif($9, '') FROM"
			" pg_stat_activity WHERE pid = pg_backend_pid()", 9, p, a->err,
			a->errlen)) {
		exec_ok(c, "SELECT pg_advisory_unlock(" BOARD_LOCK_CLASS ", $1::int)", 1, pk, ignored,
			sizeof(ignored));
		return BOARD_LOCK_ERROR;
	}
	return 0;
}

int64_t coord_db_lease_ms(void)
{
	return 2 * db_call_timeout_ms();
}

static struct coord_board *kept(struct coord_db *db, const char *board)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->boards[i].name, board))
			return &db->boards[i];
	return NULL;
}

static void *keeper(void *arg);

/* Board is held from now on: the keeper renews its lease. */
static void keep(struct coord_db *db, const char *board)
{
	pthread_mutex_lock(&db->mu);
	if (db->n == db->cap) {
		db->cap = db->cap ? 2 * db->cap : 8;
		db->boards = xrealloc(db->boards, db->cap * sizeof(*db->boards));
	}
	db->boards[db->n++] = (struct coord_board){ .name = xstrdup(board) };
	if (db->renewed_ms == 0 || db->n == 1)
		db->renewed_ms = clock_mono_ms();
	if (!db->keeper_running && pthread_create(&db->keeper, NULL, keeper, db) == 0)
		db->keeper_running = true;
	pthread_mutex_unlock(&db->mu);
}

static void unkeep(struct coord_db *db, const char *board)
{
	pthread_mutex_lock(&db->mu);
	struct coord_board *b = kept(db, board);
	if (b) {
		free(b->name);
		*b = db->boards[--db->n];
	}
	pthread_mutex_unlock(&db->mu);
}

/* Every board not marked lost yet is lost, for why. */
static void lose_all(struct coord_db *db, const char *why)
{
	pthread_mutex_lock(&db->mu);
	for (size_t i = 0; i < db->n; i++)
		if (!db->boards[i].lost[0]) {
			snprintf(db->boards[i].lost, sizeof(db->boards[i].lost), "%s", why);
			log_error("board %s: %s", db->boards[i].name, why);
		}
	pthread_mutex_unlock(&db->mu);
}

/* On a new session: each held board's advisory lock again, and its row
 * moved to the session. A board whose row is gone or whose lock another
 * session has is lost. Called with db->db locked. */
static void retake(struct coord_db *db)
{
	pthread_mutex_lock(&db->mu);
	size_t n = db->n;
	char **names = xcalloc(n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = db->boards[i].lost[0] ? NULL : xstrdup(db->boards[i].name);
	pthread_mutex_unlock(&db->mu);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		char key[16], err[512] = "";
		board_key(names[i], key, sizeof(key));
		const char *pk[] = { key };
		const char *pr[] = { names[i], db->token };
		struct db_rows *r = NULL;
		bool got = coord_db_run(db, "SELECT pg_try_advisory_lock(" BOARD_LOCK_CLASS
				       ", $1::int)", pk, 1, &r, err, sizeof(err)) == 0 && first_true(r);
		bool moved = got && coord_db_run(db, "UPDATE orch_board_holder h SET (backend_pid,"
						 " backend_start, server_start) = (SELECT pid,"
						 " backend_start, pg_postmaster_start_time() FROM"
						 " pg_stat_activity WHERE pid = pg_backend_pid())"
						 " WHERE board = $1 AND kind = 'run' AND token = $2"
						 " AND lease_until > now()", pr, 2, NULL, err,
						 sizeof(err)) == 0 && db_changes(db->db) == 1;
		if (moved) {
			log_warn("board %s: the database session was lost and made again; its lock "
				 "is held again (its lease had not run out)", names[i]);
		} else {
			char why[256];
			snprintf(why, sizeof(why), "lost its database lock: the session ended and "
				 "the lock could not be taken again%s%s", err[0] ? ": " : "", err);
			pthread_mutex_lock(&db->mu);
			struct coord_board *b = kept(db, names[i]);
			if (b && !b->lost[0]) {
				snprintf(b->lost, sizeof(b->lost), "%s", why);
				log_error("board %s: %s", names[i], why);
			}
			pthread_mutex_unlock(&db->mu);
		}
		free(names[i]);
	}
	free(names);
}

/* One round: reconnect when the session was lost, then renew the lease of
 * every held board. */
static void keeper_round(struct coord_db *db)
{
	char lease[32], err[512] = "";
	snprintf(lease, sizeof(lease), "%" PRId64 " milliseconds", coord_db_lease_ms());
	int64_t sent = clock_mono_ms();
	db_lock(db->db);
	bool ok = true;
	if (db_lost(db->db)) {
		ok = db_reconnect(db->db, err, sizeof(err)) == 0;
		if (ok)
			retake(db);
	}
	if (ok) {
		const char *p[] = { db->token, lease };
		ok = coord_db_run(db, "UPDATE orch_board_holder SET lease_until = now() +"
				  " $2::interval WHERE kind = 'run' AND token = $1", p, 2, NULL, err,
				  sizeof(err)) == 0;
	}
	db_unlock(db->db);
	pthread_mutex_lock(&db->mu);
	if (ok)
		db->renewed_ms = sent;
	/* the lease others see ends lease_ms after the last renewal the server
	 * took, which was sent at or after renewed_ms */
	bool expired = !ok && clock_mono_ms() >= db->renewed_ms + coord_db_lease_ms();
	pthread_mutex_unlock(&db->mu);
	if (expired) {
		char why[600];
		snprintf(why, sizeof(why), "lost its database lock: the session ended and the lease "
			 "ran out before a new one could be made (%s)", err);
		lose_all(db, why);
	}
}

static void *keeper(void *arg)
{
	struct coord_db *db = arg;
	int64_t period = coord_db_lease_ms() / 6;
	pthread_mutex_lock(&db->mu);
	while (!db->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += period / 1000;
		until.tv_nsec += (period % 1000) * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&db->wake, &db->mu, &until);
		if (db->stop || db->n == 0)
			continue;
		pthread_mutex_unlock(&db->mu);
		keeper_round(db);
		pthread_mutex_lock(&db->mu);
	}
	pthread_mutex_unlock(&db->mu);
	return NULL;
}

bool coord_db_board_held(struct coord_db *db, const char *board, char *why, size_t len)
{
	pthread_mutex_lock(&db->mu);
	struct coord_board *b = kept(db, board);
	bool held = b && !b->lost[0];
	if (b && b->lost[0])
		snprintf(why, len, "%s", b->lost);
	else if (!b)
		snprintf(why, len, "not held");
	pthread_mutex_unlock(&db->mu);
	return held;
}

int coord_db_board_try(struct coord_db *db, const char *board, const char *note,
		       const char *token, struct board_holder *holder,
		       struct board_holder *previous, char *err, size_t errlen)
{
	struct try_args a = { .board = board, .note = note, .holder = holder, .err = err,
			      .errlen = errlen, .previous = previous };
	board_holder_self(&a.self, board, note);
	if (token)
		snprintf(a.self.token, sizeof(a.self.token), "%s", token);
	db_lock(db->db);
	int ret = try_locked(db, &a);
	db_unlock(db->db);
	if (ret == 0)
		keep(db, board);
	return ret;
}

void coord_db_board_release(struct coord_db *c, const char *board)
{
	char key[16], err[256];
	board_key(board, key, sizeof(key));
	const char *p[] = { board, key };
	db_lock(c->db);
	unkeep(c, board);
	const char *pt[] = { board, c->token };
	exec_ok(c, "DELETE FROM orch_board_holder WHERE board = $1 AND kind = 'run' "
		   "AND token = $2", 2, pt, err, sizeof(err));
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
		return BOARD_LOCK_ERROR;
	bool got = first_true(r);
	int f = find_holder(c, a->board, got ? "reservation" : "run", a->holder, a->err, a->errlen);
	if (f < 0)
		return BOARD_LOCK_ERROR;
	if (!got) {
		if (f == 0)
			unknown_holder(a->holder, a->board);
		return BOARD_LOCK_HELD;
	}
	if (f > 0 && strcmp(a->holder->user, a->self.user))
		return BOARD_LOCK_HELD;
	snprintf(pid, sizeof(pid), "%ld", a->self.pid);
	snprintf(since, sizeof(since), "%" PRId64, a->self.since_us);
	snprintf(expires, sizeof(expires), "%" PRId64, a->self.expires_us);
	const char *p[] = { a->board, a->self.user, a->self.host, pid, since, a->self.note, expires };
	if (!exec_ok(c, "DELETE FROM orch_board_holder WHERE board = $1 AND kind = 'reservation'", 1,
		     p, a->err, a->errlen) ||
	    !exec_ok(c, "INSERT INTO orch_board_holder (board, kind, user_name, host, pid, since_us,"
			" note, expires_us) VALUES ($1, 'reservation', $2, $3, $4::int, $5::bigint,"
			" $6, nullif($7::bigint, 0))", 7, p, a->err, a->errlen))
		return BOARD_LOCK_ERROR;
	return 0;
}

int coord_db_reserve(struct coord_db *db, const char *board, int64_t expires_us, const char *note,
		     struct board_holder *holder, char *err, size_t errlen)
{
	struct reserve_args a = { .board = board, .holder = holder, .err = err, .errlen = errlen };
	board_holder_self(&a.self, board, note);
	a.self.expires_us = expires_us;
	return coord_db_in_tx(db, reserve_tx, &a, BOARD_LOCK_ERROR, err, errlen);
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
	return rc < 0 ? BOARD_LOCK_ERROR : 0;
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
