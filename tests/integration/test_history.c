/*
 * The history end to end, as a user runs it: the orch binary against a
 * loopback ssh lab, ten nights with changing labels and a figure stepped
 * down at night 6, into SQLite (the default, beside the runs folder) and
 * into a real PostgreSQL started by the test (tests/lab/pg-lab.sh) with two
 * controllers writing at once; orch history, --baseline history, import,
 * a rebuild from the folders, and a migration from an older schema.
 */
#include "lab.h"
#include "pg.h"
#include "testsupport.h"
#include "db/db.h"
#include "history/history.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.142"
#define PG_HOST "127.0.140.2"
#define PG_PORT 55432

static struct lab *lab;
static struct pg *pg;
static char *dir;

static int setup(void **state)
{
	if (lab_group_up(&lab, LAB_BASE, 2, 0, false) < 0 || pg_group_up(&pg, PG_HOST, PG_PORT) < 0)
		return -1;
	dir = ts_mkdtemp("history");
	char *inv = xasprintf("defaults:\n"
			      "  ssh: { user: %s, identity: %s, known_hosts: %s, port: %d, connect_timeout: 5s }\n"
			      "boards:\n"
			      "  hist1: { arch: x86_64, ssh: { host: " LAB_BASE ".1 } }\n"
			      "  hist2: { arch: x86_64, ssh: { host: " LAB_BASE ".2 } }\n",
			      lab->user, lab->identity, lab->known_hosts, LAB_PORT);
	free(ts_write_file(dir, "rack.yaml", inv));
	free(inv);
	setenv("ORCH_LOCK_DIR", dir, 1);
	unsetenv("ORCH_DB");
	return 0;
}

static int teardown(void **state)
{
	pg_down(pg);
	lab_down(lab);
	return ts_rmrf_free(&dir);
}

/* Night i's figure: ~100 with +-1.5 of noise, ~80 from night 6 on. */
static double night_value(int i, int board)
{
	static const double noise[] = { 0.9, -1.2, 1.4, -0.4, 0.2, -1.1, 0.7, 1.3, -0.8, 0.3 };
	return (i < 6 ? 100.0 : 80.0) + noise[(i + board * 3) % 10];
}

/* Writes scenario `name` for night i (the version under test is a fact
 * the boards report; the label is taken from it) and runs orch. */
static int run_night(const char *name, int i, const char *runs, const char *extra, char **out)
{
	char *text = xasprintf(
		"name: %s\ninventory: rack.yaml\n"
		"facts: { wireguard: \"echo v0.0.201802%02d\" }\n"
		"label: { fact: wireguard }\n"
		"tests:\n"
		"  - name: iperf\n"
		"    run: 'case {board.name} in hist1) echo tput %.2f ;; *) echo tput %.2f ;; esac'\n"
		"    metrics: [{ name: tput, regex: 'tput ([0-9.]+)', unit: Mbit/s }]\n",
		name, i, night_value(i, 1), night_value(i, 2));
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(dir, file, text);
	int code = ts_run(out, "cd '%s' && %s run %s -q -o %s %s 2>&1", dir, ORCH_BIN, path, runs,
			  extra ? extra : "");
	TS_FREE(text, file, path);
	return code;
}

/* Checks night i's outcome of a --baseline history run (docs/compare.md,
 * "Against the history"): nights 1-5 pass (the noise is not a step), the
 * step is reported at night 6 and at every night after it against the
 * nights before it, naming night 6's label: nobody acknowledged it. */
static void check_night(int i, int code, const char *out)
{
	bool reported = i >= 6;
	char *since = xasprintf("lower since v0.0.20180206 (%d run%s), not acknowledged", i - 5,
				i == 6 ? "" : "s");
	if (code != (reported ? 1 : 0) || (reported && !strstr(out, "slower than the ")) ||
	    (reported && !strstr(out, since)))
		fprintf(stderr, "night %d:\n%s\n", i, out);
	assert_int_equal(code, reported ? 1 : 0);
	/* night 1 has nothing earlier: no range line says it "changed" */
	TS_ASSERT_LACKS(out, "changed");
	if (i == 1)
		assert_null(strstr(out, " than the last"));
	/* nights 2-3 show their change, not judged, with the reason */
	if (i == 2 || i == 3) {
		TS_ASSERT_HAS(out, "; not judged on ");
		assert_non_null(strstr(out, i == 2 ? ": 1 earlier run, needs 3\n"
						   : ": 2 earlier runs, needs 3\n"));
	}
	if (!reported) {
		TS_ASSERT_LACKS(out, "regression");
		free(since);
		return;
	}
	assert_non_null(strstr(out, i == 6 ? "slower than the last 5 runs"
					   : "slower than the 5 runs before v0.0.20180206"));
	assert_non_null(strstr(out, since));
	free(since);
}

/* orch history's text for the scenario: both boards, ten nights each, the
 * step marked on night 6 only. */
static void check_history_text(const char *out)
{
	for (int b = 1; b <= 2; b++) {
		char *head = xasprintf("hist%d  iperf  tput [Mbit/s] (higher is better), last 10 runs", b);
		assert_non_null(strstr(out, head));
		free(head);
	}
	for (int i = 1; i <= 10; i++) {
		char *label = xasprintf("v0.0.201802%02d ", i);
		const char *p = strstr(out, label);
		assert_non_null(p);
		assert_non_null(strstr(p + 1, label));   /* once per board */
		free(label);
	}
	const char *mark = strstr(out, "<- step");
	assert_non_null(mark);
	const char *line = mark;
	while (line > out && line[-1] != '\n')
		line--;
	TS_ASSERT_HAS(line, "v0.0.20180206");
	assert_true(strstr(line, "v0.0.20180206") < mark);
	const char *second = strstr(mark + 1, "<- step");
	assert_non_null(second);
	assert_null(strstr(second + 1, "<- step"));
}

static char *history_cmd(const char *args)
{
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && %s history %s", dir, ORCH_BIN, args);
	if (code != 0)
		fprintf(stderr, "orch history %s:\n%s\n", args, out);
	assert_int_equal(code, 0);
	return out;
}

static int count_lines(const char *text)
{
	int lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	return lines;
}

/* The compact text (a line per test x metric, the boards folded; a line per
 * board x metric with --per-board) and the html page of the same history;
 * where selects the database (-o runs, --db URL). */
static void check_history_views(const char *scenario, const char *where)
{
	char *args = xasprintf("%s %s 2>&1", scenario, where);
	char *out = history_cmd(args);
	free(args);
	if (count_lines(out) != 2 || !strstr(out, "iperf  tput (higher better)  hist[1-2] "))
		fail_msg("folded history:\n%s", out);
	assert_non_null(strstr(out, "hist[1-2]: "));   /* both boards have the step */
	TS_ASSERT_HAS(out, "% lower since v0.0.20180206 (5 runs), not acknowledged");
	free(out);
	args = xasprintf("%s %s --per-board 2>&1", scenario, where);
	out = history_cmd(args);
	free(args);
	if (count_lines(out) != 3 || !strstr(out, "BOARD"))
		fprintf(stderr, "compact history:\n%s\n", out);
	assert_int_equal(count_lines(out), 3);  /* a header and a line per board */
	TS_ASSERT_HAS(out, "hist1  iperf  tput (higher better)", "v0.0.20180201", "v0.0.20180210",
		" Mbit/s", "% lower since v0.0.20180206 (5 runs), not acknowledged");
	assert_null(strstr(out, "e+"));         /* never an exponent */
	free(out);
	args = xasprintf("%s %s --format html", scenario, where);
	out = history_cmd(args);
	free(args);
	assert_true(strncmp(out, "<!DOCTYPE html>", 15) == 0);
	assert_null(strstr(out, "http"));       /* self-contained, no network */
	TS_ASSERT_LACKS(out, "<script");
	/* a row per test x metric, the boards folded, each board's chart under it */
	TS_ASSERT_HAS(out, "<tr class=\"row\"><th>iperf \u00b7 tput<small>",
		"hist[1-2] \u00b7 10 runs", "<b>hist1</b>", "<b>hist2</b>");
	/* charts with axes in the unit, run labels, the step */
	const char *svg = strstr(out, "<svg class=\"trend\"");
	assert_non_null(svg);
	assert_non_null(strstr(svg + 1, "<svg class=\"trend\""));
	TS_ASSERT_HAS(out, ">Mbit/s</text>", ">v0.0.201802", "class=\"step\"", "class=\"window\"");
	/* every point links to its run's report: the row's and each board's */
	size_t links = 0;
	for (const char *p = out; (p = strstr(p, "/report.html\">")); p++)
		links++;
	assert_int_equal(links, 30);
	free(out);
}

static void test_sqlite_ten_nights(void **state)
{
	for (int i = 1; i <= 10; i++) {
		char *out = NULL;
		int code = run_night("nightly", i, "runs", "--baseline history", &out);
		check_night(i, code, out);
		free(out);
		sleep(1);   /* one run folder per second */
	}
	char *path = xasprintf("%s/runs/orch-history.sqlite", dir);
	assert_true(ts_file_exists(path));
	free(path);
	char *out = history_cmd("nightly -o runs --format runs 2>&1");
	check_history_text(out);
	free(out);
	check_history_views("nightly", "-o runs");
	/* one board, one metric, the last 3 */
	out = history_cmd("nightly -o runs -l hist2 --metric iperf.tput --last 3 --format runs 2>&1");
	TS_ASSERT_LACKS(out, "hist1");
	TS_ASSERT_HAS(out, "last 3 runs");
	TS_ASSERT_LACKS(out, "v0.0.20180207 ");
	TS_ASSERT_HAS(out, "v0.0.20180210 ");
	free(out);
	/* csv: a header and 20 rows; json: 2 series of 10 with the step at night 6 */
	out = history_cmd("nightly -o runs --format csv");
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 21);
	TS_ASSERT_HAS(out, "nightly,hist1,iperf,tput,Mbit/s,higher,");
	free(out);
	out = history_cmd("nightly -o runs --format json");
	json_error_t jerr;
	json_t *j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 2);
	json_t *s0 = json_array_get(j, 0);
	assert_int_equal(json_array_size(json_object_get(s0, "runs")), 10);
	assert_string_equal(json_string_value(json_object_get(json_object_get(s0, "step"), "label")),
			    "v0.0.20180206");
	json_decref(j);
	free(out);
	/* compare names the runs by label and words the change across boards */
	char *cmp = NULL;
	assert_int_equal(ts_run(&cmp, "cd '%s' && set -- runs/nightly/2*; %s compare \"$5\" \"$6\"", dir,
				ORCH_BIN), 0);
	TS_ASSERT_HAS(cmp, "v0.0.20180206 vs v0.0.20180205\n");
	const char *want = "iperf.tput: v0.0.20180206 is 17.6% (hist2) to 19.1% slower (hist1) than "
			   "v0.0.20180205 on both boards; not judged: one sample on both boards";
	if (!strstr(cmp, want))
		fprintf(stderr, "%s\n", cmp);
	assert_non_null(strstr(cmp, want));
	TS_ASSERT_HAS(cmp, "facts that changed:\n  wireguard: v0.0.20180205 -> v0.0.20180206 (");
	free(cmp);
	/* the report's trend line marks the current run */
	char *html = xasprintf("%s/runs/nightly/latest/report.html", dir);
	char *text = ts_read_file(html);
	assert_non_null(text);
	TS_ASSERT_HAS(text, "class=\"trend\"");
	TS_FREE(text, html);
}

/* The folders are the source of truth: a history rebuilt from them tells
 * the same nights. */
static void test_sqlite_rebuild(void **state)
{
	char *before = history_cmd("nightly -o runs --format csv");
	char *db = xasprintf("%s/runs/orch-history.sqlite", dir);
	assert_int_equal(ts_run(NULL, "rm -f '%s' '%s-wal' '%s-shm'", db, db, db), 0);
	char *out = history_cmd("import runs 2>&1");
	TS_ASSERT_HAS(out, "10 runs indexed");
	free(out);
	char *after = history_cmd("nightly -o runs --format csv");
	assert_string_equal(before, after);
	free(after);
	/* importing again replaces, never doubles */
	free(history_cmd("import runs --rebuild 2>&1"));
	free(history_cmd("import runs 2>&1"));
	after = history_cmd("nightly -o runs --format csv");
	assert_string_equal(before, after);
	free(after);
	/* a file that is no database: --rebuild keeps it aside and makes it again */
	assert_int_equal(ts_run(NULL, "rm -f '%s-wal' '%s-shm' && head -c 8192 /dev/urandom > '%s'",
				db, db, db), 0);
	out = history_cmd("import runs --rebuild 2>&1");
	TS_ASSERT_HAS(out, "10 runs indexed", "kept as");
	free(out);
	char *aside = xasprintf("%s.corrupt", db);
	assert_true(ts_file_exists(aside));
	free(aside);
	after = history_cmd("nightly -o runs --format csv");
	assert_string_equal(before, after);
	TS_FREE(after, before, db);
}

/* Two orch runs at once (one per board) into one SQLite file. */
static void test_sqlite_two_at_once(void **state)
{
	for (int round = 0; round < 3; round++) {
		char *out = NULL;
		int code = ts_run(&out, "cd '%s' && (%s run nightly.yaml -q -o runs -l hist1 --label a%d & "
				  "%s run nightly.yaml -q -o runs -l hist2 --label b%d & wait) 2>&1",
				  dir, ORCH_BIN, round, ORCH_BIN, round);
		assert_int_equal(code, 0);
		assert_null(strstr(out, "history"));   /* no warning about the history */
		free(out);
	}
	char *out = history_cmd("nightly -o runs --last 13 --format csv");
	for (int round = 0; round < 3; round++) {
		char *a = xasprintf(",hist1,iperf,tput,Mbit/s,higher,");
		assert_non_null(strstr(out, a));
		free(a);
		char *la = xasprintf(",a%d,", round), *lb = xasprintf(",b%d,", round);
		assert_non_null(strstr(out, la));
		assert_non_null(strstr(out, lb));
		TS_FREE(la, lb);
	}
	free(out);
}

/* Ten nights, each by two controllers at once (one board each, their own
 * runs folders) into one PostgreSQL; both judge against the shared history. */
static void test_pg_two_controllers(void **state)
{
	for (int i = 1; i <= 10; i++) {
		char *out = NULL;
		run_night("pgnightly", i, "runsA", "--dry-run", &out);   /* writes the scenario */
		free(out);
		int code = ts_run(&out, "cd '%s' || exit 9; "
				  "(%s run pgnightly.yaml -q -o runsA -l hist1 --db '%s' --baseline history "
				  ">a.log 2>&1; echo $? >a.rc) & "
				  "(%s run pgnightly.yaml -q -o runsB -l hist2 --db '%s' --baseline history "
				  ">b.log 2>&1; echo $? >b.rc) & wait; cat a.rc b.rc",
				  dir, ORCH_BIN, pg->url, ORCH_BIN, pg->url);
		assert_int_equal(code, 0);
		char *a = xasprintf("%s/a.log", dir), *b = xasprintf("%s/b.log", dir);
		char *la = ts_read_file(a), *lb = ts_read_file(b);
		int ca = -1, cb = -1;
		sscanf(out, "%d %d", &ca, &cb);
		check_night(i, ca, la);
		check_night(i, cb, lb);
		TS_FREE(a, b, la, lb, out);
		sleep(1);
	}
	char *args = xasprintf("pgnightly --db '%s' --format runs 2>&1", pg->url);
	char *out = history_cmd(args);
	check_history_text(out);
	TS_FREE(out, args);
	args = xasprintf("--db '%s'", pg->url);
	check_history_views("pgnightly", args);
	free(args);
	/* nothing was written beside the runs folders */
	char *f = xasprintf("%s/runsA/orch-history.sqlite", dir);
	assert_false(ts_file_exists(f));
	free(f);
	/* ORCH_DB names the database too */
	char *env_out = NULL;
	assert_int_equal(ts_run(&env_out, "cd '%s' && ORCH_DB='%s' %s history pgnightly -l hist1 --last 2 "
				"--format runs",
				dir, pg->url, ORCH_BIN), 0);
	TS_ASSERT_HAS(env_out, "v0.0.20180210");
	free(env_out);
}

/* Run folders written with SQLite go into PostgreSQL unchanged. */
static void test_pg_import(void **state)
{
	char *url = pg_createdb(pg, "imported");
	assert_non_null(url);
	char *args = xasprintf("import runs --db '%s' 2>&1", url);
	char *out = history_cmd(args);
	TS_ASSERT_HAS(out, "16 runs indexed");
	TS_FREE(out, args);
	char *sq = history_cmd("nightly -o runs --last 0 --format csv");
	args = xasprintf("nightly --db '%s' --last 0 --format csv", url);
	char *pq = history_cmd(args);
	assert_string_equal(sq, pq);
	TS_FREE(sq, pq, args, url);
}

/* A history made by an older orch (schema 1: no labels, no facts) is
 * brought up to date on first use and keeps its nights. */
static void check_migration(const char *target)
{
	char err[512] = "";
	struct db *db = NULL;
	assert_int_equal(history_open_at(&db, target, 1, err, sizeof(err)), 0);
	assert_int_equal(db_schema_version(db, "history_schema", err, sizeof(err)), 1);
	assert_int_equal(db_exec_script(db,
		"INSERT INTO history_run (scenario, run_id, host, run_dir, start_us, end_us, exit_code)"
		" VALUES ('old', '20250101-010101', 'h', '/gone/1', 1735693261000000, 1735693262000000, 0);"
		"INSERT INTO history_metric (run, board, test, metric, unit, better, status, n, median,"
		" mean, stddev, min, max, samples) SELECT id, 'apu2', 'iperf', 'tput', 'Mbit/s', 'higher',"
		" 'pass', 1, 912.5, 912.5, 0, 912.5, 912.5, '[912.5]' FROM history_run",
		err, sizeof(err)), 0);
	db_close(db);
	char *args = xasprintf("old --db '%s' --format runs 2>&1", target);
	char *out = history_cmd(args);
	TS_ASSERT_HAS(out, "apu2  iperf  tput [Mbit/s]", "20250101-010101", "912.5");
	TS_FREE(out, args);
	assert_int_equal(db_open(&db, target, err, sizeof(err)), 0);
	assert_int_equal(db_schema_version(db, "history_schema", err, sizeof(err)), HISTORY_SCHEMA_VERSION);
	struct db_rows *r = NULL;
	assert_int_equal(db_exec(db, "SELECT label FROM history_run", NULL, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(r->nrows, 1);
	assert_null(db_cell(r, 0, 0));
	db_rows_free(r);
	db_close(db);
}

static void test_migration_sqlite(void **state)
{
	char *path = xasprintf("%s/old.sqlite", dir);
	check_migration(path);
	free(path);
}

static void test_migration_pg(void **state)
{
	char *url = pg_createdb(pg, "old");
	check_migration(url);
	free(url);
}

TS_MAIN(setup, teardown, test_sqlite_ten_nights, test_sqlite_rebuild, test_sqlite_two_at_once,
	test_pg_two_controllers, test_pg_import, test_migration_sqlite, test_migration_pg)
