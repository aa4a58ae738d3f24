/*
 * orch power and orch console on the qemu lab board (tests/lab/qemu-board.sh,
 * serial only), driven from a pty as a person's terminal:
 *   - `orch power qemu1 on` starts the board (its on: command starts qemu
 *     when it is not running, then QMP cont);
 *   - `orch console qemu1` shows the board's login, takes the typed login,
 *     password and a command and shows the command's output; Ctrl-] q ends
 *     it with exit 0, and the pty's settings (stty -g) are the ones from
 *     before, while during the session they were raw;
 *   - while a console session runs, a second `orch console qemu1` is
 *     refused naming the session's pid (the board's lock), and so is the
 *     same console under another board name (the console's lock); SIGTERM
 *     ends the session with exit 130 and the pty restored;
 *   - --listen --escape ^a: Ctrl-A q ends a read-only session;
 *   - `orch power qemu1 off` stops qemu: its pid is gone.
 * Skipped, saying why, without qemu-system-x86_64 or a /boot/vmlinuz-*.
 */
#include "testsupport.h"
#include "ts_qemu.h"
#include "ts_term.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define BOOT_WAIT_MS 240000
#define STEP_WAIT_MS 60000

static struct ts_qemu board;

struct fixture {
	struct ts_qemu *q;
	char *env;       /* "cd DIR && ORCH_LOCK_DIR=... ORCH_INVENTORY=inv.yaml" */
};

static struct fixture fx;

static int setup(void **state)
{
	if (ts_qemu_start(&board, "console-verb", "--no-net") < 0)
		return -1;
	fx.q = &board;
	char *inv = xasprintf(
		"boards:\n"
		"  qemu1:\n"
		"    serial: { port: %s/console, baud: 115200 }\n"
		"    power:\n"
		"      on: '%s status --state %s >/dev/null || %s start --state %s --no-net;"
		" %s power on --state %s'\n"
		"      off: '%s stop --state %s'\n"
		"  qemu1twin:\n"   /* the same console under another name: past the board lock */
		"    serial: { port: %s/console }\n",
		board.state, board.script, board.state, board.script, board.state, board.script,
		board.state, board.script, board.state, board.state);
	free(ts_write_file(board.dir, "inv.yaml", inv));
	free(inv);
	fx.env = xasprintf("cd %s && ORCH_LOCK_DIR=%s/locks ORCH_INVENTORY=inv.yaml", board.dir,
			   board.dir);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	ts_qemu_stop(&board);
	free(fx.env);
	return 0;
}

static void test_power_on_and_console(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power qemu1 on", f->env, ORCH_BIN);
	print_message("power on: %s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "qemu1: power on done");
	free(out);

	struct ts_term t;
	char *cmd = xasprintf("%s exec %s console qemu1", f->env, ORCH_BIN);
	size_t at = 0;
	ts_term_start_raw(&t, cmd, "q ends the session", &at, STEP_WAIT_MS);
	assert_true(ts_term_wait(&t, &at, "login:", BOOT_WAIT_MS, "\r"));
	char *during = ts_term_stty(&t);
	assert_string_not_equal(t.before, during);   /* raw while the session runs */
	ts_term_type(&t, "root\r");
	assert_true(ts_term_wait(&t, &at, "assword:", STEP_WAIT_MS, NULL));
	ts_term_type(&t, "orchlab\r");
	assert_true(ts_term_wait(&t, &at, "# ", STEP_WAIT_MS, NULL));
	ts_term_type(&t, "echo orch-$((6*7))\r");
	assert_true(ts_term_wait(&t, &at, "orch-42", STEP_WAIT_MS, NULL));
	ts_term_type(&t, "\x1dq");
	ts_term_assert_exit(&t, 0, STEP_WAIT_MS);
	free(during);
	ts_term_end(&t);
	free(cmd);
}

static void test_console_held_and_sigterm(void **state)
{
	struct fixture *f = *state;
	struct ts_term t;
	char *cmd = xasprintf("%s exec %s console qemu1", f->env, ORCH_BIN);
	size_t at = 0;
	ts_term_start_raw(&t, cmd, "q ends the session", &at, STEP_WAIT_MS);

	char *out = NULL;
	int rc = ts_run(&out, "%s %s console qemu1 </dev/null", f->env, ORCH_BIN);
	print_message("second: %s", out);
	assert_int_equal(rc, 3);
	char want[128];
	snprintf(want, sizeof(want), " pid %ld since ", (long)t.pid);
	TS_ASSERT_HAS(out, "qemu1 is held by ");
	assert_non_null(strstr(out, want));
	TS_ASSERT_HAS(out, "(orch console qemu1)");
	free(out);
	rc = ts_run(&out, "%s %s console qemu1twin </dev/null", f->env, ORCH_BIN);
	print_message("twin: %s", out);
	assert_int_equal(rc, 3);
	snprintf(want, sizeof(want), "in use by pid %ld (", (long)t.pid);
	assert_non_null(strstr(out, want));
	free(out);

	kill(t.pid, SIGTERM);
	ts_term_assert_exit(&t, 130, STEP_WAIT_MS);
	ts_term_end(&t);
	free(cmd);
}

static void test_listen_with_own_escape(void **state)
{
	struct fixture *f = *state;
	struct ts_term t;
	char *cmd = xasprintf("%s exec %s console qemu1 --listen --escape ^a", f->env, ORCH_BIN);
	size_t at = 0;
	ts_term_start_raw(&t, cmd, "read only; Ctrl-A q ends the session", &at, STEP_WAIT_MS);
	ts_term_type(&t, "\x1dq");          /* not the escape key now: nothing happens */
	ts_term_type(&t, "\x01q");
	ts_term_assert_exit(&t, 0, STEP_WAIT_MS);
	ts_term_end(&t);
	free(cmd);
}

static void test_power_off_stops_qemu(void **state)
{
	struct fixture *f = *state;
	char *pidfile = xasprintf("%s/qemu.pid", f->q->state);
	char *pidtext = ts_read_file(pidfile);
	assert_non_null(pidtext);
	pid_t pid = (pid_t)atol(pidtext);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), 0);
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power qemu1 off", f->env, ORCH_BIN);
	print_message("power off: %s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "qemu1: power off done");
	free(out);
	int64_t dl = deadline_in_ms(STEP_WAIT_MS);
	while (kill(pid, 0) == 0 && !deadline_expired(dl)) {
		struct pollfd none;
		poll(&none, 0, 50);
	}
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	TS_FREE(pidtext, pidfile);
}

TS_MAIN(setup, teardown, test_power_on_and_console, test_console_held_and_sigterm,
	test_listen_with_own_escape, test_power_off_stops_qemu)
