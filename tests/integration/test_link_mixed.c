/*
 * A mixed rack, as a user runs it: one board with a serial console (a pty
 * pair made by socat, its far end printing a boot) and SSH-only boards of
 * a loopback lab (127.0.92.x). A scenario with an ssh test and a boot test
 * comes out exit 0: the console board's boot passes, the SSH-only boards'
 * boot tests are `skip` with the reason (before the board link they were
 * errors: exit 3). `orch validate` and `--dry-run` show those skips first.
 * A test's own boards: narrows where it runs. Run as root (the lab user).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAB_BASE "127.0.92"

static struct lab *lab;
static char *dir;
static pid_t socat_pid, writer_pid;

static int setup(void **state)
{
	ts_require_root("the ssh lab's user");
	ts_require_tool("socat", "apt-get install socat");
	lab = lab_up(LAB_BASE, 2, 0, false);
	if (!lab)
		return -1;
	dir = ts_mkdtemp("link-mixed");
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s/console pty,raw,echo=0,link=%s/far",
			      dir, dir);
	socat_pid = ts_spawn(cmd, NULL);
	free(cmd);
	char *far = xasprintf("%s/far", dir);
	for (int i = 0; i < 50 && !ts_file_exists(far); i++)
		usleep(100000);
	free(far);
	/* the board's side: boots over and over, a line at a time */
	cmd = xasprintf("while :; do for l in 'Linux version 6.1 (orch-lab)' 'Run /init' "
			"'orch-lab login: '; do printf '%%s\\r\\n' \"$l\" > %s/far; sleep 0.3; done; done",
			dir);
	writer_pid = ts_spawn(cmd, NULL);
	free(cmd);
	char *inv = xasprintf(
		"defaults:\n"
		"  ssh: { user: %s, identity: %s, known_hosts: %s, connect_timeout: 5s }\n"
		"boards:\n"
		"  console1: { local: true, tags: [rack], serial: { port: %s/console, baud: 115200 } }\n"
		"  ssh1: { tags: [rack], ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  ssh2: { tags: [rack], ssh: { host: " LAB_BASE ".2, port: %d } }\n",
		lab->user, lab->identity, lab->known_hosts, dir, LAB_PORT, LAB_PORT);
	free(ts_write_file(dir, "rack.yaml", inv));
	free(inv);
	free(ts_write_file(dir, "mixed.yaml",
		"name: mixed\n"
		"inventory: rack.yaml\n"
		"boards: [tag:rack]\n"
		"tests:\n"
		"  - name: hello\n"
		"    run: echo hello from {board.name} at {board.host}\n"
		"  - name: boot\n"
		"    boot:\n"
		"      trigger: none\n"
		"      timeout: 20s\n"
		"      phases:\n"
		"        - { name: kernel, until: 'Linux version' }\n"
		"        - { name: login,  until: 'login:' }\n"
		"  - name: only-ssh1\n"
		"    boards: [ssh1]\n"
		"    run: 'true'\n"));
	return 0;
}

static int teardown(void **state)
{
	ts_stop(&writer_pid);
	ts_stop(&socat_pid);
	lab_down(lab);
	lab = NULL;
	return ts_rmrf_free(&dir);
}


static void test_validate_and_dry_run_show_skips(void **state)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd %s && %s validate mixed.yaml 2>&1", dir, ORCH_BIN), 0);
	print_message("%s", out);
	TS_ASSERT_HAS(out, "skip: test 'boot' on ssh1: the board has no serial console",
		"skip: test 'boot' on ssh2");
	TS_ASSERT_LACKS(out, "on console1");
	free(out);
	assert_int_equal(ts_run(&out, "cd %s && %s run --dry-run mixed.yaml 2>&1", dir, ORCH_BIN), 0);
	print_message("%s", out);
	TS_ASSERT_HAS(out, "(2 skipped", "skip: the board has no serial console");
	/* only-ssh1 is planned on ssh1 alone: 3 + 3 + 1 items */
	TS_ASSERT_HAS(out, "3 boards, 7 test runs");
	free(out);
}

static void test_mixed_rack_boot_is_green(void **state)
{
	char *out = NULL;
	int code = ts_run(&out, "cd %s && %s run -q -o runs mixed.yaml 2>&1", dir, ORCH_BIN);
	print_message("%s", out);
	free(out);
	char *rd = xasprintf("%s/runs/mixed/latest", dir);
	json_t *res = ts_json_load_in(rd, "results.json");
	free(rd);
	assert_non_null(res);
	const char *want[][3] = {
		{ "console1", "boot", "pass" }, { "ssh1", "boot", "skip" }, { "ssh2", "boot", "skip" },
		{ "console1", "hello", "pass" }, { "ssh1", "hello", "pass" },
		{ "ssh1", "only-ssh1", "pass" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		json_t *r = ts_json_result_or_fail(res, want[i][0], want[i][1]);
		assert_string_equal(json_string_value(json_object_get(r, "status")), want[i][2]);
	}
	assert_null(ts_json_result(res, "ssh2", "only-ssh1"));
	json_t *r = ts_json_result_or_fail(res, "ssh1", "boot");
	assert_non_null(strstr(json_string_value(json_object_get(r, "message")), "no serial console"));
	assert_int_equal(code, 0);
	/* {board.host}: the address SSH reached */
	char *log = xasprintf("%s/runs/mixed/latest/ssh2/hello/stdout.log", dir);
	char *text = ts_read_file(log);
	assert_non_null(text);
	assert_non_null(strstr(text, "hello from ssh2 at " LAB_BASE ".2"));
	TS_FREE(text, log);
	json_decref(res);
}

/* A step that freezes its own sshd (and has it woken 9 s later): the board
 * stops answering mid-test. That test is an error naming the board (not a
 * fail, and not "its process group was killed"), the run exits 3, and the
 * next test reconnects to the revived board at once. */
static void test_stalled_board_is_an_error(void **state)
{
	free(ts_write_file(dir, "stall.yaml",
		"name: stall\n"
		"inventory: rack.yaml\n"
		"boards: [ssh2]\n"
		"tests:\n"
		"  - name: stall\n"
		"    timeout: 3s\n"
		"    run: 'P=$PPID; (sleep 9; kill -CONT $P) >/dev/null 2>&1 </dev/null & kill -STOP $P; sleep 4393'\n"
		"  - name: after\n"
		"    timeout: 30s\n"
		"    run: echo back\n"));
	char *out = NULL;
	int code = ts_run(&out, "cd %s && %s run -q -o runs stall.yaml 2>&1", dir, ORCH_BIN);
	print_message("%s", out);
	free(out);
	char *rd = xasprintf("%s/runs/stall/latest", dir);
	json_t *res = ts_json_load_in(rd, "results.json");
	free(rd);
	assert_non_null(res);
	json_t *r = ts_json_result_or_fail(res, "ssh2", "stall");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "error");
	const char *msg = json_string_value(json_object_get(r, "message"));
	assert_non_null(msg);
	TS_ASSERT_HAS(msg, "ssh2", "stopped answering");
	r = ts_json_result_or_fail(res, "ssh2", "after");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "pass");
	assert_int_equal(code, 3);
	json_decref(res);   /* the frozen session's sleep goes with the lab (lab_down) */
}

TS_MAIN(setup, teardown, test_validate_and_dry_run_show_skips, test_mixed_rack_boot_is_green,
	test_stalled_board_is_an_error)
