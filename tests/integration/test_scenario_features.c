/*
 * Scenarios people grow, through `orch run` and `orch validate` on local
 * boards (no lab needed): anchors and includes end to end, vars at three
 * levels with their precedence, {board.X} from the inventory, env: and
 * {env.X}, hostile values that must arrive as data, a bonnie++-style
 * missing value, and broken scenarios refused before the run.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp("scenario-features");
	/* board locks of our own: other tests' boards have the same names */
	char *locks = xasprintf("%s/locks", tmp);
	setenv("ORCH_LOCK_DIR", locks, 1);
	free(locks);
	free(ts_write_file(tmp, "inventory.yaml",
			   "defaults: { vars: { site: lab, level: defaults } }\n"
			   "boards:\n"
			   "  l1: { local: true, tags: [embedded], vars: { level: board, only_board: b1 } }\n"
			   "  l2: { local: true, tags: [embedded], vars: { only_board: b2 } }\n"));
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static char *log_of(const char *scenario, const char *board, const char *test)
{
	char *path = xasprintf("%s/%s/latest/%s/%s/stdout.log", tmp, scenario, board, test);
	char *text = ts_read_file(path);
	if (!text)
		fail_msg("no %s", path);
	free(path);
	return text;
}

static int orch(char **out, const char *cmd, const char *file)
{
	bool run = strcmp(cmd, "run") == 0;
	return ts_run(out, "cd '%s' && ORCH_TEST_HELLO='hello there' %s %s %s %s%s 2>&1", tmp,
		      ORCH_BIN, cmd, file, run ? "-o " : "", run ? tmp : "");
}

static void test_vars_levels_env_and_includes(void **state)
{
	char *evil_marker = xasprintf("%s/pwned", tmp);
	free(ts_write_file(tmp, "more.yaml",
			   "- name: included\n"
			   "  run: echo included {vars.sc_only}\n"));
	char *sc = xasprintf(
		"name: vars\n"
		"inventory: inventory.yaml\n"
		"boards: [tag:embedded]\n"
		"x-common: &common { timeout: 30s, repeat: 1 }\n"
		"vars:\n"
		"  level: scenario\n"
		"  sc_only: s\n"
		"  evil: \"a'b; touch %s $(touch %s) `touch %s` \\\"q\\\" ${HOME}\"\n"
		"tests:\n"
		"  - <<: *common\n"
		"    name: levels\n"
		"    vars: { level: test }\n"
		"    run: \"echo level={vars.level} board={board.only_board} sc={vars.sc_only} "
		"site={vars.site} name={board.name}\"\n"
		"  - { <<: *common, name: boardlevel, run: 'echo level={vars.level}' }\n"
		"  - name: env\n"
		"    env: { GREETING: 'hi {vars.sc_only}', RAW: 'x y' }\n"
		"    run: 'echo \"g=$GREETING r=$RAW h={env.ORCH_TEST_HELLO}\"'\n"
		"  - name: evil\n"
		"    run: \"printf '[%%s]\\\\n' {vars.evil}; echo \\\"<{vars.evil}>\\\"\"\n"
		"  - include: more.yaml\n",
		evil_marker, evil_marker, evil_marker);
	char *file = ts_write_file(tmp, "vars.yaml", sc);
	char *out = NULL;
	int rc = orch(&out, "run", file);
	if (rc != 0)
		fail_msg("orch run exited %d:\n%s", rc, out);
	free(out);

	char *t = log_of("vars", "l1", "levels");
	assert_string_equal(t, "level=test board=b1 sc=s site=lab name=l1\n");
	free(t);
	t = log_of("vars", "l2", "levels");
	assert_string_equal(t, "level=test board=b2 sc=s site=lab name=l2\n");
	free(t);
	/* test > board (inventory, its defaults included) > scenario */
	t = log_of("vars", "l1", "boardlevel");
	assert_string_equal(t, "level=board\n");
	free(t);
	t = log_of("vars", "l2", "boardlevel");
	assert_string_equal(t, "level=defaults\n");
	free(t);
	t = log_of("vars", "l1", "env");
	assert_string_equal(t, "g=hi s r=x y h=hello there\n");
	free(t);
	t = log_of("vars", "l1", "evil");
	char *want = xasprintf("[a'b; touch %s $(touch %s) `touch %s` \"q\" ${HOME}]\n"
			       "<a'b; touch %s $(touch %s) `touch %s` \"q\" ${HOME}>\n",
			       evil_marker, evil_marker, evil_marker, evil_marker, evil_marker,
			       evil_marker);
	assert_string_equal(t, want);
	TS_FREE(want, t);
	assert_false(ts_file_exists(evil_marker));
	t = log_of("vars", "l2", "included");
	assert_string_equal(t, "included s\n");
	TS_FREE(t, file, sc, evil_marker);
}

/* bonnie++ prints +++++ where a figure was too fast to measure: recorded as
 * missing, the test passes unless an expectation needs it. */
static void test_missing_bonnie_value(void **state)
{
	char *file = ts_write_file(tmp, "bonnie.yaml",
		"name: bonnie\ninventory: inventory.yaml\nboards: [l1]\n"
		"x-bonnie: &bonnie\n"
		"  run: \"echo '1.98,1.98,l1,1,1700000000,2G,,8192,5,81234,99,+++++,+++,50000,60'\"\n"
		"  metrics:\n"
		"    - { name: seq_out, regex: '^(?:[^,]*,){9}([^,]+),', unit: KiB/s }\n"
		"    - { name: seq_rewrite, regex: '^(?:[^,]*,){11}([^,]+),', unit: KiB/s }\n"
		"tests:\n"
		"  - { <<: *bonnie, name: loose, expect: { seq_out: { min: 1 MiB/s } } }\n"
		"  - { <<: *bonnie, name: strict, expect: { seq_rewrite: { min: 1 MiB/s } } }\n");
	char *out = NULL;
	int rc = orch(&out, "run", file);
	assert_int_equal(rc, 1);
	free(out);
	char *dir = xasprintf("%s/bonnie/latest", tmp);
	json_t *res = ts_json_load_in(dir, "results.json");
	json_t *loose = ts_json_result_or_fail(res, "l1", "loose");
	assert_string_equal(ts_json_str(loose, "status"), "pass");
	json_t *miss = json_object_get(loose, "missing_metrics");
	assert_int_equal(json_array_size(miss), 1);
	assert_string_equal(ts_json_str(json_array_get(miss, 0), "name"), "seq_rewrite");
	assert_string_equal(ts_json_str(json_array_get(miss, 0), "reason"), "too fast to measure");
	json_t *strict = ts_json_result_or_fail(res, "l1", "strict");
	assert_string_equal(ts_json_str(strict, "status"), "fail");
	assert_non_null(strstr(ts_json_str(strict, "message"), "'seq_rewrite' is missing"));
	json_decref(res);
	TS_FREE(dir, file);
}

static void test_undefined_var_refused_before_run(void **state)
{
	char *file = ts_write_file(tmp, "undef.yaml",
		"name: undef\ninventory: inventory.yaml\nboards: [tag:embedded]\n"
		"tests:\n"
		"  - name: t\n"
		"    run: echo {vars.only_board} {vars.nope}\n");
	char *out = NULL;
	int rc = orch(&out, "validate", file);
	assert_int_equal(rc, 2);
	if (!strstr(out, "undef.yaml:5:5: error: {vars.nope} in test 't' is not defined"))
		fail_msg("%s", out);
	assert_null(strstr(out, "only_board"));   /* every board has that one */
	TS_FREE(out, file);
}

/* -t and -l with globs and comma lists, on orch run */
static void test_select_tests_and_boards(void **state)
{
	char *file = ts_write_file(tmp, "sel.yaml",
		"name: sel\ninventory: inventory.yaml\nboards: [all]\n"
		"tests:\n  - { name: net-a, run: 'true' }\n  - { name: net-b, run: 'true' }\n"
		"  - { name: cpu, run: 'true' }\n");
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s run %s -o %s -t 'net-*' -t cpu,nothing -l 'l*' -l '!l2' "
			"2>&1", tmp, ORCH_BIN, file, tmp);
	assert_int_equal(rc, 0);
	free(out);
	char *dir = xasprintf("%s/sel/latest", tmp);
	json_t *res = ts_json_load_in(dir, "results.json");
	assert_int_equal(json_array_size(json_object_get(res, "results")), 3);
	assert_non_null(ts_json_result(res, "l1", "net-b"));
	assert_null(ts_json_result(res, "l2", "net-b"));
	json_decref(res);
	rc = ts_run(&out, "%s run %s -o %s -t 'disk*' 2>&1", ORCH_BIN, file, tmp);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "no test matches 'disk*'");
	TS_FREE(out, dir, file);
}

/* Broken scenarios are refused by orch validate before anything runs, each
 * at its line and column, with the line shown and a caret under the column. */
static void test_broken_scenarios_refused(void **state)
{
	struct { const char *name, *text, *want; } cases[] = {
		{ "args", "inventory: inventory.yaml\ntests:\n"
			  "  - { name: m, bench: mem, args: --size 4M }\n",
		  "args.yaml:3:34: error: '--size 4M' in 'args' is one argument with spaces, not "
		  "several options; write a list: [--size, 4M]" },
		{ "bench", "inventory: inventory.yaml\ntests:\n  - { name: m, bench: nosuchbench }\n",
		  "bench.yaml:3:5: error: unknown remote-bench program 'nosuchbench'" },
		{ "unit", "inventory: inventory.yaml\ntests:\n  - name: u\n    run: 'true'\n"
			  "    metrics: [{ name: r, regex: '(\\d+)', unit: Mbs }]\n",
		  "unit.yaml:5:48: error: unknown unit 'Mbs' (did you mean 'Mbps'?)" },
		{ "expect", "inventory: inventory.yaml\ntests:\n  - name: e\n    run: 'true'\n"
			    "    metrics: [{ name: speed, regex: '(\\d+)' }]\n"
			    "    expect: { sped: { min: 1 } }\n",
		  "expect.yaml:6:15: error: expect on metric 'sped', which test 'e' does not "
		  "produce (did you mean 'speed'?)" },
		{ "syntax", "inventory: inventory.yaml\ntests:\n  - name: s\n    run: [oops\n",
		  "syntax.yaml:5:1: error: " },
		{ "identity", "inventory: badkey.yaml\ntests:\n  - { name: i, run: 'true' }\n",
		  "badkey.yaml:2:45: error: board 'k1': identity file '" },
	};
	free(ts_write_file(tmp, "badkey.yaml", "boards:\n  k1: { ssh: { host: 127.0.160.9, "
			   "identity: /nonexistent/id_ed25519 } }\n"));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *name = xasprintf("%s.yaml", cases[i].name);
		char *file = ts_write_file(tmp, name, cases[i].text);
		char *out = NULL;
		int rc = ts_run(&out, "cd '%s' && %s validate %s 2>&1", tmp, ORCH_BIN, file);
		if (rc != 2 || !strstr(out, cases[i].want))
			fail_msg("%s: exit %d, wanted 2 and '%s':\n%s", name, rc, cases[i].want, out);
		if (strcmp(cases[i].name, "args") == 0 &&
		    !strstr(out, "    3 |   - { name: m, bench: mem, args: --size 4M }\n"
				 "        |                                  ^\n"))
			fail_msg("no caret under the column:\n%s", out);
		TS_FREE(out, file, name);
	}
	/* --dry-run finds the same */
	char *out = NULL;
	char *file = xasprintf("%s/bench.yaml", tmp);
	assert_int_equal(ts_run(&out, "cd '%s' && %s run --dry-run %s 2>&1", tmp, ORCH_BIN, file), 2);
	TS_ASSERT_HAS(out, "unknown remote-bench program 'nosuchbench'");
	TS_FREE(out, file);
}

TS_MAIN(group_setup, group_teardown, test_vars_levels_env_and_includes, test_missing_bonnie_value,
	test_undefined_var_refused_before_run, test_select_tests_and_boards,
	test_broken_scenarios_refused)
