/*
 * Inventories as users bring them: groups through the orch
 * binary (validate reports a missing identity once, at the line that
 * names it; -l group:NAME), ORCH_INVENTORY for every command that takes
 * -i, and the configuration files (system, user, project, then the
 * environment, then the command line).
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp("inventory-files");
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static size_t count(const char *out, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(out, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* A missing key file in defaults: or a group: once, at its line. */
static void test_identity_once(void **state)
{
	free(ts_write_file(tmp, "keys.yaml",
			   "defaults:\n"
			   "  ssh: { user: root, identity: /nonexistent/id_defaults }\n"
			   "groups:\n"
			   "  far:\n"
			   "    boards: [k3, k4]\n"
			   "    ssh: { identity: /nonexistent/id_far }\n"
			   "boards:\n"
			   "  k1: { ssh: { host: 127.0.225.9 } }\n"
			   "  k2: { ssh: { host: 127.0.225.9 } }\n"
			   "  k3: { ssh: { host: 127.0.225.9 } }\n"
			   "  k4: { ssh: { host: 127.0.225.9 } }\n"));
	free(ts_write_file(tmp, "keys-sc.yaml", "inventory: keys.yaml\n"
			   "tests:\n  - { name: t, run: 'true' }\n"));
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s --color=never validate keys-sc.yaml 2>&1", tmp,
			ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "keys.yaml:2:32: error: boards 'k1', 'k2': identity file "
		 "'/nonexistent/id_defaults' does not exist\n");
	TS_ASSERT_HAS(out, "keys.yaml:6:22: error: boards 'k3', 'k4': identity file "
		 "'/nonexistent/id_far' does not exist\n");
	assert_int_equal(count(out, "does not exist"), 2);
	free(out);
}

/* orch boards -l group:NAME and a bare group name select its boards. */
static void test_group_selector(void **state)
{
	free(ts_write_file(tmp, "groups.yaml",
			   "groups:\n"
			   "  bench: { boards: [b1], children: [rack2] }\n"
			   "  rack2: { boards: [b3] }\n"
			   "boards:\n  b1: { local: true }\n  b2: { local: true }\n"
			   "  b3: { local: true }\n"));
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml -l group:bench --format json",
			tmp, ORCH_BIN);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "\"b1\"", "\"b3\"");
	TS_ASSERT_LACKS(out, "\"b2\"");
	free(out);
	/* each board's groups, its own and its parents' */
	rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml --format json", tmp, ORCH_BIN);
	assert_int_equal(rc, 0);
	json_t *list = json_loads(out, 0, NULL);
	assert_true(json_is_array(list));
	static const char *const want[] = { "[\"bench\"]", "[]", "[\"bench\",\"rack2\"]" };
	for (size_t i = 0; i < 3; i++) {
		char *g = json_dumps(json_object_get(json_array_get(list, i), "groups"),
				     JSON_ENCODE_ANY | JSON_COMPACT);
		if (!g || strcmp(g, want[i]))
			fail_msg("board %zu: groups %s, wanted %s:\n%s", i + 1, g ? g : "(none)",
				 want[i], out);
		free(g);
	}
	json_decref(list);
	free(out);
	rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml -l 'rack2' --format json", tmp,
		    ORCH_BIN);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "\"b3\"");
	TS_ASSERT_LACKS(out, "\"b1\"");
	free(out);
	rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml -l group:rack3 2>&1", tmp, ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "no group named 'rack3' in the inventory (did you mean 'group:rack2'?)");
	free(out);
}

/* An environment with no configuration but the test's: no system file,
 * XDG_CONFIG_HOME in tmp, no ORCH_ variable. */
#define CLEAN_ENV "unset ORCH_INVENTORY ORCH_DB ORCH_LOCK_DIR ORCH_RUNS_DIR ORCH_BENCH_DIR " \
		  "ORCH_COLOR; export ORCH_CONFIG_SYSTEM=/nonexistent/config.yaml " \
		  "XDG_CONFIG_HOME='%s/xdg';"

/* ORCH_INVENTORY for every command that takes -i. */
static void test_orch_inventory_everywhere(void **state)
{
	free(ts_write_file(tmp, "env-inv.yaml", "boards:\n  envb: { local: true }\n"));
	free(ts_write_file(tmp, "noinv.yaml", "tests:\n  - { name: t, run: 'true' }\n"));
	static const struct { const char *args; int rc; const char *want; } cases[] = {
		{ "validate noinv.yaml", 0, "" },
		{ "run noinv.yaml --dry-run", 0, "envb" },
		{ "boards", 0, "envb" },
		{ "boards --format json", 0, "\"envb\"" },
		{ "lock nosuch", 2, "env-inv.yaml: no board 'nosuch' in this inventory" },
		{ "boot nosuch", 2, "no board 'nosuch' in env-inv.yaml" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		int rc = ts_run(&out, "cd '%s' && " CLEAN_ENV " export ORCH_LOCK_DIR='%s/locks' "
				"ORCH_INVENTORY=env-inv.yaml; %s --color=never %s 2>&1", tmp, tmp,
				tmp, ORCH_BIN, cases[i].args);
		if (rc != cases[i].rc || !strstr(out, cases[i].want))
			fail_msg("orch %s: exit %d, wanted %d and '%s':\n%s", cases[i].args, rc,
				 cases[i].rc, cases[i].want, out);
		free(out);
	}
}

/* The board orch boards lists from cwd (a folder of tmp) with extra
 * shell words before it. */
static char *boards_from(const char *cwd, const char *pre)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s/%s' && " CLEAN_ENV " export ORCH_CONFIG_SYSTEM='%s/sys.yaml'; "
			"%s %s --color=never boards 2>&1", tmp, cwd, tmp, tmp, pre, ORCH_BIN);
	if (rc != 0)
		fail_msg("orch boards in %s (%s): exit %d:\n%s", cwd, pre, rc, out);
	return out;
}

static void only(char *out, const char *board)
{
	static const char *const all[] = { "sysb", "userb", "projb", "envb", "clib" };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if ((strcmp(all[i], board) == 0) != (strstr(out, all[i]) != NULL))
			fail_msg("wanted the boards of %s only:\n%s", board, out);
	free(out);
}

/* system < user < project < environment < command line, each a level
 * over the one before; paths relative to their file; unknown keys at
 * their line:col. */
static void test_config_precedence(void **state)
{
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/xdg/orch' '%s/proj/sub' '%s/plain' '%s/proj/b'",
				tmp, tmp, tmp, tmp), 0);
	static const char *const names[] = { "sysb", "userb", "projb", "envb", "clib" };
	for (size_t i = 0; i < 5; i++) {
		char *file = xasprintf("%s.yaml", names[i]);
		char *text = xasprintf("boards:\n  %s: { local: true }\n", names[i]);
		free(ts_write_file(tmp, file, text));
		TS_FREE(file, text);
	}
	free(ts_write_file(tmp, "sys.yaml", "inventory: sysb.yaml\nruns_dir: sysruns\n"));
	only(boards_from("plain", ""), "sysb");
	free(ts_write_file(tmp, "xdg/orch/config.yaml", "inventory: ../../userb.yaml\n"));
	only(boards_from("plain", ""), "userb");
	/* found from a sub-folder; its path relative to the file */
	free(ts_write_file(tmp, "proj/b/projb.yaml", "boards:\n  projb: { local: true }\n"));
	free(ts_write_file(tmp, "proj/.orch.yaml", "# the lab\ninventory: b/projb.yaml\n"));
	only(boards_from("proj/sub", ""), "projb");
	only(boards_from("plain", ""), "userb");
	only(boards_from("proj/sub", "ORCH_INVENTORY=../../envb.yaml"), "envb");
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s/proj/sub' && " CLEAN_ENV " ORCH_INVENTORY=../../envb.yaml "
			"%s boards -i '%s/clib.yaml' 2>&1", tmp, tmp, ORCH_BIN, tmp);
	assert_int_equal(rc, 0);
	only(out, "clib");
	/* runs_dir of the system file, under the user's and project's inventory */
	free(ts_write_file(tmp, "proj/t.yaml", "name: t\nboards: [projb]\n"
			   "tests:\n  - { name: t, run: 'true' }\n"));
	rc = ts_run(&out, "cd '%s/proj' && " CLEAN_ENV " export ORCH_CONFIG_SYSTEM='%s/sys.yaml'; "
		    "%s --color=never run t.yaml 2>&1", tmp, tmp, tmp, ORCH_BIN);
	if (rc != 0)
		fail_msg("run: exit %d\n%s", rc, out);
	free(out);
	char *res = xasprintf("%s/sysruns/t/latest/results.json", tmp);
	char *j = ts_read_file(res);
	if (!j)
		fail_msg("no %s: the system file's runs_dir was not used", res);
	TS_FREE(j, res);
	free(ts_write_file(tmp, "proj/.orch.yaml", "inventory: b/projb.yaml\ninventroy: x\n"
			   "color: blue\n"));
	rc = ts_run(&out, "cd '%s/proj/sub' && " CLEAN_ENV " %s boards 2>&1", tmp, tmp, ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "proj/.orch.yaml:2:1: error: unknown key 'inventroy' in the configuration file "
		 "(did you mean 'inventory'?)");
	TS_ASSERT_HAS(out, "proj/.orch.yaml:3:8: error: invalid value for 'color', found 'blue' (use auto, "
		 "always or never)");
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_identity_once, test_group_selector,
	test_orch_inventory_everywhere, test_config_precedence)
