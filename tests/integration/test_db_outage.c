/* A PostgreSQL server that stops answering or restarts mid-run, against
 * real orch runs with --db, local boards, a real server (pg-lab.sh):
 * - stopped (SIGSTOP of the postmaster and every backend: the kernel still
 *   holds the connections open, so only orch's own deadlines can notice)
 *   for longer than the board's lease: the test in flight ends as error
 *   naming the lost lock, no later test starts on the board, the run ends
 *   as exit 3 with every report written; the command in flight is stopped
 *   when the lock is lost, not when it ends;
 * - stopped, then two Ctrl-C: orch exits within the hurry bound although
 *   the database call it was in never returns;
 * - restarted (every session ends, the advisory locks with them): the run
 *   keeps its board (a lease on its row, its lock taken again on a new
 *   session), and a second controller that tries the board meanwhile and
 *   after is told who holds it. */
#include "testsupport.h"
#include "pg.h"
#include "ts_orch.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PG_HOST "127.0.204.1"
#define PG_PORT 55040

static struct pg *pg;

struct fixture {
	char *tmp;
	char *url;
	char *scenario;
	pid_t orch;
	bool stopped;
};

static int group_setup(void **state)
{
	return pg_group_up(&pg, PG_HOST, PG_PORT);
}

static int group_teardown(void **state)
{
	return pg_group_down(&pg);
}

/* The postmaster's pid, from its pid file. */
static pid_t postmaster(void)
{
	char *path = xasprintf("%s/data/postmaster.pid", pg->dir);
	char *text = ts_read_file(path);
	free(path);
	pid_t pid = text ? (pid_t)atol(text) : 0;
	free(text);
	return pid;
}

/* sig to the postmaster and to every process whose parent it is. */
static void signal_server(int sig)
{
	pid_t pm = postmaster();
	assert_true(pm > 0);
	if (sig == SIGSTOP)
		kill(pm, sig);
	DIR *d = opendir("/proc");
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *close = strrchr(buf, ')');
		long ppid = 0;
		char st;
		if (close && sscanf(close + 1, " %c %ld", &st, &ppid) == 2 && ppid == pm)
			kill((pid_t)atol(e->d_name), sig);
	}
	if (d)
		closedir(d);
	if (sig == SIGCONT)
		kill(pm, sig);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	f->tmp = ts_mkdtemp("dbstall");
	f->url = pg_createdb_next(pg, "stall");
	free(ts_write_file(f->tmp, "rack.yaml", "boards:\n  b1: { local: true }\n"));
	f->scenario = xasprintf("%s/sc.yaml", f->tmp);
	*state = f;
	return f->url ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (f->stopped)
		signal_server(SIGCONT);
	ts_stop(&f->orch);
	ts_rmrf(f->tmp);
	TS_FREE(f->tmp, f->url, f->scenario, f);
	return 0;
}

/* Waits (up to limit_ms) for path to exist. */
static bool wait_file(const char *path, int64_t limit_ms)
{
	int64_t until = clock_mono_ms() + limit_ms;
	while (!ts_file_exists(path) && clock_mono_ms() < until)
		usleep(20 * 1000);
	return ts_file_exists(path);
}

/* orch's exit status, or -1 when it had not ended within limit_ms. */
static int wait_orch(struct fixture *f, int64_t limit_ms)
{
	int rc = ts_wait_exit(f->orch, (int)limit_ms);
	if (rc >= 0)
		f->orch = 0;
	return rc;
}

static char *orch_log(struct fixture *f)
{
	char *path = xasprintf("%s/orch.log", f->tmp);
	char *text = ts_read_file(path);
	free(path);
	return text ? text : xstrdup("");
}

/* Starts orch on a scenario whose first test runs hold_s seconds (local
 * tests do not inherit orch's environment: the value is in the text). */
static void start_orch(struct fixture *f, const char *env, int hold_s)
{
	char *sc = xasprintf("name: stall\ninventory: rack.yaml\nboards: [all]\ntests:\n"
			     "  - name: work\n    run: touch %s/started; sleep %d\n"
			     "  - name: after\n    run: echo after\n", f->tmp, hold_s);
	free(ts_write_file(f->tmp, "sc.yaml", sc));
	free(sc);
	char *cmd = xasprintf("cd %s && mkdir -p runs && ORCH_LOCK_DIR=%s/locks %s exec %s run %s -o runs"
			      " --db %s", f->tmp, f->tmp, env, ORCH_BIN, f->scenario,
			      f->url);
	char *log = xasprintf("%s/orch.log", f->tmp);
	f->orch = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	char *started = xasprintf("%s/started", f->tmp);
	if (!wait_file(started, 60000)) {
		char *text = orch_log(f);
		fail_msg("the first test did not start within 60 s:\n%s", text);
	}
	free(started);
}


static void assert_reports(struct fixture *f)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd %s/runs/stall/latest && ls results.json report.html junit.xml "
				"summary.txt", f->tmp), 0);
	free(out);
}

static char *results(struct fixture *f)
{
	char *path = xasprintf("%s/runs/stall/latest/results.json", f->tmp);
	char *text = ts_read_file(path);
	free(path);
	return text ? text : xstrdup("");
}

static void test_stalled_server_ends_run_as_infrastructure_error(void **state)
{
	struct fixture *f = *state;
	/* calls give up after 2 s + 2 s; the lease is 4 s; the test runs 8 s */
	start_orch(f, "ORCH_DB_TIMEOUT_MS=2000", 8);
	signal_server(SIGSTOP);
	f->stopped = true;
	int rc = wait_orch(f, 60000);
	char *log = orch_log(f);
	if (rc != 3)
		fail_msg("orch: exit %d (want 3) within 60 s:\n%s", rc, log);
	TS_ASSERT_HAS(log, "did not answer within 4000 ms", "board b1 lost its database lock");
	assert_reports(f);
	/* the test in flight is an error naming the lost lock; the next one
	 * never started (no "after" in its log) */
	char *text = results(f);
	TS_ASSERT_HAS(text, "lost its database lock");
	TS_ASSERT_LACKS(text, "\"status\": \"pass\"");
	char *after = xasprintf("%s/runs/stall/latest/b1/after/stdout.log", f->tmp);
	char *out = ts_read_file(after);
	assert_true(!out || !strstr(out, "after"));
	TS_FREE(out, after, text, log);
}

/* The lock is lost while a 90 s command runs: the command is stopped then
 * (the run ends long before 90 s), and its test is an error naming the
 * lost lock and saying the command was stopped. */
static void test_lost_lock_stops_the_command_in_flight(void **state)
{
	struct fixture *f = *state;
	char *sc = xasprintf("name: stall\ninventory: rack.yaml\nboards: [all]\ntests:\n"
			     "  - name: work\n    timeout: 120s\n"
			     "    run: sleep 90 & echo $! > %s/pid; touch %s/started; wait; "
			     "touch %s/ended\n", f->tmp, f->tmp, f->tmp);
	free(ts_write_file(f->tmp, "sc.yaml", sc));
	free(sc);
	char *cmd = xasprintf("cd %s && mkdir -p runs && ORCH_LOCK_DIR=%s/locks "
			      "ORCH_DB_TIMEOUT_MS=2000 exec %s run %s -o runs --db %s", f->tmp,
			      f->tmp, ORCH_BIN, f->scenario, f->url);
	char *log = xasprintf("%s/orch.log", f->tmp);
	f->orch = ts_spawn(cmd, log);
	char *started = xasprintf("%s/started", f->tmp);
	assert_true(wait_file(started, 60000));
	char *pidfile = xasprintf("%s/pid", f->tmp);
	char *pidtext = ts_read_file(pidfile);
	long pid = pidtext ? atol(pidtext) : 0;
	assert_true(pid > 0 && ts_pid_running(pid));
	int64_t t0 = clock_mono_ms();
	signal_server(SIGSTOP);
	f->stopped = true;
	/* the lease (4 s) runs out, the command is stopped, the reports are
	 * written with the database given up: well within 60 s, where the
	 * command alone would take 90 s */
	int rc = wait_orch(f, 60000);
	int64_t took = clock_mono_ms() - t0;
	char *text = orch_log(f);
	if (rc != 3)
		fail_msg("orch: exit %d (want 3) within 60 s:\n%s", rc, text);
	assert_false(ts_pid_running(pid));
	char *ended = xasprintf("%s/ended", f->tmp);
	assert_false(ts_file_exists(ended));
	char *res = results(f);
	TS_ASSERT_HAS(res, "lost its database lock",
		"orch stopped its command on the board when the lock was lost");
	print_message("lock lost: orch ended %lld ms after the server stopped\n", (long long)took);
	TS_FREE(res, ended, text, pidtext, pidfile, started, log, cmd);
}

static void test_restart_keeps_the_board_owned(void **state)
{
	struct fixture *f = *state;
	start_orch(f, "ORCH_DB_TIMEOUT_MS=5000", 20);   /* lease 10 s */
	assert_int_equal(pg_restart(pg), 0);
	/* a second controller (its own lock folder, as on another host), at
	 * once and once the first has its lock again */
	char *other = xasprintf("cd %s && ORCH_LOCK_DIR=%s/locks-b ORCH_DB_TIMEOUT_MS=2000 %s run %s"
				" -o runs-b --db %s --wait 0 2>&1", f->tmp, f->tmp, ORCH_BIN,
				f->scenario, f->url);
	for (int round = 0; round < 2; round++) {
		char *out = NULL;
		int rc = ts_run(&out, "%s", other);
		if (rc != 3 || !strstr(out, "board b1 is held by"))
			fail_msg("second controller, round %d: exit %d:\n%s", round, rc, out);
		free(out);
		char *log = orch_log(f);
		int64_t until = clock_mono_ms() + 20000;
		while (!strstr(log, "is held again") && clock_mono_ms() < until) {
			free(log);
			usleep(50 * 1000);
			log = orch_log(f);
		}
		TS_ASSERT_HAS(log, "board b1: the database session was lost and made again");
		free(log);
	}
	free(other);
	int rc = wait_orch(f, 60000);
	char *log = orch_log(f);
	if (rc != 0)
		fail_msg("orch: exit %d (want 0: the board stayed its own):\n%s", rc, log);
	free(log);
	char *text = results(f);
	TS_ASSERT_LACKS(text, "lost its database lock");
	free(text);
}

static void test_second_interrupt_bounded_with_database_stalled(void **state)
{
	struct fixture *f = *state;
	start_orch(f, "", 60);   /* the default deadlines: 30 s and more */
	signal_server(SIGSTOP);
	f->stopped = true;
	kill(f->orch, SIGINT);
	/* the first Ctrl-C stops the test; its lock's release is then stuck in
	 * the database. Two signals 250 ms apart count as one. */
	usleep(400 * 1000);
	int64_t second = clock_mono_ms();
	kill(f->orch, SIGINT);
	int rc = wait_orch(f, 20000);
	int64_t took = clock_mono_ms() - second;
	char *log = orch_log(f);
	if (rc != 130)
		fail_msg("orch: exit %d (want 130) within 20 s of the second Ctrl-C:\n%s", rc, log);
	/* INTERRUPT_HURRY_MS is 2 s; 8 s leaves room for a loaded machine and
	 * stays far below the 30 s the database call would have waited */
	if (took > 8000)
		fail_msg("orch ended %lld ms after the second Ctrl-C:\n%s", (long long)took, log);
	char *results = xasprintf("%s/runs/stall/latest/results.json", f->tmp);
	assert_true(ts_file_exists(results));
	TS_FREE(results, log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lost_lock_stops_the_command_in_flight, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stalled_server_ends_run_as_infrastructure_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_interrupt_bounded_with_database_stalled,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_keeps_the_board_owned, setup, teardown),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
