/*
 * scripts/demo.sh on a copy of the repository's demo (the script, the
 * lab's inventory and scenario; the build and tests/lab linked), its lab on
 * a private range (SSHD_LAB_BASE, the copied boards/lab.yaml rewritten):
 *   - the last line says how to stop the lab, and the lab is up after it;
 *   - a second demo.sh while the lab runs reuses it: the same daemons;
 *   - demo.sh --stop takes it down.
 */
#include "testsupport.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE "127.0.52"

static char *copy_into(const char *tmp, const char *rel, const char *from, const char *to)
{
	char *path = xasprintf("%s/%s", ORCH_SOURCE_DIR, rel);
	char *text = ts_read_file(path);
	assert_non_null(text);
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = text; *p;) {
		const char *hit = from ? strstr(p, from) : NULL;
		if (!hit) {
			strbuf_puts(&sb, p);
			break;
		}
		strbuf_append(&sb, p, (size_t)(hit - p));
		strbuf_puts(&sb, to);
		p = hit + strlen(from);
	}
	char *out = ts_write_file(tmp, rel, strbuf_str(&sb));
	strbuf_release(&sb);
	TS_FREE(text, path);
	return out;
}

static char *last_line(const char *out)
{
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == '\n')
		n--;
	size_t s = n;
	while (s > 0 && out[s - 1] != '\n')
		s--;
	return xstrndup(out + s, n - s);
}

static void test_demo_reuses_and_stops(void **state)
{
	ts_require_root("the lab's boards log in the system user orchlab");
	ts_require_tool("dropbear", "apt-get install dropbear-bin");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	char *tmp = ts_mkdtemp("demo-script");
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd %s && chmod 755 . && mkdir -p scripts boards scenarios tests", tmp), 0);
	free(out);
	free(copy_into(tmp, "scripts/demo.sh", NULL, NULL));
	free(copy_into(tmp, "boards/lab.yaml", "127.0.1.", BASE "."));
	free(copy_into(tmp, "scenarios/demo.yaml", NULL, NULL));
	assert_int_equal(ts_run(&out, "chmod 755 %s/scripts/demo.sh && "
				"ln -s %s/tests/lab %s/tests/lab && ln -s %s %s/build", tmp,
				ORCH_SOURCE_DIR, tmp, ORCH_BINARY_DIR, tmp), 0);
	free(out);

	int rc = ts_run(&out, "cd %s && SSHD_LAB_BASE=" BASE " scripts/demo.sh --no-build -q", tmp);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	char *last = last_line(out);
	assert_string_equal(last, "the lab is still up for the next demo; stop it with: "
				  "scripts/demo.sh --stop");
	TS_FREE(last, out);
	char *pid_path = xasprintf("%s/.lab/board1/daemon.pid", tmp);
	char *pid1 = ts_read_file(pid_path);
	assert_non_null(pid1);
	assert_true(ts_pid_running(atol(pid1)));

	rc = ts_run(&out, "cd %s && SSHD_LAB_BASE=" BASE " scripts/demo.sh --no-build -q", tmp);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "demo: the lab is up already");
	free(out);
	char *pid2 = ts_read_file(pid_path);
	assert_non_null(pid2);
	assert_string_equal(pid1, pid2);   /* the same daemons, not a restart */

	rc = ts_run(&out, "cd %s && scripts/demo.sh --stop", tmp);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	assert_false(ts_pid_running(atol(pid1)));
	assert_int_not_equal(ts_run(&out, "cd %s && tests/lab/sshd-lab.sh status", tmp), 0);
	TS_FREE(out, pid1, pid2, pid_path);
	ts_rmrf_free(&tmp);
}

TS_MAIN(NULL, NULL, test_demo_reuses_and_stops)
