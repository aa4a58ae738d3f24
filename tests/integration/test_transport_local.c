/*
 * The local transport: /bin/sh -c below a keeper of its own in a new
 * session (a command's kill of its parent reaches the keeper), output streamed,
 * stdin pushed (a silent stdin pipe holds nothing up), the whole process
 * group killed on timeout, interrupt or when the output callback says stop,
 * and no zombie left behind.
 */
#include "testsupport.h"
#include "ts_collect.h"
#include "transport/transport.h"
#include "transport/transport_local.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(const char *cmd, int64_t timeout_ms, int stdin_fd, struct ts_collect *c,
	       struct transport_status *st)
{
	struct transport *t = transport_local_new();
	int rc = ts_collect_exec(t, cmd, timeout_ms, stdin_fd, c, st);
	transport_free(t);
	return rc;
}

/* No child of ours is left, running or zombie. */
static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Processes whose command line holds `sleep N` (pattern keeps this one out). */
static int count_sleepers(int n)
{
	char *out = NULL;
	ts_run(&out, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\000' ' ' | "
		     "grep -o 'sleep %d[%d]' | wc -l", n / 10, n % 10);
	int count = out ? atoi(out) : -1;
	free(out);
	return count;
}

static void test_output_and_exit(void **state)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("echo hello; echo oops >&2; printf 'it'\\''s'", 10000, -1, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_false(st.timed_out);
	assert_string_equal(strbuf_str(&c.out), "hello\nit's");
	assert_string_equal(strbuf_str(&c.err), "oops\n");
	ts_collect_release(&c);

	struct ts_collect c2 = { 0 };
	assert_int_equal(run("exit 3", 10000, -1, &c2, &st), 0);
	assert_int_equal(st.exit_code, 3);
	ts_collect_release(&c2);

	struct ts_collect c3 = { 0 };
	assert_int_equal(run("kill -USR1 $$", 10000, -1, &c3, &st), 0);
	assert_int_equal(st.exit_code, -1);
	assert_int_equal(st.signal, SIGUSR1);
	ts_collect_release(&c3);

	/* no fd of ours leaks into the command: only 0, 1, 2 (and ls's own) */
	struct ts_collect c5 = { 0 };
	assert_int_equal(run("ls /proc/self/fd | wc -l", 10000, -1, &c5, &st), 0);
	assert_int_equal(atoi(strbuf_str(&c5.out)), 4);
	ts_collect_release(&c5);

	/* stdin is empty, not ours */
	struct ts_collect c4 = { 0 };
	assert_int_equal(run("wc -c", 10000, -1, &c4, &st), 0);
	assert_int_equal(atoi(strbuf_str(&c4.out)), 0);
	ts_collect_release(&c4);
	assert_no_children();
}

/* The shell's parent is a keeper of its own, not us, leading the
 * session and group the shell is in. */
static void test_own_session(void **state)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("cut -d' ' -f1,4,5,6 /proc/$$/stat", 10000, -1, &c, &st), 0);
	int pid = 0, ppid = 0, pgid = 0, sid = 0;
	assert_int_equal(sscanf(strbuf_str(&c.out), "%d %d %d %d", &pid, &ppid, &pgid, &sid), 4);
	assert_int_not_equal(ppid, getpid());
	assert_int_equal(ppid, pgid);
	assert_int_equal(ppid, sid);
	assert_int_equal(st.pgid, pgid);
	assert_false(st.parent_lost);
	ts_collect_release(&c);
	assert_no_children();
}

/* A command that kills its parent kills its keeper, not us: the exec
 * says so (parent_lost, the signal) and the command is stopped. */
static void test_kill_parent(void **state)
{
	(void)state;
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("kill -9 $PPID; echo after; sleep 5557; echo late", 10000, -1, &c,
			     &st), 0);
	assert_true(st.parent_lost);
	assert_int_equal(st.parent_signal, SIGKILL);
	assert_int_equal(st.exit_code, -1);
	assert_false(st.timed_out);
	assert_null(strstr(strbuf_str(&c.out), "late"));
	ts_collect_release(&c);
	assert_int_equal(count_sleepers(5557), 0);
	assert_no_children();
}

/* A TERM that the shell does not survive is orch's, not an outsider's,
 * and the shell's signal is told as it happened. */
static void test_shell_signal(void **state)
{
	(void)state;
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("kill -TERM $$", 10000, -1, &c, &st), 0);
	assert_false(st.parent_lost);
	assert_int_equal(st.exit_code, -1);
	assert_int_equal(st.signal, SIGTERM);
	ts_collect_release(&c);
	assert_no_children();
}

/* A timeout's TERM reaches the shell with its grace through the keeper
 * (its trap runs), then the whole group is gone. */
static void test_timeout_term_grace(void **state)
{
	(void)state;
	struct ts_collect c = { 0 };
	struct transport_status st;
	char *dir = ts_mkdtemp("localgrace");
	char *cmd = xasprintf("trap 'echo trapped > %s/trap; exit 3' TERM; echo go; "
			      "sleep 5558 & wait", dir);
	assert_int_equal(run(cmd, 500, -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_false(st.parent_lost);
	assert_string_equal(strbuf_str(&c.out), "go\n");
	char *out = NULL;
	ts_run(&out, "cat %s/trap", dir);
	assert_string_equal(out ? out : "", "trapped\n");
	free(out);
	free(cmd);
	ts_collect_release(&c);
	assert_int_equal(count_sleepers(5558), 0);
	assert_no_children();
	ts_rmrf_free(&dir);
}

/* With a step id the shell itself carries ORCH_STEP_ID in its
 * environment, not only what it starts. */
static void test_step_id_in_shell_environ(void **state)
{
	(void)state;
	struct transport *t = transport_local_new();
	struct ts_collect c = { 0 };
	struct transport_status st;
	char err[256] = "";
	struct transport_exec req = {
		.command = "tr '\\000' '\\n' </proc/$$/environ | grep '^ORCH_STEP_ID='",
		.timeout_ms = 10000,
		.stdin_fd = -1,
		.on_output = ts_collect_output,
		.ctx = &c,
		.step_id = "feedc0de12345678",
		.minimal_env = true,
	};
	assert_int_equal(transport_exec(t, &req, &st, err, sizeof(err)), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c.out), "ORCH_STEP_ID=feedc0de12345678\n");
	ts_collect_release(&c);
	transport_free(t);
	assert_no_children();
}

static void test_stdin_push(void **state)
{
	char *dir = ts_mkdtemp("local");
	char *path = xasprintf("%s/data", dir);
	char *expect = NULL;
	assert_int_equal(ts_run(NULL, "head -c 5242880 /dev/urandom > '%s'", path), 0);
	assert_int_equal(ts_run(&expect, "sha256sum < '%s' | cut -d' ' -f1", path), 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("sha256sum | cut -d' ' -f1", 60000, fd, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c.out), expect);
	ts_collect_release(&c);
	close(fd);

	/* A command that never reads its stdin: no SIGPIPE for us, no hang. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ts_collect c2 = { 0 };
	assert_int_equal(run("exec 0<&-; echo closed", 60000, fd, &c2, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c2.out), "closed\n");
	ts_collect_release(&c2);
	close(fd);
	TS_FREE(expect, path);
	ts_rmrf_free(&dir);
	assert_no_children();
}

static void test_large_output(void **state)
{
	struct ts_collect c = { .count_only = true };
	struct transport_status st;
	assert_int_equal(run("head -c 52428800 /dev/zero; echo e >&2", 60000, -1, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_int_equal(c.out_bytes, 52428800);
	assert_string_equal(strbuf_str(&c.err), "e\n");
	ts_collect_release(&c);
}

static void test_timeout_kills_group(void **state)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("echo go; sleep 5551 & sleep 5551", 500, -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	assert_string_equal(strbuf_str(&c.out), "go\n");
	ts_collect_release(&c);
	assert_int_equal(count_sleepers(5551), 0);
	assert_no_children();
}

static void test_interrupt(void **state)
{
	struct ts_collect c = { .interrupt_on_output = true };
	struct transport_status st;
	assert_int_equal(run("echo go; sleep 5552 & sleep 5552", 30000, -1, &c, &st), 0);
	interrupt_reset();
	assert_true(st.interrupted);
	assert_false(st.timed_out);
	ts_collect_release(&c);
	assert_int_equal(count_sleepers(5552), 0);
	assert_no_children();
}

static void test_stop_from_callback(void **state)
{
	struct ts_collect c = { .stop_on_output = true };
	struct transport_status st;
	assert_int_equal(run("echo go; sleep 5553", 30000, -1, &c, &st), 0);
	assert_true(st.stopped);
	ts_collect_release(&c);
	assert_int_equal(count_sleepers(5553), 0);
	assert_no_children();
}

static void test_capture(void **state)
{
	struct transport *t = transport_local_new();
	char *out = NULL;
	int code = -1;
	char err[256];
	assert_string_equal(transport_describe(t), "local");
	assert_int_equal(transport_capture(t, "echo 0123456789", 5000, 4, &out, &code, err,
					   sizeof(err)), 0);
	assert_int_equal(code, 0);
	assert_string_equal(out, "0123");
	free(out);
	assert_int_equal(transport_capture(t, "sleep 5554", 200, 4, &out, &code, err,
					   sizeof(err)), -1);
	assert_null(out);
	TS_ASSERT_HAS(err, "timed out");
	transport_free(t);
	assert_no_children();
}

/* A stdin pipe that stays open and silent must not hold the exec: the timeout
 * still applies, and a command that never reads it finishes. */
static void test_silent_stdin_pipe(void **state)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	alarm(30);   /* a hang kills the test instead of CI's time */
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(run("cat", 500, p[0], &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	ts_collect_release(&c);
	struct ts_collect c2 = { 0 };
	assert_int_equal(run("echo done", 0, p[0], &c2, &st), 0);
	assert_false(st.timed_out);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c2.out), "done\n");
	ts_collect_release(&c2);
	alarm(0);
	close(p[0]);
	close(p[1]);
	assert_no_children();
}

TS_MAIN(NULL, NULL, test_output_and_exit, test_own_session, test_kill_parent, test_shell_signal,
	test_timeout_term_grace, test_step_id_in_shell_environ, test_stdin_push,
	test_silent_stdin_pipe, test_large_output, test_timeout_kills_group, test_interrupt,
	test_stop_from_callback, test_capture)
