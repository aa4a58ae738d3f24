/*
 * Every ssh step is bounded by its timeout whatever it does with its output,
 * and a board that stops answering is an infrastructure error,
 * against a loopback lab of real OpenSSH servers on 127.0.90.x:
 *   - a command that redirects its own output gets its real exit status,
 *     and is killed at its timeout (nothing left running on the board);
 *   - a board whose sshd is SIGSTOPped mid-command: exec fails (-1, the
 *     board named) within timeout + kill wait, and once the board is revived
 *     the next command opens a new session at once.
 * Run as root (the lab user).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_collect.h"
#include "transport/transport.h"
#include "transport/transport_ssh.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.90"

static struct lab *lab;

static int group_setup(void **state)
{
	return lab_group_up(&lab, LAB_BASE, 2, 0, false);
}

static int group_teardown(void **state)
{
	return lab_group_down(&lab);
}

/* A command that redirects its output away still gives its exit status when
 * it ends (not "killed by signal 0" 5 s after end-of-output while it runs on). */
static void test_redirected_output_exit_status(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 1));
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "exec >/dev/null 2>&1; sleep 17; exit 3", 60000, -1,
					 &c, &st), 0);
	assert_false(st.timed_out);
	assert_int_equal(st.exit_code, 3);
	assert_true(st.duration_us >= 17 * 1000000LL);
	ts_collect_release(&c);
	transport_free(tr);
}

/* A command whose output goes elsewhere is still ended at its timeout. */
static void test_redirected_output_timeout_kills(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 1));
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "exec >/tmp/orch-link-x.log 2>&1; sleep 4391", 3000,
					 -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	assert_true(st.duration_us < 3000000LL + 5500000LL);
	ts_collect_release(&c);
	assert_int_equal(ts_count_sleepers(tr, 4391), 0);
	transport_free(tr);
}

static void test_sigstopped_sshd_is_an_error(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 2));
	struct lab_stall s = { 0 };
	struct transport_status st;
	lab_exec_stalled(tr, "echo $PPID $$; exec sleep 4392", 3000, &s);
	assert_true(s.sshd > 0);
	assert_int_equal(s.ret, -1);
	assert_non_null(strstr(s.err, "board2 (" LAB_BASE ".2:2222) stopped answering"));
	assert_true(s.took_ms < 3000 + 5000 + 1000);

	/* The board comes back: the next command opens a new session at once
	 * (the dead one is never reused). */
	kill(s.sshd, SIGCONT);
	struct ts_collect c = { 0 };
	int64_t t0 = clock_mono_ms();
	assert_int_equal(ts_collect_exec(tr, "echo back", 10000, -1, &c, &st), 0);
	assert_string_equal(strbuf_str(&c.out), "back\n");
	assert_true(clock_mono_ms() - t0 < 4000);
	ts_collect_release(&c);
	/* on the command runner $$ is the runner's shell and the sleep its child */
	if (s.shell > 0) {
		char *kids = xasprintf("/proc/%d/task/%d/children", (int)s.shell, (int)s.shell);
		char *text = ts_read_file(kids);
		for (char *p = text; p && *p;) {
			long k = strtol(p, &p, 10);
			if (k > 1)
				kill((pid_t)k, SIGKILL);
			else if (*p)
				p++;
		}
		TS_FREE(text, kids);
	}
	if (s.shell > 0 && kill(s.shell, SIGKILL) == 0)
		waitpid(s.shell, NULL, WNOHANG);
	transport_free(tr);
}

int main(void)
{
	transport_ssh_global_init();
	return TS_RUN_TESTS(group_setup, group_teardown, test_redirected_output_timeout_kills,
		   test_sigstopped_sshd_is_an_error, test_redirected_output_exit_status);
}
