/* The coordination tables (coord/) come from db_migrate's versioned
 * migrations, on a real PostgreSQL (tests/lab/pg-lab.sh): an empty
 * database gets every table at the last version; a database made before
 * the schema had a version (the tables made on first use, with or without
 * the columns added to orch_board_holder later) upgrades in place, its
 * rows kept; a database newer than this orch is refused. */
#include "testsupport.h"
#include "pg.h"

#include "coord/db.h"

#include <stdlib.h>
#include <string.h>

#define PG_HOST "127.10.7.1"
#define PG_PORT 55470

static struct pg *pg;

/* The tables as the first coordination code made them, before any version. */
static const char first_tables[] =
	"CREATE TABLE orch_board_holder ("
	"  board text NOT NULL, kind text NOT NULL, user_name text NOT NULL,"
	"  host text NOT NULL, pid integer NOT NULL, since_us bigint NOT NULL,"
	"  expires_us bigint, note text NOT NULL DEFAULT '',"
	"  backend_pid integer, backend_start timestamptz);"
	"CREATE INDEX orch_board_holder_board ON orch_board_holder (board);"
	"CREATE TABLE orch_run ("
	"  name text PRIMARY KEY, scenario text NOT NULL, plan_sha text NOT NULL,"
	"  created timestamptz NOT NULL DEFAULT now(), merged_by text, merged_folder text,"
	"  merger_pid integer, merger_start timestamptz, exit_code integer);"
	"CREATE TABLE orch_unit ("
	"  run text NOT NULL REFERENCES orch_run(name) ON DELETE CASCADE, idx integer NOT NULL,"
	"  board text NOT NULL, controllers text[], state text NOT NULL DEFAULT 'queued',"
	"  claimed_by text, claimed_pid integer, claimed_start timestamptz,"
	"  claims integer NOT NULL DEFAULT 0, facts text, PRIMARY KEY (run, idx));"
	"CREATE TABLE orch_item ("
	"  run text NOT NULL, unit integer NOT NULL, seq integer NOT NULL,"
	"  board text NOT NULL, test text NOT NULL, done boolean NOT NULL DEFAULT false,"
	"  retried boolean NOT NULL DEFAULT false, controller text, result text,"
	"  PRIMARY KEY (run, unit, seq), FOREIGN KEY (run, unit) REFERENCES orch_unit ON DELETE CASCADE);"
	"CREATE TABLE orch_item_file ("
	"  run text NOT NULL, unit integer NOT NULL, seq integer NOT NULL, name text NOT NULL,"
	"  data bytea NOT NULL, PRIMARY KEY (run, unit, seq, name),"
	"  FOREIGN KEY (run, unit, seq) REFERENCES orch_item ON DELETE CASCADE);"
	"CREATE TABLE orch_controller ("
	"  run text NOT NULL REFERENCES orch_run(name) ON DELETE CASCADE, name text NOT NULL,"
	"  backend_pid integer, backend_start timestamptz, host text, folder text,"
	"  reach text, PRIMARY KEY (run, name));"
	"INSERT INTO orch_board_holder (board, kind, user_name, host, pid, since_us, note)"
	"  VALUES ('b01', 'reservation', 'ann', 'ctl1', 1, 1, 'kept');"
	"INSERT INTO orch_run (name, scenario, plan_sha) VALUES ('night', 'sc', 'abc');";

/* The columns the unversioned code added later with ADD COLUMN IF NOT EXISTS. */
static const char later_columns[] =
	"ALTER TABLE orch_board_holder ADD COLUMN token text;"
	"ALTER TABLE orch_board_holder ADD COLUMN lease_until timestamptz;"
	"ALTER TABLE orch_board_holder ADD COLUMN server_start timestamptz;"
	"ALTER TABLE orch_board_holder ADD COLUMN steps text;"
	"UPDATE orch_board_holder SET steps = 'kept steps';";

static int group_setup(void **state)
{
	return pg_group_up(&pg, PG_HOST, PG_PORT);
}

static int group_teardown(void **state)
{
	return pg_group_down(&pg);
}

/* psql's answer to sql on url, trailing newline cut (caller frees). */
static char *ask(const char *url, const char *sql)
{
	char *out = NULL;
	assert_int_equal(pg_psql(url, &out, sql), 0);
	assert_non_null(out);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void assert_answer(const char *url, const char *sql, const char *want)
{
	char *got = ask(url, sql);
	assert_string_equal(got, want);
	free(got);
}

/* coord_db_open on url succeeds and leaves the schema at its last version
 * with every table and column the coordination code uses. */
static void open_and_check(const char *url)
{
	char err[512] = "";
	struct coord_db *db = coord_db_open(url, err, sizeof(err));
	if (!db)
		fail_msg("coord_db_open: %s", err);
	coord_db_close(db);
	assert_answer(url, "SELECT MAX(version) FROM orch_coord_schema", "2");
	assert_answer(url, "SELECT COUNT(*) FROM orch_coord_schema", "1");
	assert_answer(url, "SELECT COUNT(*) FROM pg_tables WHERE tablename IN ('orch_board_holder',"
			   " 'orch_run', 'orch_unit', 'orch_item', 'orch_item_file', 'orch_controller')",
		      "6");
	assert_answer(url, "SELECT COUNT(*) FROM information_schema.columns WHERE table_name ="
			   " 'orch_board_holder' AND column_name IN ('token', 'lease_until',"
			   " 'server_start', 'steps')",
		      "4");
	/* a second open finds it done */
	db = coord_db_open(url, err, sizeof(err));
	if (!db)
		fail_msg("coord_db_open again: %s", err);
	coord_db_close(db);
	assert_answer(url, "SELECT MAX(version) FROM orch_coord_schema", "2");
}

static void test_empty_database(void **state)
{
	char *url = pg_createdb_next(pg, "fresh");
	assert_non_null(url);
	open_and_check(url);
	free(url);
}

static void test_first_unversioned_tables_upgrade(void **state)
{
	char *url = pg_createdb_next(pg, "first");
	assert_non_null(url);
	assert_int_equal(pg_psql(url, NULL, first_tables), 0);
	open_and_check(url);
	assert_answer(url, "SELECT note FROM orch_board_holder WHERE board = 'b01'", "kept");
	assert_answer(url, "SELECT plan_sha FROM orch_run WHERE name = 'night'", "abc");
	free(url);
}

static void test_last_unversioned_tables_upgrade(void **state)
{
	char *url = pg_createdb_next(pg, "last");
	assert_non_null(url);
	assert_int_equal(pg_psql(url, NULL, first_tables), 0);
	assert_int_equal(pg_psql(url, NULL, later_columns), 0);
	open_and_check(url);
	assert_answer(url, "SELECT steps FROM orch_board_holder WHERE board = 'b01'", "kept steps");
	free(url);
}

static void test_newer_schema_refused(void **state)
{
	char err[512] = "";
	char *url = pg_createdb_next(pg, "newer");
	assert_non_null(url);
	assert_int_equal(pg_psql(url, NULL, "CREATE TABLE orch_coord_schema (version INTEGER NOT NULL);"
					     "INSERT INTO orch_coord_schema VALUES (99);"),
			 0);
	assert_null(coord_db_open(url, err, sizeof(err)));
	TS_ASSERT_HAS(err, "newer than this orch knows");
	free(url);
}

TS_MAIN(group_setup, group_teardown, test_empty_database, test_first_unversioned_tables_upgrade,
	test_last_unversioned_tables_upgrade, test_newer_schema_refused)
