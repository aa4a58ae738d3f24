/*
 * orch console on a network console (serial: url: tcp://HOST:PORT, as
 * ser2net serves one): socat listens on 127.0.226.1:55260 and gives each
 * connection a shell on a pty, the "board". Driven from a pty:
 *   - the typed command reaches the shell and its output comes back;
 *     Ctrl-] Ctrl-] sends one Ctrl-] (the session goes on); Ctrl-] q ends
 *     with exit 0 and the pty's settings as before;
 *   - while it runs, the same URL under another board name is refused
 *     naming the session's pid (the console lock of a URL);
 *   - the end of standard input ends a session (exit 0);
 *   - the server going away ends a session with exit 3, the pty restored.
 * A private lock folder (ORCH_LOCK_DIR).
 */
#include "testsupport.h"
#include "ts_term.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ADDR "127.0.226.1"
#define PORT 55260
#define WAIT_MS 60000

struct fixture {
	char *dir;
	char *env;
	pid_t socat;
};

static int setup(void **state)
{
	ts_require_tool("socat", "apt-get install socat");
	ts_require_tool("ss", "apt-get install iproute2");
	struct fixture *f = xcalloc(1, sizeof(*f));
	f->dir = ts_mkdtemp("console-tcp");
	char *cmd = xasprintf("exec socat TCP-LISTEN:%d,bind=%s,reuseaddr,fork "
			      "EXEC:'/bin/sh -i',pty,stderr,setsid,ctty", PORT, ADDR);
	char *log = xasprintf("%s/socat.log", f->dir);
	f->socat = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	int64_t dl = deadline_in_ms(WAIT_MS);
	bool up = false;
	while (!up && !deadline_expired(dl))
		up = ts_run(NULL, "ss -ltn 'sport = :%d' | grep -q LISTEN", PORT) == 0;
	assert_true(up);
	free(ts_write_file(f->dir, "inv.yaml",
			   "boards:\n"
			   "  tcpb: { serial: { url: 'tcp://" ADDR ":55260' } }\n"
			   "  tcptwin: { serial: { url: 'tcp://" ADDR ":55260' } }\n"));
	f->env = xasprintf("cd %s && ORCH_LOCK_DIR=%s/locks ORCH_INVENTORY=inv.yaml", f->dir,
			   f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_stop(&f->socat);
	ts_rmrf(f->dir);
	TS_FREE(f->dir, f->env, f);
	return 0;
}

static void test_session_over_tcp(void **state)
{
	struct fixture *f = *state;
	struct ts_term t;
	char *cmd = xasprintf("%s exec %s console tcpb", f->env, ORCH_BIN);
	size_t at = 0;
	ts_term_start_raw(&t, cmd, "tcp://" ADDR ":55260", &at, WAIT_MS);

	char *out = NULL;
	int rc = ts_run(&out, "%s %s console tcptwin </dev/null", f->env, ORCH_BIN);
	print_message("twin: %s", out);
	assert_int_equal(rc, 3);
	char want[64];
	snprintf(want, sizeof(want), "in use by pid %ld", (long)t.pid);
	assert_non_null(strstr(out, want));
	free(out);

	ts_term_type(&t, "echo tcp-$((3*4))\r");
	assert_true(ts_term_wait(&t, &at, "tcp-12", WAIT_MS, NULL));
	ts_term_type(&t, "\x1d\x1d");   /* one Ctrl-] to the shell: nothing ends */
	ts_term_type(&t, "\x1d?");
	assert_true(ts_term_wait(&t, &at, "this help", WAIT_MS, NULL));
	ts_term_type(&t, "\x1dq");
	ts_term_assert_exit(&t, 0, WAIT_MS);
	ts_term_end(&t);
	free(cmd);
}

static void test_end_of_input_ends(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	free(ts_write_file(f->dir, "input.txt", "echo piped\r"));
	int rc = ts_run(&out, "%s timeout 60 %s console tcpb <input.txt", f->env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "session ended");
	free(out);
}

/* The console server goes away under a session: exit 3, the pty restored. */
static void test_console_lost(void **state)
{
	struct fixture *f = *state;
	struct ts_term t;
	char *cmd = xasprintf("%s exec %s console tcpb", f->env, ORCH_BIN);
	size_t at = 0;
	ts_term_start_raw(&t, cmd, "tcp://" ADDR ":55260", &at, WAIT_MS);
	ts_stop(&f->socat);
	ts_term_assert_exit(&t, 3, WAIT_MS);
	assert_true(ts_term_wait(&t, &at, "the console is gone", WAIT_MS, NULL));
	ts_term_end(&t);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_over_tcp),
		cmocka_unit_test(test_end_of_input_ends),
		cmocka_unit_test(test_console_lost),   /* last: stops the server */
	};
	return ts_run_group(tests, setup, teardown);
}
