/*
 * Multi-host tests end to end: `orch run` on scenarios with an iperf3
 * server role and clients in turn, against the network-namespace lab
 * (tests/lab/netns-lab.sh: a vm and two clients, sshd in each, WireGuard
 * between them). Needs root, iperf3 and wireguard-go; skipped otherwise.
 *
 * Checked: clients never overlap on the server; the background server is
 * gone after the test whether it passed, failed, missed its ready pattern,
 * timed out or was interrupted; a server that never gets ready fails that
 * test with a clear message; throughput is present and of the same order
 * as a direct iperf3 run.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "omh"
#define NET "81"
#define VM_IP "10.81.0.1"
#define VM_TUNNEL_IP "10.82.0.1"
#define LAB ORCH_SOURCE_DIR "/tests/lab/netns-lab.sh"

static char *tmp;          /* scratch folder of this test program */
static char *lab_dir;
static bool lab_up;

static int group_setup(void **state)
{
	ts_require_root("network namespaces");
	ts_require_tool("wireguard-go", "apt-get install wireguard-go");
	ts_require_tool("wg", "apt-get install wireguard-tools");
	ts_require_tool("iperf3", "apt-get install iperf3");
	tmp = ts_mkdtemp("multihost");
	lab_dir = xasprintf("%s/lab", tmp);
	char *out = NULL;
	ts_run(NULL, "%s down --prefix " PREFIX " --dir %s", LAB, lab_dir);
	int rc = ts_run(&out, "%s up --prefix " PREFIX " --net " NET " --clients 2 --dir %s", LAB,
			lab_dir);
	if (rc != 0) {
		fprintf(stderr, "netns-lab.sh up failed (%d):\n%s\n", rc, out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	lab_up = true;
	return 0;
}

static int group_teardown(void **state)
{
	if (lab_up)
		ts_run(NULL, "%s down --prefix " PREFIX " --dir %s", LAB, lab_dir);
	if (tmp)
		ts_rmrf(tmp);
	TS_FREE(lab_dir, tmp);
	return 0;
}

/* Writes a scenario (the tests: part given) next to the lab's inventory. */
static char *write_scenario(const char *name, const char *boards, const char *tests)
{
	char *text = xasprintf("name: %s\ninventory: %s/inventory.yaml\nboards: [%s]\n"
			       "defaults: { timeout: 1m }\ntests:\n%s", name, lab_dir, boards, tests);
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(tmp, file, text);
	TS_FREE(file, text);
	return path;
}

/* Runs orch on the scenario called name; returns the exit status, the run
 * folder and orch's output. */
static int run_orch(const char *name, const char *scenario, char **run_dir, char **output)
{
	char *runs = xasprintf("%s/runs", tmp);
	int rc = ts_run(output, "%s run %s -o %s", ORCH_BIN, scenario, runs);
	*run_dir = xasprintf("%s/%s/latest", runs, name);
	free(runs);
	return rc;
}

static json_t *load_results(const char *run_dir)
{
	json_t *root = ts_json_load_in(run_dir, "results.json");
	assert_non_null(root);
	return root;
}

/* The median of a metric in a result, or -1 when absent. */
static double result_metric(json_t *r, const char *name)
{
	json_t *metrics = json_object_get(r, "metrics");
	json_t *m = NULL;
	if (json_is_object(metrics)) {
		m = json_object_get(metrics, name);
	} else {
		size_t i;
		json_t *x;
		json_array_foreach(metrics, i, x) {
			if (!strcmp(ts_json_str(x, "name"), name))
				m = x;
		}
	}
	if (!m)
		return -1;
	json_t *v = json_object_get(m, "median");
	if (!json_is_number(v)) {
		json_t *samples = json_object_get(m, "samples");
		v = json_array_get(samples, 0);
	}
	return json_is_number(v) ? json_number_value(v) : -1;
}

/* Processes in the vm namespace other than its sshd and wireguard-go, after
 * giving exiting ones a moment; "" when none. Caller frees. */
static char *vm_leftovers(void)
{
	char *out = NULL;
	for (int i = 0; i < 30; i++) {
		free(out);
		out = NULL;
		ts_run(&out, "for p in $(ip netns pids " PREFIX "-vm); do "
		       "c=$(cat /proc/$p/comm 2>/dev/null) || continue; "
		       "case $c in sshd|wireguard-go) ;; *) echo \"$p $c\";; esac; done");
		if (!out || !*out)
			break;
		usleep(100 * 1000);
	}
	return out ? out : xstrdup("");
}

static void assert_vm_clean(void)
{
	char *left = vm_leftovers();
	if (*left)
		fail_msg("processes left in the vm namespace:\n%s", left);
	free(left);
}

static void test_clients_in_turn_plain_and_wireguard(void **state)
{
	/* plain: a server that runs until stopped; wireguard: one that exits by itself */
	const char *name = "inturn";
	char *sc = write_scenario(name, "tag:embedded",
		"  - name: plain\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"iperf3 -c {server.host} -t 1 -J\", parse: iperf3-json }\n"
		"  - name: tunnel\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s -1 --forceflush -B " VM_TUNNEL_IP "\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"iperf3 -c " VM_TUNNEL_IP " -t 1 -J\", parse: iperf3-json }\n");
	char *run_dir = NULL, *out = NULL;
	int rc = run_orch(name, sc, &run_dir, &out);
	if (rc != 0)
		fail_msg("orch run exited %d:\n%s", rc, out);
	assert_vm_clean();

	json_t *root = load_results(run_dir);
	const char *tests[] = { "plain", "tunnel" };
	const char *clients[] = { "client1", "client2" };
	double plain_bps[2] = { 0, 0 };
	for (int t = 0; t < 2; t++) {
		json_t *r[2];
		for (int c = 0; c < 2; c++) {
			r[c] = ts_json_result_or_fail(root, clients[c], tests[t]);
			assert_string_equal(ts_json_str(r[c], "status"), "pass");
			double sent = result_metric(r[c], "iperf3.sender_bps");
			double recv = result_metric(r[c], "iperf3.receiver_bps");
			assert_true(sent > 0);
			assert_true(recv > 0);
			if (t == 0)
				plain_bps[c] = sent;
			char *log = xasprintf("%s/%s/%s/server.stdout.log", run_dir, clients[c], tests[t]);
			char *text = ts_read_file(log);
			assert_non_null(text);
			TS_ASSERT_HAS(text, "Server listening");
			TS_FREE(text, log);
			log = xasprintf("%s/%s/%s/server.stderr.log", run_dir, clients[c], tests[t]);
			text = ts_read_file(log);
			assert_true(!text || !strstr(text, "orch-bg-pgid"));
			TS_FREE(text, log);
		}
		/* the server serves one client at a time: ISO 8601 UTC times compare as text */
		const char *s0 = ts_json_str(r[0], "start"), *e0 = ts_json_str(r[0], "end");
		const char *s1 = ts_json_str(r[1], "start"), *e1 = ts_json_str(r[1], "end");
		assert_true(*s0 && *e0 && *s1 && *e1);
		if (!(strcmp(e0, s1) <= 0 || strcmp(e1, s0) <= 0))
			fail_msg("%s: client1 %s..%s overlaps client2 %s..%s", tests[t], s0, e0, s1, e1);
	}
	json_decref(root);

	/* the same transfer without orch, for the order of magnitude */
	char *direct = NULL;
	rc = ts_run(&direct, "ip netns exec " PREFIX "-vm iperf3 -s -1 -D -p 5301 && sleep 0.3 && "
		    "ip netns exec " PREFIX "-c1 iperf3 -c " VM_IP " -p 5301 -t 2 -J");
	assert_int_equal(rc, 0);
	json_t *dj = json_loads(direct, 0, NULL);
	assert_non_null(dj);
	json_t *bps = json_object_get(json_object_get(json_object_get(dj, "end"), "sum_sent"),
				      "bits_per_second");
	assert_true(json_is_number(bps));
	double direct_mbps = json_number_value(bps) / 1e6;
	json_decref(dj);
	assert_true(direct_mbps > 0);
	if (plain_bps[0] < direct_mbps / 20 || plain_bps[0] > direct_mbps * 20)
		fail_msg("orch measured %.0f Mbit/s, a direct run %.0f Mbit/s", plain_bps[0],
			 direct_mbps);
	TS_FREE(direct, out, run_dir, sc);
}

static void test_client_failure_stops_server(void **state)
{
	const char *name = "clientfails";
	char *sc = write_scenario(name, "client1",
		"  - name: refused\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s --forceflush\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"iperf3 -c {server.host} -p 5999 -t 1 -J\", parse: iperf3-json }\n"
		"  - name: slow\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s --forceflush\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"sleep 30\", timeout: 1s }\n");
	char *run_dir = NULL, *out = NULL;
	int rc = run_orch(name, sc, &run_dir, &out);
	if (rc != 1)
		fail_msg("orch run exited %d, not 1:\n%s", rc, out);
	assert_vm_clean();
	json_t *root = load_results(run_dir);
	{
		const char *board = "client1";
		json_t *r = ts_json_result_or_fail(root, board, "refused");
		assert_string_equal(ts_json_str(r, "status"), "fail");
		if (!strstr(ts_json_str(r, "message"), "unable to connect"))
			fail_msg("message: %s", ts_json_str(r, "message"));
		r = ts_json_result_or_fail(root, board, "slow");
		assert_string_equal(ts_json_str(r, "status"), "fail");
		if (!strstr(ts_json_str(r, "message"), "timed out"))
			fail_msg("message: %s", ts_json_str(r, "message"));
	}
	json_decref(root);
	TS_FREE(out, run_dir, sc);
}

static void test_server_never_ready_fails_fast(void **state)
{
	const char *name = "neverready";
	char *sc = write_scenario(name, "client1",
		"  - name: silent\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo starting; sleep 300\", background: true, ready: \"never-printed\", ready_timeout: 2s }\n"
		"      - { on: client, run: \"echo unreachable\" }\n"
		"  - name: after\n"
		"    run: echo still-running\n");
	char *run_dir = NULL, *out = NULL;
	int rc = run_orch(name, sc, &run_dir, &out);
	if (rc != 1)
		fail_msg("orch run exited %d, not 1:\n%s", rc, out);
	assert_vm_clean();
	json_t *root = load_results(run_dir);
	json_t *r = ts_json_result_or_fail(root, "client1", "silent");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	const char *msg = ts_json_str(r, "message");
	if (!strstr(msg, "server step 'echo starting; sleep 300' on vm never printed ready "
			 "pattern 'never-printed' within 2s; last output: starting"))
		fail_msg("message: %s", msg);
	/* the client step never ran; the run went on with the next test */
	char *log = xasprintf("%s/client1/silent/stdout.log", run_dir);
	char *text = ts_read_file(log);
	assert_true(!text || !strstr(text, "unreachable"));
	TS_FREE(text, log);
	assert_string_equal(ts_json_str(ts_json_result_or_fail(root, "client1", "after"), "status"), "pass");
	json_decref(root);
	TS_FREE(out, run_dir, sc);
}

static void test_interrupt_stops_server(void **state)
{
	char *sc = write_scenario("interrupted", "client1",
		"  - name: long\n"
		"    roles: { server: vm, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s --forceflush\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"sleep 60\" }\n");
	char *runs = xasprintf("%s/runs-int", tmp);
	char *log = xasprintf("%s/orch.log", tmp);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = freopen(log, "w", stderr);
		(void)f;
		execl(ORCH_BIN, "orch", "run", sc, "-o", runs, (char *)NULL);
		_exit(127);
	}
	/* wait (bounded) until a client step is running: the server is up */
	bool started = false;
	for (int i = 0; i < 300 && !started; i++) {
		usleep(100 * 1000);
		started = ts_run(NULL, "for ns in " PREFIX "-c1 " PREFIX "-c2; do "
				 "for p in $(ip netns pids $ns); do cat /proc/$p/comm; done; "
				 "done 2>/dev/null | grep -qx sleep") == 0;
	}
	kill(pid, SIGINT);
	int status = 0;
	pid_t r = 0;
	for (int i = 0; i < 300 && r == 0; i++) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == 0)
			usleep(100 * 1000);
	}
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("orch did not stop within 30 s of SIGINT");
	}
	assert_true(started);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
	assert_vm_clean();
	char *left = NULL;
	ts_run(&left, "for p in $(ip netns pids " PREFIX "-c1; ip netns pids " PREFIX "-c2); do "
	       "c=$(cat /proc/$p/comm 2>/dev/null) || continue; "
	       "case $c in sshd|wireguard-go) ;; *) echo \"$p $c\";; esac; done");
	if (left && *left)
		fail_msg("processes left on the clients:\n%s", left);
	TS_FREE(left, log, runs, sc);
}

TS_MAIN(group_setup, group_teardown, test_clients_in_turn_plain_and_wireguard,
	test_client_failure_stops_server, test_server_never_ready_fails_fast,
	test_interrupt_stops_server)
