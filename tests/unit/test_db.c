/* The db module over SQLite: placeholders, types, transactions, migrations,
 * the version check, WAL with two writers. (The same over PostgreSQL:
 * tests/integration/test_db_pg.c.) */
#include "testsupport.h"
#include "ts_db.h"
#include "db/db.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct db *open_db(const char *name)
{
	char err[256] = "";
	char *path = xasprintf("%s/%s", ts_tmp, name);
	struct db *db = NULL;
	int rc = db_open(&db, path, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "db_open: %s\n", err);
	assert_int_equal(rc, 0);
	free(path);
	return db;
}

static void test_exec_and_types(void **state)
{
	char err[256] = "";
	struct db *db = open_db("a.sqlite");
	int from = -1;
	assert_int_equal(db_kind(db), DB_SQLITE);
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, &from, err, sizeof(err)), 0);
	assert_int_equal(from, 0);
	ts_db_round_trip(db);
	struct db_rows *r = NULL;
	/* a failing statement names the problem */
	assert_int_equal(db_exec(db, "SELECT nope FROM t", NULL, 0, &r, err, sizeof(err)), DB_EQUERY);
	TS_ASSERT_HAS(err, "nope");
	assert_null(r);
	db_close(db);
}

static void test_transactions(void **state)
{
	char err[256] = "";
	struct db *db = open_db("b.sqlite");
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err, sizeof(err)), 0);
	assert_int_equal(db_begin(db, err, sizeof(err)), 0);
	struct db_val v = DB_TEXT("gone");
	assert_int_equal(db_exec(db, "INSERT INTO t (name) VALUES (?)", &v, 1, NULL, err, sizeof(err)), 0);
	db_rollback(db);
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT COUNT(*) FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(db_cell_int(r, 0, 0, -1), 0);
	db_rows_free(r);
	assert_int_equal(db_begin(db, err, sizeof(err)), 0);
	v = DB_TEXT("kept");
	assert_int_equal(db_exec(db, "INSERT INTO t (name) VALUES (?)", &v, 1, NULL, err, sizeof(err)), 0);
	assert_int_equal(db_commit(db, err, sizeof(err)), 0);
	assert_int_equal(db_exec(db, "SELECT name FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), "kept");
	db_rows_free(r);
	db_close(db);
}

static void test_migrate_from_older(void **state)
{
	char err[256] = "";
	struct db *db = open_db("c.sqlite");
	int from = -1;
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 1 }, &from, err, sizeof(err)), 0);
	assert_int_equal(db_schema_version(db, "t_schema", err, sizeof(err)), 1);
	struct db_val v = DB_TEXT("old row");
	assert_int_equal(db_exec(db, "INSERT INTO t (name) VALUES (?)", &v, 1, NULL, err, sizeof(err)), 0);
	db_close(db);
	db = open_db("c.sqlite");
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, &from, err, sizeof(err)), 0);
	assert_int_equal(from, 1);
	assert_int_equal(db_schema_version(db, "t_schema", err, sizeof(err)), 2);
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT name, note FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), "old row");
	db_rows_free(r);
	/* an orch that knows only version 1 refuses the newer database */
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 1 }, NULL, err, sizeof(err)), DB_ESCHEMA);
	TS_ASSERT_HAS(err, "version 2 is newer");
	/* a broken migration leaves the schema where it was */
	const struct db_migration bad[] = {
		ts_db_migs[0], ts_db_migs[1], { 3, "CREATE TABLE u (x INTEGER); SELECT broken FROM nowhere" },
	};
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", bad, 3 }, NULL, err, sizeof(err)), DB_ESCHEMA);
	TS_ASSERT_HAS(err, "version 3");
	assert_int_equal(db_schema_version(db, "t_schema", err, sizeof(err)), 2);
	assert_int_equal(db_exec(db, "SELECT * FROM u", NULL, 0, NULL, err, sizeof(err)), DB_EQUERY);
	db_close(db);
}

/* Two processes writing 200 rows each into one file, each row in a
 * transaction of its own: none is lost, none fails on a lock. */
static void test_two_writers(void **state)
{
	char err[256] = "";
	struct db *db = open_db("d.sqlite");
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err, sizeof(err)), 0);
	db_close(db);
	char *path = xasprintf("%s/d.sqlite", ts_tmp);
	ts_db_two_writers(path);
	free(path);
	db = open_db("d.sqlite");
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT name, COUNT(*) FROM t GROUP BY name ORDER BY name", NULL, 0,
				 &r, err, sizeof(err)), 0);
	assert_int_equal(r->nrows, 2);
	assert_int_equal(db_cell_int(r, 0, 1, 0), 200);
	assert_int_equal(db_cell_int(r, 1, 1, 0), 200);
	db_rows_free(r);
	assert_int_equal(db_exec(db, "PRAGMA journal_mode", NULL, 0, &r, err, sizeof(err)), 0);
	assert_string_equal(db_cell(r, 0, 0), "wal");
	db_rows_free(r);
	db_close(db);
}

static void test_each(void **state)
{
	char err[256] = "";
	struct db *db = open_db("e.sqlite");
	assert_int_equal(db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err, sizeof(err)), 0);
	db_close(db);
	char *path = xasprintf("%s/e.sqlite", ts_tmp);
	ts_db_each(path);
	free(path);
}

static void test_open_errors(void **state)
{
	char err[256] = "";
	struct db *db = NULL;
	assert_int_equal(db_open(&db, "", err, sizeof(err)), DB_EUSAGE);
	assert_int_equal(db_open(&db, "/nonexistent/dir/h.sqlite", err, sizeof(err)), DB_EOPEN);
	TS_ASSERT_HAS(err, "/nonexistent/dir/h.sqlite");
	assert_null(db);
	assert_true(db_target_is_postgres("postgresql://u@h/d"));
	assert_true(db_target_is_postgres("postgres://h/d"));
	assert_false(db_target_is_postgres("runs/orch-history.sqlite"));
	/* nothing listens on this port: the error names the server, not the password */
	assert_true(db_open(&db, "postgresql://orch:s3cret@127.0.140.250:1/x?connect_timeout=2", err,
			    sizeof(err)) == DB_EOPEN);
	TS_ASSERT_LACKS(err, "s3cret");
	TS_ASSERT_HAS(err, "orch:***@127.0.140.250");
}

TS_MAIN(ts_tmp_setup, ts_tmp_teardown, test_exec_and_types, test_transactions,
	test_migrate_from_older, test_two_writers, test_each, test_open_errors)
