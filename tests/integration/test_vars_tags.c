/*
 * Variables from outside and test selection through the orch binary on a
 * local board: -e NAME=VALUE and -e @FILE.yaml win over every vars: (the
 * command's output proves the value that arrived), --dry-run -v shows them
 * and the resolved commands, {env.X} unset is exit 2 for validate and run
 * before anything starts unless it has a default, tags: and -t tag:T /
 * !NAME / !tag:T / globs / lists select as -l does, --list prints the
 * plan, and ORCH_INVENTORY is used when nothing else names an inventory.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *cd_tmp;   /* the folder, and "cd TMP &&" */

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("vars-tags", "inventory.yaml",
			      "boards:\n"
			      "  l1: { local: true, vars: { who: board } }\n"
			      "  l2: { local: true }\n");
	free(ts_write_file(tmp, "sc.yaml",
			   "name: vt\n"
			   "inventory: inventory.yaml\n"
			   "vars: { who: scenario, where: here }\n"
			   "tests:\n"
			   "  - name: greet\n"
			   "    tags: [fast, smoke]\n"
			   "    vars: { who: test }\n"
			   "    run: 'echo hello {vars.who} {vars.where}'\n"
			   "    expect: { stdout: { contains: hello } }\n"
			   "  - name: net-up\n"
			   "    tags: [net]\n"
			   "    run: 'echo up'\n"
			   "  - name: net-down\n"
			   "    tags: [net, slow]\n"
			   "    run: 'echo down'\n"));
	free(ts_write_file(tmp, "env.yaml",
			   "name: envs\n"
			   "inventory: inventory.yaml\n"
			   "tests:\n"
			   "  - name: t\n"
			   "    run: 'echo a={env.ORCH_UT_UNSET_A|fallback} b={env.ORCH_UT_UNSET_B}'\n"));
	free(ts_write_file(tmp, "extra.yaml", "who: file\nwhere: there\n"));
	cd_tmp = xasprintf("cd '%s' &&", tmp);
	return 0;
}

static int group_teardown(void **state)
{
	free(cd_tmp);
	return ts_rmrf_free(&tmp);
}

static char *run_orch(int want_rc, const char *args)
{
	return ts_orch_want(want_rc, cd_tmp, args);
}

static void test_extra_vars(void **state)
{
	free(run_orch(0, "run sc.yaml -t greet -l l1 -o runs -e who=cli -q"));
	char *log = xasprintf("%s/runs/vt/latest/l1/greet/stdout.log", tmp);
	char *text = ts_read_file(log);
	assert_non_null(text);
	assert_string_equal(text, "hello cli here\n");   /* over test, board and scenario */
	free(text);
	free(run_orch(0, "run sc.yaml -t greet -l l1 -o runs -e @extra.yaml -e where=last -q"));
	text = ts_read_file(log);
	assert_string_equal(text, "hello file last\n");
	TS_FREE(text, log);
	char *out = run_orch(0, "run sc.yaml -t greet -l l1 --dry-run -v -e who=cli");
	TS_ASSERT_HAS(out, "  who = 'cli'  (-e)");
	TS_ASSERT_HAS(out, "run: export ORCH_VARS_WHO='cli'; export ORCH_VARS_WHERE='here'; "
		 "echo hello \"${ORCH_VARS_WHO}\" \"${ORCH_VARS_WHERE}\"");
	free(out);
	out = run_orch(2, "run sc.yaml -e 'bad name=1'");
	TS_ASSERT_HAS(out, "-e takes NAME=VALUE");
	free(out);
}

static void test_env_unset(void **state)
{
	char *out = run_orch(2, "validate env.yaml");
	TS_ASSERT_HAS(out, "env.yaml:5:10: error: {env.ORCH_UT_UNSET_B}: ORCH_UT_UNSET_B is not set");
	TS_ASSERT_LACKS(out, "ORCH_UT_UNSET_A is not set");
	free(out);
	out = run_orch(2, "run env.yaml -o runs");
	TS_ASSERT_HAS(out, "ORCH_UT_UNSET_B is not set");
	free(out);
	char *dir = xasprintf("%s/runs/envs", tmp);
	assert_false(ts_file_exists(dir));      /* nothing started */
	free(dir);
	out = NULL;
	int rc = ts_run(&out, "cd '%s' && ORCH_UT_UNSET_B=set %s run env.yaml -l l1 -o runs -q 2>&1",
			tmp, ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	char *log = xasprintf("%s/runs/envs/latest/l1/t/stdout.log", tmp);
	char *text = ts_read_file(log);
	assert_non_null(text);
	assert_string_equal(text, "a=fallback b=set\n");
	TS_FREE(text, log);
}

static void test_tags_and_list(void **state)
{
	char *out = run_orch(0, "run sc.yaml --list -l l1 -t tag:net");
	assert_string_equal(out, "l1\tnet-up\tnet\nl1\tnet-down\tnet,slow\n");
	free(out);
	out = run_orch(0, "run sc.yaml --list -l l1 -t '!tag:slow'");
	assert_string_equal(out, "l1\tgreet\tfast,smoke\nl1\tnet-up\tnet\n");
	free(out);
	out = run_orch(0, "validate sc.yaml --list -l l2 -t 'net-*,!net-down'");
	TS_ASSERT_HAS(out, "l2\tnet-up\tnet\n");
	TS_ASSERT_LACKS(out, "net-down");
	free(out);
	out = run_orch(0, "validate sc.yaml --list -l l1 -t tag:slow -t greet");
	TS_ASSERT_HAS(out, "l1\tgreet\tfast,smoke\nl1\tnet-down\tnet,slow\n");   /* the union */
	free(out);
	out = run_orch(2, "run sc.yaml --list -t tag:nett");
	TS_ASSERT_HAS(out, "no test matches 'tag:nett' (-t); did you mean 'tag:net'?");
	free(out);
	out = run_orch(2, "validate sc.yaml -t gret");
	TS_ASSERT_HAS(out, "did you mean 'greet'?");
	free(out);
}

static void test_orch_inventory(void **state)
{
	char *sc = ts_write_file(tmp, "noinv.yaml", "tests:\n  - { name: t, run: 'true' }\n");
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && ORCH_INVENTORY=inventory.yaml %s validate noinv.yaml 2>&1",
			tmp, ORCH_BIN);
	if (rc != 0)
		fail_msg("ORCH_INVENTORY not used: %d\n%s", rc, out);
	free(out);
	out = run_orch(2, "validate noinv.yaml");
	TS_ASSERT_HAS(out, "set ORCH_INVENTORY");
	TS_FREE(out, sc);
}

TS_MAIN(group_setup, group_teardown, test_extra_vars, test_env_unset, test_tags_and_list,
	test_orch_inventory)
