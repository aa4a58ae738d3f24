/*
 * Acknowledged changes (orch history ack) through the real binary, on an
 * SQLite history and on a real PostgreSQL server started by the test
 * (tests/lab/pg-lab.sh): ten nights of `orch run --baseline history`, a
 * metric that is 5% slower from night 6 on (threshold 3%). Acknowledged at
 * night 6, nights 7-10 are not regressions and their verdicts, summary.txt,
 * report.html and the history page carry the note; without the ack nights
 * 6-10 are regressions (a step for the worse never settles by itself),
 * with --settle 3 nights 6-8 only (the step, until it settles). Unknown metrics,
 * boards and runs are refused with exit 2 and a suggestion.
 */
#include "pg.h"
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_HOST "127.0.227.1"
#define PG_PORT 55270
#define NIGHTS 10
#define STEP_NIGHT 6
#define NOTE "kernel 6.6: 5% slower by design"

static char *tmp;
static struct pg *pg;
static int settle_runs;   /* the --settle N the nights run with; 0 none */

static int setup(void **state)
{
	tmp = ts_mkdtemp("history-ack");
	return 0;
}

static int teardown(void **state)
{
	pg_down(pg);
	pg = NULL;
	return ts_rmrf_free(&tmp);
}

/* A scenario folder: one local board, a test printing `copy` five times a
 * night at the night's level with a fixed +-0.4% pattern of noise. */
static char *lab(const char *name)
{
	char *dir = xasprintf("%s/%s", tmp, name);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s'", dir), 0);
	free(ts_write_file(dir, "rack.yaml", "boards:\n  here: { local: true }\n"));
	char *yaml = xasprintf(
		"name: nightly\ninventory: rack.yaml\nboards: [here]\ntests:\n"
		"  - name: mem\n    repeat: 5\n    parse: remote-bench\n    run: |\n"
		"      n=$(( $(cat '%s/count') + 1 )); echo $n > '%s/count'\n"
		"      awk -v l=$(cat '%s/level') -v k=$(cat '%s/night') -v r=$n 'BEGIN {"
		" printf \"{\\\"metric\\\":\\\"copy\\\",\\\"value\\\":%%.4f,\\\"unit\\\":\\\"MiB/s\\\","
		"\\\"better\\\":\\\"higher\\\"}\\n\", l * (1 + 0.002 * ((r * 7 + k * 3) %% 5 - 2)) }'\n",
		dir, dir, dir, dir);
	free(ts_write_file(dir, "nightly.yaml", yaml));
	free(yaml);
	return dir;
}

/* Runs night k in dir (db: --db URL or ""); returns the exit code and the
 * run's results.json (*root). */
static int night(const char *dir, const char *db, int k, json_t **root)
{
	char text[16];
	snprintf(text, sizeof(text), "%d\n", k);
	free(ts_write_file(dir, "night", text));
	free(ts_write_file(dir, "level", k >= STEP_NIGHT ? "95\n" : "100\n"));
	free(ts_write_file(dir, "count", "0\n"));
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && NO_COLOR=1 %s run nightly.yaml -q -o runs --baseline "
			  "history --threshold 3 --label n%d %s 2>&1", dir, ORCH_BIN, k, db);
	if (code != 0 && code != 1)
		fprintf(stderr, "night %d: exit %d\n%s\n", k, code, out);
	free(out);
	char *latest = xasprintf("%s/runs/nightly/latest", dir);
	char real[PATH_MAX];
	assert_non_null(realpath(latest, real));
	free(latest);
	*root = ts_json_load_in(real, "results.json");
	return code;
}

/* The night's `copy` metric object in root. */
static json_t *copy_metric(json_t *root)
{
	json_t *r = ts_json_result_or_fail(root, "here", "mem");
	json_t *m = json_object_get(json_object_get(r, "metrics"), "copy");
	if (!m)
		fail_msg("no metric copy in the night's results");
	return m;
}

static char *latest_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/runs/nightly/latest/%s", dir, name);
	char *text = ts_read_file(path);
	free(path);
	assert_non_null(text);
	return text;
}

/* Nights from..to in dir; asserts each exit code: 1 for a regression, every
 * night of the step (its first settle_runs with --settle), or only its
 * first when it was acknowledged there (it ran before the ack). */
static void nights(const char *dir, const char *db, int from, int to, bool acked)
{
	for (int k = from; k <= to; k++) {
		json_t *root;
		int code = night(dir, db, k, &root);
		const char *change = ts_json_str(copy_metric(root), "change");
		bool regression = k >= STEP_NIGHT && !(acked && k > STEP_NIGHT) &&
				  (!settle_runs || k < STEP_NIGHT + settle_runs);
		if (regression != !strcmp(change ? change : "", "regression"))
			fail_msg("night %d: change %s, expected %sa regression", k, change,
				 regression ? "" : "not ");
		assert_int_equal(code, regression ? 1 : 0);
		json_decref(root);
	}
}

/* The ack's marks: the verdict's evidence, summary.txt, report.html, the
 * history page. */
static void check_note_shown(const char *dir, const char *db)
{
	json_t *root;
	assert_int_equal(night(dir, db, NIGHTS + 1, &root), 0);
	json_t *v = json_object_get(copy_metric(root), "verdict");
	assert_string_equal(ts_json_str(v, "ack_note"), NOTE);
	json_decref(root);
	char *summary = latest_file(dir, "summary.txt");
	assert_non_null(strstr(summary, NOTE));
	/* the range line names the runs judged against: those since the ack */
	if (!strstr(summary, "the 5 runs since the acknowledged change of "))
		fail_msg("summary.txt does not name the runs since the ack:\n%s", summary);
	free(summary);
	char *report = latest_file(dir, "report.html");
	TS_ASSERT_HAS(report, "kernel 6.6: 5% slower by design");
	free(report);
	char *page = NULL;
	assert_int_equal(ts_run(&page, "cd '%s' && %s history nightly -o runs %s --format html",
				dir, ORCH_BIN, db), 0);
	assert_non_null(strstr(page, "accepted at n6: " NOTE));
	TS_ASSERT_LACKS(page, "class=\"step worse\"");
	free(page);
}

static void acked_run(const char *dir, const char *db)
{
	nights(dir, db, 1, STEP_NIGHT, true);
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd '%s' && %s history ack nightly copy --at n%d --note '%s' "
				"-o runs %s 2>&1", dir, ORCH_BIN, STEP_NIGHT, NOTE, db), 0);
	free(out);
	assert_int_equal(ts_run(&out, "cd '%s' && %s history ack --list nightly -o runs %s", dir,
				ORCH_BIN, db), 0);
	TS_ASSERT_HAS(out, "copy");
	assert_non_null(strstr(out, NOTE));
	TS_ASSERT_HAS(out, "every board");
	free(out);
	nights(dir, db, STEP_NIGHT + 1, NIGHTS, true);
	check_note_shown(dir, db);
}

static void test_acked_sqlite(void **state)
{
	char *dir = lab("acked");
	acked_run(dir, "");
	free(dir);
}

static void test_not_acked_sqlite(void **state)
{
	char *dir = lab("not-acked");
	nights(dir, "", 1, NIGHTS, false);
	char *page = NULL;
	assert_int_equal(ts_run(&page, "cd '%s' && %s history nightly -o runs --threshold 3 "
				"--format html", dir, ORCH_BIN), 0);
	TS_ASSERT_HAS(page, "class=\"step worse\"");
	TS_ASSERT_LACKS(page, "accepted at");
	TS_FREE(page, dir);
}

/* --settle 3: the step is the new normal after its third night, as orch
 * history --settle 3 says too. */
static void test_settle_sqlite(void **state)
{
	char *dir = lab("settle");
	settle_runs = 3;
	nights(dir, "--settle 3", 1, NIGHTS, false);
	settle_runs = 0;
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd '%s' && %s history nightly -o runs --threshold 3 "
				"--settle 3 --format runs", dir, ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "<- step");
	TS_ASSERT_LACKS(out, "not acknowledged");
	free(out);
	assert_int_equal(ts_run(&out, "cd '%s' && %s history nightly -o runs --threshold 3", dir,
				ORCH_BIN), 0);
	if (!strstr(out, "lower since n6 (5 runs), not acknowledged"))
		fail_msg("orch history without --settle:\n%s", out);
	TS_FREE(out, dir);
}

/* orch history ack refuses what the history does not know, exit 2, with a
 * suggestion; --delete removes an ack, and removing none is an error. */
static void test_errors_and_delete(void **state)
{
	char *dir = lab("errors");
	nights(dir, "", 1, 3, true);
	struct { const char *args, *expect; } bad[] = {
		{ "nightly cpy --at n2 --note x", "unknown metric 'cpy' in the history of nightly "
						   "(did you mean 'copy'?)" },
		{ "nightly mem.cpy --at n2 --note x", "(did you mean 'mem.copy'?)" },
		{ "nightly copy -l hera --at n2 --note x", "unknown board 'hera' in the history of "
							   "nightly (did you mean 'here'?)" },
		{ "nightly copy --at n22 --note x", "unknown run 'n22' in the history of nightly "
						    "(did you mean 'n2'?)" },
		{ "nightyl copy --at n2 --note x", "no runs of 'nightyl'" },
		{ "nightly copy --at n2", "--note TEXT is missing" },
		{ "--delete nightly copy --at n2", "no acknowledged change of copy at n2" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int code = ts_run(&out, "cd '%s' && %s history ack %s -o runs 2>&1", dir, ORCH_BIN,
				  bad[i].args);
		if (code != 2 || !strstr(out, bad[i].expect))
			fail_msg("ack %s: exit %d, expected 2 and \"%s\" in:\n%s", bad[i].args, code,
				 bad[i].expect, out);
		free(out);
	}
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd '%s' && %s history ack nightly mem.copy -l here --at n2 "
				"--note x -o runs 2>&1", dir, ORCH_BIN), 0);
	free(out);
	assert_int_equal(ts_run(&out, "cd '%s' && %s history ack --delete nightly mem.copy -l here "
				"--at n2 -o runs 2>&1", dir, ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "removed");
	free(out);
	assert_int_equal(ts_run(&out, "cd '%s' && %s history ack --list -o runs 2>&1", dir,
				ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "no acknowledged changes");
	TS_FREE(out, dir);
}

static void test_acked_postgres(void **state)
{
	pg = pg_up(PG_HOST, PG_PORT, "orch");
	assert_non_null(pg);
	char *dir = lab("acked-pg");
	char *db = xasprintf("--db %s", pg->url);
	acked_run(dir, db);
	/* the history is in the server, not in an SQLite file beside the runs */
	char *sqlite = xasprintf("%s/runs/orch-history.sqlite", dir);
	assert_false(ts_file_exists(sqlite));
	TS_FREE(sqlite, db, dir);
}

TS_MAIN(setup, teardown, test_acked_sqlite, test_not_acked_sqlite, test_settle_sqlite,
	test_errors_and_delete, test_acked_postgres)
