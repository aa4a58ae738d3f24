/*
 * A test killed by anything but its own run is an error that says so,
 * never a pass (docs/guarantees.md), and a local test cannot end the run
 * through its parent: `orch run` on local boards while this process, as a
 * second shell on the controller would, kills the test's sleep by its pid,
 * or every process carrying the test's ORCH_STEP_ID as an orphan cleanup
 * does, and a test that kills its own $PPID. The run goes on, results.json
 * is written, the other tests pass, and orch exits 3.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = ts_orch_dir("outsidekill");
	free(ts_write_file(dir, "inv.yaml", "boards:\n  l1: { local: true }\n"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return ts_rmrf_free(&dir);
}

/* Up to max bytes of /proc/PID/NAME into buf (NUL-terminated); its length,
 * or -1 when it cannot be read. */
static ssize_t proc_read(long pid, const char *name, char *buf, size_t max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, max - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The value of NAME in the NUL-separated environ text env (n bytes), or
 * NULL. */
static const char *env_value(const char *env, ssize_t n, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = env; p < env + n; p += strlen(p) + 1)
		if (strncmp(p, name, len) == 0 && p[len] == '=')
			return p + len + 1;
	return NULL;
}

/* The pid of the process whose command line is `sleep SECS`, 0 when there
 * is none. */
static long find_sleep(const char *secs)
{
	char want[32];
	int wlen = snprintf(want, sizeof(want), "sleep%c%s", '\0', secs) + 1;
	long found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		char buf[64];
		if (*end || pid <= 0)
			continue;
		if (proc_read(pid, "cmdline", buf, sizeof(buf)) == wlen && !memcmp(buf, want, wlen))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

/* Sends sig to every process whose environment holds ORCH_STEP_ID=token,
 * the way an orphan cleanup finds them, but spare first (it is killed
 * last). Returns how many it signalled. */
static int kill_token(const char *token, long spare, int sig)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	static char env[65536];
	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == spare || pid == (long)getpid())
			continue;
		ssize_t len = proc_read(pid, "environ", env, sizeof(env));
		const char *v = len > 0 ? env_value(env, len, "ORCH_STEP_ID") : NULL;
		if (v && !strcmp(v, token) && kill((pid_t)pid, sig) == 0)
			n++;
	}
	if (d)
		closedir(d);
	if (spare > 0 && kill((pid_t)spare, sig) == 0)
		n++;
	return n;
}

/* Starts `orch run` of scenario NAME (tests TESTS on l1) in the
 * background; its output into DIR/NAME.out. */
static pid_t start_run(const char *name, const char *tests)
{
	char *text = xasprintf("name: %s\ninventory: inv.yaml\nboards: [l1]\n"
			       "defaults: { timeout: 60s }\ntests:\n%s", name, tests);
	free(ts_write_scenario(dir, name, text));
	free(text);
	char *cmd = xasprintf("exec %s run %s/%s.yaml -o %s/runs > %s/%s.out 2>&1", ORCH_BIN, dir,
			      name, dir, dir, name);
	pid_t pid = ts_spawn(cmd, NULL);
	free(cmd);
	return pid;
}

/* Waits for the run started by start_run; fails unless it exits want_rc.
 * Returns its results.json (caller json_decref). */
static json_t *end_run(pid_t pid, const char *name, int want_rc)
{
	int rc = ts_wait_exit(pid, 60000);
	if (rc != want_rc) {
		char *out = NULL;
		ts_run(&out, "cat %s/%s.out", dir, name);
		fail_msg("orch run %s exited %d, wanted %d:\n%s", name, rc, want_rc, out);
	}
	json_t *res = ts_orch_results(dir, name);
	assert_non_null(res);
	return res;
}

static void assert_result(json_t *res, const char *test, const char *status, const char *says)
{
	json_t *r = ts_json_result_or_fail(res, "l1", test);
	const char *msg = ts_json_str(r, "message");
	if (strcmp(ts_json_str(r, "status"), status) != 0 || (says && !strstr(msg, says)))
		fail_msg("%s: status %s, message '%s'; wanted %s saying '%s'", test,
			 ts_json_str(r, "status"), msg, status, says ? says : "");
}

/* `kill -9 $PPID` in a local test kills the test's own parent, not orch:
 * that test is an error saying so, the run goes on. */
static void test_kill_parent_is_error(void **state)
{
	(void)state;
	char *out = NULL;
	json_t *res = ts_orch_run_tests(dir, "ppid", "l1",
					"  - { name: before, run: \"echo ok\" }\n"
					"  - { name: killer, run: \"kill -9 $PPID; sleep 1; echo after\" }\n"
					"  - { name: after, run: \"echo still here\" }\n",
					"", 3, &out);
	assert_non_null(res);
	assert_result(res, "before", "pass", NULL);
	assert_result(res, "killer", "error", "its parent process was killed by signal 9 "
					      "from outside the run");
	assert_result(res, "after", "pass", NULL);
	json_decref(res);
	free(out);
}

/* The test's sleep is its shell (`exec`): killed by its pid from another
 * process, the test is an error, not a failure. */
static void test_sleep_killed_by_pid_is_error(void **state)
{
	(void)state;
	pid_t orch = start_run("bypid", "  - { name: sleeper, run: \"exec sleep 3071\" }\n"
					"  - { name: next, run: \"true\" }\n");
	long sleep_pid = 0;
	TS_WAIT_UNTIL(30000, (sleep_pid = find_sleep("3071")) > 0);
	assert_true(sleep_pid > 0);
	assert_int_equal(kill((pid_t)sleep_pid, SIGKILL), 0);
	json_t *res = end_run(orch, "bypid", 3);
	assert_result(res, "sleeper", "error", "killed by signal 9 from outside the run");
	assert_result(res, "next", "pass", NULL);
	json_decref(res);
}

/* A test whose processes are stopped by their token, as another run's
 * cleanup would stop them: the shell carries the token too, so the test
 * never goes on to its end as if nothing happened. */
static void test_token_kill_is_error_never_pass(void **state)
{
	(void)state;
	pid_t orch = start_run("bytoken", "  - { name: sleeper, run: \"sleep 3072; echo survived\" }\n");
	long sleep_pid = 0;
	TS_WAIT_UNTIL(30000, (sleep_pid = find_sleep("3072")) > 0);
	assert_true(sleep_pid > 0);
	static char env[65536];
	ssize_t len = proc_read(sleep_pid, "environ", env, sizeof(env));
	const char *v = len > 0 ? env_value(env, len, "ORCH_STEP_ID") : NULL;
	assert_non_null(v);
	char *token = xstrdup(v);
	assert_true(kill_token(token, sleep_pid, SIGTERM) >= 1);
	free(token);
	json_t *res = end_run(orch, "bytoken", 3);
	assert_result(res, "sleeper", "error", "killed by signal 15 from outside the run");
	json_decref(res);
	char *out = NULL;
	ts_run(&out, "cat %s/runs/bytoken/latest/l1/sleeper/stdout* 2>/dev/null", dir);
	assert_null(strstr(out ? out : "", "survived"));
	free(out);
}

TS_MAIN(setup, teardown, test_kill_parent_is_error, test_sleep_killed_by_pid_is_error,
	test_token_kill_is_error_never_pass)
