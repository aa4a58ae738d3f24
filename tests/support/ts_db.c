#include "ts_db.h"
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const struct db_migration ts_db_migs[2] = {
	{ 1, "CREATE TABLE t (id @ID@, name TEXT NOT NULL, v DOUBLE PRECISION, n BIGINT)" },
	{ 2, "ALTER TABLE t ADD COLUMN note TEXT; CREATE INDEX t_name ON t(name)" },
};

void ts_db_round_trip(struct db *db)
{
	char err[512] = "";
	struct db_val p[] = { DB_TEXT("it's ?"), DB_REAL(2.5), DB_INT(1234567890123LL), DB_TEXT(NULL) };
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "INSERT INTO t (name, v, n, note) VALUES (?, ?, ?, ?) RETURNING id",
				 p, 4, &r, err, sizeof(err)), 0);
	assert_int_equal(r->nrows, 1);
	assert_int_equal(db_cell_int(r, 0, 0, -1), 1);
	db_rows_free(r);
	struct db_val q = DB_TEXT("it's ?");
	assert_int_equal(db_exec(db, "SELECT name, v, n, note, '?' FROM t WHERE name = ?", &q, 1, &r,
				 err, sizeof(err)), 0);
	assert_int_equal(r->nrows, 1);
	assert_string_equal(db_cell(r, 0, 0), "it's ?");
	assert_true(db_cell_real(r, 0, 1, 0) == 2.5);
	assert_int_equal(db_cell_int(r, 0, 2, 0), 1234567890123LL);
	assert_null(db_cell(r, 0, 3));
	assert_string_equal(db_cell(r, 0, 4), "?");
	assert_null(db_cell(r, 5, 0));
	assert_string_equal(r->names[0], "name");
	db_rows_free(r);
}

/* One writer: 0 when all its rows are in. */
static int write_rows(const char *target, int k)
{
	char err[512] = "";
	struct db *db = NULL;
	int bad = db_open(&db, target, err, sizeof(err)) != 0 ||
		  db_migrate(db, &(struct db_schema){ "t_schema", ts_db_migs, 2 }, NULL, err,
			     sizeof(err)) != 0;
	for (int i = 0; i < 200 && !bad; i++) {
		struct db_val v[] = { DB_TEXT(k ? "b" : "a"), DB_INT(i) };
		bad = db_begin(db, err, sizeof(err)) != 0 ||
		      db_exec(db, "INSERT INTO t (name, n) VALUES (?, ?)", v, 2, NULL, err,
			      sizeof(err)) != 0 ||
		      db_commit(db, err, sizeof(err)) != 0;
	}
	if (bad)
		fprintf(stderr, "writer %d: %s\n", k, err);
	db_close(db);
	return bad;
}

void ts_db_two_writers(const char *target)
{
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0)
			_exit(write_rows(target, k));
	}
	for (int k = 0; k < 2; k++) {
		int status = -1;
		waitpid(kids[k], &status, 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

struct each_seen {
	struct db_rows *want;   /* the same statement through db_exec */
	int rows;
	int stop_at;            /* -1: never */
};

static int each_row(const struct db_row *row, void *ctx)
{
	struct each_seen *seen = ctx;
	int i = seen->rows++;
	if (i == seen->stop_at)
		return -42;
	for (int c = 0; c < seen->want->ncols; c++) {
		const char *want = db_cell(seen->want, i, c), *got = db_row_text(row, c);
		if (want ? !got || strcmp(want, got) : got != NULL)
			fail_msg("row %d col %d: '%s', db_exec has '%s'", i, c, got ? got : "NULL",
				 want ? want : "NULL");
		assert_true(db_row_int(row, c, -7) == db_cell_int(seen->want, i, c, -7));
		double a = db_row_real(row, c, -7.5), b = db_cell_real(seen->want, i, c, -7.5);
		assert_true(a == b);
	}
	return 0;
}

static int count_t(struct db *db)
{
	char err[256];
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT COUNT(*) FROM t", NULL, 0, &r, err, sizeof(err)), 0);
	int n = (int)db_cell_int(r, 0, 0, -1);
	db_rows_free(r);
	return n;
}

void ts_db_each(const char *target)
{
	char err[512] = "";
	struct db *db = NULL, *other = NULL;
	assert_int_equal(db_open(&db, target, err, sizeof(err)), 0);
	assert_int_equal(db_open(&other, target, err, sizeof(err)), 0);
	const char *names[] = { "it's ?", "12", "3.5", "-0", "", "x1" };
	for (int i = 0; i < 6; i++) {
		struct db_val v[] = { DB_TEXT(names[i]), i % 3 ? DB_REAL(i / 3.0) : DB_NULL,
				      DB_INT(i == 5 ? -9007199254740993LL : i * 1000000007LL),
				      DB_TEXT(i % 2 ? NULL : names[5 - i]) };
		assert_int_equal(db_exec(db, "INSERT INTO t (name, v, n, note) VALUES (?, ?, ?, ?)", v, 4,
					 NULL, err, sizeof(err)), 0);
	}
	const char *sql = "SELECT id, name, v, n, note, v * 3, name || '' FROM t WHERE id > ? ORDER BY id";
	struct db_val from = DB_INT(0);
	struct each_seen seen = { NULL, 0, -1 };
	assert_int_equal(db_exec(db, sql, &from, 1, &seen.want, err, sizeof(err)), 0);
	assert_int_equal(db_each(db, sql, &from, 1, each_row, &seen, err, sizeof(err)), 0);
	assert_int_equal(seen.rows, 6);
	/* a callback that stops: its code, and the statement is usable again */
	seen.rows = 0;
	seen.stop_at = 2;
	assert_int_equal(db_each(db, sql, &from, 1, each_row, &seen, err, sizeof(err)), -42);
	assert_int_equal(seen.rows, 3);
	seen.rows = 0;
	seen.stop_at = -1;
	assert_int_equal(db_each(db, sql, &from, 1, each_row, &seen, err, sizeof(err)), 0);
	assert_int_equal(seen.rows, 6);
	db_rows_free(seen.want);
	assert_int_equal(db_each(db, "SELECT nope FROM t", NULL, 0, each_row, &seen, err, sizeof(err)),
			 DB_EQUERY);
	TS_ASSERT_HAS(err, "nope");
	/* the same text after the table changed under it */
	assert_int_equal(db_exec_script(db, "ALTER TABLE t ADD COLUMN extra TEXT", err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 6);
	assert_int_equal(db_exec_script(other, "DROP TABLE t; CREATE TABLE t (id BIGINT, name TEXT)",
					err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 0);
	/* a read transaction sees one state: not a row committed meanwhile */
	assert_int_equal(db_begin_read(db, err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 0);
	struct db_val row[] = { DB_INT(1), DB_TEXT("new") };
	assert_int_equal(db_exec(other, "INSERT INTO t (id, name) VALUES (?, ?)", row, 2, NULL, err,
				 sizeof(err)), 0);
	assert_int_equal(count_t(db), 0);
	assert_int_equal(db_commit(db, err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 1);
	/* and it does not keep a writer out while it reads */
	assert_int_equal(db_begin_read(db, err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 1);
	assert_int_equal(db_begin(other, err, sizeof(err)), 0);
	assert_int_equal(db_exec(other, "INSERT INTO t (id, name) VALUES (?, ?)", row, 2, NULL, err,
				 sizeof(err)), 0);
	assert_int_equal(db_commit(other, err, sizeof(err)), 0);
	assert_int_equal(db_commit(db, err, sizeof(err)), 0);
	assert_int_equal(count_t(db), 2);
	db_close(other);
	db_close(db);
}
