/*
 * The run folder when things go wrong around orch itself: orch killed with
 * SIGKILL mid-run (the journal keeps every finished test and `orch report`
 * rebuilds results.json and the reports from it), a full disk (a small
 * tmpfs: exit 3, said so, no result lost), stdout on a full device, and a
 * `latest` that is a folder. Local boards only: nothing to contact.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_BOARDS 4

static char *dir;

static int setup(void **state)
{
	dir = ts_mkdtemp("journal");
	struct strbuf sb = STRBUF_INIT;
	ts_local_boards(&sb, "l", 1, N_BOARDS);
	free(ts_write_file(dir, "rack.yaml", strbuf_str(&sb)));
	strbuf_release(&sb);
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

static char *write_scenario(const char *name, const char *tests)
{
	char *text = xasprintf("name: %s\ninventory: rack.yaml\nboards: [all]\ntests:\n%s", name,
			       tests);
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(dir, file, text);
	TS_FREE(text, file);
	return path;
}

/* The one run folder under runs/NAME (caller frees), or NULL. */
static char *only_run_folder(const char *name)
{
	char *out = NULL;
	ts_run(&out, "ls -d '%s/runs/%s'/2*", dir, name);
	if (out && *out && !strchr(out, '\n'))
		return out;
	char *nl = out ? strchr(out, '\n') : NULL;
	if (nl && nl[1] == '\0') {
		*nl = '\0';
		return out;
	}
	free(out);
	return NULL;
}

static size_t count_lines(const char *path)
{
	char *text = ts_read_file(path);
	size_t n = 0;
	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

static size_t n_results(json_t *root)
{
	return json_array_size(json_object_get(root, "results"));
}

/* SIGKILL while the last test of every board runs: the journal holds the
 * 3 x 4 finished tests; `orch report` rebuilds results.json (interrupted,
 * exit_code 130), junit.xml, summary.txt and report.html from it. */
static void test_kill9_then_report_rebuilds(void **state)
{
	char *pids = xasprintf("%s/pids", dir);
	mkdir(pids, 0755);
	char *tests = xasprintf("  - { name: one, run: 'echo one' }\n"
				"  - { name: two, run: 'echo two; exit 1' }\n"
				"  - { name: three, run: 'echo three' }\n"
				"  - { name: stuck, run: 'echo $$ > %s/$(date +%%s%%N); exec sleep 300' }\n",
				pids);
	char *scen = write_scenario("killed", tests);
	char *log = xasprintf("%s/killed.log", dir);
	char *cmd = xasprintf("cd '%s' && exec %s run %s -q -o runs", dir, ORCH_BIN, scen);
	pid_t pid = ts_spawn(cmd, log);

	char *run = NULL;
	size_t lines = 0;
	for (int i = 0; i < 300 && lines < 1 + 3 * N_BOARDS; i++) {
		usleep(100 * 1000);
		free(run);
		run = only_run_folder("killed");
		if (run) {
			char *journal = xasprintf("%s/journal.jsonl", run);
			lines = count_lines(journal);
			free(journal);
		}
	}
	assert_non_null(run);
	assert_int_equal(lines, 1 + 3 * N_BOARDS);
	pid_t dead = pid;
	kill(-pid, SIGKILL);
	ts_stop(&pid);
	/* the stuck commands outlive a SIGKILLed orch: stop them by their pids */
	ts_run(NULL, "cat '%s'/* | xargs -r kill -9", pids);
	/* what a kill during a write leaves: temporary files of the dead orch
	 * (removed by the report) and one of a live writer (kept) */
	char *stale = xasprintf("%s/report.html.tmp.%ld.4", run, (long)dead);
	char *stale_test = xasprintf("%s/l1/one/result.json.tmp.%ld.0", run, (long)dead);
	char *live = xasprintf("%s/junit.xml.tmp.%ld.0", run, (long)getpid());
	free(ts_write_file(run, strrchr(stale, '/') + 1, "<html>half"));
	free(ts_write_file(run, strstr(stale_test, "l1/one/"), "{\"board\""));
	free(ts_write_file(run, strrchr(live, '/') + 1, "<testsuites"));

	char *out = NULL;
	int code = ts_run(&out, "%s report '%s'", ORCH_BIN, run);
	assert_int_equal(code, 0);
	assert_false(ts_file_exists(stale));
	assert_false(ts_file_exists(stale_test));
	assert_true(ts_file_exists(live));
	TS_FREE(stale, stale_test, live);
	TS_ASSERT_HAS(out, "did not end", "rebuilt from journal.jsonl: 12 results");
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	assert_int_equal(n_results(res), 3 * N_BOARDS);
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 130);
	assert_string_equal(ts_json_str(ts_json_result_or_fail(res, "l3", "two"), "status"), "fail");
	assert_string_equal(ts_json_str(ts_json_result_or_fail(res, "l4", "one"), "status"), "pass");
	/* grouped by board, each board's tests in the order they ran */
	json_t *first = json_array_get(json_object_get(res, "results"), 0);
	json_t *second = json_array_get(json_object_get(res, "results"), 1);
	assert_string_equal(ts_json_str(first, "board"), ts_json_str(second, "board"));
	assert_string_equal(ts_json_str(first, "test"), "one");
	assert_string_equal(ts_json_str(second, "test"), "two");
	json_decref(res);
	char *junit_path = xasprintf("%s/junit.xml", run);
	char *junit = ts_read_file(junit_path);
	assert_non_null(junit);
	size_t n_cases = 0;
	for (const char *p = junit; (p = strstr(p, "<testcase")); p++)
		n_cases++;
	assert_int_equal(n_cases, 3 * N_BOARDS);
	char *html = xasprintf("%s/report.html", run), *sum = xasprintf("%s/summary.txt", run);
	assert_true(ts_file_exists(html));
	assert_true(ts_file_exists(sum));
	/* a second report reads the rebuilt results.json: same answer */
	free(out);
	code = ts_run(&out, "%s report '%s'", ORCH_BIN, run);
	assert_int_equal(code, 0);
	TS_FREE(html, sum, junit, junit_path, out, run, cmd, log, scen, tests, pids);
}

/* A 1 MiB tmpfs filled up by the first test (a file of its own, so every
 * test passes): the run cannot write its results, exits 3 and says so
 * instead of 0, and loses no result: all 9 are in the journal (its space
 * reserved ahead), and once there is room `orch report` rebuilds
 * results.json, with exit_code 3. */
static void test_disk_full_exits_3_keeps_results(void **state)
{
	if (!ts_is_root())
		ts_skip("needs root to mount a tmpfs (in a mount namespace of its own)");
	char *tests = xasprintf("  - { name: fill, run: 'head -c 3000000 /dev/zero >%s/small/fill.bin 2>/dev/null; true' }\n"
				"  - { name: t2, run: 'true' }\n"
				"  - { name: t3, run: 'true' }\n"
				"  - { name: t4, run: 'true' }\n"
				"  - { name: t5, run: 'true' }\n"
				"  - { name: t6, run: 'true' }\n"
				"  - { name: t7, run: 'true' }\n"
				"  - { name: t8, run: 'true' }\n"
				"  - { name: t9, run: 'true' }\n", dir);
	char *scen = write_scenario("full", tests);
	char *script = xasprintf(
		"set -u; cd '%s' && mkdir -p small && mount -t tmpfs -o size=1m tmpfs small || exit 99\n"
		"%s run %s -q -o small/runs -l l1 >run.out 2>&1; echo $? >run.rc\n"
		"run=$(ls -d small/runs/full/2*)\n"
		"cp \"$run\"/results.json results-during.json 2>/dev/null\n"
		"rm -f small/fill.bin\n"
		"%s report \"$run\" >report.out 2>&1; echo $? >report.rc\n"
		"cp \"$run\"/results.json results-full.json\n",
		dir, ORCH_BIN, scen, ORCH_BIN);
	char *path = ts_write_file(dir, "full.sh", script);
	char *out = NULL;
	int code = ts_run(&out, "unshare --mount --propagation private sh %s", path);
	assert_int_equal(code, 0);
	char *f = xasprintf("%s/run.rc", dir);
	char *rc = ts_read_file(f);
	free(f);
	f = xasprintf("%s/run.out", dir);
	char *run_out = ts_read_file(f);
	free(f);
	assert_non_null(rc);
	if (atoi(rc) != 3)
		fail_msg("exit %s, output:\n%s", rc, run_out);
	TS_ASSERT_HAS(run_out, "No space left on device", "the results could not all be written");
	/* what was on disk before the rebuild never says 0 for a finished run */
	json_t *during = ts_json_load_in(dir, "results-during.json");
	if (during && !json_is_null(json_object_get(during, "end")))
		assert_int_equal(json_integer_value(json_object_get(during, "exit_code")), 3);
	json_decref(during);
	f = xasprintf("%s/report.rc", dir);
	free(rc);
	rc = ts_read_file(f);
	free(f);
	assert_int_equal(atoi(rc), 0);
	json_t *res = ts_json_load_in(dir, "results-full.json");
	assert_non_null(res);
	assert_int_equal(n_results(res), 9);
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 3);
	assert_false(json_is_true(json_object_get(res, "interrupted")));
	for (int i = 2; i <= 9; i++) {
		char name[8];
		snprintf(name, sizeof(name), "t%d", i);
		assert_string_equal(ts_json_str(ts_json_result_or_fail(res, "l1", name), "status"),
				    "pass");
	}
	json_decref(res);
	TS_FREE(rc, run_out, out, path, script, scen, tests);
}

/* stdout that takes nothing (/dev/full) under --format json: exit 3. */
static void test_format_json_to_full_device_exits_3(void **state)
{
	char *scen = write_scenario("json", "  - { name: ok, run: 'true' }\n");
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && { %s run %s -q -o runs -l l1 --format json 2>&1 >/dev/full; }",
			  dir, ORCH_BIN, scen);
	assert_int_equal(code, 3);
	TS_ASSERT_HAS(out, "cannot write --format json to stdout");
	free(out);
	/* and to a working stdout: exit 0 */
	code = ts_run(&out, "cd '%s' && %s run %s -q -o runs -l l1 --format json 2>/dev/null",
		      dir, ORCH_BIN, scen);
	assert_int_equal(code, 0);
	TS_ASSERT_HAS(out, "\"results\"");
	TS_FREE(out, scen);
}

/* A folder called latest is the user's: the run passes, writes every
 * report, warns, and leaves the folder as it was; so does the next run. */
static void test_latest_folder_loses_no_report(void **state)
{
	char *scen = write_scenario("lat", "  - { name: ok, run: 'true' }\n");
	char *latest = xasprintf("%s/runs/lat/latest", dir);
	ts_run(NULL, "mkdir -p '%s' && echo mine > '%s/keep.txt'", latest, latest);
	for (int round = 0; round < 2; round++) {
		char *out = NULL;
		int code = ts_run(&out, "cd '%s' && %s run %s -q -o runs -l l1", dir, ORCH_BIN, scen);
		if (code != 0)
			fail_msg("exit %d:\n%s", code, out);
		TS_ASSERT_HAS(out, "is a folder, not a link");
		free(out);
	}
	char *n = NULL;
	ts_run(&n, "ls -d '%s'/runs/lat/2*/junit.xml '%s'/runs/lat/2*/summary.txt "
		   "'%s'/runs/lat/2*/report.html | wc -l", dir, dir, dir);
	assert_int_equal(atoi(n), 6);
	free(n);
	char *keep = xasprintf("%s/keep.txt", latest);
	char *text = ts_read_file(keep);
	assert_string_equal(text, "mine\n");
	TS_FREE(text, keep, latest, scen);
}

/* Waits up to 30 s for dir/rel to exist. */
static bool wait_for(const char *run, const char *rel)
{
	char *path = xasprintf("%s/%s", run, rel);
	bool ok = false;
	for (int i = 0; i < 300 && !(ok = ts_file_exists(path)); i++)
		usleep(100 * 1000);
	if (!ok)
		print_error("no %s\n", path);
	free(path);
	return ok;
}

/* The runs of scenario NAME in the history (its SQLite file), as
 * "exit_code" lines; "" when none. */
static char *history_rows(const char *name)
{
	char *out = NULL;
	int rc = ts_run(&out, "sqlite3 '%s/runs/orch-history.sqlite' "
			      "\"select exit_code from history_run where scenario = '%s'\"",
			dir, name);
	assert_int_equal(rc, 0);
	return out ? out : xstrdup("");
}

/* A run killed with SIGKILL while its test runs: `orch report` rebuilds it
 * as interrupted (130, not 0) and neither it nor `orch history import`
 * indexes it. */
static void test_kill9_never_indexed(void **state)
{
	char *pids = xasprintf("%s/pids25", dir);
	mkdir(pids, 0755);
	char *tests = xasprintf("  - { name: slow, run: 'echo $$ > %s/p; echo started; exec sleep 30' }\n",
				pids);
	char *scen = write_scenario("killed25", tests);
	char *log = xasprintf("%s/killed25.log", dir);
	char *cmd = xasprintf("cd '%s' && exec %s run %s -q -o runs", dir, ORCH_BIN, scen);
	pid_t pid = ts_spawn(cmd, log);
	char *run = NULL;
	for (int i = 0; i < 300 && !run; i++) {
		run = only_run_folder("killed25");
		if (run && !ts_file_exists(run)) {
			free(run);
			run = NULL;
		}
		if (!run)
			usleep(100 * 1000);
	}
	assert_non_null(run);
	if (!wait_for(run, "l1/slow/stdout.log")) {
		char *text = ts_read_file(log);
		print_error("orch run said:\n%s\n", text ? text : "(nothing)");
		free(text);
		fail();
	}
	kill(-pid, SIGKILL);
	ts_stop(&pid);
	ts_run(NULL, "cat '%s'/* | xargs -r kill -9", pids);
	assert_int_equal(ts_run(NULL, "%s report '%s'", ORCH_BIN, run), 0);
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 130);
	json_decref(res);
	ts_run(NULL, "cd '%s' && %s history import runs", dir, ORCH_BIN);
	char *rows = history_rows("killed25");
	assert_string_equal(rows, "");
	TS_FREE(rows, run, log, cmd, scen, tests, pids);
}

/* The history indexes a run only once its results.json is whole: a run
 * whose results.json cannot be written (a folder in its place) exits 3
 * and is not in the history (it was indexed as exit 0 before the file). */
static void test_unwritten_results_not_indexed(void **state)
{
	char *tests = xasprintf("  - { name: wait, run: 'while [ ! -e %s/go25 ]; do sleep 0.05; done' }\n",
				dir);
	char *scen = write_scenario("unwritten25", tests);
	char *log = xasprintf("%s/unwritten25.log", dir);
	char *cmd = xasprintf("cd '%s' && exec %s run %s -q -o runs", dir, ORCH_BIN, scen);
	pid_t pid = ts_spawn(cmd, log);
	char *run = NULL;
	for (int i = 0; i < 300 && !run; i++) {
		run = only_run_folder("unwritten25");
		if (run && !ts_file_exists(run)) {
			free(run);
			run = NULL;
		}
		if (!run)
			usleep(100 * 1000);
	}
	assert_non_null(run);
	if (!wait_for(run, "l1/wait/stdout.log")) {
		char *text = ts_read_file(log);
		print_error("orch run said:\n%s\n", text ? text : "(nothing)");
		free(text);
		fail();
	}
	assert_int_equal(ts_run(NULL, "rm -f '%s/results.json' && mkdir '%s/results.json'", run, run), 0);
	free(ts_write_file(dir, "go25", "go"));
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	char *rows = history_rows("unwritten25");
	assert_string_equal(rows, "");
	TS_FREE(rows, run, log, cmd, scen, tests);
}

TS_MAIN(setup, teardown, test_kill9_then_report_rebuilds, test_kill9_never_indexed,
	test_unwritten_results_not_indexed, test_disk_full_exits_3_keeps_results,
	test_format_json_to_full_device_exits_3, test_latest_folder_loses_no_report)
