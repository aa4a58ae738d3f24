/* command_run with a prelude (how a board's facts ride on its first test
 * command), through the local transport's /bin/sh as on a board: the
 * prelude's output is kept apart from the logs, the command's own output,
 * exit status and shell state are untouched, and output that never
 * reaches the prelude's end line is kept in the log. */
#include "testsupport.h"
#include "execute/command.h"
#include "transport/transport_local.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct ran {
	char *dir;
	struct command_outcome out;
	struct strbuf pre;
	char *stdout_log;
	char *stderr_log;
};

static void run_with(struct ran *r, const char *prelude, const char *command, int64_t timeout_ms)
{
	memset(r, 0, sizeof(*r));
	r->dir = ts_mkdtemp("prelude");
	struct transport *t = transport_local_new();
	struct command_spec spec = {
		.command = command,
		.timeout_ms = timeout_ms,
		.stdin_fd = -1,
		.dir = r->dir,
		.stdout_name = "stdout.log",
		.stderr_name = "stderr.log",
		.prelude = prelude,
		.prelude_out = &r->pre,
	};
	assert_int_equal(command_run(t, &spec, &r->out), 0);
	transport_free(t);
	char *p = xasprintf("%s/stdout.log", r->dir);
	r->stdout_log = ts_read_file(p);
	free(p);
	p = xasprintf("%s/stderr.log", r->dir);
	r->stderr_log = ts_read_file(p);
	free(p);
}

static void ran_release(struct ran *r)
{
	ts_rmrf(r->dir);
	TS_FREE(r->dir, r->stdout_log, r->stderr_log);
	strbuf_release(&r->pre);
}

static void test_apart_and_untouched(void **state)
{
	struct ran r;
	run_with(&r, "v=leaked; echo kernel=1; echo arch=x; echo noise >&2; cat; exit 0",
		 "echo \"out [${v-unset}] $#\"; echo err >&2; exit 3", 10000);
	assert_true(r.out.prelude_done);
	assert_string_equal(strbuf_str(&r.pre), "kernel=1\narch=x\n");
	assert_string_equal(r.stdout_log, "out [unset] 0\n");
	assert_string_equal(r.stderr_log, "err\n");   /* the prelude's stderr is dropped */
	assert_int_equal(r.out.st.exit_code, 3);
	ran_release(&r);
}

/* No newline at the prelude's end, and a command whose output follows at
 * once, in the same read. */
static void test_unterminated_prelude(void **state)
{
	struct ran r;
	run_with(&r, "printf 'libc=musl'", "printf 'a\\nb'", 10000);
	assert_true(r.out.prelude_done);
	assert_string_equal(strbuf_str(&r.pre), "libc=musl");
	assert_string_equal(r.stdout_log, "a\nb");
	ran_release(&r);
}

/* A prelude cut by the timeout: no end line, what it printed goes to the
 * log (nothing is lost), and the caller knows (prelude_done false). */
static void test_no_end_line(void **state)
{
	struct ran r;
	run_with(&r, "echo early; sleep 5", "echo never", 500);
	assert_false(r.out.prelude_done);
	assert_true(r.out.st.timed_out);
	assert_string_equal(strbuf_str(&r.pre), "");
	assert_string_equal(r.stdout_log, "early\n");
	ran_release(&r);
}

/* More than a prelude would print, without an end line: passed on to the
 * log, all of it. */
static void test_overlong_prelude(void **state)
{
	struct ran r;
	run_with(&r, "i=0; while [ $i -lt 1200 ]; do "
		 "echo 0123456789012345678901234567890123456789012345678901234567890123; "
		 "i=$((i + 1)); done", "echo after", 10000);
	assert_false(r.out.prelude_done);
	assert_true(strlen(r.stdout_log) > 1200 * 65);
	assert_int_equal(strncmp(r.stdout_log, "0123456789", 10), 0);
	size_t len = strlen(r.stdout_log);
	assert_string_equal(r.stdout_log + len - strlen("after\n"), "after\n");
	ran_release(&r);
}

/* The end line is random per command: a prelude that prints an old one,
 * or one of its own make, does not end early. */
static void test_end_line_not_forgeable(void **state)
{
	struct ran r;
	run_with(&r, "echo x", "echo y", 10000);
	char *first = xasprintf("%s", r.stdout_log);
	ran_release(&r);
	run_with(&r, "echo; echo orch-prelude-end-0000000000000000; echo os=real",
		 "echo cmd", 10000);
	assert_true(r.out.prelude_done);
	assert_non_null(strstr(strbuf_str(&r.pre), "os=real"));
	assert_string_equal(r.stdout_log, "cmd\n");
	assert_string_equal(first, "y\n");
	free(first);
	ran_release(&r);
}

TS_MAIN(NULL, NULL, test_apart_and_untouched, test_unterminated_prelude, test_no_end_line,
	test_overlong_prelude, test_end_line_not_forgeable)
