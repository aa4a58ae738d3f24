/*
 * The command runner's board side (transport/ssh_runner.h) run for real in
 * dash, busybox ash and bash, fed its requests through a pipe as a channel
 * would: what it costs the runner shell to take in a long command, read
 * from the shell's own /proc/PID/io (syscr: read calls, its reaped
 * subshells' included) by the commands themselves. Before, the runner
 * read each command with the `read` builtin: one read(2) per byte. Also:
 * the output of quoted, multi-line commands and a syntax error comes out
 * framed and as on a channel of its own, also when the channel is no pipe
 * (a file: `/bin/sh -s`), and the long-lived shell's ancestors are read
 * without a fork.
 */
#include "testsupport.h"
#include "transport/reap.h"
#include "transport/ssh_runner.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOK "0123456789abcdef"

/* The runner shell's read calls so far ($$ is the runner in the subshell). */
static const char PROBE[] = "{ read -r x; read -r x; read -r x n; } </proc/$$/io; echo \"reads $n\"";

/* About 12 KB over 200 lines, quotes of both kinds, $, backslashes. */
static char *long_command(void)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 200; i++)
		strbuf_printf(&sb, ": 'line %03d' \"it's\" \\$HOME \\\\ %s\n", i,
			      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	strbuf_puts(&sb, "printf '%s\\n' \"it's\" 'long-done'");
	return strbuf_detach(&sb);
}

struct run {
	char *out;
	long reads[2];             /* the probe's two answers */
};

/* The runner in sh_cmd (started as `sh_cmd -c SCRIPT sh`, as a login
 * shell of /bin/sh, the leader of its own group as over OpenSSH) with
 * requests: true (the runner reads its ancestors before the second), the
 * probe, a long command, the probe, a syntax error, $0 and exit 3;
 * through a pipe, or from a file when pipe is false. */
static void run_runner(const char *sh_cmd, bool pipe, struct run *r)
{
	char *dir = ts_mkdtemp("runner-sh");
	char *script = ssh_runner_script();
	char *lng = long_command();
	const char *cmds[] = { "true", PROBE, lng, PROBE, "echo ok; if then fi",
			       "echo \"zero=$0\"; exit 3" };
	struct strbuf reqs = STRBUF_INIT;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *q = ssh_runner_request(TOK, NULL, false, cmds[i]);
		strbuf_puts(&reqs, q);
		free(q);
	}
	char *sp = ts_write_file(dir, "runner", script);
	char *rp = ts_write_file(dir, "reqs", strbuf_str(&reqs));
	int rc = pipe ? ts_run(&r->out, "{ cat %s | setsid -w %s -c \"$(cat %s)\" sh 2>/dev/null; }",
			       rp, sh_cmd, sp)
		      : ts_run(&r->out, "{ setsid -w %s -c \"$(cat %s)\" sh <%s 2>/dev/null; }", sh_cmd,
			       sp, rp);
	assert_int_equal(rc, 0);
	const char *p = r->out;
	for (int i = 0; i < 2; i++) {
		p = strstr(p, "reads ");
		if (!p)
			fail_msg("%s: no probe answer %d in:\n%s", sh_cmd, i + 1, r->out);
		r->reads[i] = strtol(p + 6, NULL, 10);
		p += 6;
	}
	ts_rmrf(dir);
	TS_FREE(dir, sp, rp, script, lng);
	strbuf_release(&reqs);
}

/* Every command framed: run, then exit or end with its status. */
static void check_output(const char *sh, const char *out)
{
	static const char *const want[] = {
		"it's\nlong-done\n",
		/* $0 as on a channel of its own, whichever way the runner reads */
		"zero=sh\n\036orch-exit " TOK " 3\036\n\036orch-end " TOK " 3\036\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(out, want[i]))
			fail_msg("%s: no '%s' in the runner's output:\n%s", sh, want[i], out);
	int runs = 0, ends = 0;
	for (const char *p = out; (p = strstr(p, "\036orch-run " TOK " ")); p++)
		runs++;
	for (const char *p = out; (p = strstr(p, "\036orch-end " TOK " ")); p++)
		ends++;
	if (runs != 6 || ends != 6)
		fail_msg("%s: %d run and %d end markers for 6 commands:\n%s", sh, runs, ends, out);
	/* a syntax error ends its subshell with 2, as a shell of its own
	 * ends, and the runner lives on */
	if (!strstr(out, "\036orch-exit " TOK " 2\036\n\036orch-end " TOK " 2\036\n"))
		fail_msg("%s: the syntax error did not end with 2:\n%s", sh, out);
}

static void check_shell(const char *sh, bool bound)
{
	struct run r = { 0 };
	run_runner(sh, true, &r);
	long used = r.reads[1] - r.reads[0];
	print_message("%s: %ld read calls from the first probe to the second "
		      "(a 12 KB command between them)\n", sh, used);
	check_output(sh, r.out);
	/* two subshells' own reads (the io lines, the Pid: line) are about 150;
	 * a byte-wise runner took over 12000 here */
	if (bound && used > 600)
		fail_msg("%s: the runner made %ld read calls to take in a 12 KB command", sh, used);
	free(r.out);
	/* the channel no pipe: the same, through /bin/sh -s */
	struct run f = { 0 };
	run_runner(sh, false, &f);
	check_output(sh, f.out);
	free(f.out);
}

static void test_dash(void **state)
{
	check_shell("dash", true);
}

static void test_busybox_ash(void **state)
{
	if (access("/bin/busybox", X_OK) != 0)
		fail_msg("needs /bin/busybox (busybox-static, scripts/install-deps.sh)");
	check_shell("/bin/busybox sh", true);
}

/* bash reads a pipe byte-wise whatever it does: the runner only has to work
 * (it hands over to /bin/sh -s). */
static void test_bash(void **state)
{
	check_shell("bash", false);
}

/* The ancestors of a long-lived shell, read once as it starts: the same
 * list as a walk from $$ in a subshell gives, without starting one, and
 * no variable of the walk left behind. */
static void test_ancestors_without_fork(void **state)
{
	if (ts_run(NULL, "command -v strace >/dev/null") != 0)
		fail_msg("needs strace (scripts/install-deps.sh build)");
	char *dir = ts_mkdtemp("runner-anc");
	char *anc = reap_ancestors_script("orch_a");
	char *path = ts_write_file(dir, "anc", anc);
	static const char *const shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = NULL;
		int rc = ts_run(&out, "cd %s && strace -f -e trace=clone,clone3,fork,vfork -o trace "
				"%s -c '. ./anc; echo \"anc=$orch_a\"; "
				"echo \"left=${orch_a_x-}${orch_a_q-}${orch_a_i-}${orch_a_k-}${orch_a_v-}.\"' && "
				"echo forks=$(grep -c -E 'clone|fork' trace); %s -c 'b=$(X=; a=$$; "
				"while [ \"$a\" -gt 0 ]; do X=\"$X $a\"; [ \"$a\" = 1 ] && break; "
				"q=$(sed -n \"s/^PPid:[[:space:]]*//p\" /proc/$a/status); "
				"[ -n \"$q\" ] || break; a=$q; done; echo $X); . ./anc; "
				"[ \"$b\" = \"$orch_a\" ] && echo same || echo \"differ: $b / $orch_a\"'",
				dir, shells[i], shells[i]);
		print_message("%s:\n%s", shells[i], out);
		assert_int_equal(rc, 0);
		TS_ASSERT_HAS(out, "anc=", "\nleft=.\nforks=0\n", "same\n");
		free(out);
	}
	ts_rmrf(dir);
	TS_FREE(dir, path, anc);
}

/* The strace of a runner session of one command (`true`; with a leftover
 * search when step is set) in sh, and its output in *out. */
static char *one_command_trace(const char *sh, const char *step, char **out)
{
	char *dir = ts_mkdtemp("runner-one");
	char *script = ssh_runner_script();
	char *req = ssh_runner_request(TOK, step, false, "true");
	char *sp = ts_write_file(dir, "runner", script);
	char *rp = ts_write_file(dir, "reqs", req);
	int rc = ts_run(out, "cd %s && cat reqs | strace -f -z -y -o trace -e "
			"trace=read,write,clone,clone3,fork,vfork,execve setsid -w %s -c "
			"\"$(cat runner)\" sh 2>/dev/null", dir, sh);
	char *tp = xasprintf("%s/trace", dir);
	char *trace = rc == 0 ? ts_read_file(tp) : NULL;
	ts_rmrf(dir);
	TS_FREE(dir, script, req, sp, rp, tp);
	if (!trace)
		fail_msg("%s: the runner under strace failed (%d): %s", sh, rc, *out);
	return trace;
}

/* A fan-out's session: one command and the runner's end. What it costs the
 * board's shells, seen by strace: no /proc/PID/status read byte by byte
 * (the runner's ancestors are read before a second command only, the
 * subshell's pid comes from a glob of /proc/self/task; there were ~330
 * one-byte reads for a session of one `true`), one process started (the
 * subshell), and with a leftover search (which reads what it needs, when
 * it finds a process it may have to stop) five writes, each a packet of
 * the board's sshd: the run markers on both streams, the reap's line with
 * the exit marker (they were two writes), the end markers. */
static void test_one_command_session(void **state)
{
	if (ts_run(NULL, "command -v strace >/dev/null") != 0)
		fail_msg("needs strace (scripts/install-deps.sh build)");
	static const char *const shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = NULL;
		char *trace = one_command_trace(shells[i], NULL, &out);
		size_t status_reads = ts_count_lines(trace, "read(", "/status>");
		size_t forks = ts_count_lines(trace, "clone", NULL) + ts_count_lines(trace, "fork(", NULL);
		size_t execs = ts_count_lines(trace, "execve(", NULL);
		print_message("%s: %zu reads of /proc/PID/status, %zu processes started, "
			      "%zu programs\n", shells[i], status_reads, forks, execs);
		assert_int_equal(status_reads, 0);
		assert_int_equal(forks, 1);
		assert_int_equal(execs, 2);   /* setsid, the shell */
		TS_FREE(trace, out);
		trace = one_command_trace(shells[i], "step1", &out);
		size_t writes = ts_count_lines(trace, "write(", NULL);
		size_t both = ts_count_lines(trace, "orch-reap", "orch-exit");
		print_message("%s, with its leftover search: %zu writes, %zu with the reap line "
			      "and the exit marker\n", shells[i], writes, both);
		if (!strstr(out, "\036orch-reap\036\n\036orch-exit " TOK " 0\036\n"))
			fail_msg("%s: no reap line and exit marker in:\n%s", shells[i], out);
		assert_int_equal(writes, 5);
		assert_int_equal(both, 1);
		TS_FREE(trace, out);
	}
}

TS_MAIN(NULL, NULL, test_dash, test_busybox_ash, test_bash, test_ancestors_without_fork,
	test_one_command_session)
