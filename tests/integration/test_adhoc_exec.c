/*
 * orch exec against real sshd boards (tests/lab/sshd-lab.sh on
 * 127.0.120.x), through the binary: identical outputs fold under their node
 * set and differing ones come apart, dead boards (nothing listens on
 * 127.0.121.x) and a held board are groups of their own, the exit codes
 * 0/1/3/4, a command quoted once (quotes, $, double spaces), 200 MB of
 * output bounded in what is kept, --timeout whatever the command prints,
 * and Ctrl-C leaves nothing running on the boards.
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_orch.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_BASE "127.0.120"
#define DEAD_BASE "127.0.121"
#define SILENT_HOST "127.0.122.1"   /* accepts and never answers */

static struct lab *lab;
static char *dir, *env;

static int setup(void **state)
{
	if (lab_group_up(&lab, LAB_BASE, 4, 0, false) < 0)
		return -1;
	dir = ts_mkdtemp("adhoc-exec");
	chmod(dir, 0755);
	char *inv = lab_write_inventory(
		lab, dir, "inv.yaml", LAB_PORT_KEY ", connect_timeout: 3s",
		"boards:\n"
		"  b1: { ssh: { host: " LAB_BASE ".1 } }\n"
		"  b2: { ssh: { host: " LAB_BASE ".2 } }\n"
		"  b3: { ssh: { host: " LAB_BASE ".3 } }\n"
		"  b4: { ssh: { host: " LAB_BASE ".4 } }\n"
		"  dead1: { ssh: { host: " DEAD_BASE ".1 } }\n"
		"  dead2: { ssh: { host: " DEAD_BASE ".2 } }\n");
	free(inv);
	env = xasprintf("cd '%s' && unset ORCH_DB; export ORCH_INVENTORY=inv.yaml "
			"ORCH_LOCK_DIR='%s/locks';", dir, dir);
	return 0;
}

static int teardown(void **state)
{
	lab_group_down(&lab);
	free(env);
	return ts_rmrf_free(&dir);
}

/* orch ARGS, which must exit WANT; its stdout (stderr with it when
 * merge). Caller frees. */
static char *orch(int want, bool merge, const char *args)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s %s --color=never %s %s", env, ORCH_BIN, args,
			merge ? "2>&1" : "2>/dev/null");
	if (rc != want)
		fail_msg("orch %s: exit %d, wanted %d:\n%s", args, rc, want, out);
	return out;
}

/* b3 says something else and exits 3: two groups, the larger first. */
static void test_fold_mixed(void **state)
{
	char *out = orch(0, false, "exec -l 'b[1-4]' -- 'echo same; echo err >&2'");
	TS_ASSERT_HAS(out, "---------------\nb[1-4] (4 boards, exit 0)\n---------------\nsame\n");
	free(out);
	out = orch(1, false, "exec -l 'b[1-4]' -- "
			     "'case $SSH_CONNECTION in *.3\\ 2222) echo other; exit 3;; esac; echo same'");
	TS_ASSERT_HAS(out, "b[1-2,4] (3 boards, exit 0)\n---------------\nsame\n",
		"b3 (1 board, exit 3)\n---------------\nother\n");
	if (strstr(out, "b3 (") < strstr(out, "b[1-2,4]"))
		fail_msg("the larger group comes first:\n%s", out);
	free(out);
	out = orch(1, false, "exec --no-fold -l b1,b3 -- "
			     "'case $SSH_CONNECTION in *.3\\ 2222) echo other; exit 3;; esac; echo same'");
	TS_ASSERT_HAS(out, "b1: same\n", "b3: other\n");
	free(out);
	out = orch(0, false, "exec --json -l b2 -- 'echo hi'");
	TS_ASSERT_HAS(out, "\"board\":\"b2\"", "\"exit_status\":0", "\"stdout\":\"hi\\n\"");
	free(out);
}

/* One word is a shell command line; several are quoted once each. */
static void test_quoting(void **state)
{
	char *out = orch(0, false, "exec -l b1 -- printf '%s|' \"it's\" '$HOME' 'a  b' '\"q\"'");
	TS_ASSERT_HAS(out, "it's|$HOME|a  b|\"q\"|");
	free(out);
	out = orch(0, false, "exec -l b1 -- 'x=\"it'\\''s\"; echo \"$x $((2+3))\"'");
	TS_ASSERT_HAS(out, "it's 5\n");
	free(out);
}

/* Dead boards fold as one unreachable group, a held board names its
 * holder; 3 alone, 4 with a failure beside them. */
static void test_dead_and_held(void **state)
{
	free(orch(0, true, "lock b2 --note 'adhoc test'"));
	char *out = orch(3, false, "exec -- true");
	TS_ASSERT_HAS(out, "b[1,3-4] (3 boards, exit 0)", "dead[1-2] (2 boards, unreachable",
		"b2 (1 board, held: held by ", "adhoc test");
	free(out);
	out = orch(4, false, "exec -l 'b[1,3]' -l dead1 -- 'exit 5'");
	TS_ASSERT_HAS(out, "b[1,3] (2 boards, exit 5)", "dead1 (1 board, unreachable");
	free(out);
	out = orch(0, true, "exec --force -l b2 -- 'echo forced'");
	TS_ASSERT_HAS(out, "is held by", "forced");
	free(out);
	free(orch(0, true, "unlock b2"));
}

/* 200 MB from two boards: folded by their digest, the first MiB kept. */
/* A board that accepts the connection and never answers: --timeout bounds
 * the connect too, not the inventory's connect_timeout (10 s here). */
static void test_silent_board(void **state)
{
	free(lab_write_inventory(lab, dir, "silent.yaml", LAB_PORT_KEY ", connect_timeout: 10s",
				 "boards:\n  silent1: { ssh: { host: " SILENT_HOST ", port: 2299 } }\n"));
	char *log = xasprintf("%s/silent-socat.log", dir);
	pid_t socat = ts_spawn("exec socat TCP-LISTEN:2299,bind=" SILENT_HOST ",fork,reuseaddr "
			       "SYSTEM:'sleep 60'", log);
	if (ts_run_until(10000, 0, "socat -u OPEN:/dev/null TCP:%s:2299", SILENT_HOST) != 0)
		fail_msg("socat did not listen on " SILENT_HOST ":2299");
	int64_t t0 = clock_mono_ms();
	char *out = orch(3, false, "exec -i silent.yaml --timeout 2s -- true");
	int64_t took = clock_mono_ms() - t0;
	TS_ASSERT_HAS(out, "silent1 (1 board, unreachable: ", "timed out after 2000 ms");
	if (took > 8000)
		fail_msg("orch exec --timeout 2s took %lld ms on a silent board", (long long)took);
	free(out);
	ts_stop(&socat);
	free(log);
}

static void test_big_output(void **state)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s %s exec -l 'b[1-2]' --timeout 120s -- "
			"'head -c 209715200 /dev/zero | tr \"\\0\" x' > big.out 2>&1; echo rc=$?; "
			"head -c 100 big.out; tail -c 200 big.out", env, ORCH_BIN);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "rc=0\n", "b[1-2] (2 boards, exit 0)\n---------------\nxxxx",
		"[orch: 208666624 more bytes not shown");
	free(out);
	/* a command that never stops printing ends at --timeout */
	out = orch(3, false, "exec -l b1 --timeout 2s -- yes");
	TS_ASSERT_HAS(out, "b1 (1 board, timed out after 2s");
	free(out);
}

/* How many processes of the lab's boards run `sleep 3017`. */
static int sleepers(void)
{
	char *out = NULL;
	ts_run(&out, "pgrep -c -f '^sleep 3017$'");
	int n = out ? atoi(out) : 0;
	free(out);
	return n;
}

static void test_interrupt(void **state)
{
	char *cmd = xasprintf("%s exec %s exec -l 'b[1-4]' -- 'sleep 3017'", env, ORCH_BIN);
	char *log = xasprintf("%s/interrupt.log", dir);
	pid_t pid = ts_spawn(cmd, log);
	free(cmd);
	for (int i = 0; i < 300 && sleepers() < 4; i++)
		usleep(50000);
	if (sleepers() != 4) {
		char *text = ts_read_file(log);
		fail_msg("%d of 4 boards run the command:\n%s", sleepers(), text ? text : "");
		free(text);
	}
	free(log);
	kill(-pid, SIGINT);
	int rc = ts_wait_exit(pid, 20000);
	if (rc < 0)
		ts_stop(&pid);
	assert_int_equal(rc, 130);
	for (int i = 0; i < 100 && sleepers() > 0; i++)
		usleep(50000);
	assert_int_equal(sleepers(), 0);
}

TS_MAIN(setup, teardown, test_fold_mixed, test_quoting, test_dead_and_held, test_silent_board,
	test_big_output, test_interrupt)
