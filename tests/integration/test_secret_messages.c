/*
 * No secret and no foreign file's content in any message: a -e @FILE that
 * is not a mapping of variables is refused by place and kind without a
 * word of its text (a symlink to a shadow-like file, a binary file), files
 * of /proc and /sys are refused, and a secret orch knows (an inventory's
 * password_env, a database URL's password, PGPASSWORD) is masked in the
 * quoted source lines and messages of every diagnostic.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static char *tmp;

#define SECRET "hunter2-s3kr1t"

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("secret-messages", "inv.yaml", "boards:\n  b1:\n    local: true\n"
			      "  pw:\n    ssh: { host: 127.0.0.1, user: u, password_env: ORCH_T_PW }\n");
	free(ts_write_file(tmp, "ok.yaml", "name: ok\ninventory: inv.yaml\nboards: [b1]\n"
			   "tests:\n  - { name: t, run: 'true' }\n"));
	free(ts_write_file(tmp, "shadow", "root:$6$" SECRET "$x:19000:0:99999:7:::\n"
			   "daemon:*:19000:0:99999:7:::\n"));
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static char *validate(const char *args, const char *env, int *rc)
{
	char *out = NULL;
	*rc = ts_run(&out, "cd '%s' && export ORCH_CONFIG_SYSTEM=/nonexistent XDG_CONFIG_HOME=%s "
		     "ORCH_T_PW='" SECRET "'; %s %s validate %s 2>&1", tmp, tmp, env, ORCH_BIN,
		     args);
	return out;
}

static void test_var_file_not_quoted(void **state)
{
	assert_int_equal(ts_run(NULL, "cd '%s' && ln -sf shadow link.yaml && head -c 300 "
				"/dev/urandom > binary.yaml && printf 'root said " SECRET "\\n' > "
				"notes.txt && printf 'root_" SECRET ": 1\\nroot_" SECRET ": 2\\n' > "
				"dup.yaml && printf 'a: *" SECRET "\\n' > alias.yaml", tmp), 0);
	static const struct {
		const char *file, *want;
	} cases[] = {
		{ "link.yaml", "link.yaml:1:1: error: -e @FILE: invalid variable name" },
		{ "shadow", "shadow:2:1: error: -e @FILE: invalid variable name" },
		{ "notes.txt", "notes.txt:1:1: error: -e @FILE must hold a mapping of NAME: value, "
			       "found a scalar" },
		{ "binary.yaml", "binary.yaml" },
		{ "dup.yaml", "dup.yaml:2:1: error: duplicate key (first at line 1)" },
		{ "alias.yaml", "alias.yaml:1:4: error: unknown alias (no anchor of its name" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *args = xasprintf("ok.yaml -e @%s", cases[i].file);
		int rc;
		char *out = validate(args, "", &rc);
		if (rc != 2)
			fail_msg("-e @%s: exit %d:\n%s", cases[i].file, rc, out);
		TS_ASSERT_HAS(out, cases[i].want);
		TS_ASSERT_LACKS(out, SECRET);
		TS_ASSERT_LACKS(out, "root:", "daemon");
		TS_ASSERT_LACKS(out, " | ");   /* no quoted source line */
		TS_FREE(out, args);
	}
	/* a mapping with a bad name or a list value: place, never the name */
	free(ts_write_file(tmp, "vars.yaml", "good: 1\n" SECRET ": 2\nl: [1, 2]\n"));
	int rc;
	char *out = validate("ok.yaml -e @vars.yaml", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "vars.yaml:2:1: error: -e @FILE: invalid variable name");
	TS_ASSERT_HAS(out, "vars.yaml:3:4: error: -e @FILE: a variable's value must be a plain value, found "
		 "a list");
	TS_ASSERT_LACKS(out, "hunter2");
	free(out);
}

static void test_kernel_files_refused(void **state)
{
	static const char *const files[] = { "/proc/self/environ", "/proc/1/cmdline",
					     "/sys/kernel/hostname" };
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *args = xasprintf("ok.yaml -e @%s", files[i]);
		int rc;
		char *out = validate(args, "", &rc);
		assert_int_equal(rc, 2);
		TS_ASSERT_HAS(out, "error: -e @FILE: refusing a file under /proc or /sys");
		TS_ASSERT_LACKS(out, SECRET);
		TS_FREE(out, args);
	}
}

/* A scenario error on a line that holds a secret: the quoted line and the
 * message show *** instead. */
static void test_secret_masked_in_diagnostics(void **state)
{
	free(ts_write_file(tmp, "bad.yaml", "name: bad\ninventory: inv.yaml\nboards: [b1]\n"
			   "tests:\n  - { name: t, run: 'login " SECRET "', bogus: '" SECRET "' }\n"
			   "  - { name: '" SECRET "x y', run: 'true' }\n"));
	int rc;
	char *out = validate("bad.yaml", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "bad.yaml:5:", "unknown key 'bogus'", "login ***");
	TS_ASSERT_LACKS(out, SECRET);
	free(out);
	/* a database URL's password and PGPASSWORD, not from the inventory */
	free(ts_write_file(tmp, "bad2.yaml", "name: bad2\ninventory: inv.yaml\nboards: [b1]\n"
			   "tests:\n  - { name: t, run: 'echo dbpass-9876 pgpass-5432', nope: 1 }\n"));
	out = validate("bad2.yaml", "ORCH_DB=postgresql://orch:dbpass-9876@127.0.0.1:1/orch "
		       "PGPASSWORD=pgpass-5432", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "echo *** ***");
	TS_ASSERT_LACKS(out, "dbpass-9876", "pgpass-5432");
	free(out);
}

/* Secrets are known even when the file naming them has errors of its own:
 * an inventory with a mistake still has its password_env masked, an
 * Ansible inventory's ansible_password is masked in the line quoted for an
 * error on it, a settings file's database password too, and a malformed
 * -e NAME=VALUE is quoted by its name only. */
static void test_secret_masked_despite_errors(void **state)
{
	free(ts_write_file(tmp, "inv-bad.yaml", "boards:\n  pw:\n    colour: red\n"
			   "    ssh: { host: 127.0.0.1, password_env: ORCH_T_PW }\n"));
	free(ts_write_file(tmp, "bad3.yaml", "name: bad3\ninventory: inv-bad.yaml\ntests:\n"
			   "  - { name: t, run: 'login " SECRET "', bogus: 1 }\n"));
	int rc;
	char *out = validate("bad3.yaml -e 'bad name=" SECRET "'", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "inv-bad.yaml:3:5: error: unknown key 'colour'", "unknown key 'bogus'",
		"login ***", "-e: error: -e takes NAME=VALUE");
	TS_ASSERT_LACKS(out, SECRET);
	free(out);
	free(ts_write_file(tmp, "ansible.ini", "[web]\nw1 ansible_password=" SECRET
			   " ansible_port=none\n"));
	out = validate("ok.yaml -i ansible.ini", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "ansible.ini:2:", "ansible_password=***");
	TS_ASSERT_LACKS(out, SECRET);
	free(out);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/orch'", tmp), 0);
	free(ts_write_file(tmp, "orch/config.yaml", "db: postgresql://orch:" SECRET
			   "@127.0.0.1:1/orch\nruns_dir: [" SECRET "]\n"));
	out = validate("ok.yaml", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "config.yaml:2:");
	TS_ASSERT_LACKS(out, SECRET);
	free(out);
	assert_int_equal(ts_run(NULL, "rm '%s/orch/config.yaml'", tmp), 0);
}

TS_MAIN(group_setup, group_teardown, test_var_file_not_quoted, test_kernel_files_refused,
	test_secret_masked_in_diagnostics, test_secret_masked_despite_errors)
