/*
 * Faults a lab meets at night, attacked through `orch run` against real
 * peers on 127.0.170.x (an OpenSSH board of tests/lab/sshd-lab.sh logging
 * in as the lab user, local boards, a network namespace "lie-dns" whose
 * resolver never answers):
 *   - Ctrl-C twice while a step that ignores SIGTERM runs on a board: orch
 *     still kills it, writes every report and exits 130;
 *   - daemons a passing step leaves behind are found, reported and stopped;
 *   - a host name lookup that hangs is bounded by connect_timeout and by
 *     Ctrl-C;
 *   - a power command that hangs is bounded by the test's timeout;
 *   - a push that fails leaves no part file on the board.
 * Run as root (the lab user, network namespaces).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.170"

struct fx {
	struct lab *lab;
	char *dir;
	char *inventory;
};

static struct fx F;

static int setup(void **state)
{
	ts_require_root("the ssh lab's user, network namespaces");
	if (lab_group_up(&F.lab, LAB_BASE, 1, 0, false) < 0)
		return -1;
	F.dir = ts_mkdtemp("faults");
	chmod(F.dir, 0755);   /* the lab user writes pushes below it */
	F.inventory = lab_write_inventory(
		F.lab, F.dir, "rack.yaml", "connect_timeout: 5s",
		"boards:\n"
		"  sshb: { arch: x86_64, tags: [s], ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  loc: { local: true, tags: [l] }\n"
		"  sshw: { arch: x86_64, workdir: %s/wd, ssh: { host: " LAB_BASE ".1, port: %d } }\n",
		LAB_PORT, F.dir, LAB_PORT);
	return 0;
}

static int teardown(void **state)
{
	lab_down(F.lab);
	free(F.inventory);
	return ts_rmrf_free(&F.dir);
}

/* scenario NAME on the boards of selector, written to F.dir/NAME.yaml;
 * returns its path (caller frees). */
static char *write_scenario(const char *name, const char *selector, const char *tests)
{
	return ts_rack_scenario(F.dir, name, selector, "timeout: 60s", tests);
}

static bool run_file_exists(const char *name, const char *file)
{
	char *p = xasprintf("%s/runs/%s/latest/%s", F.dir, name, file);
	bool ok = ts_file_exists(p);
	free(p);
	return ok;
}

/* How many processes of the lab user have pattern in their command line. */
static int count_board_procs(const char *pattern)
{
	char *out = NULL;
	ts_run(&out, "pgrep -c -u %s -f '%s'", F.lab->user, pattern);
	int n = out ? atoi(out) : -1;
	free(out);
	return n;
}

static bool wait_for_text(const char *glob, const char *needle, int ms);

/* Waits up to ms for the shell condition cond to hold (exit 0). */
static bool wait_shell(int ms, const char *cond)
{
	for (int64_t dl = deadline_in_ms(ms); !deadline_expired(dl); usleep(20000))
		if (ts_run(NULL, "%s", cond) == 0)
			return true;
	return ts_run(NULL, "%s", cond) == 0;
}

/* Waits up to ms for count_board_procs(pattern) to be want; the count. */
static int wait_board_procs(const char *pattern, int want, int ms)
{
	int n = count_board_procs(pattern);
	for (int64_t dl = deadline_in_ms(ms); n != want && !deadline_expired(dl); usleep(20000))
		n = count_board_procs(pattern);
	return n;
}

/* Sends SIGINT number `nth` (1, 2, 3) to orch and waits for it to say so on
 * its log: orch takes signals less than 250 ms apart as one (a key held
 * down), so the next one goes out that long after this one was seen. */
static void ctrl_c(pid_t pid, const char *log, int nth)
{
	static const char *const said[] = { "orch: interrupted: ", "orch: interrupted twice",
					    "orch: interrupted three times" };
	kill(pid, SIGINT);
	if (!wait_for_text(log, said[nth - 1], 10000))
		fail_msg("orch did not take Ctrl-C number %d", nth);
	usleep(300000);   /* orch's own debounce (interrupt.c), not a wait for it */
}

/* Waits up to ms for a file matching glob (the run folder's `latest` is
 * linked only at the end) to hold needle. */
static bool wait_for_text(const char *glob, const char *needle, int ms)
{
	for (int64_t dl = deadline_in_ms(ms); !deadline_expired(dl); usleep(50000))
		if (ts_run(NULL, "grep -qs '%s' %s", needle, glob) == 0)
			return true;
	return false;
}

static const json_t *first_result(const json_t *res)
{
	return json_array_get(json_object_get(res, "results"), 0);
}

/* The second Ctrl-C hurries, it does not quit: what runs is killed without
 * a grace, results.json says interrupted with exit_code 130, junit.xml,
 * summary.txt and report.html are written, and orch exits 130 within a
 * couple of seconds. */
static void test_double_ctrl_c_still_reports(void **state)
{
	const char *tests =
		"  - name: stubborn\n"
		"    run: \"trap '' TERM INT HUP; echo started; sleep 1717; echo never\"\n";
	char *sc = write_scenario("ctrlc2", "sshb", tests);
	char *log = xasprintf("%s/ctrlc2.out", F.dir);
	char *cmd = xasprintf("exec %s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	pid_t pid = ts_spawn(cmd, log);
	char *stdout_log = xasprintf("%s/runs/ctrlc2/2*/sshb/stubborn/stdout.log", F.dir);
	if (!wait_for_text(stdout_log, "started", 20000)) {
		ts_stop(&pid);
		char *o = ts_read_file(log);
		fail_msg("the step never started; orch said:\n%s", o ? o : "");
	}
	assert_int_equal(count_board_procs("^sleep 1717"), 1);
	ctrl_c(pid, log, 1);
	int64_t t0 = clock_mono_ms();
	kill(pid, SIGINT);
	int rc = ts_wait_exit(pid, 15000);
	int64_t took = clock_mono_ms() - t0;
	char *out = ts_read_file(log);
	if (rc < 0)
		ts_stop(&pid);
	print_message("exit %d, %lld ms after the second Ctrl-C\n", rc, (long long)took);
	if (rc != 130)
		fail_msg("exit %d, want 130; orch said:\n%s", rc, out ? out : "");
	assert_true(took < 4000);
	json_t *res = ts_orch_results(F.dir, "ctrlc2");
	assert_non_null(res);
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 130);
	const json_t *r = first_result(res);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "error");
	const char *msg = json_string_value(json_object_get(r, "message"));
	if (!msg || !strstr(msg, "interrupted") || !strstr(msg, "sshb"))
		fail_msg("message: %s", msg ? msg : "(none)");
	assert_true(run_file_exists("ctrlc2", "junit.xml"));
	assert_true(run_file_exists("ctrlc2", "summary.txt"));
	assert_true(run_file_exists("ctrlc2", "report.html"));
	assert_int_equal(wait_board_procs("^sleep 1717", 0, 5000), 0);
	json_decref(res);
	TS_FREE(out, stdout_log, cmd, log, sc);
}

/* A third Ctrl-C quits at once, but results.json (written again at the
 * first) already says the run was interrupted. */
static void test_third_ctrl_c_quits_but_says_interrupted(void **state)
{
	const char *tests =
		"  - name: stubborn\n"
		"    run: \"trap '' TERM INT HUP; echo started; sleep 1718\"\n";
	char *sc = write_scenario("ctrlc3", "sshb", tests);
	char *log = xasprintf("%s/ctrlc3.out", F.dir);
	char *cmd = xasprintf("exec %s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	pid_t pid = ts_spawn(cmd, log);
	char *glob = xasprintf("%s/runs/ctrlc3/2*/sshb/stubborn/stdout.log", F.dir);
	assert_true(wait_for_text(glob, "started", 20000));
	ctrl_c(pid, log, 1);
	ctrl_c(pid, log, 2);
	kill(pid, SIGINT);
	int rc = ts_wait_exit(pid, 5000);
	if (rc < 0)
		ts_stop(&pid);
	assert_int_equal(rc, 130);
	char *out = NULL;
	ts_run(&out, "cat %s/runs/ctrlc3/2*/results.json", F.dir);
	json_error_t e;
	json_t *res = json_loads(out ? out : "", 0, &e);
	if (!res || !json_is_true(json_object_get(res, "interrupted")))
		fail_msg("results.json does not say interrupted:\n%s", out ? out : "");
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 130);
	json_decref(res);
	/* the kill sent at the second Ctrl-C ends it on the board */
	wait_board_procs("^sleep 1718", 0, 5000);
	ts_run(NULL, "pkill -KILL -u %s -f '^sleep 1718'", F.lab->user);
	TS_FREE(out, glob, cmd, log, sc);
}

/* ---- leftovers -------------------------------------------------------------- */

/* A daemon (setsid, then a fork, outside the step's process group) started
 * by a passing test does not outlive the run unsaid: it is found by the
 * ORCH_STEP_ID its environment inherited, listed in the result (leftovers)
 * and the summary, and stopped; the test still passes. */
static void test_daemon_left_by_passing_test_is_stopped(void **state)
{
	const char *tests =
		"  - name: daemon\n"
		"    run: \"setsid sh -c 'sleep 1720 </dev/null >/dev/null 2>&1 &'; "
		"setsid sh -c 'sleep 1721 </dev/null >/dev/null 2>&1 &'; echo started\"\n";
	char *sc = write_scenario("leftover", "*", tests);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, F.dir);
	int ssh_left = wait_board_procs("^sleep 172[01]", 0, 2000);
	char *local_left = NULL;
	ts_run(&local_left, "pgrep -c -u 0 -f '^sleep 172[01]'");
	ts_run(NULL, "pkill -KILL -f '^sleep 172[01]'");
	if (rc != 0 || ssh_left != 0 || atoi(local_left ? local_left : "0") != 0)
		fail_msg("exit %d, left on the ssh board %d, on the local one %s; orch said:\n%s", rc,
			 ssh_left, local_left ? local_left : "?", out);
	json_t *res = ts_orch_results(F.dir, "leftover");
	const char *boards[] = { "sshb", "loc" };
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "daemon");
		assert_string_equal(ts_json_str(r, "status"), "pass");
		json_t *left = json_object_get(r, "leftovers");
		const char *l = json_string_value(json_array_get(left, 0));
		if (!l || !strstr(l, "sleep"))
			fail_msg("%s: leftovers %s; orch said:\n%s", boards[i], l ? l : "(none)", out);
	}
	char *summary = NULL;
	ts_run(&summary, "cat %s/runs/leftover/latest/summary.txt", F.dir);
	TS_ASSERT_HAS(summary, "warning: sshb daemon left processes running");
	json_decref(res);
	TS_FREE(summary, local_left, out, sc);
}

/* leftovers: fail makes such a test fail, naming what it left. */
static void test_leftovers_fail_option(void **state)
{
	const char *tests =
		"  - name: daemon\n"
		"    leftovers: fail\n"
		"    run: \"setsid sh -c 'sleep 1722 </dev/null >/dev/null 2>&1 &'\"\n"
		"  - name: clean\n"
		"    leftovers: fail\n"
		"    run: \"sleep 0.1 & wait\"\n";
	char *sc = write_scenario("leftfail", "sshb", tests);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, F.dir);
	int left = count_board_procs("^sleep 1722");
	assert_int_equal(left, 0);
	json_t *res = ts_orch_results(F.dir, "leftfail");
	json_t *r = ts_json_result_or_fail(res, "sshb", "daemon");
	const char *msg = ts_json_str(r, "message");
	if (rc != 1 || strcmp(ts_json_str(r, "status"), "fail") != 0 || !msg ||
	    !strstr(msg, "sleep"))
		fail_msg("exit %d, message %s; orch said:\n%s", rc, msg ? msg : "(none)", out);
	r = ts_json_result_or_fail(res, "sshb", "clean");
	assert_string_equal(ts_json_str(r, "status"), "pass");
	assert_null(json_object_get(r, "leftovers"));
	json_decref(res);
	TS_FREE(out, sc);
}

/* ---- host name lookups -------------------------------------------------- */

#define DNS_NS "lie-dns"
#define DNS_SERVER LAB_BASE ".53"

static pid_t dns_sink;   /* takes the queries of DNS_NS and never answers */

/* A network namespace whose resolv.conf (ip netns exec bind-mounts
 * /etc/netns/NS/resolv.conf) names a server that takes queries and never
 * answers, the resolver told to wait 30 s. */
static int dns_up(void)
{
	if (ts_run(NULL, "ip netns add " DNS_NS " && ip -n " DNS_NS " link set lo up && "
		   "mkdir -p /etc/netns/" DNS_NS " && printf 'nameserver " DNS_SERVER "\n"
		   "options timeout:30 attempts:1\n' >/etc/netns/" DNS_NS "/resolv.conf") != 0)
		return -1;
	char *sink = xasprintf("rm -f %s/dns-queries; exec ip netns exec " DNS_NS
			       " socat -u UDP4-RECV:53,bind=" DNS_SERVER
			       " OPEN:%s/dns-queries,creat,append", F.dir, F.dir);
	dns_sink = ts_spawn(sink, NULL);
	free(sink);
	for (int i = 0; i < 100; i++) {
		if (ts_run(NULL, "ip netns exec " DNS_NS " ss -uln | grep -q '" DNS_SERVER ":53'") == 0)
			return 0;
		usleep(20000);
	}
	return -1;
}

static void dns_down(void)
{
	ts_stop(&dns_sink);
	ts_run(NULL, "ip netns del " DNS_NS " 2>/dev/null; rm -rf /etc/netns/" DNS_NS);
}

/* Starts orch run of a one-board scenario whose host is a name only the
 * silent server could answer, inside DNS_NS; returns its pid. */
static pid_t spawn_in_dns_ns(const char *name, const char *timeout, char **log)
{
	char *inv = xasprintf("boards:\n  named: { ssh: { host: board1.lie-lab.test, port: %d,\n"
			      "    user: %s, identity: %s, known_hosts: %s, connect_timeout: %s } }\n",
			      LAB_PORT, F.lab->user, F.lab->identity, F.lab->known_hosts, timeout);
	char *invfile = xasprintf("%s-rack.yaml", name);
	free(ts_write_file(F.dir, invfile, inv));
	char *text = xasprintf("name: %s\ninventory: %s\ntests:\n  - name: t\n    run: 'true'\n",
			       name, invfile);
	char *file = xasprintf("%s.yaml", name);
	char *sc = ts_write_file(F.dir, file, text);
	*log = xasprintf("%s/%s.out", F.dir, name);
	char *cmd = xasprintf("exec ip netns exec " DNS_NS " %s run %s -o %s/runs", ORCH_BIN, sc,
			      F.dir);
	pid_t pid = ts_spawn(cmd, *log);
	TS_FREE(cmd, sc, file, text, invfile, inv);
	return pid;
}

/* A name lookup counts against connect_timeout (libssh's own getaddrinfo()
 * would wait for the resolver, 30 s here): the board is an infrastructure
 * error (exit 3) in about 2 s. */
static void test_hanging_lookup_bounded_by_connect_timeout(void **state)
{
	if (dns_up() < 0) {
		dns_down();
		fail_msg("cannot make the network namespace " DNS_NS " with a silent resolver");
	}
	char *log = NULL;
	int64_t t0 = clock_mono_ms();
	pid_t pid = spawn_in_dns_ns("dnsslow", "2s", &log);
	int rc = ts_wait_exit(pid, 40000);
	int64_t took = clock_mono_ms() - t0;
	if (rc < 0)
		ts_stop(&pid);
	char *out = ts_read_file(log);
	dns_down();
	print_message("exit %d after %lld ms (connect_timeout 2 s)\n", rc, (long long)took);
	if (rc != 3)
		fail_msg("exit %d, want 3; orch said:\n%s", rc, out ? out : "");
	assert_true(took < 4500);
	json_t *res = ts_orch_results(F.dir, "dnsslow");
	const json_t *r = first_result(res);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "error");
	const char *msg = json_string_value(json_object_get(r, "message"));
	if (!msg || !strstr(msg, "cannot resolve 'board1.lie-lab.test'"))
		fail_msg("message: %s", msg ? msg : "(none)");
	json_decref(res);
	TS_FREE(out, log);
}

/* Ctrl-C during a lookup that hangs ends the run at once (exit 130). */
static void test_ctrl_c_during_lookup(void **state)
{
	if (dns_up() < 0) {
		dns_down();
		fail_msg("cannot make the network namespace " DNS_NS " with a silent resolver");
	}
	char *log = NULL;
	pid_t pid = spawn_in_dns_ns("dnsint", "25s", &log);
	char *asked = xasprintf("test -s %s/dns-queries", F.dir);
	bool in_lookup = wait_shell(20000, asked);   /* orch's query reached the silent server */
	free(asked);
	if (!in_lookup) {
		ts_stop(&pid);
		fail_msg("orch never asked the resolver");
	}
	int64_t t0 = clock_mono_ms();
	kill(pid, SIGINT);
	int rc = ts_wait_exit(pid, 40000);
	int64_t took = clock_mono_ms() - t0;
	if (rc < 0)
		ts_stop(&pid);
	char *out = ts_read_file(log);
	dns_down();
	print_message("exit %d %lld ms after Ctrl-C\n", rc, (long long)took);
	if (rc != 130)
		fail_msg("exit %d, want 130; orch said:\n%s", rc, out ? out : "");
	assert_true(took < 5000);   /* the lookup alone would take 25 s */
	json_t *res = ts_orch_results(F.dir, "dnsint");
	assert_non_null(res);
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	json_decref(res);
	TS_FREE(out, log);
}

/* ---- power and push ------------------------------------------------------- */

/* A power command that hangs is bounded by the test's timeout (3 s here),
 * not by the link's 60 s cap, and the command is killed. */
static void test_hanging_power_command_bounded_by_test_timeout(void **state)
{
	char *link = xasprintf("%s/console", F.dir);
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s SYSTEM:'sleep 600'", link);
	pid_t console = ts_spawn(cmd, NULL);
	for (int i = 0; i < 250 && access(link, F_OK) != 0; i++)
		usleep(20000);
	char *inv = xasprintf("boards:\n  pw: { transport: serial, serial: { port: %s },\n"
			      "        power: { cycle: 'sleep 1719' } }\n", link);
	free(ts_write_file(F.dir, "power-rack.yaml", inv));
	char *sc = ts_write_file(F.dir, "power.yaml",
				 "name: power\ninventory: power-rack.yaml\ntests:\n"
				 "  - name: boot\n    timeout: 3s\n"
				 "    boot: { trigger: power-cycle, phases: [ { name: up, until: login } ] }\n");
	char *out = NULL;
	int64_t t0 = clock_mono_ms();
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, F.dir);
	int64_t took = clock_mono_ms() - t0;
	int left = count_board_procs("^sleep 1719");
	ts_run(NULL, "pkill -KILL -f '^sleep 1719'");
	ts_stop(&console);
	print_message("exit %d after %lld ms\n", rc, (long long)took);
	json_t *res = ts_orch_results(F.dir, "power");
	const json_t *r = first_result(res);
	const char *msg = json_string_value(json_object_get(r, "message"));
	if (rc != 3 || !msg || !strstr(msg, "power cycle command 'sleep 1719' timed out"))
		fail_msg("exit %d, message %s; orch said:\n%s", rc, msg ? msg : "(none)", out);
	assert_true(took < 8000);
	char *root_left = NULL;
	ts_run(&root_left, "pgrep -c -f '^sleep 1719'");
	assert_int_equal(atoi(root_left ? root_left : "0") + (left > 0 ? left : 0), 0);
	free(root_left);
	json_decref(res);
	TS_FREE(out, sc, inv, cmd, link);
}

/* A push that fails on the board leaves neither the file nor its part
 * file: the destination is a 256 KiB tmpfs that a 2 MiB file fills. */
static void test_failed_push_leaves_no_part_file(void **state)
{
	char *tiny = xasprintf("%s/tiny", F.dir);
	if (ts_run(NULL, "mkdir -p %s && mount -t tmpfs -o size=256k,mode=0777 lie-tiny %s",
		   tiny, tiny) != 0)
		fail_msg("cannot mount a tmpfs on %s", tiny);
	ts_run(NULL, "head -c 2097152 /dev/urandom > %s/big.bin", F.dir);
	char *tests = xasprintf("  - name: deploy\n"
				"    push: [ { src: big.bin, dest: %s/big.bin } ]\n"
				"    run: 'true'\n", tiny);
	char *sc = write_scenario("pushfull", "sshb", tests);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, F.dir);
	char *ls = NULL;
	ts_run(&ls, "ls -A %s", tiny);
	ts_run(NULL, "umount %s", tiny);
	json_t *res = ts_orch_results(F.dir, "pushfull");
	const json_t *r = first_result(res);
	const char *msg = json_string_value(json_object_get(r, "message"));
	print_message("exit %d: %s\n", rc, msg ? msg : "(none)");
	if (rc == 0 || !msg || !strstr(msg, "push of"))
		fail_msg("exit %d, message %s; orch said:\n%s", rc, msg ? msg : "(none)", out);
	if (ls && *ls)
		fail_msg("the failed push left on the board: %s", ls);
	json_decref(res);
	TS_FREE(ls, out, sc, tests, tiny);
}

/* Runs cmd (an `orch run` that pushes) with its output in log, waits up to
 * 20 s for the push's part file (glob; nonempty: with bytes in it), then
 * kills the board's sshd sessions mid-push and waits for orch. Returns
 * orch's exit status, -1 when it had to be stopped; *seen says whether the
 * part file appeared before the cut. */
static int run_and_cut_push(const char *cmd, const char *log, const char *glob, bool nonempty,
			    bool *seen)
{
	pid_t pid = ts_spawn(cmd, log);
	*seen = false;
	for (int64_t dl = deadline_in_ms(20000); !*seen && !deadline_expired(dl); usleep(20000))
		*seen = ts_run(NULL, nonempty ? "test -s %s" : "ls %s >/dev/null 2>&1", glob) == 0;
	lab_cut_sessions(F.lab, 1);
	int rc = ts_wait_exit(pid, 60000);
	if (rc < 0)
		ts_stop(&pid);
	return rc;
}

/* The connection is killed mid-push (the board's sshd session process):
 * the part file goes all the same. */
static void test_push_cut_mid_way_leaves_no_part_file(void **state)
{
	char *dest = xasprintf("%s/cut", F.dir);
	ts_run(NULL, "mkdir -p %s && chmod 777 %s", dest, dest);
	ts_run(NULL, "head -c 268435456 /dev/zero > %s/huge.bin", F.dir);
	char *tests = xasprintf("  - name: deploy\n"
				"    push: [ { src: huge.bin, dest: %s/huge.bin } ]\n"
				"    run: 'true'\n", dest);
	char *sc = write_scenario("pushcut", "sshb", tests);
	char *log = xasprintf("%s/pushcut.out", F.dir);
	char *cmd = xasprintf("exec %s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	char *glob = xasprintf("%s/huge.bin.orch-part.*", dest);
	bool seen;
	int rc = run_and_cut_push(cmd, log, glob, false, &seen);
	char *gone = xasprintf("[ -z \"$(ls -A %s)\" ]", dest);
	wait_shell(5000, gone);   /* the board's shell removes it as its session ends */
	free(gone);
	char *ls = NULL;
	ts_run(&ls, "ls -A %s", dest);
	ts_run(NULL, "rm -f %s/huge.bin", F.dir);
	char *out = ts_read_file(log);
	print_message("part file seen: %d, exit %d\n", seen, rc);
	assert_true(seen);
	if (rc == 0)
		fail_msg("a cut push passed; orch said:\n%s", out ? out : "");
	if (ls && *ls)
		fail_msg("the cut push left on the board: %s", ls);
	TS_FREE(out, ls, glob, cmd, log, sc, tests, dest);
}

/* A remote-bench program whose push is cut mid-way is never installed under
 * its own name: a truncated binary there would run (and crash) as the bench. */
static void test_bench_push_cut_mid_way_installs_nothing(void **state)
{
	char *bench = xasprintf("%s/bench/x86_64", F.dir);
	ts_run(NULL, "mkdir -p %s %s/wd && chmod 777 %s/wd", bench, F.dir, F.dir);
	ts_run(NULL, "head -c 268435456 /dev/zero > %s/remote-bench-cpu", bench);
	char *sc = write_scenario("benchcut", "sshw", "  - name: cpu\n    bench: cpu\n");
	char *log = xasprintf("%s/benchcut.out", F.dir);
	char *cmd = xasprintf("ORCH_BENCH_DIR=%s/bench exec %s run %s -o %s/runs", F.dir,
			      ORCH_BIN, sc, F.dir);
	char *glob = xasprintf("%s/wd/bin/remote-bench-cpu.orch-part.*", F.dir);
	bool seen;
	int rc = run_and_cut_push(cmd, log, glob, true, &seen);
	char *gone = xasprintf("! ls %s/wd/bin 2>/dev/null | grep -q remote-bench-cpu", F.dir);
	wait_shell(5000, gone);
	free(gone);
	char *ls = NULL;
	ts_run(&ls, "ls -A %s/wd/bin", F.dir);
	ts_run(NULL, "rm -rf %s/bench %s/wd", F.dir, F.dir);
	print_message("part file seen: %d, exit %d, left: %s\n", seen, rc, ls ? ls : "");
	assert_true(seen);
	assert_int_not_equal(rc, 0);
	if (ls && strstr(ls, "remote-bench-cpu"))
		fail_msg("the cut push left on the board: %s", ls);
	TS_FREE(ls, glob, cmd, log, sc, bench);
}

TS_MAIN(setup, teardown, test_double_ctrl_c_still_reports,
	test_third_ctrl_c_quits_but_says_interrupted, test_daemon_left_by_passing_test_is_stopped,
	test_leftovers_fail_option, test_hanging_lookup_bounded_by_connect_timeout,
	test_ctrl_c_during_lookup, test_hanging_power_command_bounded_by_test_timeout,
	test_failed_push_leaves_no_part_file, test_push_cut_mid_way_leaves_no_part_file,
	test_bench_push_cut_mid_way_installs_nothing)
