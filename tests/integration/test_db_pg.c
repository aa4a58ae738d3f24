/* The db module over a real PostgreSQL started by tests/lab/pg-lab.sh:
 * types and placeholders through libpq, migrations from an older schema,
 * two processes migrating and writing at once. */
#include "testsupport.h"
#include "pg.h"
#include "ts_db.h"
#include "db/db.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG_HOST "127.0.140.1"
#define PG_PORT 55430

static struct pg *pg;

static int setup(void **state)
{
	return pg_group_up(&pg, PG_HOST, PG_PORT);
}

static int teardown(void **state)
{
	return pg_group_down(&pg);
}

static struct db *open_url(const char *url)
{
	char err[512] = "";
	struct db *db = NULL;
	int rc = db_open(&db, url, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "db_open: %s\n", err);
	assert_int_equal(rc, 0);
	return db;
}

static void test_pg_exec(void **state)
{
	char err[512] = "";
	char *url = pg_createdb(pg, "exec");
	assert_non_null(url);
	struct db *db = open_url(url);
	assert_int_equal(db_kind(db), DB_POSTGRES);
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err, sizeof(err)), 0);
	ts_db_round_trip(db);
	struct db_rows *r = NULL;
	assert_int_equal(db_begin(db, err, sizeof(err)), 0);
	struct db_val q = DB_TEXT("gone");
	assert_int_equal(db_exec(db, "INSERT INTO t (name) VALUES (?)", &q, 1, NULL, err, sizeof(err)), 0);
	db_rollback(db);
	assert_int_equal(db_exec(db, "SELECT COUNT(*) FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(db_cell_int(r, 0, 0, -1), 1);
	db_rows_free(r);
	assert_int_equal(db_exec(db, "SELECT nope FROM t", NULL, 0, NULL, err, sizeof(err)), DB_EQUERY);
	TS_ASSERT_HAS(err, "nope");
	db_close(db);
	free(url);
}

static void test_pg_migrate_from_older(void **state)
{
	char err[512] = "";
	char *url = pg_createdb(pg, "older");
	struct db *db = open_url(url);
	int from = -1;
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 1 }, &from, err, sizeof(err)), 0);
	assert_int_equal(from, 0);
	struct db_val v = DB_TEXT("old row");
	assert_int_equal(db_exec(db, "INSERT INTO t (name) VALUES (?)", &v, 1, NULL, err, sizeof(err)), 0);
	db_close(db);
	db = open_url(url);
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, &from, err, sizeof(err)), 0);
	assert_int_equal(from, 1);
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT name, note FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), "old row");
	db_rows_free(r);
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 1 }, NULL, err, sizeof(err)), DB_ESCHEMA);
	const struct db_migration bad[] = {
		ts_db_migs[0], ts_db_migs[1], { 3, "CREATE TABLE u (x INTEGER); SELECT broken FROM nowhere" },
	};
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", bad, 3 }, NULL, err, sizeof(err)), DB_ESCHEMA);
	assert_int_equal(db_schema_version(db, "t_schema", err, sizeof(err)), 2);
	db_close(db);
	free(url);
}

/* Two processes start on an empty database at once: both migrate (one
 * does the work, the other waits on the lock and finds it done) and write
 * 200 rows each. */
static void test_pg_two_writers(void **state)
{
	char *url = pg_createdb(pg, "two");
	ts_db_two_writers(url);
	char *out = NULL;
	assert_int_equal(pg_psql(url, &out, "SELECT name, COUNT(*) FROM t GROUP BY name ORDER BY name;"
					     "SELECT version FROM t_schema;"), 0);
	assert_string_equal(out, "a|200\nb|200\n2\n");
	TS_FREE(out, url);
}

static void test_pg_each(void **state)
{
	char err[512] = "";
	char *url = pg_createdb(pg, "each");
	assert_non_null(url);
	struct db *db = open_url(url);
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err, sizeof(err)), 0);
	db_close(db);
	ts_db_each(url);
	free(url);
}

/* Both ends of orch's session notice a peer that is gone in seconds: the
 * server's side has short keepalives (a controller that died behind a
 * frozen path stops holding its advisory locks), and a shared session is
 * one connection (one backend) however often it is opened. */
static void test_session_keepalives(void **state)
{
	char err[512] = "";
	char *url = pg_createdb(pg, "keepalive");
	assert_non_null(url);
	struct db *db = open_url(url);
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT current_setting('tcp_keepalives_idle'),"
				 " current_setting('tcp_keepalives_count'), current_setting('statement_timeout'),"
				 " pg_backend_pid()", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), "5");
	assert_string_equal(db_cell(r, 0, 1), "3");
	assert_string_equal(db_cell(r, 0, 2), "30s");
	char *backend = strdup(db_cell(r, 0, 3));
	db_rows_free(r);
	db_share(db, url);
	struct db *again = open_url(url);
	assert_ptr_equal(again, db);
	assert_int_equal(db_exec(again, "SELECT pg_backend_pid()", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), backend);
	db_rows_free(r);
	db_close(again);
	db_close(db);
	TS_FREE(backend, url);
}

TS_MAIN(setup, teardown, test_pg_exec, test_pg_migrate_from_older, test_pg_two_writers,
	test_pg_each, test_session_keepalives)
