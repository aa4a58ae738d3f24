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
	(void)state;
	ts_qemu_stop(&board);
	free(fx.env);
	return 0;
}

/* A command running on a pty of its own (its controlling terminal), as a
 * person's terminal session would. */
struct term {
	int master;
	int slave;               /* kept open: its settings can be read after the end */
	char *slave_path;
	char *before;            /* stty -g of the pty before the command started */
	pid_t pid;
	struct strbuf seen;      /* everything the command wrote */
};

/* `stty -g` of the pty: its settings as stty prints them. */
static char *stty_of(const struct term *t)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "stty -g -F %s", t->slave_path), 0);
	return out;
}

static void term_start(struct term *t, const char *cmd)
{
	memset(t, 0, sizeof(*t));
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(t->master >= 0);
	assert_int_equal(grantpt(t->master), 0);
	assert_int_equal(unlockpt(t->master), 0);
	t->slave_path = xstrdup(ptsname(t->master));
	t->slave = open(t->slave_path, O_RDWR | O_NOCTTY);
	assert_true(t->slave >= 0);
	t->before = stty_of(t);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		setsid();
		int fd = open(t->slave_path, O_RDWR);   /* becomes the controlling tty */
		if (fd < 0)
			_exit(127);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

/* Reads what the command wrote for at most ms. */
static void term_pump(struct term *t, int ms)
{
	struct pollfd p = { .fd = t->master, .events = POLLIN };
	if (poll(&p, 1, ms) <= 0)
		return;
	char buf[4096];
	ssize_t n = read(t->master, buf, sizeof(buf));
	if (n > 0)
		strbuf_append(&t->seen, buf, (size_t)n);
}

/* Waits until text appears after offset *from (then *from moves past it);
 * while waiting, nudge (when not NULL) is typed every 3 s. */
static bool term_wait(struct term *t, size_t *from, const char *text, int64_t ms,
		      const char *nudge)
{
	int64_t dl = deadline_in_ms(ms), next_nudge = 0;
	while (!deadline_expired(dl)) {
		const char *at = strstr(strbuf_str(&t->seen) + *from, text);
		if (at) {
			*from = (size_t)(at - strbuf_str(&t->seen)) + strlen(text);
			return true;
		}
		if (nudge && clock_mono_ms() >= next_nudge) {
			assert_true(write(t->master, nudge, strlen(nudge)) == (ssize_t)strlen(nudge));
			next_nudge = clock_mono_ms() + 3000;
		}
		term_pump(t, 100);
	}
	print_message("waited for '%s' in vain; seen:\n%s\n", text, strbuf_str(&t->seen));
	return false;
}

static void term_type(struct term *t, const char *keys)
{
	assert_true(write(t->master, keys, strlen(keys)) == (ssize_t)strlen(keys));
}

/* The command's exit status, waited for at most ms (-1: still running). */
static int term_wait_exit(struct term *t, int64_t ms)
{
	int64_t dl = deadline_in_ms(ms);
	int st;
	while (!deadline_expired(dl)) {
		if (waitpid(t->pid, &st, WNOHANG) == t->pid) {
			t->pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		term_pump(t, 50);
	}
	return -1;
}

static void term_end(struct term *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	close(t->master);
	close(t->slave);
	free(t->slave_path);
	free(t->before);
	strbuf_release(&t->seen);
}

/* Waits until the command made the pty raw (its settings differ from
 * before it started). */
static bool term_wait_raw(struct term *t, int64_t ms)
{
	int64_t dl = deadline_in_ms(ms);
	while (!deadline_expired(dl)) {
		char *now = stty_of(t);
		bool changed = strcmp(now, t->before) != 0;
		free(now);
		if (changed)
			return true;
		term_pump(t, 50);
	}
	return false;
}

static void test_power_on_and_console(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power qemu1 on", f->env, ORCH_BIN);
	print_message("power on: %s", out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "qemu1: power on done"));
	free(out);

	struct term t;
	char *cmd = xasprintf("%s exec %s console qemu1", f->env, ORCH_BIN);
	term_start(&t, cmd);
	const char *before = t.before;
	size_t at = 0;
	assert_true(term_wait(&t, &at, "q ends the session", STEP_WAIT_MS, NULL));
	assert_true(term_wait(&t, &at, "login:", BOOT_WAIT_MS, "\r"));
	char *during = stty_of(&t);
	assert_string_not_equal(before, during);   /* raw while the session runs */
	term_type(&t, "root\r");
	assert_true(term_wait(&t, &at, "assword:", STEP_WAIT_MS, NULL));
	term_type(&t, "orchlab\r");
	assert_true(term_wait(&t, &at, "# ", STEP_WAIT_MS, NULL));
	term_type(&t, "echo orch-$((6*7))\r");
	assert_true(term_wait(&t, &at, "orch-42", STEP_WAIT_MS, NULL));
	term_type(&t, "\x1dq");
	rc = term_wait_exit(&t, STEP_WAIT_MS);
	print_message("console (its end): %s\n",
		      strbuf_str(&t.seen) + (t.seen.len > 400 ? t.seen.len - 400 : 0));
	assert_int_equal(rc, 0);
	char *after = stty_of(&t);
	assert_string_equal(before, after);
	free(during);
	free(after);
	term_end(&t);
	free(cmd);
}

static void test_console_held_and_sigterm(void **state)
{
	struct fixture *f = *state;
	struct term t;
	char *cmd = xasprintf("%s exec %s console qemu1", f->env, ORCH_BIN);
	term_start(&t, cmd);
	const char *before = t.before;
	size_t at = 0;
	assert_true(term_wait(&t, &at, "q ends the session", STEP_WAIT_MS, NULL));
	assert_true(term_wait_raw(&t, STEP_WAIT_MS));

	char *out = NULL;
	int rc = ts_run(&out, "%s %s console qemu1 </dev/null", f->env, ORCH_BIN);
	print_message("second: %s", out);
	assert_int_equal(rc, 3);
	char want[128];
	snprintf(want, sizeof(want), " pid %ld since ", (long)t.pid);
	assert_non_null(strstr(out, "qemu1 is held by "));
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "(orch console qemu1)"));
	free(out);
	rc = ts_run(&out, "%s %s console qemu1twin </dev/null", f->env, ORCH_BIN);
	print_message("twin: %s", out);
	assert_int_equal(rc, 3);
	snprintf(want, sizeof(want), "in use by pid %ld (", (long)t.pid);
	assert_non_null(strstr(out, want));
	free(out);

	kill(t.pid, SIGTERM);
	rc = term_wait_exit(&t, STEP_WAIT_MS);
	assert_int_equal(rc, 130);
	char *after = stty_of(&t);
	assert_string_equal(before, after);
	free(after);
	term_end(&t);
	free(cmd);
}

static void test_listen_with_own_escape(void **state)
{
	struct fixture *f = *state;
	struct term t;
	char *cmd = xasprintf("%s exec %s console qemu1 --listen --escape ^a", f->env, ORCH_BIN);
	term_start(&t, cmd);
	const char *before = t.before;
	size_t at = 0;
	assert_true(term_wait(&t, &at, "read only; Ctrl-A q ends the session", STEP_WAIT_MS,
			      NULL));
	assert_true(term_wait_raw(&t, STEP_WAIT_MS));
	term_type(&t, "\x1dq");          /* not the escape key now: nothing happens */
	term_type(&t, "\x01q");
	int rc = term_wait_exit(&t, STEP_WAIT_MS);
	assert_int_equal(rc, 0);
	char *after = stty_of(&t);
	assert_string_equal(before, after);
	free(after);
	term_end(&t);
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
	assert_non_null(strstr(out, "qemu1: power off done"));
	free(out);
	int64_t dl = deadline_in_ms(STEP_WAIT_MS);
	while (kill(pid, 0) == 0 && !deadline_expired(dl)) {
		struct pollfd none;
		poll(&none, 0, 50);
	}
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	free(pidtext);
	free(pidfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_on_and_console),
		cmocka_unit_test(test_console_held_and_sigterm),
		cmocka_unit_test(test_listen_with_own_escape),
		cmocka_unit_test(test_power_off_stops_qemu),
	};
	return ts_run_group(tests, setup, teardown);
}
