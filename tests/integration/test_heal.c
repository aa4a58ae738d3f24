/*
 * A rack that heals, through `orch run` against real OpenSSH
 * boards of tests/lab/sshd-lab.sh on 127.0.207.x:
 *   - an sshd that comes up late (started by this test once the first try
 *     has failed) passes on the retry: 2 tries recorded, flaky, exit 0;
 *   - a board with power control is power-cycled before the retry (the
 *     power command starts its sshd): 2 tries, the second power_cycled;
 *   - a test failure is never retried;
 *   - --rerun RUN_DIR runs only the pair that failed there, and says so;
 *   - --max-fail 1 (-x) starts no test after the first failure;
 *   - a board whose health check fails goes offline: the next run skips it
 *     without contacting it (its sshd logs no session, its marker file
 *     stays empty), orch boards and orch who show it, and it returns after
 *     orch boards --online; --offline --note takes one offline by hand;
 *   - offline_after: N infrastructure errors in a row take a board offline.
 * Run as root (the lab user).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.207"

#define HEALTH_TRACE "/tmp/orch-heal-health.trace"
#define HEALTH_OK "/tmp/orch-heal-health.ok"

struct fx {
	struct lab *lab;
	char *dir;
	char *inventory;
	pid_t late_sshd;
};

static struct fx F;

/* Stops lab board i's sshd (its daemon.pid) and waits until its port is
 * closed. */
static void stop_board_sshd(int i)
{
	char *pidfile = xasprintf("%s/board%d/daemon.pid", F.lab->dir, i);
	char *text = ts_read_file(pidfile);
	pid_t pid = text ? (pid_t)atoi(text) : 0;
	if (pid > 0) {
		kill(pid, SIGTERM);
		for (int64_t dl = deadline_in_ms(5000); !deadline_expired(dl); usleep(20000))
			if (waitpid(pid, NULL, WNOHANG) == pid || kill(pid, 0) < 0)
				break;
	}
	TS_FREE(text, pidfile);
}

/* Starts lab board i's sshd again (in the foreground, a child of this
 * test); its pid. */
static pid_t start_board_sshd(int i)
{
	char *cmd = xasprintf("exec /usr/sbin/sshd -D -e -f %s/board%d/sshd_config", F.lab->dir, i);
	char *log = xasprintf("%s/board%d/late.log", F.lab->dir, i);
	pid_t pid = ts_spawn(cmd, log);
	TS_FREE(log, cmd);
	return pid;
}

static int setup(void **state)
{
	setenv("SSHD_LAB_LOGLEVEL", "VERBOSE", 1);   /* a line per session opened */
	if (lab_group_up(&F.lab, LAB_BASE, 3, 0, false) < 0)
		return -1;
	F.dir = ts_mkdtemp("heal");
	chmod(F.dir, 0755);
	F.inventory = lab_write_inventory(
		F.lab, F.dir, "rack.yaml", "connect_timeout: 5s",
		"boards:\n"
		"  good: { arch: x86_64, ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  late: { arch: x86_64, ssh: { host: " LAB_BASE ".2, port: %d } }\n"
		"  third: { arch: x86_64, ssh: { host: " LAB_BASE ".3, port: %d } }\n",
		LAB_PORT, LAB_PORT, LAB_PORT);
	/* the same rack with health: checks (third) and offline_after (late) */
	free(lab_write_inventory(
		F.lab, F.dir, "rack-health.yaml", "connect_timeout: 5s",
		"boards:\n"
		"  late: { arch: x86_64, offline_after: 2, ssh: { host: " LAB_BASE ".2, port: %d } }\n"
		"  third:\n"
		"    arch: x86_64\n"
		"    ssh: { host: " LAB_BASE ".3, port: %d }\n"
		"    health:\n"
		"      - name: marker\n"
		"        run: \"echo health >> " HEALTH_TRACE "; test -e " HEALTH_OK "\"\n",
		LAB_PORT, LAB_PORT));
	char *locks = xasprintf("%s/locks", F.dir);
	mkdir(locks, 0755);
	setenv("ORCH_LOCK_DIR", locks, 1);   /* the health state of this test alone */
	free(locks);
	return 0;
}

static int teardown(void **state)
{
	ts_stop(&F.late_sshd);
	lab_down(F.lab);
	free(F.inventory);
	return ts_rmrf_free(&F.dir);
}

/* scenario NAME on the boards of selector, written to F.dir/NAME.yaml;
 * returns its path (caller frees). */
static char *write_scenario(const char *name, const char *selector, const char *defaults,
			    const char *tests)
{
	char *all = xasprintf("timeout: 60s%s%s", defaults ? ", " : "", defaults ? defaults : "");
	char *sc = ts_rack_scenario(F.dir, name, selector, all, tests);
	free(all);
	return sc;
}

static const json_t *result_of(const json_t *res, const char *board, const char *test)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(res, "results"), i, r) {
		if (!strcmp(json_string_value(json_object_get(r, "board")), board) &&
		    !strcmp(json_string_value(json_object_get(r, "test")), test))
			return r;
	}
	return NULL;
}

static const char *jstr_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* Waits up to ms for file to hold needle. */
static bool wait_for_text(const char *file, const char *needle, int ms)
{
	for (int64_t dl = deadline_in_ms(ms); !deadline_expired(dl); usleep(50000)) {
		char *t = ts_read_file(file);
		bool found = t && strstr(t, needle);
		free(t);
		if (found)
			return true;
	}
	return false;
}

/* orch run SCENARIO ARGS to the end; its exit status, its stderr in *out. */
static int orch_run(const char *sc, const char *args, char **out)
{
	return ts_run(out, "%s run %s -o %s/runs %s 2>&1", ORCH_BIN, sc, F.dir, args ? args : "");
}

/* The board's sshd is down when the run starts; the test starts it once
 * orch says the first try failed (no sleep): the retry passes, both tries
 * are in results.json with the first one's error, the result is flaky,
 * the summary counts it apart and the run exits 0. */
static void test_late_sshd_passes_on_retry(void **state)
{
	stop_board_sshd(2);
	char *sc = write_scenario("late", "late", "retry: { infra: 2, backoff: 4s }",
				  "  - name: hello\n    run: \"echo hello from $(hostname)\"\n");
	char *log = xasprintf("%s/late.out", F.dir);
	char *cmd = xasprintf("exec %s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	pid_t pid = ts_spawn(cmd, log);
	if (!wait_for_text(log, "trying again", 30000)) {
		ts_stop(&pid);
		char *o = ts_read_file(log);
		fail_msg("orch never said it would try again:\n%s", o ? o : "");
	}
	F.late_sshd = start_board_sshd(2);
	int rc = ts_wait_exit(pid, 60000);
	char *out = ts_read_file(log);
	if (rc < 0)
		ts_stop(&pid);
	if (rc != 0)
		fail_msg("exit %d, want 0; orch said:\n%s", rc, out ? out : "");
	json_t *res = ts_orch_results(F.dir, "late");
	assert_non_null(res);
	const json_t *r = result_of(res, "late", "hello");
	assert_non_null(r);
	assert_string_equal(jstr_of(r, "status"), "pass");
	assert_true(json_is_true(json_object_get(r, "flaky")));
	const json_t *tries = json_object_get(r, "infra_attempts");
	assert_int_equal(json_array_size(tries), 2);
	const json_t *t1 = json_array_get(tries, 0), *t2 = json_array_get(tries, 1);
	assert_string_equal(jstr_of(t1, "status"), "error");
	if (!strstr(jstr_of(t1, "error"), "refused"))
		fail_msg("first try's error: %s", jstr_of(t1, "error"));
	assert_string_equal(jstr_of(t2, "status"), "pass");
	assert_true(json_is_null(json_object_get(t2, "error")));
	/* the first try's logs are kept apart */
	assert_string_equal(jstr_of(t1, "log_dir"), "late/hello/attempt-1");
	char *summary = xasprintf("%s/runs/late/latest/summary.txt", F.dir);
	char *sum = ts_read_file(summary);
	if (!sum || !strstr(sum, "1 flaky"))
		fail_msg("summary.txt does not count the flaky pass:\n%s", sum ? sum : "");
	char *junit = xasprintf("%s/runs/late/latest/junit.xml", F.dir);
	char *ju = ts_read_file(junit);
	assert_non_null(ju);
	TS_ASSERT_HAS(ju, "try 1 of 2: error");
	TS_FREE(ju, junit, sum, summary);
	json_decref(res);
	TS_FREE(out, cmd, log, sc);
}

/* A test that fails is never tried again, whatever retry: allows. */
static void test_failure_is_not_retried(void **state)
{
	char *sc = write_scenario("failonce", "good", NULL,
				  "  - name: bad\n    retry: { infra: 3, backoff: 1s }\n"
				  "    run: \"echo try >> /tmp/orch-heal-failonce; exit 7\"\n");
	ts_run(NULL, "rm -f /tmp/orch-heal-failonce");
	char *out = NULL;
	int rc = orch_run(sc, NULL, &out);
	if (rc != 1)
		fail_msg("exit %d, want 1:\n%s", rc, out ? out : "");
	json_t *res = ts_orch_results(F.dir, "failonce");
	const json_t *r = result_of(res, "good", "bad");
	assert_non_null(r);
	assert_string_equal(jstr_of(r, "status"), "fail");
	assert_false(json_is_true(json_object_get(r, "flaky")));
	assert_int_equal(json_array_size(json_object_get(r, "infra_attempts")), 1);
	char *tries = ts_read_file("/tmp/orch-heal-failonce");
	assert_non_null(tries);
	assert_int_equal(ts_count_lines(tries, "try", NULL), 1);
	free(tries);
	ts_run(NULL, "rm -f /tmp/orch-heal-failonce");
	json_decref(res);
	TS_FREE(out, sc);
}

/* Lines of the run log of the boards' commands (they all append to one
 * file on this machine: the boards are loopback sshds). */
static char *read_trace(const char *path)
{
	char *t = ts_read_file(path);
	return t ? t : xstrdup("");
}

/* A first run where one pair of four fails; --rerun of its folder runs
 * that pair alone, is labelled a rerun of it (results.json, run.json,
 * summary) and passes once the cause is gone. */
static void test_rerun_runs_only_the_failed_pair(void **state)
{
	const char *trace = "/tmp/orch-heal-rerun.trace";
	const char *flag = "/tmp/orch-heal-rerun.broken";
	ts_run(NULL, "rm -f %s; echo > %s; chmod 666 %s", trace, flag, flag);
	char *tests = xasprintf(
		"  - name: a\n    run: \"echo {board.name} a >> %s\"\n"
		"  - name: b\n    run: \"echo {board.name} b >> %s; "
		"test {board.name} != third || test ! -e %s\"\n", trace, trace, flag);
	char *sc = write_scenario("rerun", "good,third", NULL, tests);
	char *out = NULL;
	int rc = orch_run(sc, NULL, &out);
	if (rc != 1)
		fail_msg("first run: exit %d, want 1:\n%s", rc, out ? out : "");
	free(out);
	out = NULL;
	char *t = read_trace(trace);
	assert_int_equal(ts_count_lines(t, " ", NULL), 4);
	free(t);
	char *first = xasprintf("%s/runs/rerun/latest", F.dir);
	char *first_real = realpath(first, NULL);
	assert_non_null(first_real);

	ts_run(NULL, "rm -f %s %s", trace, flag);
	char *args = xasprintf("--rerun %s --only failed", first_real);
	rc = orch_run(sc, args, &out);
	if (rc != 0)
		fail_msg("rerun: exit %d, want 0:\n%s", rc, out ? out : "");
	t = read_trace(trace);
	if (ts_count_lines(t, " ", NULL) != 1 || !strstr(t, "third b"))
		fail_msg("the rerun ran more than the failed pair:\n%s", t);
	free(t);
	json_t *res = ts_orch_results(F.dir, "rerun");
	assert_int_equal(json_array_size(json_object_get(res, "results")), 1);
	const json_t *r = result_of(res, "third", "b");
	assert_non_null(r);
	assert_string_equal(jstr_of(r, "status"), "pass");
	assert_string_equal(jstr_of(res, "rerun_of"), first_real);
	assert_string_equal(jstr_of(res, "rerun_only"), "failed");
	if (!strstr(jstr_of(res, "label"), "rerun of "))
		fail_msg("label: %s", jstr_of(res, "label"));
	char *rd = xasprintf("%s/runs/rerun/latest", F.dir);
	json_t *rj = ts_json_load_in(rd, "run.json");
	assert_non_null(rj);
	assert_string_equal(jstr_of(json_object_get(rj, "options"), "rerun"), first_real);
	char *html_path = xasprintf("%s/report.html", rd);
	char *html = ts_read_file(html_path);
	const char *base = strrchr(first_real, '/') + 1;
	char *link = xasprintf("href=\"../%s/report.html\"", base);
	if (!html || !strstr(html, link))
		fail_msg("report.html has no link to the run it reran (%s)", link);
	TS_FREE(link, html, html_path);
	json_decref(rj);
	free(rd);
	json_decref(res);
	ts_run(NULL, "rm -f %s %s", trace, flag);
	TS_FREE(args, first_real, first, out, sc, tests);
}

/* -x: the first failure stops new tests from starting; the rest are skip
 * with the reason and never reach the board. */
static void test_max_fail_stops(void **state)
{
	const char *trace = "/tmp/orch-heal-maxfail.trace";
	ts_run(NULL, "rm -f %s", trace);
	char *tests = xasprintf(
		"  - name: one\n    run: \"echo one >> %s; exit 1\"\n"
		"  - name: two\n    run: \"echo two >> %s\"\n"
		"  - name: three\n    run: \"echo three >> %s\"\n", trace, trace, trace);
	char *sc = write_scenario("maxfail", "good", NULL, tests);
	char *out = NULL;
	int rc = orch_run(sc, "--max-fail 1", &out);
	if (rc != 1)
		fail_msg("exit %d, want 1:\n%s", rc, out ? out : "");
	char *t = read_trace(trace);
	assert_string_equal(t, "one\n");
	free(t);
	json_t *res = ts_orch_results(F.dir, "maxfail");
	assert_string_equal(jstr_of(result_of(res, "good", "one"), "status"), "fail");
	for (int i = 0; i < 2; i++) {
		const json_t *r = result_of(res, "good", i ? "three" : "two");
		assert_string_equal(jstr_of(r, "status"), "skip");
		if (!strstr(jstr_of(r, "message"), "--max-fail 1 reached"))
			fail_msg("message: %s", jstr_of(r, "message"));
	}
	json_decref(res);
	free(out);
	out = NULL;
	/* -x is the same; without it all three run */
	ts_run(NULL, "rm -f %s", trace);
	rc = orch_run(sc, "-x", &out);
	assert_int_equal(rc, 1);
	t = read_trace(trace);
	assert_string_equal(t, "one\n");
	TS_FREE(t, out);
	out = NULL;
	ts_run(NULL, "rm -f %s", trace);
	rc = orch_run(sc, NULL, &out);
	assert_int_equal(rc, 1);
	t = read_trace(trace);
	assert_string_equal(t, "one\ntwo\nthree\n");
	free(t);
	ts_run(NULL, "rm -f %s", trace);
	TS_FREE(out, sc, tests);
}

/* Run 1: third's health check fails: it goes offline, its tests are skip
 * "board offline (...)", exit 3. Run 2 (the check would pass now): third
 * is not contacted at all. orch boards and orch who say offline since
 * when; after orch boards --online third run 3 checks it and runs it. */
static void test_health_check_takes_board_offline(void **state)
{
	ts_run(NULL, "rm -f %s %s; orch_bin=%s; $orch_bin boards --online third >/dev/null 2>&1",
	       HEALTH_TRACE, HEALTH_OK, ORCH_BIN);
	char *tests = xasprintf("  - name: t1\n    run: \"echo test >> %s\"\n"
				"  - name: t2\n    run: \"echo test >> %s\"\n", HEALTH_TRACE,
				HEALTH_TRACE);
	char *sc = write_scenario("health", "third", NULL, tests);
	char *inv_arg = xasprintf("-i %s/rack-health.yaml", F.dir);
	char *out = NULL;
	int rc = orch_run(sc, inv_arg, &out);
	if (rc != 3)
		fail_msg("run 1: exit %d, want 3:\n%s", rc, out ? out : "");
	char *t = read_trace(HEALTH_TRACE);
	assert_string_equal(t, "health\n");   /* the check ran, no test did */
	free(t);
	json_t *res = ts_orch_results(F.dir, "health");
	for (int i = 0; i < 2; i++) {
		const json_t *r = result_of(res, "third", i ? "t2" : "t1");
		assert_string_equal(jstr_of(r, "status"), "skip");
		assert_true(json_is_true(json_object_get(r, "board_offline")));
		if (!strstr(jstr_of(r, "message"), "board offline (health check 'marker' failed"))
			fail_msg("message: %s", jstr_of(r, "message"));
	}
	const json_t *off = json_array_get(json_object_get(res, "offline_boards"), 0);
	assert_string_equal(jstr_of(off, "board"), "third");
	json_decref(res);
	free(out);
	out = NULL;

	/* the board would pass now, but it is offline: not contacted */
	ts_run(NULL, "rm -f %s; touch %s", HEALTH_TRACE, HEALTH_OK);
	int sessions = lab_sessions_started(F.lab, 3);
	rc = orch_run(sc, inv_arg, &out);
	if (rc != 3)
		fail_msg("run 2: exit %d, want 3:\n%s", rc, out ? out : "");
	assert_int_equal(lab_sessions_started(F.lab, 3), sessions);
	assert_false(ts_file_exists(HEALTH_TRACE));
	char *summary_path = xasprintf("%s/runs/health/latest/summary.txt", F.dir);
	char *summary = ts_read_file(summary_path);
	if (!summary || !strstr(summary, "offline: third: health check 'marker' failed"))
		fail_msg("summary.txt does not name the offline board:\n%s", summary ? summary : "");
	TS_FREE(summary, summary_path, out);
	out = NULL;

	/* orch boards and orch who show it, with since when */
	rc = ts_run(&out, "%s boards %s 2>&1", ORCH_BIN, inv_arg);
	assert_int_equal(rc, 0);
	if (!strstr(out, "offline since 20") || !strstr(out, "health check 'marker' failed"))
		fail_msg("orch boards:\n%s", out);
	free(out);
	out = NULL;
	rc = ts_run(&out, "%s who 2>&1", ORCH_BIN);
	assert_int_equal(rc, 0);
	if (!strstr(out, "third\toffline\t"))
		fail_msg("orch who:\n%s", out);
	free(out);
	out = NULL;

	/* back online: checked again, then its tests run */
	rc = ts_run(&out, "%s boards --online third 2>&1", ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	out = NULL;
	rc = orch_run(sc, inv_arg, &out);
	if (rc != 0)
		fail_msg("run 3: exit %d, want 0:\n%s", rc, out ? out : "");
	t = read_trace(HEALTH_TRACE);
	assert_string_equal(t, "health\ntest\ntest\n");
	TS_FREE(t, out);
	out = NULL;

	/* by hand: --offline --note, and the run says why */
	rc = ts_run(&out, "%s boards --offline third --note 'fan replaced' 2>&1", ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	out = NULL;
	ts_run(NULL, "rm -f %s", HEALTH_TRACE);
	rc = orch_run(sc, inv_arg, &out);
	assert_int_equal(rc, 3);
	assert_false(ts_file_exists(HEALTH_TRACE));
	res = ts_orch_results(F.dir, "health");
	assert_string_equal(jstr_of(result_of(res, "third", "t1"), "message"),
			    "board offline (fan replaced)");
	json_decref(res);
	free(out);
	out = NULL;
	ts_run(&out, "%s boards --online third 2>&1", ORCH_BIN);
	ts_run(NULL, "rm -f %s %s", HEALTH_TRACE, HEALTH_OK);
	TS_FREE(out, inv_arg, sc, tests);
}

/* offline_after: 2 on a board whose sshd is down: the first two tests are
 * errors, the board goes offline by itself, the third test is skip. */
static void test_offline_after_errors_in_a_row(void **state)
{
	ts_stop(&F.late_sshd);
	stop_board_sshd(2);
	char *out = NULL;
	ts_run(&out, "%s boards --online late 2>&1", ORCH_BIN);
	free(out);
	out = NULL;
	char *sc = write_scenario("errrow", "late", NULL,
				  "  - name: e1\n    run: \"true\"\n"
				  "  - name: e2\n    run: \"true\"\n"
				  "  - name: e3\n    run: \"true\"\n");
	char *inv_arg = xasprintf("-i %s/rack-health.yaml", F.dir);
	int rc = orch_run(sc, inv_arg, &out);
	if (rc != 3)
		fail_msg("exit %d, want 3:\n%s", rc, out ? out : "");
	json_t *res = ts_orch_results(F.dir, "errrow");
	assert_string_equal(jstr_of(result_of(res, "late", "e1"), "status"), "error");
	assert_string_equal(jstr_of(result_of(res, "late", "e2"), "status"), "error");
	const json_t *r3 = result_of(res, "late", "e3");
	assert_string_equal(jstr_of(r3, "status"), "skip");
	if (!strstr(jstr_of(r3, "message"), "board offline (2 infrastructure errors in a row"))
		fail_msg("message: %s", jstr_of(r3, "message"));
	json_decref(res);
	free(out);
	out = NULL;
	rc = ts_run(&out, "%s boards %s -l late 2>&1", ORCH_BIN, inv_arg);
	if (!strstr(out, "2 infrastructure errors in a row"))
		fail_msg("orch boards:\n%s", out);
	free(out);
	out = NULL;
	ts_run(&out, "%s boards --online late 2>&1", ORCH_BIN);
	TS_FREE(out, inv_arg, sc);
}

/* power: { cycle } of the board starts its sshd (daemonized; its pid in
 * a file of ours): the retry comes after the power cycle and passes. */
static void test_retry_after_power_cycle(void **state)
{
	ts_stop(&F.late_sshd);
	stop_board_sshd(2);
	char *out = NULL;
	ts_run(&out, "%s boards --online late 2>&1", ORCH_BIN);
	free(out);
	out = NULL;
	char *pidfile = xasprintf("%s/power-sshd.pid", F.dir);
	free(lab_write_inventory(
		F.lab, F.dir, "rack-power.yaml", "connect_timeout: 5s",
		"boards:\n"
		"  late:\n"
		"    arch: x86_64\n"
		"    ssh: { host: " LAB_BASE ".2, port: %d }\n"
		"    power: { cycle: \"/usr/sbin/sshd -f %s/board2/sshd_config -o PidFile=%s "
		"</dev/null >/dev/null 2>&1\" }\n",
		LAB_PORT, F.lab->dir, pidfile));
	char *sc = write_scenario("powered", "late", "retry: { infra: 1, backoff: 1s }",
				  "  - name: hello\n    run: \"echo hello\"\n");
	char *args = xasprintf("-i %s/rack-power.yaml", F.dir);
	int rc = orch_run(sc, args, &out);
	char *pid_text = ts_read_file(pidfile);
	if (pid_text && atoi(pid_text) > 0)
		kill((pid_t)atoi(pid_text), SIGTERM);   /* the sshd the power command started */
	free(pid_text);
	if (rc != 0)
		fail_msg("exit %d, want 0:\n%s", rc, out ? out : "");
	json_t *res = ts_orch_results(F.dir, "powered");
	const json_t *r = result_of(res, "late", "hello");
	assert_string_equal(jstr_of(r, "status"), "pass");
	assert_true(json_is_true(json_object_get(r, "flaky")));
	const json_t *tries = json_object_get(r, "infra_attempts");
	assert_int_equal(json_array_size(tries), 2);
	assert_false(json_is_true(json_object_get(json_array_get(tries, 0), "power_cycled")));
	assert_true(json_is_true(json_object_get(json_array_get(tries, 1), "power_cycled")));
	json_decref(res);
	TS_FREE(out, args, sc, pidfile);
}

TS_MAIN(setup, teardown, test_late_sshd_passes_on_retry, test_failure_is_not_retried,
	test_rerun_runs_only_the_failed_pair, test_max_fail_stops,
	test_health_check_takes_board_offline, test_offline_after_errors_in_a_row,
	test_retry_after_power_cycle)
