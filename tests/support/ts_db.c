#include "ts_db.h"
#include "testsupport.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

const struct db_migration ts_db_migs[2] = {
	{ 1, "CREATE TABLE t (id @ID@, name TEXT NOT NULL, v DOUBLE PRECISION, n BIGINT)" },
	{ 2, "ALTER TABLE t ADD COLUMN note TEXT; CREATE INDEX t_name ON t(name)" },
};

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
