/* The history's schema, and putting runs into it. */
#include "history/history.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct db_migration history_migrations[] = {
	{ 1, "CREATE TABLE history_run (id @ID@, scenario TEXT NOT NULL, run_id TEXT NOT NULL,"
	     " host TEXT NOT NULL, run_dir TEXT NOT NULL, start_us BIGINT, end_us BIGINT,"
	     " exit_code INTEGER, orch_version TEXT, UNIQUE (host, run_dir));"
	     "CREATE INDEX history_run_scenario ON history_run (scenario, start_us);"
	     "CREATE TABLE history_metric (run BIGINT NOT NULL REFERENCES history_run (id)"
	     " ON DELETE CASCADE, board TEXT NOT NULL, test TEXT NOT NULL, metric TEXT NOT NULL,"
	     " unit TEXT, better TEXT, status TEXT, n INTEGER, median DOUBLE PRECISION,"
	     " mean DOUBLE PRECISION, stddev DOUBLE PRECISION, min DOUBLE PRECISION,"
	     " max DOUBLE PRECISION, samples TEXT);"
	     "CREATE INDEX history_metric_run ON history_metric (run);"
	     "CREATE INDEX history_metric_key ON history_metric (board, test, metric)" },
	/* 2: run labels and board facts */
	{ 2, "ALTER TABLE history_run ADD COLUMN label TEXT;"
	     "CREATE TABLE history_fact (run BIGINT NOT NULL REFERENCES history_run (id)"
	     " ON DELETE CASCADE, board TEXT NOT NULL, name TEXT NOT NULL, value TEXT);"
	     "CREATE INDEX history_fact_run ON history_fact (run)" },
	/* 3: a board's rows of one run found without reading the run's other
	 * boards (history_load reads the last runs of one board at a time);
	 * it serves what the index on run alone served */
	{ 3, "CREATE INDEX history_metric_run_board ON history_metric (run, board);"
	     "DROP INDEX history_metric_run" },
	/* 4: nothing reads a series across runs by name any more (history_load
	 * reads the runs it needs, by run and board); one index less to write
	 * per metric indexed */
	{ 4, "DROP INDEX history_metric_key" },
	/* 5: acknowledged changes (orch history ack), by run id, so that they
	 * outlive an import --rebuild */
	{ 5, "CREATE TABLE history_ack (scenario TEXT NOT NULL, board TEXT NOT NULL,"
	     " test TEXT NOT NULL, metric TEXT NOT NULL, run_id TEXT NOT NULL, note TEXT NOT NULL,"
	     " who TEXT, created_us BIGINT, PRIMARY KEY (scenario, board, test, metric, run_id))" },
};

char *history_target(const char *target, const char *runs_dir)
{
	if (target && *target)
		return xstrdup(target);
	const char *env = getenv("ORCH_DB");
	if (env && *env)
		return xstrdup(env);
	return fs_path_join(runs_dir ? runs_dir : "runs", HISTORY_FILE);
}

int history_open_at(struct db **out, const char *target, int version, char *err, size_t errlen)
{
	struct db *db = NULL;
	int n = 0;
	while (n < (int)(sizeof(history_migrations) / sizeof(history_migrations[0])) &&
	       history_migrations[n].version <= version)
		n++;
	struct db_schema schema = { "history_schema", history_migrations, n };
	char detail[512];
	int rc = db_open(&db, target, err, errlen);
	if (rc == 0 && (rc = db_migrate(db, &schema, NULL, detail, sizeof(detail))) < 0) {
		snprintf(err, errlen, "history %s: %s", db_name(db), detail);
		db_close(db);
		db = NULL;
	}
	*out = db;
	return rc;
}

int history_open(struct db **out, const char *target, char *err, size_t errlen)
{
	return history_open_at(out, target, HISTORY_SCHEMA_VERSION, err, errlen);
}

static char *samples_text(const struct metric_result *m)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_putc(&sb, '[');
	for (size_t i = 0; i < m->n_samples; i++)
		strbuf_printf(&sb, "%s%.17g", i ? "," : "", m->samples[i]);
	strbuf_putc(&sb, ']');
	return strbuf_detach(&sb);
}

static int index_metrics(struct db *db, int64_t id, const struct run_result *run, char *err,
			 size_t errlen)
{
	int rc = 0;
	for (size_t i = 0; i < run->n_results && rc == 0; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t k = 0; k < tr->n_metrics && rc == 0; k++) {
			const struct metric_result *m = &tr->metrics[k];
			if (!m->n_samples)
				continue;
			char *samples = samples_text(m);
			struct db_val v[] = {
				DB_INT(id), DB_TEXT(tr->board), DB_TEXT(tr->test), DB_TEXT(m->name),
				DB_TEXT(m->unit), DB_TEXT(m->higher_is_better ? "higher" : "lower"),
				DB_TEXT(result_status_name(tr->status)), DB_INT((int64_t)m->n_samples),
				DB_REAL(m->median), DB_REAL(m->mean), DB_REAL(m->stddev), DB_REAL(m->min),
				DB_REAL(m->max), DB_TEXT(samples),
			};
			rc = db_exec(db, "INSERT INTO history_metric (run, board, test, metric, unit, better,"
				     " status, n, median, mean, stddev, min, max, samples)"
				     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				     v, 14, NULL, err, errlen);
			free(samples);
		}
	}
	for (size_t b = 0; b < run->n_facts && rc == 0; b++) {
		const struct board_facts *bf = &run->facts[b];
		for (size_t k = 0; k < bf->n && rc == 0; k++) {
			struct db_val v[] = { DB_INT(id), DB_TEXT(bf->board), DB_TEXT(bf->items[k].name),
					      DB_TEXT(bf->items[k].value) };
			rc = db_exec(db, "INSERT INTO history_fact (run, board, name, value) VALUES (?, ?, ?, ?)",
				     v, 4, NULL, err, errlen);
		}
	}
	return rc;
}

static int index_locked(struct db *db, const struct run_result *run, const char *host,
			const char *dir, char *err, size_t errlen)
{
	struct db_val key[] = { DB_TEXT(host), DB_TEXT(dir) };
	struct db_rows *r = NULL;
	int rc = db_exec(db, "DELETE FROM history_metric WHERE run IN (SELECT id FROM history_run"
			 " WHERE host = ? AND run_dir = ?)", key, 2, NULL, err, errlen);
	if (rc == 0)
		rc = db_exec(db, "DELETE FROM history_fact WHERE run IN (SELECT id FROM history_run"
			     " WHERE host = ? AND run_dir = ?)", key, 2, NULL, err, errlen);
	if (rc == 0)
		rc = db_exec(db, "DELETE FROM history_run WHERE host = ? AND run_dir = ?", key, 2, NULL,
			     err, errlen);
	struct db_val v[] = {
		DB_TEXT(run->scenario ? run->scenario : "?"), DB_TEXT(run->run_id ? run->run_id : "?"),
		DB_TEXT(host), DB_TEXT(dir), DB_INT(run->start_wall_us), DB_INT(run->end_wall_us),
		DB_INT(run->exit_code), DB_TEXT(run->orch_version), DB_TEXT(run->label),
	};
	if (rc == 0)
		rc = db_exec(db, "INSERT INTO history_run (scenario, run_id, host, run_dir, start_us, end_us,"
			     " exit_code, orch_version, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
			     v, 9, &r, err, errlen);
	if (rc == 0)
		rc = index_metrics(db, db_cell_int(r, 0, 0, -1), run, err, errlen);
	db_rows_free(r);
	return rc;
}

/* The folder's absolute path without symlinks, so one run is one row. */
static char *history_run_dir(const char *run_dir)
{
	char buf[PATH_MAX];
	return realpath(run_dir, buf) ? xstrdup(buf) : xstrdup(run_dir);
}

int history_index(struct db *db, const struct run_result *run, const char *run_dir, char *err,
		  size_t errlen)
{
	char *dir = history_run_dir(run_dir);
	const char *host = run->host ? run->host : "unknown";
	int rc = db_begin(db, err, errlen);
	if (rc == 0)
		rc = index_locked(db, run, host, dir, err, errlen);
	if (rc == 0)
		rc = db_commit(db, err, errlen);
	if (rc < 0)
		db_rollback(db);
	free(dir);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index dir if it is a run folder, else its subfolders (sorted), depth-limited. */
static int import_walk(struct db *db, const char *dir, int depth, size_t *count, char *err,
		       size_t errlen)
{
	char *results = fs_path_join(dir, "results.json");
	struct stat sb;
	int rc = 0;
	if (stat(results, &sb) == 0) {
		struct run_result run;
		char why[512];
		if (run_result_load(dir, &run, why, sizeof(why)) < 0) {
			fprintf(stderr, "orch history: skipped %s\n", why);
		} else if (run.interrupted || !run.end_wall_us) {
			/* as orch run: only finished runs go into the history */
			fprintf(stderr, "orch history: skipped %s: %s, its results are partial\n",
				dir, run.interrupted ? "interrupted" : "it did not end");
		} else if ((rc = history_index(db, &run, dir, err, errlen)) == 0) {
			(*count)++;
		}
		run_result_release(&run);
		free(results);
		return rc;
	}
	free(results);
	DIR *d = depth < 3 ? opendir(dir) : NULL;
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "latest"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *sub = fs_path_join(dir, names[i]);
		struct stat ls;
		if (rc == 0 && lstat(sub, &ls) == 0 && S_ISDIR(ls.st_mode))
			rc = import_walk(db, sub, depth + 1, count, err, errlen);
		free(sub);
		free(names[i]);
	}
	free(names);
	return rc;
}

int history_import(struct db *db, const char *dir, bool rebuild, size_t *count, char *err,
		   size_t errlen)
{
	struct stat sb;
	*count = 0;
	if (stat(dir, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return DB_EUSAGE;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return DB_EUSAGE;
	}
	if (rebuild) {
		int rc = db_exec_script(db, "DELETE FROM history_metric; DELETE FROM history_fact;"
					" DELETE FROM history_run", err, errlen);
		if (rc < 0)
			return rc;
	}
	return import_walk(db, dir, 0, count, err, errlen);
}
