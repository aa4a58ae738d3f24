/*
 * Multi-host tests through `orch run` with local boards (the controller in
 * every role): no root and no lab needed, so they run everywhere. They
 * cover what does not depend on ssh: clients in turn, the background step
 * stopped (through the exec's cancel flag) however the test ends, ready
 * patterns, substitutions, parse steps and per-role logs. The servers write
 * their pid to a file, so the test checks exactly that process is gone.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;
static int port;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp("multihost-local");
	port = 20000 + (int)(getpid() % 20000);
	char *inv = xasprintf("boards:\n"
			      "  ctl: { local: true, tags: [server] }\n"
			      "  ctl2: { local: true, tags: [server] }\n"
			      "  l1: { local: true, tags: [embedded] }\n"
			      "  l2: { local: true, tags: [embedded] }\n"
			      "  gone:\n"
			      "    ssh: { host: 127.0.0.1, port: 1, host_key: off, connect_timeout: 2s }\n");
	free(ts_write_file(tmp, "inventory.yaml", inv));
	free(inv);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

/* Runs a scenario made of the given tests on l1 and l2; returns orch's exit
 * status, the run folder (caller frees) and the parsed results.json. */
static int run_scenario(const char *name, const char *tests, char **run_dir, json_t **results)
{
	char *text = xasprintf("name: %s\ninventory: inventory.yaml\nboards: [tag:embedded]\n"
			       "defaults: { timeout: 30s }\ntests:\n%s", name, tests);
	char *file = xasprintf("%s.yaml", name);
	char *sc = ts_write_file(tmp, file, text);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs", ORCH_BIN, sc, tmp);
	*run_dir = xasprintf("%s/runs/%s/latest", tmp, name);
	*results = ts_json_load_in(*run_dir, "results.json");
	if (!*results)
		fail_msg("no %s/results.json; orch said:\n%s", *run_dir, out);
	TS_FREE(out, sc, file, text);
	return rc;
}

static double metric_of(json_t *r, const char *name)
{
	json_t *m = json_object_get(json_object_get(r, "metrics"), name);
	json_t *v = json_object_get(m, "median");
	return json_is_number(v) ? json_number_value(v) : -1;
}

static void assert_status(json_t *r, const char *status, const char *message_part)
{
	if (strcmp(ts_json_str(r, "status"), status) != 0 ||
	    (message_part && !strstr(ts_json_str(r, "message"), message_part)))
		fail_msg("%s/%s: status %s, message '%s'; wanted %s with '%s'", ts_json_str(r, "board"),
			 ts_json_str(r, "test"), ts_json_str(r, "status"), ts_json_str(r, "message"), status,
			 message_part ? message_part : "");
}

/* Every pid listed in the files matching tmp/NAME.* is gone (bounded wait). */
static void assert_pids_gone(const char *name)
{
	char *out = NULL;
	int rc = 0;
	for (int i = 0; i < 30; i++) {
		free(out);
		out = NULL;
		rc = ts_run(&out, "cd %s && n=0; for f in %s.*; do [ -f \"$f\" ] || continue; "
			    "n=$((n+1)); p=$(cat \"$f\"); kill -0 \"$p\" 2>/dev/null && echo \"$f $p\"; "
			    "done; [ $n -gt 0 ] || echo 'no pid files'", tmp, name);
		if (rc == 0 && out && !*out)
			break;
		usleep(100 * 1000);
	}
	if (out && *out)
		fail_msg("background processes still running: %s", out);
	free(out);
}

static void test_clients_in_turn_server_stopped(void **state)
{
	if (ts_run(NULL, "command -v iperf3 >/dev/null") != 0)
		ts_skip("needs iperf3 (apt-get install iperf3)");
	char *tests = xasprintf(
		"  - name: iperf\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo $$ > %s/iperf.$(date +%%s%%N); exec iperf3 -s -p %d --forceflush\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"iperf3 -c {server.host} -p %d -t 1 -J\", parse: iperf3-json }\n",
		tmp, port, port);
	char *run_dir;
	json_t *root;
	int rc = run_scenario("inturn", tests, &run_dir, &root);
	assert_int_equal(rc, 0);
	assert_pids_gone("iperf");
	json_t *r1 = ts_json_result_or_fail(root, "l1", "iperf"), *r2 = ts_json_result_or_fail(root, "l2", "iperf");
	assert_status(r1, "pass", NULL);
	assert_status(r2, "pass", NULL);
	assert_true(metric_of(r1, "iperf3.sender_bps") > 0);
	assert_true(metric_of(r2, "iperf3.receiver_bps") > 0);
	if (!(strcmp(ts_json_str(r1, "end"), ts_json_str(r2, "start")) <= 0 ||
	      strcmp(ts_json_str(r2, "end"), ts_json_str(r1, "start")) <= 0))
		fail_msg("l1 %s..%s overlaps l2 %s..%s", ts_json_str(r1, "start"), ts_json_str(r1, "end"),
			 ts_json_str(r2, "start"), ts_json_str(r2, "end"));
	char *log = xasprintf("%s/l1/iperf/server.stdout.log", run_dir);
	char *text = ts_read_file(log);
	assert_non_null(text);
	TS_ASSERT_HAS(text, "Server listening");
	TS_FREE(text, log);
	log = xasprintf("%s/l1/iperf/stdout.log", run_dir);
	text = ts_read_file(log);
	assert_non_null(text);
	TS_ASSERT_HAS(text, "\"sum_sent\"");
	TS_FREE(text, log);
	json_decref(root);
	TS_FREE(run_dir, tests);
}

static void test_failures_stop_server(void **state)
{
	char *tests = xasprintf(
		"  - name: never-ready\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo $$ > %s/srv.$(date +%%s%%N); echo warming up; exec sleep 300\", background: true, ready: \"^ready$\", ready_timeout: 1s }\n"
		"      - { on: client, run: \"echo must-not-run\" }\n"
		"  - name: client-fails\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo $$ > %s/srv.$(date +%%s%%N); echo ready; exec sleep 300\", background: true, ready: \"^ready$\" }\n"
		"      - { on: client, run: \"echo oops >&2; exit 3\" }\n"
		"  - name: client-times-out\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo $$ > %s/srv.$(date +%%s%%N); echo ready; exec sleep 300\", background: true, ready: \"^ready$\" }\n"
		"      - { on: client, run: \"sleep 30\", timeout: 1s }\n"
		"  - name: server-dies\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo cannot bind >&2; exit 4\", background: true, ready: \"^ready$\" }\n"
		"      - { on: client, run: \"true\" }\n"
		"  - name: server-dies-later\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"exit 5\", background: true }\n"
		"      - { on: client, run: \"sleep 0.5\" }\n"
		"  - name: bad-field\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: client, run: \"ping {server.hots}\" }\n",
		tmp, tmp, tmp);
	char *run_dir;
	json_t *root;
	int rc = run_scenario("failures", tests, &run_dir, &root);
	assert_int_equal(rc, 1);
	assert_pids_gone("srv");
	for (int c = 0; c < 2; c++) {
		const char *b = c ? "l2" : "l1";
		assert_status(ts_json_result_or_fail(root, b, "never-ready"), "fail",
			      "server step 'echo $$ > ");
		assert_status(ts_json_result_or_fail(root, b, "never-ready"), "fail",
			      "on ctl never printed ready pattern '^ready$' within 1s; "
			      "last output: warming up");
		assert_status(ts_json_result_or_fail(root, b, "client-fails"), "fail",
			      "client step 'echo oops >&2; exit 3' on ");
		assert_status(ts_json_result_or_fail(root, b, "client-fails"), "fail",
			      "exited with status 3: oops");
		assert_status(ts_json_result_or_fail(root, b, "client-times-out"), "fail", "timed out after 1s");
		assert_status(ts_json_result_or_fail(root, b, "server-dies"), "fail",
			      "ended (exit status 4) before printing ready pattern '^ready$'; "
			      "last output: cannot bind");
		assert_status(ts_json_result_or_fail(root, b, "server-dies-later"), "fail",
			      "server step 'exit 5' on ctl exited with status 5");
		assert_status(ts_json_result_or_fail(root, b, "bad-field"), "fail",
			      "unknown field 'hots' in {server.hots}");
	}
	char *log = xasprintf("%s/l1/never-ready/stdout.log", run_dir);
	char *text = ts_read_file(log);
	assert_true(!text || !strstr(text, "must-not-run"));
	TS_FREE(text, log);
	json_decref(root);
	TS_FREE(run_dir, tests);
}

static void test_roles_logs_and_parse(void **state)
{
	/* a role of two boards runs its steps on each; substitutions are per board */
	const char *tests =
		"  - name: fanout\n"
		"    roles: { servers: \"tag:server\", client: each }\n"
		"    steps:\n"
		"      - { on: servers, run: \"echo up on {board.name} for {client.name}; exec sleep 300\", background: true, ready: \"^up on\" }\n"
		"      - { on: servers, run: \"echo hello from {servers.name}\" }\n"
		"      - { on: client, run: \"echo '{\\\"metric\\\":\\\"net.rate\\\",\\\"value\\\":42.5,\\\"unit\\\":\\\"MiB/s\\\",\\\"better\\\":\\\"higher\\\"}'\", parse: remote-bench }\n";
	char *run_dir;
	json_t *root;
	int rc = run_scenario("fanout", tests, &run_dir, &root);
	json_t *r = ts_json_result_or_fail(root, "l1", "fanout");
	assert_status(r, "pass", NULL);
	assert_int_equal(rc, 0);
	assert_true(metric_of(r, "net.rate") == 42.5);
	const char *files[][2] = {
		{ "servers.ctl.stdout.log", "up on ctl for l1\nhello from ctl\n" },
		{ "servers.ctl2.stdout.log", "up on ctl2 for l1\nhello from ctl2\n" },
	};
	for (size_t i = 0; i < 2; i++) {
		char *path = xasprintf("%s/l1/fanout/%s", run_dir, files[i][0]);
		char *text = ts_read_file(path);
		if (!text || strcmp(text, files[i][1]) != 0)
			fail_msg("%s: '%s'", path, text ? text : "(missing)");
		TS_FREE(text, path);
	}
	json_decref(root);
	free(run_dir);
}

/* push: and fetch: on steps: the server's files go to its board before it
 * starts and its log comes back (under server/) once it was stopped; the
 * client's under its own name; a fetch of a file the step never wrote
 * fails the test naming it. */
static void test_step_files(void **state)
{
	free(ts_write_file(tmp, "payload.txt", "the payload\n"));
	char *tests = xasprintf(
		"  - name: files\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - on: server\n"
		"        push: { src: payload.txt, dest: %s/srv/payload.txt }\n"
		"        run: \"sed 's/^/server has /' %s/srv/payload.txt > %s/srv/server.log; "
		"echo ready; exec sleep 300\"\n"
		"        background: true\n"
		"        ready: ready\n"
		"        fetch: { src: %s/srv/server.log }\n"
		"      - on: client\n"
		"        push: [ { src: payload.txt, dest: %s/cli/p.txt, mode: '0600' } ]\n"
		"        run: \"stat -c %%a %s/cli/p.txt > %s/cli/out.txt; cat %s/cli/p.txt >> %s/cli/out.txt\"\n"
		"        fetch: { src: %s/cli/out.txt, dest: got/out.txt }\n"
		"  - name: nofile\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: client, run: 'true', fetch: { src: %s/never.txt } }\n",
		tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp);
	char *run_dir;
	json_t *root;
	int rc = run_scenario("stepfiles", tests, &run_dir, &root);
	assert_int_equal(rc, 1);
	const char *clients[] = { "l1", "l2" };
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(root, clients[i], "files");
		assert_status(r, "pass", NULL);
		json_t *arts = json_object_get(r, "artifacts");
		assert_int_equal(json_array_size(arts), 2);
		char *path = xasprintf("%s/%s/files/got/out.txt", run_dir, clients[i]);
		char *text = ts_read_file(path);
		if (!text || strcmp(text, "600\nthe payload\n") != 0)
			fail_msg("%s: '%s'", path, text ? text : "(missing)");
		TS_FREE(text, path);
		path = xasprintf("%s/%s/files/server/server.log", run_dir, clients[i]);
		text = ts_read_file(path);
		if (!text || strcmp(text, "server has the payload\n") != 0)
			fail_msg("%s: '%s'", path, text ? text : "(missing)");
		TS_FREE(text, path);
		r = ts_json_result_or_fail(root, clients[i], "nofile");
		assert_status(r, "fail", "client step 'true' on");
		assert_status(r, "fail", "never.txt: no such file");
	}
	json_decref(root);
	TS_FREE(run_dir, tests);
}

static void test_unreachable_server_is_an_error(void **state)
{
	const char *tests =
		"  - name: nobody-home\n"
		"    roles: { server: gone, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"iperf3 -s\", background: true, ready: \"Server listening\" }\n"
		"      - { on: client, run: \"echo must-not-run\" }\n";
	char *run_dir;
	json_t *root;
	int rc = run_scenario("unreachable", tests, &run_dir, &root);
	assert_int_equal(rc, 3);
	assert_status(ts_json_result_or_fail(root, "l1", "nobody-home"), "error",
		      "cannot start server step 'iperf3 -s' on gone: ");
	json_decref(root);
	free(run_dir);
}

static void test_repeats_restart_the_server(void **state)
{
	char *tests = xasprintf(
		"  - name: twice\n"
		"    repeat: 2\n"
		"    roles: { server: ctl, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo $$ > %s/rep.$(date +%%s%%N); echo ready; exec sleep 300\", background: true, ready: \"^ready$\" }\n"
		"      - { on: client, run: \"echo '{\\\"metric\\\":\\\"x\\\",\\\"value\\\":1}'\", parse: remote-bench }\n",
		tmp);
	char *run_dir;
	json_t *root;
	int rc = run_scenario("repeats", tests, &run_dir, &root);
	assert_int_equal(rc, 0);
	assert_pids_gone("rep");
	char *out = NULL;
	ts_run(&out, "ls %s | grep -c '^rep\\.'", tmp);
	assert_int_equal(atoi(out), 4);   /* 2 clients x 2 repeats, each its own server */
	free(out);
	json_t *m = json_object_get(json_object_get(ts_json_result_or_fail(root, "l2", "twice"), "metrics"), "x");
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 2);
	json_decref(root);
	TS_FREE(run_dir, tests);
}

/* A declared metric the output never gives fails its multi-host test,
 * exactly as a single-host test: unless it says optional: true, or the
 * output printed +++++ (too fast to measure); each is listed as missing
 * with its reason. */
static void test_missing_metric_fails(void **state)
{
	const char *server = "      - { on: server, run: \"echo ready; exec sleep 300\", background: true,"
			     " ready: \"^ready$\" }\n";
	char *tests = xasprintf(
		"  - name: silent\n"
		"    roles: { server: ctl, client: each }\n"
		"    metrics: [{ name: dd.disk, regex: 'copied, .* ([0-9.]+) MB/s', unit: MB/s }]\n"
		"    steps:\n%s"
		"      - { on: client, run: \"echo '1+0 records in'\" }\n"
		"  - name: soft\n"
		"    roles: { server: ctl, client: each }\n"
		"    metrics: [{ name: dd.disk, regex: 'copied, .* ([0-9.]+) MB/s', unit: MB/s,"
		" optional: true }]\n"
		"    steps:\n%s"
		"      - { on: client, run: \"echo '1+0 records in'\" }\n"
		"  - name: bonnie\n"
		"    roles: { server: ctl, client: each }\n"
		"    metrics:\n"
		"      - { name: seq, regex: 'seq ([^ ]+)', unit: KiB/s }\n"
		"      - { name: rewrite, regex: 'rewrite ([^ ]+)', unit: KiB/s }\n"
		"    steps:\n%s"
		"      - { on: client, run: \"echo 'seq 81234 rewrite +++++'\" }\n",
		server, server, server);
	char *run_dir;
	json_t *root;
	int rc = run_scenario("missing", tests, &run_dir, &root);
	assert_int_equal(rc, 1);
	for (int i = 0; i < 2; i++) {
		const char *b = i ? "l2" : "l1";
		json_t *r = ts_json_result_or_fail(root, b, "silent");
		assert_status(r, "fail", "metric 'dd.disk' is missing from the output");
		json_t *mm = json_array_get(json_object_get(r, "missing_metrics"), 0);
		assert_string_equal(ts_json_str(mm, "name"), "dd.disk");
		assert_string_equal(ts_json_str(mm, "reason"), "absent");
		assert_true(json_is_false(json_object_get(mm, "optional")));

		r = ts_json_result_or_fail(root, b, "soft");
		assert_status(r, "pass", NULL);
		mm = json_array_get(json_object_get(r, "missing_metrics"), 0);
		assert_string_equal(ts_json_str(mm, "name"), "dd.disk");
		assert_true(json_is_true(json_object_get(mm, "optional")));

		r = ts_json_result_or_fail(root, b, "bonnie");
		assert_status(r, "pass", NULL);
		assert_true(metric_of(r, "seq") == 81234);
		mm = json_array_get(json_object_get(r, "missing_metrics"), 0);
		assert_string_equal(ts_json_str(mm, "name"), "rewrite");
		assert_string_equal(ts_json_str(mm, "reason"), "too fast to measure");
	}
	char *path = xasprintf("%s/summary.txt", run_dir);
	char *summary = ts_read_file(path);
	assert_non_null(summary);
	TS_ASSERT_HAS(summary, "missing: l[1-2] silent: metric dd.disk (absent)",
		"missing: l[1-2] bonnie: metric rewrite (too fast to measure)");
	TS_FREE(summary, path);
	json_decref(root);
	TS_FREE(run_dir, tests);
}

TS_MAIN(group_setup, group_teardown, test_clients_in_turn_server_stopped, test_failures_stop_server,
	test_roles_logs_and_parse, test_step_files, test_unreachable_server_is_an_error,
	test_repeats_restart_the_server, test_missing_metric_fails)
