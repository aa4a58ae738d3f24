/*
 * Inventories as users bring them (issue 26.4): groups through the orch
 * binary (validate reports a missing identity once, at the line that
 * names it; -l group:NAME), ORCH_INVENTORY for every command that takes
 * -i.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static char *tmp;

static int group_setup(void **state)
{
	(void)state;
	tmp = ts_mkdtemp("inventory-files");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	ts_rmrf(tmp);
	free(tmp);
	return 0;
}

static void has(const char *out, const char *want)
{
	if (!strstr(out, want))
		fail_msg("output lacks '%s':\n%s", want, out);
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
	(void)state;
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
	has(out, "keys.yaml:2:32: error: boards 'k1', 'k2': identity file "
		 "'/nonexistent/id_defaults' does not exist\n");
	has(out, "keys.yaml:6:22: error: boards 'k3', 'k4': identity file "
		 "'/nonexistent/id_far' does not exist\n");
	assert_int_equal(count(out, "does not exist"), 2);
	free(out);
}

/* orch boards -l group:NAME and a bare group name select its boards. */
static void test_group_selector(void **state)
{
	(void)state;
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
	has(out, "\"b1\"");
	has(out, "\"b3\"");
	assert_null(strstr(out, "\"b2\""));
	free(out);
	rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml -l 'rack2' --format json", tmp,
		    ORCH_BIN);
	assert_int_equal(rc, 0);
	has(out, "\"b3\"");
	assert_null(strstr(out, "\"b1\""));
	free(out);
	rc = ts_run(&out, "cd '%s' && %s boards -i groups.yaml -l group:rack3 2>&1", tmp, ORCH_BIN);
	assert_int_equal(rc, 2);
	has(out, "no group named 'rack3' in the inventory (did you mean 'group:rack2'?)");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity_once),
		cmocka_unit_test(test_group_selector),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
