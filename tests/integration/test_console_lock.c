/*
 * Exclusive consoles (transport/console_lock.h), through the orch binary
 * against socat pty pairs and a TCP console:
 *   - a second `orch boot` and an `orch run` with a boot test on a console
 *     that a first `orch boot` is reading are refused, naming the first's
 *     pid and command line; the first still times its boot (exit 0);
 *   - the UUCP lock file holds the holder's pid as 10 characters + newline
 *     and is gone after the run;
 *   - a plain holder of the UUCP lock (a live process's pid in
 *     /var/lock/LCK..pts_N) is named; a stale one (dead pid) is removed;
 *   - picocom holding the port (flock) is named, and picocom is refused
 *     while orch holds it;
 *   - a network console (tcp://) is locked in orch's lock folder.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TCP_ADDR "127.0.100.1"

struct fx {
	char *dir;
	char *a;                   /* orch's side of the pty pair */
	char *b;                   /* the "board" side: the test writes boot lines here */
	char *inv;
	char *lockfile;            /* /var/lock/LCK..pts_N of a */
	pid_t socat;
};

static int setup(void **state)
{
	ts_require_tool("socat", "apt-get install socat");
	struct fx *f = xcalloc(1, sizeof(*f));
	*state = f;
	f->dir = ts_mkdtemp("console-lock");
	f->a = xasprintf("%s/A", f->dir);
	f->b = xasprintf("%s/B", f->dir);
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s pty,raw,echo=0,link=%s", f->a,
			      f->b);
	f->socat = ts_spawn(cmd, NULL);
	free(cmd);
	for (int i = 0; i < 250 && (!ts_file_exists(f->a) || !ts_file_exists(f->b)); i++)
		usleep(20000);
	char real[PATH_MAX];
	if (!realpath(f->a, real) || strncmp(real, "/dev/pts/", 9) != 0)
		return -1;
	f->lockfile = xasprintf("/var/lock/LCK..pts_%s", real + 9);
	/* twins: other boards on the same consoles, so that a second orch gets
	 * past the board locks (a run holds its boards) to the console lock */
	int port = 27100 + getpid() % 500;
	char *text = xasprintf("boards:\n"
			       "  b1:\n"
			       "    serial: { port: %s, baud: 115200 }\n"
			       "  b1twin:\n"
			       "    serial: { port: %s, baud: 115200 }\n"
			       "  net1:\n"
			       "    serial: { url: 'tcp://" TCP_ADDR ":%d' }\n"
			       "  net1twin:\n"
			       "    serial: { url: 'tcp://" TCP_ADDR ":%d' }\n",
			       f->a, f->a, port, port);
	f->inv = ts_write_file(f->dir, "inv.yaml", text);
	free(text);
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (!f)
		return 0;
	ts_stop(&f->socat);
	if (f->lockfile)
		unlink(f->lockfile);
	ts_rmrf(f->dir);
	TS_FREE(f->dir, f->a, f->b, f->inv, f->lockfile, f);
	return 0;
}

/* Starts `orch boot BOARD` listening (trigger none) in the background. */
static pid_t start_boot(struct fx *f, const char *board, const char *out_name, int secs)
{
	char *log = xasprintf("%s/%s.log", f->dir, out_name);
	char *cmd = xasprintf("exec %s boot %s -i %s --trigger none --timeout %ds -o %s/%s", ORCH_BIN,
			      board, f->inv, secs, f->dir, out_name);
	pid_t pid = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	return pid;
}

/* The exit status of pid (waited for at most secs), or -1. */
static int wait_exit(pid_t *pid, int secs)
{
	for (int i = 0; i < secs * 50; i++) {
		int st;
		if (waitpid(*pid, &st, WNOHANG) == *pid) {
			*pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(20000);
	}
	ts_stop(pid);
	return -1;
}

static bool wait_for_file(const char *path, int secs)
{
	for (int i = 0; i < secs * 50; i++) {
		if (ts_file_exists(path))
			return true;
		usleep(20000);
	}
	return false;
}

/* Waits up to secs for pid to hold a flock (orch has the console device:
 * /proc/locks lists it); false if it never does. */
static bool wait_for_flock(pid_t pid, int secs)
{
	for (int i = 0; i < secs * 50; i++) {
		if (ts_run(NULL, "grep -q 'FLOCK .* %ld ' /proc/locks", (long)pid) == 0)
			return true;
		usleep(20000);
	}
	return false;
}

static void feed_boot(struct fx *f)
{
	assert_int_equal(ts_run(NULL, "printf 'Linux version 6.1\\nRun /init\\norch login: ' > %s",
				f->b), 0);
}

static void test_second_orch_refused_first_unharmed(void **state)
{
	struct fx *f = *state;
	pid_t first = start_boot(f, "b1", "first", 30);
	assert_true(wait_for_file(f->lockfile, 10));
	assert_true(wait_for_flock(first, 10));
	char *lock = ts_read_file(f->lockfile);
	char want[16];
	snprintf(want, sizeof(want), "%10ld\n", (long)first);
	assert_non_null(lock);
	assert_string_equal(lock, want);   /* HDB UUCP: 10 characters and a newline */
	free(lock);

	char *out = NULL;
	int rc = ts_run(&out, "%s boot b1twin -i %s --trigger none --timeout 5s -o %s/second",
			ORCH_BIN, f->inv, f->dir);
	print_message("second orch boot: %s", out);
	assert_int_equal(rc, 3);
	char holder[64];
	snprintf(holder, sizeof(holder), "in use by pid %ld (", (long)first);
	assert_non_null(strstr(out, holder));
	assert_non_null(strstr(out, " boot b1 -i "));   /* the holder's command line */
	free(out);

	/* orch run honours the same lock: the boot test errors, naming the holder */
	char *sc = ts_write_file(f->dir, "boot.yaml",
				 "name: lockboot\n"
				 "tests:\n"
				 "  - name: boot\n"
				 "    boot: { trigger: none, timeout: 5s, phases: [{ name: login, until: 'login:' }] }\n");
	rc = ts_run(&out, "%s run %s -i %s -l b1twin -o %s/runs", ORCH_BIN, sc, f->inv, f->dir);
	assert_int_equal(rc, 3);
	free(out);
	char *res_path = xasprintf("%s/runs/lockboot/latest/results.json", f->dir);
	char *res = ts_read_file(res_path);
	assert_non_null(res);
	assert_non_null(strstr(res, holder));
	TS_FREE(res, res_path, sc);

	/* the first is unharmed: it still sees the boot and passes */
	feed_boot(f);
	assert_int_equal(wait_exit(&first, 30), 0);
	char *log_path = xasprintf("%s/first/boot.log", f->dir);
	char *log = ts_read_file(log_path);
	assert_non_null(log);
	TS_ASSERT_HAS(log, "Run /init");
	TS_FREE(log, log_path);
	assert_false(ts_file_exists(f->lockfile));   /* removed after the run */
}

static void test_uucp_holder_named(void **state)
{
	struct fx *f = *state;
	pid_t holder = ts_spawn("exec sleep 60", NULL);
	for (int i = 0; i < 100; i++) {   /* until the exec is done */
		char *cl = xasprintf("/proc/%ld/cmdline", (long)holder);
		char *text = ts_read_file(cl);
		bool done = text && !strcmp(text, "sleep");
		TS_FREE(cl, text);
		if (done)
			break;
		usleep(20000);
	}
	char *text = xasprintf("%10ld\n", (long)holder);
	char *dir = xasprintf("%s", "/var/lock");
	char *name = strrchr(f->lockfile, '/') + 1;
	free(ts_write_file(dir, name, text));
	char *out = NULL;
	int rc = ts_run(&out, "%s boot b1 -i %s --trigger none --timeout 3s -o %s/held", ORCH_BIN,
			f->inv, f->dir);
	print_message("%s", out);
	assert_int_equal(rc, 3);
	char want[80];
	snprintf(want, sizeof(want), "in use by pid %ld (sleep 60)", (long)holder);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, f->lockfile + strlen("/var/lock/")));
	free(out);
	assert_true(ts_file_exists(f->lockfile));   /* someone else's lock: left alone */
	ts_stop(&holder);
	unlink(f->lockfile);
	TS_FREE(text, dir);
}

static void test_stale_lock_removed(void **state)
{
	struct fx *f = *state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char *text = xasprintf("%10ld\n", (long)dead);
	free(ts_write_file("/var/lock", strrchr(f->lockfile, '/') + 1, text));
	free(text);
	pid_t orch = start_boot(f, "b1", "stale", 20);
	for (int i = 0; i < 250; i++) {
		char *now = ts_read_file(f->lockfile);
		bool ours = now && atol(now) == (long)orch;
		free(now);
		if (ours)
			break;
		usleep(20000);
	}
	assert_true(wait_for_flock(orch, 10));
	feed_boot(f);
	assert_int_equal(wait_exit(&orch, 30), 0);
	char *log_path = xasprintf("%s/stale.log", f->dir);
	char *log = ts_read_file(log_path);
	print_message("%s", log);
	char want[64];
	snprintf(want, sizeof(want), "pid %ld is gone", (long)dead);
	TS_ASSERT_HAS(log, "removed a stale lock");
	assert_non_null(strstr(log, want));
	TS_FREE(log, log_path);
	assert_false(ts_file_exists(f->lockfile));
}

static void test_picocom(void **state)
{
	struct fx *f = *state;
	if (ts_run(NULL, "command -v picocom >/dev/null && command -v script >/dev/null") != 0)
		ts_skip("needs picocom and script (apt-get install picocom bsdutils)");
	/* picocom holds the port: orch names it */
	/* stdin a pipe that stays open and silent: script ends at its EOF */
	char *cmd = xasprintf("sleep 60 | script -qfc 'exec picocom -q %s' /dev/null", f->a);
	char *pico_log = xasprintf("%s/picocom.log", f->dir);
	pid_t pico = ts_spawn(cmd, pico_log);
	free(cmd);
	/* picocom has the port once its flock shows in /proc/locks */
	for (int i = 0; i < 100; i++) {
		if (ts_run(NULL, "pid=$(pgrep -f '^picocom -q %s$') && grep -q \"FLOCK .* $pid \" "
			   "/proc/locks", f->a) == 0)
			break;
		usleep(50000);
	}
	char *out = NULL;
	int rc = ts_run(&out, "%s boot b1 -i %s --trigger none --timeout 1s -o %s/pico", ORCH_BIN,
			f->inv, f->dir);
	print_message("%s", out);
	if (rc != 3) {
		char *pl = ts_read_file(pico_log);
		print_message("picocom.log: %s\n", pl ? pl : "(none)");
		free(pl);
	}
	free(pico_log);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "(picocom -q ", "flock on the device");
	free(out);
	ts_stop(&pico);
	/* picocom runs in script's session: end it by its pid if the hangup did not */
	for (int i = 0; i < 100; i++) {
		if (ts_run(NULL, "pid=$(pgrep -f '^picocom -q %s$') || exit 0; kill $pid; exit 1",
			   f->a) == 0)
			break;
		usleep(50000);
	}

	/* orch holds it: picocom is refused, and orch is unharmed */
	pid_t orch = start_boot(f, "b1", "holder", 30);
	assert_true(wait_for_file(f->lockfile, 10));
	assert_true(wait_for_flock(orch, 10));
	rc = ts_run(&out, "sleep 3 | timeout 5 script -qfc 'picocom -q %s' /dev/null", f->a);
	print_message("picocom: %s", out);
	TS_ASSERT_HAS(out, "cannot lock");
	free(out);
	feed_boot(f);
	assert_int_equal(wait_exit(&orch, 30), 0);
}

static void test_network_console(void **state)
{
	struct fx *f = *state;
	int port = 27100 + getpid() % 500;
	char *cmd = xasprintf("exec socat TCP-LISTEN:%d,bind=" TCP_ADDR ",reuseaddr,fork "
			      "SYSTEM:'sleep 30'", port);
	pid_t server = ts_spawn(cmd, NULL);
	free(cmd);
	for (int i = 0; i < 250; i++) {   /* until socat listens */
		if (ts_run(NULL, "ss -ltn | grep -q '" TCP_ADDR ":%d '", port) == 0)
			break;
		usleep(20000);
	}
	char *lock_dir = xasprintf("%s/locks", f->dir);
	setenv("ORCH_LOCK_DIR", lock_dir, 1);
	pid_t first = start_boot(f, "net1", "netfirst", 20);
	char *lockfile = xasprintf("%s/console-tcp___" TCP_ADDR "_%d.lock", lock_dir, port);
	assert_true(wait_for_file(lockfile, 10));
	char *out = NULL;
	int rc = -1;
	for (int i = 0; i < 50; i++) {
		free(out);
		out = NULL;
		rc = ts_run(&out, "%s boot net1twin -i %s --trigger none --timeout 1s -o %s/net2",
			    ORCH_BIN, f->inv, f->dir);
		if (rc == 3 && strstr(out, "in use by"))
			break;
		usleep(100000);
	}
	print_message("%s", out);
	assert_int_equal(rc, 3);
	char want[64];
	snprintf(want, sizeof(want), "in use by pid %ld (", (long)first);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, lockfile));
	free(out);
	ts_stop(&first);
	ts_stop(&server);
	unsetenv("ORCH_LOCK_DIR");
	TS_FREE(lockfile, lock_dir);
}

TS_MAIN(setup, teardown, test_second_orch_refused_first_unharmed, test_uucp_holder_named,
	test_stale_lock_removed, test_picocom, test_network_console)
