/*
 * The ssh transport's command runner (transport/ssh_runner.h) against real
 * servers on 127.0.180.x (tests/lab/sshd-lab.sh: two OpenSSH boards logging
 * every session, one dropbear board):
 *   - N commands cost one session channel and one shell ($$ stays);
 *   - each command gets the same exit status, stdout and stderr as on a
 *     channel of its own (binary, no trailing newline, fake markers, 10 MiB,
 *     both streams, exit, exec, shell state that must not carry over);
 *   - a timeout kills the command and the runner takes the next one;
 *   - a command that kills the runner's shell fails as killed by that
 *     signal; one that kills its session is an error; a stalled board is
 *     an error within timeout + the kill wait;
 *   - leftovers are reaped by the subshell's trap;
 *   - `ssh: { runner: false }` in the inventory turns it off.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.180"

static struct lab *lab;

static int group_setup(void **state)
{
	setenv("SSHD_LAB_LOGLEVEL", "VERBOSE", 1);   /* a line per session opened */
	return lab_group_up(&lab, LAB_BASE, 2, 1, false);
}

static int group_teardown(void **state)
{
	return lab_group_down(&lab);
}

static struct transport *connect_to(enum lab_kind kind, int index, bool runner)
{
	struct ssh_target t = lab_target(lab, kind, index);
	t.no_runner = !runner;
	return lab_connect_or_fail(t);
}

/* The pid of the shell running commands ($$). */
static long shell_pid(struct transport *tr)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo $$", 10000, -1, &c, &st), 0);
	long pid = atol(strbuf_str(&c.out));
	assert_true(pid > 1);
	ts_collect_release(&c);
	return pid;
}

static void test_one_channel_for_many_commands(void **state)
{
	int before = lab_sessions_started(lab, 2);
	struct transport *tr = connect_to(LAB_OPENSSH, 2, true);
	long pid = shell_pid(tr);
	for (int i = 0; i < 20; i++) {
		struct ts_collect c = { 0 };
		struct transport_status st;
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "echo %d $$", i);
		assert_int_equal(ts_collect_exec(tr, cmd, 10000, -1, &c, &st), 0);
		char want[64];
		snprintf(want, sizeof(want), "%d %ld\n", i, pid);
		assert_string_equal(strbuf_str(&c.out), want);
		ts_collect_release(&c);
	}
	assert_int_equal(lab_sessions_started(lab, 2) - before, 1);
	transport_free(tr);

	tr = connect_to(LAB_DROPBEAR, 1, true);
	pid = shell_pid(tr);
	for (int i = 0; i < 5; i++)
		assert_int_equal(shell_pid(tr), pid);
	transport_free(tr);
}

struct outcome {
	int ret;
	struct ts_collect c;
	struct transport_status st;
};

static void run_on(struct transport *tr, const char *cmd, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->ret = ts_collect_exec(tr, cmd, 30000, -1, &o->c, &o->st);
}

/* cmd on the runner and on a channel of its own: the same in every byte. */
static void check_same(struct transport *runner, struct transport *channel, const char *cmd)
{
	struct outcome a, b;
	run_on(runner, cmd, &a);
	run_on(channel, cmd, &b);
	print_message("%.60s: exit %d/%d signal %d/%d out %zu/%zu err %zu/%zu\n", cmd,
		      a.st.exit_code, b.st.exit_code, a.st.signal, b.st.signal, a.c.out.len,
		      b.c.out.len, a.c.err.len, b.c.err.len);
	assert_int_equal(a.ret, 0);
	assert_int_equal(b.ret, 0);
	assert_int_equal(a.st.exit_code, b.st.exit_code);
	assert_int_equal(a.st.signal, b.st.signal);
	assert_int_equal(a.st.timed_out, b.st.timed_out);
	assert_int_equal(a.c.out.len, b.c.out.len);
	assert_int_equal(a.c.err.len, b.c.err.len);
	if (a.c.out.len)
		assert_memory_equal(a.c.out.buf, b.c.out.buf, a.c.out.len);
	if (a.c.err.len)
		assert_memory_equal(a.c.err.buf, b.c.err.buf, a.c.err.len);
	ts_collect_release(&a.c);
	ts_collect_release(&b.c);
}

/* printf of every byte value, NUL included. */
static char *all_bytes_command(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "printf '");
	for (int i = 0; i < 256; i++)
		strbuf_printf(&sb, "\\%03o", i);
	strbuf_puts(&sb, "'; printf '\\036\\001' >&2");
	return strbuf_detach(&sb);
}

static void check_same_on(enum lab_kind kind, int index)
{
	struct transport *runner = connect_to(kind, index, true);
	struct transport *channel = connect_to(kind, index, false);
	long pid = shell_pid(runner);
	char *bytes = all_bytes_command();
	const char *cases[] = {
		"printf 'no newline'",
		"printf '\\036orch-end 0000000000000000 0\\036\\n\\036orch-run x 1\\036\\nafter\\n'; "
		"printf '\\036orch-exit 1111 3\\036\\n\\036orch-' >&2",
		bytes,
		"i=0; while [ $i -lt 300 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done",
		"head -c 10485760 /dev/zero | tr '\\000' x; echo done >&2",
		"echo out; echo err >&2; exit 7",
		"exec true",
		"echo a; exec sh -c 'exit 9'",
		"echo a; exec sh -c 'kill -9 $$'",
		"sh -c 'kill -TERM $PPID'; echo never",
		"cd /tmp && export ORCHT=1 && ORCHV=2 && set -- a b && trap 'echo trapped' EXIT && "
		"umask 077 && f() { :; } && echo set",
		"pwd; echo \"${ORCHT-unset} ${ORCHV-unset} $# $0 [${OLDPWD-unset}]\"; umask; "
		"command -v f || echo no-f; set | grep -c '^orch_'; cat /proc/$PPID/comm",
		"read x; echo \"read $? [$x]\"; cat; echo $?",
		"echo 'lines\n\nwith \\\\ back\\slash and trailing' \\\n  continued",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_same(runner, channel, cases[i]);
	/* one runner did them all */
	assert_int_equal(shell_pid(runner), pid);
	free(bytes);
	transport_free(runner);
	transport_free(channel);
}

static void test_same_bytes_as_a_channel(void **state)
{
	check_same_on(LAB_OPENSSH, 1);
	check_same_on(LAB_DROPBEAR, 1);
}

static void check_timeout_then_next(enum lab_kind kind, int index)
{
	struct transport *tr = connect_to(kind, index, true);
	long pid = shell_pid(tr);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo started; sleep 4411 & sleep 4411; echo never",
					 1500, -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	assert_string_equal(strbuf_str(&c.out), "started\n");
	ts_collect_release(&c);
	assert_int_equal(ts_count_sleepers(tr, 4411), 0);
	/* the runner took the stop and goes on */
	assert_int_equal(shell_pid(tr), pid);
	transport_free(tr);
}

static void test_timeout_then_next_command(void **state)
{
	check_timeout_then_next(LAB_OPENSSH, 1);
	check_timeout_then_next(LAB_DROPBEAR, 1);
}

/* `kill -9 $$` kills the runner's shell: the command fails as killed by
 * SIGKILL, as it does on a channel of its own, and a new runner takes the
 * next command. */
static void check_killed_shell(enum lab_kind kind, int index)
{
	struct transport *tr = connect_to(kind, index, true);
	long pid = shell_pid(tr);
	assert_int_equal(shell_pid(tr), pid);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo before; kill -9 $$; sleep 1; echo after", 10000,
					 -1, &c, &st), 0);
	assert_int_equal(st.exit_code, -1);
	assert_int_equal(st.signal, SIGKILL);
	assert_string_equal(strbuf_str(&c.out), "before\n");
	ts_collect_release(&c);
	long next = shell_pid(tr);
	assert_true(next != pid);
	assert_int_equal(shell_pid(tr), next);
	transport_free(tr);
}

static void test_command_kills_its_shell(void **state)
{
	check_killed_shell(LAB_OPENSSH, 1);
	check_killed_shell(LAB_DROPBEAR, 1);
}

/* `kill -9 $PPID` kills the session's own server process: the session is
 * gone, an error; the next command connects again. */
static void test_command_kills_its_session(void **state)
{
	struct transport *tr = connect_to(LAB_OPENSSH, 1, true);
	long pid = shell_pid(tr);
	assert_int_equal(shell_pid(tr), pid);
	struct ts_collect c = { 0 };
	struct transport_status st;
	char err[512] = "";
	struct transport_exec req = { .command = "kill -9 $PPID; sleep 1", .timeout_ms = 10000,
				      .stdin_fd = -1, .on_output = ts_collect_output, .ctx = &c };
	assert_int_equal(transport_exec(tr, &req, &st, err, sizeof(err)), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "board1 (" LAB_BASE ".1:2222)"));
	ts_collect_release(&c);
	assert_true(shell_pid(tr) != pid);
	transport_free(tr);
}

/* The board stops answering mid-command (its sshd SIGSTOPped): an error
 * naming the board within timeout + the kill wait, never a result. */
static void test_stalled_board_is_an_error(void **state)
{
	struct transport *tr = connect_to(LAB_OPENSSH, 2, true);
	long pid = shell_pid(tr);
	struct lab_stall s = { 0 };
	struct transport_status st;
	lab_exec_stalled(tr, "echo $PPID $$; sleep 4412", 3000, &s);
	assert_true(s.sshd > 0);
	TS_ASSERT_HAS(s.head, " ");
	assert_int_equal(s.shell, pid);
	assert_int_equal(s.ret, -1);
	assert_non_null(strstr(s.err, "board2 (" LAB_BASE ".2:2222) stopped answering"));
	assert_true(s.took_ms < 3000 + 5000 + 1500);
	kill(s.sshd, SIGCONT);
	struct ts_collect c = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo back", 10000, -1, &c, &st), 0);
	assert_string_equal(strbuf_str(&c.out), "back\n");
	ts_collect_release(&c);
	(void)ts_run(NULL, "pkill -KILL -f 'sleep 441[2]'");
	transport_free(tr);
}

/* A step's leftover is stopped and listed by the subshell's own trap (no
 * second command), and the runner goes on. */
static void test_leftover_reaped_by_the_runner(void **state)
{
	int before = lab_sessions_started(lab, 1);
	struct transport *tr = connect_to(LAB_OPENSSH, 1, true);
	long pid = shell_pid(tr);
	struct ts_collect c = { 0 };
	struct transport_status st;
	char err[256];
	char id[24];
	transport_new_step_id(id, sizeof(id));
	/* the pause: a child forked but not yet exec'd carries no token in its
	 * environ file (the same on a channel of its own) */
	struct transport_exec req = { .command = "sleep 4414 & sleep 0.5; echo started",
				      .timeout_ms = 10000,
				      .stdin_fd = -1, .on_output = ts_collect_output, .ctx = &c,
				      .step_id = id, .reap = true };
	assert_int_equal(transport_exec(tr, &req, &st, err, sizeof(err)), 0);
	assert_int_equal(st.exit_code, 0);
	assert_true(st.reaped);
	assert_int_equal(st.leftovers.n, 1);
	TS_ASSERT_HAS(st.leftovers.list, "sleep");
	assert_string_equal(strbuf_str(&c.out), "started\n");
	ts_collect_release(&c);
	assert_int_equal(ts_count_sleepers(tr, 4414), 0);
	assert_int_equal(shell_pid(tr), pid);
	assert_int_equal(lab_sessions_started(lab, 1) - before, 1);
	transport_free(tr);
}

/* Output a process left behind writes between commands is no command's:
 * the next command gets a new runner and only its own bytes. */
static void test_output_between_commands_taints(void **state)
{
	struct transport *tr = connect_to(LAB_DROPBEAR, 1, true);
	long pid = shell_pid(tr);
	assert_int_equal(shell_pid(tr), pid);
	struct ts_collect c = { 0 };
	struct transport_status st;
	/* the board's user writes the marker once the late bytes are out */
	char *dir = ts_mkdtemp("runner-late");
	chmod(dir, 0777);
	char *marker = xasprintf("%s/late-done", dir);
	char *cmd = xasprintf("(sleep 0.3; echo late; echo late >&2; : > %s) & echo now", marker);
	assert_int_equal(ts_collect_exec(tr, cmd, 10000, -1, &c, &st), 0);
	assert_string_equal(strbuf_str(&c.out), "now\n");
	ts_collect_release(&c);
	TS_WAIT_UNTIL(10000, ts_file_exists(marker));
	assert_true(ts_file_exists(marker));
	ts_rmrf(dir);
	TS_FREE(dir, marker, cmd);
	struct ts_collect d = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo next $$", 10000, -1, &d, &st), 0);
	long next = atol(strbuf_str(&d.out) + 5);
	assert_true(next > 1 && next != pid);
	assert_string_equal(strbuf_str(&d.err), "");
	ts_collect_release(&d);
	transport_free(tr);
}

/* What `cmd` prints with `$$` on tr, as a number. */
static long run_pid(struct transport *tr, const char *cmd)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, cmd, 10000, -1, &c, &st), 0);
	const char *sp = strrchr(strbuf_str(&c.out), ' ');
	long pid = atol(sp ? sp + 1 : strbuf_str(&c.out));
	ts_collect_release(&c);
	return pid;
}

/* Opens path (a FIFO) and writes a line to it, or reads one from it:
 * both wait for the board's end of the FIFO, which is the sync. */
static void fifo_line(const char *path, bool write_it)
{
	FILE *f = fopen(path, write_it ? "w" : "r");
	assert_non_null(f);
	char line[16];
	if (write_it)
		assert_true(fputs("go\n", f) >= 0);
	else
		assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
}

/* A tainted runner replaced again and again on one dropbear session: the
 * old runner's shell ends when orch lets it go, and dropbear before
 * 2024.86 closes every session channel whose command has not started yet
 * when a process of the session ends. A new runner opened while the old
 * shell exits had its channel closed under it: no reply to its exec
 * request (10 s, then "stopped answering"), or the session's runner
 * turned off. The leftover writes only once the command ended (gate), and
 * the test goes on once it wrote (done). */
static void test_runner_replaced_again_and_again(void **state)
{
	/* the board's shell runs as the lab user */
	char *dir = ts_mkdtemp("runner-taint");
	char *gate = xasprintf("%s/gate", dir), *done = xasprintf("%s/done", dir);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(mkfifo(gate, 0600), 0);
	assert_int_equal(mkfifo(done, 0600), 0);
	assert_int_equal(chmod(gate, 0666), 0);
	assert_int_equal(chmod(done, 0666), 0);
	char *leave = xasprintf("(read x <'%s'; echo late; echo late >&2; echo done >'%s') & "
				"echo now", gate, done);
	struct transport *tr = connect_to(LAB_DROPBEAR, 1, true);
	for (int round = 0; round < 12; round++) {
		long old = run_pid(tr, "echo $$");
		struct ts_collect c = { 0 };
		struct transport_status st;
		assert_int_equal(ts_collect_exec(tr, leave, 10000, -1, &c, &st), 0);
		ts_collect_release(&c);
		fifo_line(gate, true);
		fifo_line(done, false);
		/* the late output taints the runner seen at this command or the
		 * next: by the second one a new runner takes the commands */
		run_pid(tr, "echo next $$");
		long next = run_pid(tr, "echo third $$");
		assert_true(next > 1 && next != old);
		assert_int_equal(run_pid(tr, "echo $$"), next);
	}
	transport_free(tr);
	TS_FREE(leave, gate, done);
	ts_rmrf_free(&dir);
}

/* `ssh: { runner: false }` (here in the defaults, b2 turning it on again):
 * every test on b1 is a shell of its own. */
static void test_inventory_switch(void **state)
{
	char *dir = ts_mkdtemp("runner-switch");
	char *inv = xasprintf(
		"defaults:\n"
		"  ssh: { user: %s, identity: %s, known_hosts: %s, port: %d, runner: false }\n"
		"boards:\n"
		"  b1: { ssh: { host: " LAB_BASE ".1 } }\n"
		"  b2: { ssh: { host: " LAB_BASE ".2, runner: true } }\n",
		lab->user, lab->identity, lab->known_hosts, LAB_PORT);
	free(ts_write_file(dir, "rack.yaml", inv));
	free(ts_write_file(dir, "s.yaml", "name: s\ninventory: rack.yaml\nboards: [all]\ntests:\n"
			   "  - { name: a, run: 'echo $$' }\n  - { name: b, run: 'echo $$' }\n"
			   "  - { name: c, run: 'echo $$' }\n"));
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && %s run s.yaml -q -o runs", dir, ORCH_BIN);
	if (code)
		print_message("%s\n", out ? out : "");
	assert_int_equal(code, 0);
	free(out);
	long pids[2][3];
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < 3; t++) {
			char *p = xasprintf("%s/runs/s/latest/b%d/%c/stdout.log", dir, b + 1, 'a' + t);
			char *text = ts_read_file(p);
			assert_non_null(text);
			pids[b][t] = atol(text);
			TS_FREE(text, p);
		}
	assert_true(pids[0][0] != pids[0][1] && pids[0][1] != pids[0][2]);
	assert_true(pids[1][0] == pids[1][1] && pids[1][1] == pids[1][2]);

	free(ts_write_file(dir, "bad.yaml", "boards:\n  b1: { ssh: { host: h, runner: maybe } }\n"));
	code = ts_run(&out, "cd '%s' && %s validate s.yaml --inventory bad.yaml", dir, ORCH_BIN);
	print_message("%s\n", out ? out : "");
	assert_int_not_equal(code, 0);
	TS_ASSERT_HAS(out, "bad.yaml:2:", "runner");
	TS_FREE(out, inv);
	ts_rmrf_free(&dir);
}

/* The runner shell's read calls so far ($$: the runner; its reaped
 * subshells' reads count too). */
static long runner_reads(struct transport *tr)
{
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "{ read -r x; read -r x; read -r x n; } </proc/$$/io; "
					 "echo \"$n\"", 10000, -1, &c, &st), 0);
	long n = atol(strbuf_str(&c.out));
	ts_collect_release(&c);
	return n;
}

/* A 16 KB command reaches the runner shell in a few reads: it takes its
 * requests as script text, read in blocks, where `read -r` made one read
 * per byte (over 16000 calls for this command on the board). Counted
 * from the runner's third command on (it reads its ancestors before the
 * second). */
static void test_long_command_few_reads(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	for (int i = 0; i < 256; i++)
		strbuf_printf(&cmd, ": '%03d' \"it's\" $HOME %s\n", i,
			      "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	strbuf_puts(&cmd, "echo done");
	enum lab_kind kinds[] = { LAB_OPENSSH, LAB_DROPBEAR };
	for (size_t k = 0; k < 2; k++) {
		struct transport *tr = connect_to(kinds[k], 1, true);
		runner_reads(tr);   /* the runner reads its ancestors before a second command */
		long before = runner_reads(tr);
		struct ts_collect c = { 0 };
		struct transport_status st;
		assert_int_equal(ts_collect_exec(tr, strbuf_str(&cmd), 10000, -1, &c, &st), 0);
		assert_string_equal(strbuf_str(&c.out), "done\n");
		assert_int_equal(st.exit_code, 0);
		ts_collect_release(&c);
		long used = runner_reads(tr) - before;
		print_message("%s: %ld read calls for a %zu-byte command and a probe\n",
			      k ? "dropbear" : "OpenSSH", used, cmd.len);
		/* the subshells' own reads (the io lines, the Pid: line) are about 250 */
		assert_true(used < 800);
		transport_free(tr);
	}
	strbuf_release(&cmd);
}

int main(void)
{
	transport_ssh_global_init();
	return TS_RUN_TESTS(group_setup, group_teardown, test_one_channel_for_many_commands,
		   test_same_bytes_as_a_channel, test_timeout_then_next_command,
		   test_command_kills_its_shell, test_command_kills_its_session,
		   test_stalled_board_is_an_error, test_leftover_reaped_by_the_runner,
		   test_output_between_commands_taints, test_runner_replaced_again_and_again,
		   test_inventory_switch, test_long_command_few_reads);
}
