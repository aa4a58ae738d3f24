/*
 * orch run end to end, as a user runs it: the orch binary against a real
 * loopback lab (OpenSSH and dropbear boards, a dead address, the local
 * controller), checking exit codes, the run folder and its files.
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "result/result_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_BASE "127.0.41"

struct e2e {
	struct lab *lab;
	char *dir;            /* scratch: inventory, scenarios, runs */
	char *inventory;
	char *workdir;        /* the boards' workdir: writable by the lab user */
};

static struct e2e E;

static int setup(void **state)
{
	if (lab_group_up(&E.lab, LAB_BASE, 3, 1, false) < 0)
		return -1;
	E.dir = ts_mkdtemp("e2e");
	E.workdir = xasprintf("/tmp/orch-e2e-work.%ld", (long)getpid());
	char *inv = xasprintf(
		"defaults:\n"
		"  ssh: { user: %s, identity: %s, known_hosts: %s, connect_timeout: 5s }\n"
		"  workdir: %s\n"
		"boards:\n"
		"  b1: { arch: x86_64, tags: [openssh, x86], ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  b2: { arch: x86_64, tags: [openssh, x86], ssh: { host: " LAB_BASE ".2, port: %d } }\n"
		"  b3: { tags: [openssh], ssh: { host: " LAB_BASE ".3, port: %d, password_env: ORCH_E2E_SECRET } }\n"
		"  drop1: { tags: [dropbear], workdir: %s-drop, ssh: { host: " LAB_BASE ".200, port: %d } }\n"
		"  dead: { tags: [dead], ssh: { host: " LAB_BASE ".99, port: %d } }\n"
		"  controller: { local: true, tags: [local] }\n",
		E.lab->user, E.lab->identity, E.lab->known_hosts, E.workdir, LAB_PORT, LAB_PORT,
		LAB_PORT, E.workdir, LAB_PORT, LAB_PORT);
	E.inventory = ts_write_file(E.dir, "rack.yaml", inv);
	free(inv);
	return 0;
}

static int teardown(void **state)
{
	lab_down(E.lab);
	ts_rmrf(E.dir);
	ts_run(NULL, "rm -rf '%s' '%s-drop'", E.workdir, E.workdir);
	TS_FREE(E.workdir, E.dir, E.inventory);
	return 0;
}

/* Writes scenario NAME with the given body (after name/inventory lines)
 * and runs orch on it; returns the exit code, output in *out. */
static int run_scenario(const char *name, const char *body, const char *extra, char **out)
{
	char *text = xasprintf("name: %s\ninventory: rack.yaml\n%s", name, body);
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(E.dir, file, text);
	int code = ts_run(out, "cd '%s' && ORCH_E2E_SECRET=s3cr3t-Pa55-VALUE %s run %s -q -o runs %s",
			  E.dir, ORCH_BIN, path, extra ? extra : "");
	TS_FREE(text, file, path);
	return code;
}

static json_t *load_json(const char *name, const char *file)
{
	char *dir = xasprintf("%s/runs/%s/latest", E.dir, name);
	json_t *j = ts_json_load_in(dir, file);
	free(dir);
	return j;
}

static const char *status_of(json_t *root, const char *board, const char *test)
{
	json_t *r = ts_json_result(root, board, test);
	return r ? json_string_value(json_object_get(r, "status")) : "(missing)";
}

static void test_pass_writes_run_folder(void **state)
{
	char *out;
	int code = run_scenario("pass", "boards: [tag:openssh, drop1, controller, '!b3']\n"
				"tests:\n  - name: hello\n    run: echo hello from $(hostname) >&1; echo to-stderr >&2\n",
				NULL, &out);
	assert_int_equal(code, 0);
	json_t *res = load_json("pass", "results.json");
	assert_non_null(res);
	assert_string_equal(status_of(res, "b1", "hello"), "pass");
	assert_string_equal(status_of(res, "b2", "hello"), "pass");
	assert_string_equal(status_of(res, "drop1", "hello"), "pass");
	assert_string_equal(status_of(res, "controller", "hello"), "pass");
	assert_null(ts_json_result(res, "b3", "hello"));      /* excluded with ! */
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 0);
	json_decref(res);

	json_t *run = load_json("pass", "run.json");
	assert_non_null(run);
	json_decref(run);
	char *log = xasprintf("%s/runs/pass/latest/drop1/hello/stdout.log", E.dir);
	char *text = ts_read_file(log);
	assert_non_null(text);
	TS_ASSERT_HAS(text, "hello from");
	TS_FREE(text, log);
	log = xasprintf("%s/runs/pass/latest/b1/hello/stderr.log", E.dir);
	text = ts_read_file(log);
	assert_non_null(text);
	assert_string_equal(text, "to-stderr\n");
	TS_FREE(text, log);
	for (const char *const *f = (const char *const[]){ "junit.xml", "summary.txt",
							   "report.html", "b1/hello/result.json", NULL }; *f; f++) {
		char *p = xasprintf("%s/runs/pass/latest/%s", E.dir, *f);
		assert_true(ts_file_exists(p));
		free(p);
	}
	free(out);
}

static void test_failing_command_exits_1(void **state)
{
	char *out;
	int code = run_scenario("failing", "boards: [b1, b2]\ntests:\n"
				"  - name: ok\n    run: 'true'\n"
				"  - name: broken\n    run: echo oops >&2; exit 3\n"
				"  - name: after\n    run: 'true'\n", NULL, &out);
	assert_int_equal(code, 1);
	json_t *res = load_json("failing", "results.json");
	assert_non_null(res);
	assert_string_equal(status_of(res, "b1", "ok"), "pass");
	assert_string_equal(status_of(res, "b1", "broken"), "fail");
	assert_string_equal(status_of(res, "b1", "after"), "pass");   /* later tests still run */
	json_t *r = ts_json_result(res, "b2", "broken");
	assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), 3);
	const char *msg = json_string_value(json_object_get(r, "message"));
	assert_non_null(msg);
	TS_ASSERT_HAS(msg, "status 3", "oops");
	json_decref(res);
	free(out);
}

static void test_dead_board_exits_3_others_intact(void **state)
{
	char *out;
	int code = run_scenario("deadboard", "boards: [b1, dead]\ntests:\n"
				"  - name: one\n    run: echo one\n  - name: two\n    run: echo two\n",
				NULL, &out);
	assert_int_equal(code, 3);
	json_t *res = load_json("deadboard", "results.json");
	assert_non_null(res);
	assert_string_equal(status_of(res, "b1", "one"), "pass");
	assert_string_equal(status_of(res, "b1", "two"), "pass");
	assert_string_equal(status_of(res, "dead", "one"), "error");
	assert_string_equal(status_of(res, "dead", "two"), "error");
	const char *msg = json_string_value(json_object_get(ts_json_result(res, "dead", "one"), "message"));
	TS_ASSERT_HAS(msg, "dead");
	assert_non_null(strstr(msg, LAB_BASE ".99"));
	json_decref(res);
	free(out);
}

/* a failing test on a board beside a dead one: the rack is broken, 3, so
 * CI sends it to the lab whatever the tests did */
static void test_error_wins_over_failure(void **state)
{
	char *out;
	int code = run_scenario("mixed", "boards: [b1, dead]\ntests:\n"
				"  - name: t\n    run: exit 1\n", NULL, &out);
	assert_int_equal(code, 3);
	free(out);
}

static void test_invalid_yaml_exits_2_with_position(void **state)
{
	char *out;
	int code = run_scenario("invalid", "boards: [b1]\ntests:\n"
				"  - name: t\n    run: 'true'\n    timeout: 5 minutes\n"
				"  - name: u\n    rnu: 'true'\n", NULL, &out);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "invalid.yaml:7:", "5 minutes", "invalid.yaml:9:", "rnu");
	char *runs = xasprintf("%s/runs/invalid", E.dir);
	assert_false(ts_file_exists(runs));     /* nothing was run */
	TS_FREE(runs, out);
}

static void test_timeout_kills_remote_process(void **state)
{
	char *out;
	/* the loopback boards are processes on this machine: their commands too */
	int code = run_scenario("timeout", "boards: [b1, drop1]\ntests:\n"
				"  - name: slow\n    run: sleep 4711\n    timeout: 2s\n", NULL, &out);
	assert_int_equal(code, 1);
	json_t *res = load_json("timeout", "results.json");
	assert_string_equal(status_of(res, "b1", "slow"), "fail");
	assert_string_equal(status_of(res, "drop1", "slow"), "fail");
	const char *msg = json_string_value(json_object_get(ts_json_result(res, "b1", "slow"), "message"));
	TS_ASSERT_HAS(msg, "timed out");
	json_decref(res);
	/* the bracket keeps pgrep from matching the shell that runs it */
	assert_int_equal(ts_run_until(1000, 1, "pgrep -f 'sleep 471[1]'"), 1);
	free(out);
}

static void test_metrics_and_expectations(void **state)
{
	char *out;
	int code = run_scenario("metrics", "boards: [b1]\ntests:\n"
				"  - name: speed\n    run: \"echo 'speed: 42.5 MiB/s'\"\n    repeat: 3\n"
				"    metrics: [{ name: speed, regex: 'speed:\\s*([0-9.]+)', unit: MiB/s }]\n"
				"    expect: { speed: { min: 40MiB/s } }\n"
				"  - name: tooslow\n    run: \"echo 'speed: 42.5'\"\n"
				"    metrics: [{ name: speed, regex: 'speed: ([0-9.]+)', unit: MiB/s }]\n"
				"    expect: { speed: { min: 50MiB/s } }\n"
				"  - name: nometric\n    run: echo nothing here\n"
				"    metrics: [{ name: speed, regex: 'speed: ([0-9.]+)', optional: true }]\n"
				"  - name: needed\n    run: \"echo 'speed: +++++'\"\n"
				"    metrics: [{ name: speed, regex: 'speed: (\\S+)' }]\n"
				"    expect: { speed: { min: 1 } }\n", NULL, &out);
	assert_int_equal(code, 1);
	json_t *res = load_json("metrics", "results.json");
	assert_string_equal(status_of(res, "b1", "speed"), "pass");
	json_t *m = json_object_get(json_object_get(ts_json_result(res, "b1", "speed"), "metrics"), "speed");
	assert_non_null(m);
	assert_true(json_real_value(json_object_get(m, "value")) == 42.5);
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 3);
	assert_string_equal(status_of(res, "b1", "tooslow"), "fail");
	const char *msg = json_string_value(json_object_get(ts_json_result(res, "b1", "tooslow"), "message"));
	TS_ASSERT_HAS(msg, "at least 50");
	/* an optional metric the output did not give is recorded, and fails a
	 * test only when an expectation needs it */
	assert_string_equal(status_of(res, "b1", "nometric"), "pass");
	json_t *miss = json_object_get(ts_json_result(res, "b1", "nometric"), "missing_metrics");
	assert_int_equal(json_array_size(miss), 1);
	assert_string_equal(ts_json_str(json_array_get(miss, 0), "name"), "speed");
	assert_string_equal(status_of(res, "b1", "needed"), "fail");
	msg = json_string_value(json_object_get(ts_json_result(res, "b1", "needed"), "message"));
	TS_ASSERT_HAS(msg, "'speed' is missing from the output");
	json_decref(res);
	free(out);
}

static void test_no_secret_in_run_folder(void **state)
{
	char *out;
	run_scenario("secret", "boards: [b3]\ntests:\n  - name: t\n    run: 'true'\n", NULL, &out);
	free(out);
	char *grep;
	int found = ts_run(&grep, "grep -r 's3cr3t-Pa55-VALUE' '%s/runs/secret'", E.dir);
	assert_int_not_equal(found, 0);
	free(grep);
	json_t *run = load_json("secret", "run.json");
	assert_non_null(run);
	json_decref(run);
}

static void test_limit_and_dry_run(void **state)
{
	char *out;
	int code = run_scenario("dry", "boards: [all]\ntests:\n  - name: t\n    run: 'true'\n",
				"--dry-run -l tag:x86 -l '!b2'", &out);
	assert_int_equal(code, 0);
	TS_ASSERT_HAS(out, "b1");
	TS_ASSERT_LACKS(out, "b2", "drop1");
	char *runs = xasprintf("%s/runs/dry", E.dir);
	assert_false(ts_file_exists(runs));
	TS_FREE(runs, out);
}

static void test_interrupt_exits_130_keeps_results(void **state)
{
	char *path = ts_write_file(E.dir, "intr.yaml",
				   "name: intr\ninventory: rack.yaml\nboards: [b1]\ntests:\n"
				   "  - name: quick\n    run: 'true'\n"
				   "  - name: long\n    run: sleep 4712\n"
				   "  - name: never\n    run: 'true'\n");
	char *out;
	int code = ts_run(&out, "cd '%s' && timeout --preserve-status -s INT 4 %s run %s -q -o runs",
			  E.dir, ORCH_BIN, path);
	assert_int_equal(code, 130);
	json_t *res = load_json("intr", "results.json");
	assert_non_null(res);
	assert_string_equal(status_of(res, "b1", "quick"), "pass");
	assert_string_equal(status_of(res, "b1", "never"), "skip");
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	json_decref(res);
	assert_int_equal(ts_run_until(1000, 1, "pgrep -f 'sleep 471[2]'"), 1);
	TS_FREE(out, path);
}

/* Peak RSS in KiB of orch running scenario file path, or -1. ASan's
 * quarantine would otherwise keep freed buffers and hide the real figure. */
static long orch_peak_rss(const char *path)
{
	char *out;
	int code = ts_run(&out, "cd '%s' && ASAN_OPTIONS=\"$ASAN_OPTIONS:quarantine_size_mb=1\" "
			  "/usr/bin/time -f 'maxrss=%%M' %s run %s -q -o runs", E.dir, ORCH_BIN, path);
	const char *rss = strstr(out, "maxrss=");
	long kib = code == 0 && rss ? strtol(rss + 7, NULL, 10) : -1;
	free(out);
	return kib;
}

/* 50 MB of output go to stdout.log as they arrive: orch's peak memory is
 * about the same as for 1 MB. */
static void test_large_output_streams_with_flat_memory(void **state)
{
	char *small = ts_write_file(E.dir, "small.yaml",
				    "name: small\ninventory: rack.yaml\nboards: [b1, drop1]\ntests:\n"
				    "  - name: flood\n    run: head -c 1000000 /dev/zero | tr '\\0' x\n");
	char *big = ts_write_file(E.dir, "big.yaml",
				  "name: big\ninventory: rack.yaml\nboards: [b1, drop1]\ntests:\n"
				  "  - name: flood\n    run: head -c 50000000 /dev/zero | tr '\\0' x\n");
	long small_kib = orch_peak_rss(small);
	long big_kib = orch_peak_rss(big);
	assert_true(small_kib > 0);
	assert_true(big_kib > 0);
	if (big_kib - small_kib >= 16 * 1024)
		fail_msg("peak RSS %ld KiB for 2 x 50 MB of output vs %ld KiB for 2 x 1 MB",
			 big_kib, small_kib);
	for (const char *const *b = (const char *const[]){ "b1", "drop1", NULL }; *b; b++) {
		char *log = xasprintf("%s/runs/big/latest/%s/flood/stdout.log", E.dir, *b);
		struct stat st;
		assert_int_equal(stat(log, &st), 0);
		assert_int_equal(st.st_size, 50000000);
		free(log);
	}
	TS_FREE(small, big);
}

static void test_boards_check(void **state)
{
	char *out;
	int code = ts_run(&out, "%s boards -i %s --check -l '!b3'", ORCH_BIN, E.inventory);
	assert_int_equal(code, 3);   /* dead is unreachable */
	/* not a terminal: tab-separated, one line per board */
	TS_ASSERT_HAS(out, "b1\tx86_64\t", "ssh: ok", "connection refused");
	TS_ASSERT_LACKS(out, "b3\t");
	free(out);

	code = ts_run(&out, "%s boards -i %s --check -l b1 -l drop1 --format json", ORCH_BIN,
		      E.inventory);
	assert_int_equal(code, 0);
	json_error_t jerr;
	json_t *arr = json_loads(out, 0, &jerr);
	assert_non_null(arr);
	assert_int_equal(json_array_size(arr), 2);
	json_t *b;
	size_t i;
	json_array_foreach(arr, i, b) {
		assert_string_equal(json_string_value(json_object_get(b, "ssh_check")), "ok");
	}
	json_decref(arr);
	free(out);
}

/* The board x test pairs and statuses of a run folder, one per line, sorted. */
static char *result_set(const char *run_dir)
{
	char *out;
	json_t *res = ts_json_load_in(run_dir, "results.json");
	assert_non_null(res);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(res, "results"), i, r) {
		strbuf_printf(&sb, "%s %s %s\n", json_string_value(json_object_get(r, "board")),
			      json_string_value(json_object_get(r, "test")),
			      json_string_value(json_object_get(r, "status")));
	}
	char *list = ts_write_file(E.dir, "set.txt", strbuf_str(&sb));
	ts_run(&out, "sort %s", list);
	strbuf_release(&sb);
	json_decref(res);
	free(list);
	return out;
}

static void test_shards_merge_to_the_whole_run(void **state)
{
	const char *body = "boards: [all, '!b3']\ntests:\n"
			   "  - name: t\n    run: 'true'\n  - name: u\n    run: exit 1\n";
	char *out;
	/* the dead board's errors make the whole run 3; its shard is 3, the
	 * other 1 (u fails) */
	assert_int_equal(run_scenario("whole", body, NULL, &out), 3);
	free(out);
	int one_code = run_scenario("sharded", body, "--shard 1/2 -o shard1", &out);
	free(out);
	int two_code = run_scenario("sharded", body, "--shard 2/2 -o shard2", &out);
	free(out);
	assert_true((one_code == 1 && two_code == 3) || (one_code == 3 && two_code == 1));
	int code = ts_run(&out, "cd '%s' && %s merge merged shard1/sharded/latest shard2/sharded/latest",
			  E.dir, ORCH_BIN);
	assert_int_equal(code, 3);     /* the merged run's exit code */
	free(out);
	char *whole_dir = xasprintf("%s/runs/whole/latest", E.dir);
	char *merged_dir = xasprintf("%s/merged", E.dir);
	char *whole = result_set(whole_dir), *merged = result_set(merged_dir);
	assert_string_equal(whole, merged);
	TS_ASSERT_HAS(whole, "drop1 u fail");
	/* each shard had some boards, none had all */
	char *one_dir = xasprintf("%s/shard1/sharded/latest", E.dir);
	char *one = result_set(one_dir);
	assert_true(strlen(one) > 0 && strlen(one) < strlen(whole));
	TS_FREE(one, one_dir, whole, merged, whole_dir, merged_dir);
}

static void test_baseline_regression_fails_run(void **state)
{
	const char *fast = "boards: [b1]\ntests:\n  - name: rate\n    run: \"echo 'rate: 100'\"\n"
			   "    repeat: 3\n"
			   "    metrics: [{ name: rate, regex: 'rate: ([0-9]+)', unit: MiB/s }]\n";
	const char *slow = "boards: [b1]\ntests:\n  - name: rate\n    run: \"echo 'rate: 80'\"\n"
			   "    repeat: 3\n"
			   "    metrics: [{ name: rate, regex: 'rate: ([0-9]+)', unit: MiB/s }]\n";
	char *out;
	assert_int_equal(run_scenario("baseline", fast, NULL, &out), 0);
	free(out);
	/* one sample a side: said, not judged, unless asked */
	assert_int_equal(run_scenario("baseline", slow, "--baseline latest --repeat 1", &out), 0);
	TS_ASSERT_HAS(out, "not judged");
	free(out);
	assert_int_equal(run_scenario("baseline", fast, "--repeat 1", &out), 0);
	free(out);
	assert_int_equal(run_scenario("baseline", slow, "--baseline latest --repeat 1 --judge-single",
				      &out), 1);
	free(out);
	assert_int_equal(run_scenario("baseline", fast, NULL, &out), 0);
	free(out);
	assert_int_equal(run_scenario("baseline", slow, "--baseline latest", &out), 1);
	TS_ASSERT_HAS(out, "20.0% slower");
	free(out);
	json_t *res = load_json("baseline", "results.json");
	json_t *r = ts_json_result(res, "b1", "rate");
	assert_true(json_is_true(json_object_get(r, "regressed")));
	json_decref(res);
	/* within the threshold: passes */
	assert_int_equal(run_scenario("baseline", slow, "--baseline latest --threshold 5", &out), 0);
	free(out);
}

/* bench: tests push remote-bench with nothing but sh and cat on the board
 * (dropbear1 has no sftp-server), and skip the push when the board already
 * has the same binary. */
static void test_bench_push_once_and_run(void **state)
{
	const char *body = "boards: [b1, drop1, b3]\ntests:\n"
			   "  - name: crypto\n    bench: crypto\n    args: [--time, '0.05']\n";
	char *bench_dir = xasprintf("--bench-dir %s/remote-bench/bin -l '!b3'", ORCH_BINARY_DIR);
	char *out;
	assert_int_equal(run_scenario("bench", body, bench_dir, &out), 0);
	free(out);
	json_t *res = load_json("bench", "results.json");
	for (const char *const *b = (const char *const[]){ "b1", "drop1", NULL }; *b; b++) {
		json_t *metrics = json_object_get(ts_json_result(res, *b, "crypto"), "metrics");
		assert_non_null(json_object_get(metrics, "crypto.chacha20poly1305_1500"));
		/* the program's note on what ran is kept in results.json */
		const char *impl = ts_json_str(ts_json_result(res, *b, "crypto"), "implementation");
		assert_non_null(impl);
		TS_ASSERT_HAS(impl, "portable C", "built by ");
		/* first time: pushed, recorded apart from the board's figures */
		assert_null(json_object_get(metrics, "ssh.push"));
		json_t *push = json_array_get(json_object_get(ts_json_result(res, *b, "crypto"),
							       "pushes"), 0);
		assert_string_equal(json_string_value(json_object_get(push, "file")),
				    "remote-bench-crypto");
		assert_true(json_integer_value(json_object_get(push, "bytes")) > 1000);
		assert_true(json_real_value(json_object_get(push, "seconds")) > 0);
		char *log = xasprintf("%s/runs/bench/latest/%s/crypto/push.log", E.dir, *b);
		char *text = ts_read_file(log);
		assert_non_null(text);
		TS_ASSERT_HAS(text, "{\"push\":\"remote-bench-crypto\"", "\"bytes\":");
		TS_FREE(text, log);
	}
	json_decref(res);
	/* and shown in the reports */
	for (const char *const *f = (const char *const[]){ "summary.txt", "report.html", NULL }; *f;
	     f++) {
		char *path = xasprintf("%s/runs/bench/latest/%s", E.dir, *f);
		char *text = ts_read_file(path);
		assert_non_null(text);
		if (!strstr(text, "implementation: ") || !strstr(text, "portable C"))
			fail_msg("%s names no implementation", *f);
		TS_FREE(text, path);
	}
	char *remote = xasprintf("%s/bin/remote-bench-crypto", E.workdir);
	assert_true(ts_file_exists(remote));

	assert_int_equal(run_scenario("bench", body, bench_dir, &out), 0);
	free(out);
	res = load_json("bench", "results.json");
	json_t *metrics = json_object_get(ts_json_result(res, "drop1", "crypto"), "metrics");
	assert_non_null(json_object_get(metrics, "crypto.chacha20poly1305_1500"));
	/* same binary: not pushed again */
	assert_null(json_object_get(ts_json_result(res, "drop1", "crypto"), "pushes"));
	json_decref(res);

	/* a board whose binary differs gets it again */
	ts_run(NULL, "echo garbage > %s", remote);
	assert_int_equal(run_scenario("bench", body, bench_dir, &out), 0);
	free(out);
	res = load_json("bench", "results.json");
	assert_non_null(json_object_get(ts_json_result(res, "b1", "crypto"), "pushes"));
	json_decref(res);
	TS_FREE(remote, bench_dir);
}

static void test_bench_missing_binary_is_an_error(void **state)
{
	char *out;
	int code = run_scenario("nobench", "boards: [b1]\ntests:\n  - name: x\n    bench: cpu\n",
				"--bench-dir /nonexistent", &out);
	assert_int_equal(code, 3);
	json_t *res = load_json("nobench", "results.json");
	const char *msg = json_string_value(json_object_get(ts_json_result(res, "b1", "x"), "message"));
	TS_ASSERT_HAS(msg, "/nonexistent/x86_64/remote-bench-cpu");
	json_decref(res);
	free(out);
}

/* The remote-bench net pair as a multi-host test: the server in the
 * background on b1, each client in turn; metrics on the client's result. */
static void test_multi_host_bench_net_pair(void **state)
{
	char *bench_dir = xasprintf("--bench-dir %s/remote-bench/bin", ORCH_BINARY_DIR);
	char *out;
	int code = run_scenario("netpair", "boards: [b2, drop1]\ntests:\n"
				"  - name: net\n    roles: { server: b1, client: each }\n    steps:\n"
				"      - { on: server, bench: net, background: true, ready: listening,\n"
				"          args: [--server, --bind, '{server.host}', --port, '5311'] }\n"
				"      - { on: client, bench: net,\n"
				"          args: [--client, '{server.host}', --port, '5311', --time, '0.3'] }\n",
				bench_dir, &out);
	if (code != 0)
		fail_msg("orch exited %d: %s", code, out);
	free(out);
	json_t *res = load_json("netpair", "results.json");
	for (const char *const *b = (const char *const[]){ "b2", "drop1", NULL }; *b; b++) {
		json_t *r = ts_json_result(res, *b, "net");
		json_t *m = json_object_get(json_object_get(r, "metrics"), "net.tcp_stream");
		assert_non_null(m);
		assert_true(json_number_value(json_object_get(m, "value")) > 0);
	}
	assert_null(ts_json_result(res, "b1", "net"));   /* the server has no result of its own */
	json_decref(res);
	free(bench_dir);
}

struct span {
	const char *what;
	int64_t start, end;
};

static struct span span_of(json_t *res, const char *board, const char *test)
{
	json_t *r = ts_json_result_or_fail(res, board, test);
	struct span sp = { test, 0, 0 };
	assert_int_equal(result_time_parse(ts_json_str(r, "start"), &sp.start), 0);
	assert_int_equal(result_time_parse(ts_json_str(r, "end"), &sp.end), 0);
	assert_true(sp.end > sp.start);
	return sp;
}

/* A server board serves one client at a time, and runs its own tests only
 * while no client uses it (checked from the recorded start and end times). */
static void test_server_board_is_never_shared(void **state)
{
	char *out;
	int code = run_scenario("shared", "boards: [b1, b2, drop1]\ntests:\n"
				"  - name: pair\n    roles: { server: b1, client: each }\n    steps:\n"
				"      - { on: server, run: 'echo up; sleep 30', background: true, ready: up }\n"
				"      - { on: client, run: 'sleep 0.5' }\n"
				"  - name: own\n    run: 'sleep 0.5'\n", NULL, &out);
	if (code != 0)
		fail_msg("orch exited %d: %s", code, out);
	free(out);
	json_t *res = load_json("shared", "results.json");
	struct span spans[] = {
		span_of(res, "b2", "pair"), span_of(res, "drop1", "pair"), span_of(res, "b1", "own"),
	};
	for (size_t i = 0; i < 3; i++)
		for (size_t j = i + 1; j < 3; j++)
			if (spans[i].start < spans[j].end && spans[j].start < spans[i].end)
				fail_msg("%s (%zu) and %s (%zu) overlap on the server board",
					 spans[i].what, i, spans[j].what, j);
	assert_null(ts_json_result(res, "b1", "pair"));
	json_decref(res);
}

/* parse: iperf3-json on a run: test, repeated: one sample per run; and
 * iperf3's own error ("unable to connect") as the test's failure. */
static void test_run_parse_iperf3(void **state)
{
	pid_t server = ts_spawn("exec iperf3 -s -B 127.0.0.1 -p 5321", NULL);
	assert_int_equal(ts_run(NULL, "for i in $(seq 100); do ss -ltn | grep -q '127.0.0.1:5321 ' "
				"&& exit 0; sleep 0.05; done; exit 1"), 0);
	char *out;
	int code = run_scenario("iperf", "boards: [b1]\ntests:\n"
				"  - name: tcp\n    repeat: 2\n    parse: iperf3-json\n"
				"    run: iperf3 -c 127.0.0.1 -p 5321 -t 1 -J --connect-timeout 3000\n"
				"  - name: refused\n    parse: iperf3-json\n"
				"    run: iperf3 -c 127.0.0.1 -p 5322 -t 1 -J\n", NULL, &out);
	ts_stop(&server);
	assert_int_equal(code, 1);
	free(out);
	json_t *res = load_json("iperf", "results.json");
	json_t *m = json_object_get(json_object_get(ts_json_result_or_fail(res, "b1", "tcp"),
						    "metrics"), "iperf3.receiver_bps");
	assert_non_null(m);
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 2);
	assert_true(json_number_value(json_object_get(m, "value")) > 0);
	assert_string_equal(status_of(res, "b1", "refused"), "fail");
	const char *msg = ts_json_str(ts_json_result_or_fail(res, "b1", "refused"), "message");
	TS_ASSERT_HAS(msg, "unable to connect");
	json_decref(res);
}

/* A second Ctrl-C hurries (kills without a grace) but still writes the
 * results; what finished before is on disk and valid (test_faults covers
 * the reports and the third Ctrl-C). */
static void test_second_interrupt_hurries(void **state)
{
	char *path = ts_write_file(E.dir, "intr2.yaml",
				   "name: intr2\ninventory: rack.yaml\nboards: [b1]\ntests:\n"
				   "  - name: quick\n    run: 'true'\n"
				   "  - name: stubborn\n    run: trap '' TERM; sleep 4714\n");
	char *out;
	int code = ts_run(&out, "cd '%s' && { %s run %s -q -o runs & pid=$!; sleep 3; "
			  "kill -INT $pid; sleep 0.6; kill -INT $pid; wait $pid; }",
			  E.dir, ORCH_BIN, path);
	assert_int_equal(code, 130);
	TS_ASSERT_HAS(out, "Ctrl-C again to stop faster", "interrupted twice");
	char *dir;
	assert_int_equal(ts_run(&dir, "ls -d %s/runs/intr2/2*", E.dir), 0);
	dir[strcspn(dir, "\n")] = '\0';
	json_t *res = ts_json_load_in(dir, "results.json");
	free(dir);
	assert_non_null(res);
	assert_string_equal(status_of(res, "b1", "quick"), "pass");
	assert_true(json_is_true(json_object_get(res, "interrupted")));
	assert_string_equal(status_of(res, "b1", "stubborn"), "error");
	json_decref(res);
	assert_int_equal(ts_run(NULL, "pgrep -f 'sleep 471[4]'"), 1);   /* killed all the same */
	TS_FREE(out, path);
}

/* One event delivered twice (timeout(1) signals the command and its group;
 * so do CI runners) is still one Ctrl-C: orch stops cleanly. */
static void test_doubled_signal_still_stops_cleanly(void **state)
{
	char *path = ts_write_file(E.dir, "intr3.yaml",
				   "name: intr3\ninventory: rack.yaml\nboards: [b1]\ntests:\n"
				   "  - name: long\n    run: sleep 4715\n");
	char *out;
	int code = ts_run(&out, "cd '%s' && { %s run %s -q -o runs & pid=$!; sleep 3; "
			  "kill -INT $pid; kill -INT $pid; wait $pid; }", E.dir, ORCH_BIN, path);
	assert_int_equal(code, 130);
	TS_ASSERT_LACKS(out, "quitting now");
	json_t *res = load_json("intr3", "results.json");   /* via latest: a finished run */
	assert_non_null(res);
	json_decref(res);
	assert_int_equal(ts_run_until(1000, 1, "pgrep -f 'sleep 471[5]'"), 1);
	TS_FREE(out, path);
}

TS_MAIN(setup, teardown, test_pass_writes_run_folder, test_failing_command_exits_1,
	test_dead_board_exits_3_others_intact, test_error_wins_over_failure,
	test_invalid_yaml_exits_2_with_position, test_timeout_kills_remote_process,
	test_metrics_and_expectations, test_no_secret_in_run_folder, test_limit_and_dry_run,
	test_interrupt_exits_130_keeps_results, test_large_output_streams_with_flat_memory,
	test_boards_check, test_shards_merge_to_the_whole_run, test_baseline_regression_fails_run,
	test_bench_push_once_and_run, test_bench_missing_binary_is_an_error,
	test_multi_host_bench_net_pair, test_server_board_is_never_shared, test_run_parse_iperf3,
	test_second_interrupt_hurries, test_doubled_signal_still_stops_cleanly)
