/*
 * The serial command transport against a real interactive shell on a pty
 * (socat runs a small login script, then `sh -i`, with the tty's echo on):
 * login with user and password, output between the markers with the echo,
 * prompts and escape sequences left out, exit status, stderr merged,
 * output without a final newline, a timeout (Ctrl-C, then the console is
 * usable again), Ctrl-C (the command ends interrupted at once), a refused
 * password, and typing with a per-character delay.
 */
#include "testsupport.h"
#include "transport/transport.h"
#include "transport/transport_serial.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char login_script[] =
	"user=\n"
	"while [ -z \"$user\" ]; do printf '\\r\\nfake-board login: '; read user || exit 1; done\n"
	"printf 'Password: '\n"
	"stty -echo; read pw || exit 1; stty echo; echo\n"
	"if [ \"$user\" = root ] && [ \"$pw\" = secret ]; then\n"
	"  printf 'Welcome \\033[1mhome\\033[0m\\n'\n"
	"  exec /bin/sh -i\n"
	"fi\n"
	"echo 'Login incorrect'; sleep 1; exit 1\n";

struct fx {
	char *dir;
	char *port;
	pid_t socat;
};

static int start_console(struct fx *f)
{
	char *script = ts_write_file(f->dir, "login.sh", login_script);
	free(f->port);
	f->port = xasprintf("%s/console-%d", f->dir, (int)f->socat + 1);
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s "
			      "EXEC:'/bin/sh %s',pty,setsid,ctty,stderr", f->port, script);
	f->socat = ts_spawn(cmd, NULL);
	TS_FREE(cmd, script);
	for (int i = 0; i < 250; i++) {
		if (access(f->port, F_OK) == 0)
			return 0;
		usleep(20000);
	}
	return -1;
}

static void stop_console(struct fx *f)
{
	ts_stop(&f->socat);
}

static int setup(void **state)
{
	ts_require_tool("socat", "apt-get install socat");
	struct fx *f = xcalloc(1, sizeof(*f));
	f->dir = ts_mkdtemp("serial-transport");
	*state = f;
	return start_console(f);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (!f)
		return 0;
	stop_console(f);
	ts_rmrf(f->dir);
	TS_FREE(f->dir, f->port, f);
	return 0;
}

static int fresh(void **state)
{
	struct fx *f = *state;
	stop_console(f);
	return start_console(f);
}

static int collect(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	strbuf_append(ctx, data, len);
	return 0;
}

static int run(struct transport *t, const char *cmd, int64_t timeout_ms, struct strbuf *out,
	       struct transport_status *st)
{
	char err[256];
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .on_output = collect, .ctx = out };
	strbuf_reset(out);
	int r = transport_exec(t, &req, st, err, sizeof(err));
	if (r < 0)
		print_message("exec: %s\n", err);
	return r;
}

static void test_login_and_commands(void **state)
{
	struct fx *f = *state;
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 15000 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, "secret", "fake", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	assert_string_equal(t->ops->name, "serial");
	struct strbuf out = STRBUF_INIT;
	struct transport_status st;

	assert_int_equal(run(t, "echo hello; echo oops >&2; exit 3", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "hello\noops\n");
	assert_int_equal(st.exit_code, 3);
	assert_false(st.timed_out);

	assert_int_equal(run(t, "printf 'no newline'", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "no newline");
	assert_int_equal(st.exit_code, 0);

	assert_int_equal(run(t, "true", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "");

	assert_int_equal(run(t, "printf '\\033[31mred\\033[0m\\n\\nlast\\n'; echo \"it's\"", 10000,
			     &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "red\n\nlast\nit's\n");

	/* markers typed in a command are not mistaken for the real ones */
	assert_int_equal(run(t, "echo __ORCH_END_x__ 7; echo done", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "__ORCH_END_x__ 7\ndone\n");
	assert_int_equal(st.exit_code, 0);

	char *outs = NULL;
	int code;
	assert_int_equal(transport_capture(t, "seq 1 200 | wc -l", 10000, 100, &outs, &code,
					   err, sizeof(err)), 0);
	assert_string_equal(outs, "200\n");
	free(outs);
	strbuf_release(&out);
	transport_free(t);
}

static void test_timeout_then_usable(void **state)
{
	struct fx *f = *state;
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 15000 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, "secret", "fake", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	struct strbuf out = STRBUF_INIT;
	struct transport_status st;
	assert_int_equal(run(t, "echo started; sleep 30", 1500, &out, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	assert_int_equal(run(t, "echo after", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "after\n");
	assert_int_equal(st.exit_code, 0);
	strbuf_release(&out);
	transport_free(t);
}

static void test_interrupt(void **state)
{
	struct fx *f = *state;
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 15000 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, "secret", "fake", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	struct strbuf out = STRBUF_INIT;
	struct transport_status st;
	interrupt_request();
	int r = run(t, "sleep 30", 60000, &out, &st);
	interrupt_reset();
	assert_int_equal(r, 0);
	assert_true(st.interrupted);
	assert_false(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	strbuf_release(&out);
	transport_free(t);
}

static void test_wrong_password(void **state)
{
	struct fx *f = *state;
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 8000 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, "wrong", "fake", err, sizeof(err));
	assert_null(t);
	TS_ASSERT_HAS(err, "fake");
	print_message("refused as expected: %s\n", err);
}

static void test_char_delay(void **state)
{
	struct fx *f = *state;
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 15000,
				    .char_delay_us = 300 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, "secret", "fake", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	struct strbuf out = STRBUF_INIT;
	struct transport_status st;
	assert_int_equal(run(t, "uname -s", 10000, &out, &st), 0);
	assert_string_equal(strbuf_str(&out), "Linux\n");
	strbuf_release(&out);
	transport_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_login_and_commands, fresh),
		cmocka_unit_test_setup(test_timeout_then_usable, fresh),
		cmocka_unit_test_setup(test_interrupt, fresh),
		cmocka_unit_test_setup(test_wrong_password, fresh),
		cmocka_unit_test_setup(test_char_delay, fresh),
	};
	return ts_run_group(tests, setup, teardown);
}
