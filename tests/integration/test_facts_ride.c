/*
 * A board's facts ride on its first test command (fan-out): on
 * a loopback lab of OpenSSH boards, orch run opens one exec channel per
 * test and no channel of its own for the facts, the facts are recorded all
 * the same, and the test's logs, exit status and shell variables are
 * exactly what they would be without them. Scenario facts (the user's
 * commands) and a first command that does not parse still give facts.
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define LAB_BASE "127.0.172"
#define BOARDS 2

struct ride {
	struct lab *lab;
	char *dir;            /* scratch: inventory, scenarios, runs */
};

static struct ride R;

/* R.dir/NAME: the lab's two boards and a local one, the ssh defaults
 * with EXTRA (more keys of that map) appended. */
static void write_rack(const char *name, const char *extra)
{
	char *inv = xasprintf(
		"defaults:\n"
		"  ssh: { user: %s, identity: %s, known_hosts: %s, port: %d, connect_timeout: 5s%s }\n"
		"boards:\n"
		"  b1: { ssh: { host: " LAB_BASE ".1 } }\n"
		"  b2: { ssh: { host: " LAB_BASE ".2 } }\n"
		"  here: { local: true }\n",
		R.lab->user, R.lab->identity, R.lab->known_hosts, LAB_PORT, extra);
	free(ts_write_file(R.dir, name, inv));
	free(inv);
}

static int setup(void **state)
{
	setenv("SSHD_LAB_LOGLEVEL", "VERBOSE", 1);   /* a line per session opened */
	if (lab_group_up(&R.lab, LAB_BASE, BOARDS, 0, false) < 0)
		return -1;
	R.dir = ts_mkdtemp("facts-ride");
	write_rack("rack.yaml", "");
	/* every command a channel of its own: channels count commands */
	write_rack("channels.yaml", ", runner: false");
	return 0;
}

static int teardown(void **state)
{
	lab_down(R.lab);
	return ts_rmrf_free(&R.dir);
}

static int run_scenario_on(const char *inventory, const char *name, const char *body)
{
	char *text = xasprintf("name: %s\ninventory: %s\n%s", name, inventory, body);
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(R.dir, file, text);
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && %s run %s -q -o runs", R.dir, ORCH_BIN, path);
	if (code != 0 && code != 1)
		fprintf(stderr, "%s", out ? out : "");
	TS_FREE(out, text, file, path);
	return code;
}

static int run_scenario(const char *name, const char *body)
{
	return run_scenario_on("rack.yaml", name, body);
}

static char *run_file(const char *name, const char *rel)
{
	char *path = xasprintf("%s/runs/%s/latest/%s", R.dir, name, rel);
	char *text = ts_read_file(path);
	free(path);
	return text;
}

static const char *fact(json_t *res, const char *board, const char *name)
{
	json_t *f = json_object_get(json_object_get(json_object_get(res, "boards"), board), "facts");
	return json_string_value(json_object_get(f, name));
}

static void assert_builtin_facts(json_t *res, const char *board)
{
	assert_non_null(fact(res, board, "kernel"));
	assert_non_null(fact(res, board, "arch"));
	assert_non_null(fact(res, board, "cores"));
	assert_non_null(strstr(fact(res, board, "memory"), " MiB"));
	assert_non_null(fact(res, board, "libc"));
}

/* Two tests on each board: two exec channels, not three (with `runner:
 * false`; with the command runner, one channel for all); facts recorded;
 * the first test's stdout, stderr, exit status and variables untouched. */
static void check_ride(const char *inventory, int channels)
{
	int before[BOARDS + 1];
	for (int i = 1; i <= BOARDS; i++)
		before[i] = lab_sessions_started(R.lab, i);
	int code = run_scenario_on(inventory, "ride", "boards: [all]\ntests:\n"
				"  - { name: first, run: 'echo \"one [${v-unset}${c-}${m-}${u-}]\"; "
				"echo two >&2; exit 0' }\n"
				"  - { name: second, run: 'echo again' }\n");
	assert_int_equal(code, 0);
	for (int i = 1; i <= BOARDS; i++)
		assert_int_equal(lab_sessions_started(R.lab, i) - before[i], channels);
	json_t *res = ts_json_load_in(R.dir, "runs/ride/latest/results.json");
	assert_non_null(res);
	for (const char *const *b = (const char *const[]){ "b1", "b2", "here", NULL }; *b; b++) {
		assert_builtin_facts(res, *b);
		char *rel = xasprintf("%s/first/stdout.log", *b);
		char *text = run_file("ride", rel);
		assert_non_null(text);
		assert_string_equal(text, "one [unset]\n");
		TS_FREE(text, rel);
		rel = xasprintf("%s/first/stderr.log", *b);
		text = run_file("ride", rel);
		assert_string_equal(text, "two\n");
		TS_FREE(text, rel);
	}
	json_decref(res);
}

static void test_one_channel_per_test(void **state)
{
	check_ride("channels.yaml", 2);
	check_ride("rack.yaml", 1);
}

/* The first command's exit status is its own; a command that does not
 * parse still fails as before, and the facts are there. */
static void test_exit_status_and_syntax_error(void **state)
{
	int code = run_scenario("status", "boards: [b1, b2]\ntests:\n"
				"  - { name: three, run: 'echo out; exit 3' }\n");
	assert_int_equal(code, 1);
	json_t *res = ts_json_load_in(R.dir, "runs/status/latest/results.json");
	json_t *r = ts_json_result_or_fail(res, "b1", "three");
	assert_int_equal(json_integer_value(json_object_get(r, "exit_code")), 3);
	assert_builtin_facts(res, "b1");
	json_decref(res);
	char *text = run_file("status", "b2/three/stdout.log");
	assert_string_equal(text, "out\n");
	free(text);

	code = run_scenario("syntax", "boards: [b1]\ntests:\n"
			    "  - { name: broken, run: 'echo ( oops' }\n");
	assert_int_equal(code, 1);
	res = ts_json_load_in(R.dir, "runs/syntax/latest/results.json");
	r = ts_json_result_or_fail(res, "b1", "broken");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "fail");
	assert_builtin_facts(res, "b1");
	json_decref(res);
}

/* Scenario facts are the user's commands: they keep a command of their
 * own (bounded by the facts timeout, not the test's), built-ins included. */
static void test_scenario_facts_keep_their_command(void **state)
{
	int before = lab_sessions_started(R.lab, 1);
	int code = run_scenario_on("channels.yaml", "custom", "boards: [b1]\nfacts: { greeting: 'echo hello' }\n"
				"tests:\n  - { name: t, run: 'echo t' }\n");
	assert_int_equal(code, 0);
	assert_int_equal(lab_sessions_started(R.lab, 1) - before, 2);
	json_t *res = ts_json_load_in(R.dir, "runs/custom/latest/results.json");
	assert_string_equal(fact(res, "b1", "greeting"), "hello");
	assert_builtin_facts(res, "b1");
	json_decref(res);
	char *text = run_file("custom", "b1/t/stdout.log");
	assert_string_equal(text, "t\n");
	free(text);
}

TS_MAIN(setup, teardown, test_one_channel_per_test, test_exit_status_and_syntax_error,
	test_scenario_facts_keep_their_command)
