/*
 * Settings only from files the user owns (config/trust.h): a .orch.yaml
 * planted by another user, or one anybody can write, is never read, and
 * neither is an inventory, bench or runs folder such a file names; the
 * search for a project file stops at folders that are someone else's or
 * writable by others and at a file system boundary; ORCH_TRUST and trust:
 * of the user's own file trust on purpose. "Another user" is nobody
 * (uid 65534), so the test needs root for chown.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;

static int group_setup(void **state)
{
	(void)state;
	ts_require_root("chown of planted files to another user");
	tmp = ts_mkdtemp("trust-settings");
	free(ts_write_file(tmp, "planted-inv.yaml", "boards:\n  planted: { local: true }\n"));
	free(ts_write_file(tmp, "mine-inv.yaml", "boards:\n  mine: { local: true }\n"));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	ts_run(NULL, "umount '%s/mnt/m' 2>/dev/null", tmp);
	return ts_rmrf_free(&tmp);
}

static void has(const char *out, const char *want)
{
	if (!strstr(out, want))
		fail_msg("output lacks '%s':\n%s", want, out);
}

static void lacks(const char *out, const char *what)
{
	if (strstr(out, what))
		fail_msg("output has '%s':\n%s", what, out);
}

/* orch boards from tmp/CWD with nothing configured but the test's files;
 * PRE: more shell words. The exit status in *rc. */
static char *boards_in(const char *cwd, const char *pre, int *rc)
{
	char *out = NULL;
	*rc = ts_run(&out, "cd '%s/%s' && unset ORCH_INVENTORY ORCH_DB ORCH_LOCK_DIR "
		     "ORCH_RUNS_DIR ORCH_BENCH_DIR ORCH_COLOR ORCH_TRUST; "
		     "export ORCH_CONFIG_SYSTEM=/nonexistent/config.yaml XDG_CONFIG_HOME='%s/xdg'; "
		     "%s %s --color=never boards 2>&1", tmp, cwd, tmp, pre, ORCH_BIN);
	return out;
}

/* A folder of tmp with MODE and OWNER holding .orch.yaml (naming the
 * planted inventory) with FMODE and FOWNER, and a child folder "ci". */
static void plant(const char *dir, const char *mode, const char *owner, const char *fmode,
		  const char *fowner)
{
	char *text = xasprintf("inventory: %s/planted-inv.yaml\n", tmp);
	char *name = xasprintf("%s/.orch.yaml", dir);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/%s/ci'", tmp, dir), 0);
	free(ts_write_file(tmp, name, text));
	assert_int_equal(ts_run(NULL, "cd '%s' && chmod %s '%s' && chown %s '%s' && chmod %s "
				"'%s/.orch.yaml' && chown %s '%s/.orch.yaml'", tmp, mode, dir, owner,
				dir, fmode, dir, fowner, dir), 0);
	free(name);
	free(text);
}

/* Another user's file in a sticky world-writable parent (as /tmp): the
 * search stops before that folder and says why; nothing of it is read. */
static void test_foreign_file_in_sticky_parent(void **state)
{
	(void)state;
	plant("sticky", "1777", "root", "644", "nobody");
	int rc;
	char *out = boards_in("sticky/ci", "", &rc);
	lacks(out, "planted");
	has(out, "sticky/.orch.yaml: warning: not read: folder ");
	has(out, "is writable by others (mode 1777)");
	has(out, "ORCH_TRUST");
	assert_int_equal(rc, 2);   /* and so no inventory at all */
	has(out, "no inventory");
	free(out);
}

/* Another user's file in a folder of ours: refused, naming its owner. */
static void test_foreign_file_refused(void **state)
{
	(void)state;
	plant("foreign", "755", "root", "644", "nobody");
	int rc;
	char *out = boards_in("foreign/ci", "", &rc);
	assert_int_equal(rc, 2);
	lacks(out, "planted");
	has(out, "foreign/.orch.yaml: error: refusing this configuration file: ");
	has(out, "is owned by nobody (uid 65534), not by you (root (uid 0)) or root");
	free(out);
	/* trusted on purpose: ORCH_TRUST, then trust: of the user's own file */
	char *pre = xasprintf("ORCH_TRUST='%s/foreign/.orch.yaml'", tmp);
	out = boards_in("foreign/ci", pre, &rc);
	assert_int_equal(rc, 0);
	has(out, "planted");
	free(out);
	free(pre);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/xdg/orch'", tmp), 0);
	char *user = xasprintf("trust: [%s/foreign]\n", tmp);
	free(ts_write_file(tmp, "xdg/orch/config.yaml", user));
	free(user);
	out = boards_in("foreign/ci", "", &rc);
	assert_int_equal(rc, 0);
	has(out, "planted");
	free(out);
	assert_int_equal(ts_run(NULL, "rm '%s/xdg/orch/config.yaml'", tmp), 0);
}

/* Ours, but anybody may write it (666), or replace it (a 777 parent). */
static void test_writable_by_others(void **state)
{
	(void)state;
	plant("ww", "755", "root", "666", "root");
	int rc;
	char *out = boards_in("ww/ci", "", &rc);
	assert_int_equal(rc, 2);
	lacks(out, "planted");
	has(out, "ww/.orch.yaml has mode 0666: others can write it");
	free(out);
	plant("open", "777", "root", "644", "root");
	out = boards_in("open/ci", "", &rc);
	lacks(out, "planted");
	has(out, "open/.orch.yaml: warning: not read: folder ");
	has(out, "is writable by others (mode 0777)");
	free(out);
	/* a group-writable folder is someone else's to change too */
	plant("grp", "775", "root", "644", "root");
	out = boards_in("grp/ci", "", &rc);
	lacks(out, "planted");
	has(out, "(mode 0775)");
	free(out);
}

/* A symlink is judged by its target. */
static void test_symlink_to_foreign_file(void **state)
{
	(void)state;
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p link/ci && printf 'inventory: %s/"
				"planted-inv.yaml\\n' > foreign.yaml && chown nobody foreign.yaml && "
				"ln -s '%s/foreign.yaml' link/.orch.yaml", tmp, tmp, tmp), 0);
	int rc;
	char *out = boards_in("link/ci", "", &rc);
	assert_int_equal(rc, 2);
	lacks(out, "planted");
	has(out, "foreign.yaml is owned by nobody (uid 65534)");
	free(out);
}

/* A trusted file naming what is not: an inventory another user owns, a
 * bench folder with a program anybody can change, a runs folder anybody
 * can write to; each refused at its place, and a project file's trust:
 * is an error of its own. */
static void test_what_a_file_names(void **state)
{
	(void)state;
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p names/ci bench/x86_64 runs-ww && "
				"cp planted-inv.yaml foreign-inv.yaml && chown nobody "
				"foreign-inv.yaml && printf '#!/bin/sh\\n' > "
				"bench/x86_64/remote-bench-cpu && chmod 777 bench/x86_64/remote-bench-cpu "
				"&& chmod 1777 runs-ww", tmp), 0);
	char *text = xasprintf("inventory: %s/foreign-inv.yaml\nbench_dir: %s/bench\n"
			       "runs_dir: %s/runs-ww/r\ntrust: ['*']\n", tmp, tmp, tmp);
	free(ts_write_file(tmp, "names/.orch.yaml", text));
	free(text);
	int rc;
	char *out = boards_in("names/ci", "", &rc);
	assert_int_equal(rc, 2);
	lacks(out, "planted");
	has(out, "names/.orch.yaml:1:12: error: refusing inventory '");
	has(out, "foreign-inv.yaml is owned by nobody (uid 65534)");
	has(out, "names/.orch.yaml:2:12: error: refusing bench_dir '");
	has(out, "remote-bench-cpu has mode 0777: others can write it");
	has(out, "names/.orch.yaml:3:11: error: refusing runs_dir '");
	has(out, "runs-ww is writable by others (mode 1777)");
	has(out, "names/.orch.yaml:4:8: error: 'trust' is read only from the system and user "
		 "configuration files");
	free(out);
}

/* The search ends at a file system boundary: a .orch.yaml above a mount
 * point is not the mounted tree's. */
static void test_file_system_boundary(void **state)
{
	(void)state;
	char *text = xasprintf("inventory: %s/mine-inv.yaml\n", tmp);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/mnt/m'", tmp), 0);
	free(ts_write_file(tmp, "mnt/.orch.yaml", text));
	free(text);
	int rc;
	char *out = boards_in("mnt/m", "", &rc);
	assert_int_equal(rc, 0);
	has(out, "mine");   /* read while m is a plain folder */
	free(out);
	if (ts_run(NULL, "mount -t tmpfs -o size=1m,mode=755 orch-test '%s/mnt/m'", tmp) != 0)
		ts_skip("mounting a tmpfs is not allowed here");
	out = boards_in("mnt/m", "", &rc);
	assert_int_equal(rc, 2);
	lacks(out, "mine");
	free(out);
	assert_int_equal(ts_run(NULL, "umount '%s/mnt/m'", tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_foreign_file_in_sticky_parent),
		cmocka_unit_test(test_foreign_file_refused),
		cmocka_unit_test(test_writable_by_others),
		cmocka_unit_test(test_symlink_to_foreign_file),
		cmocka_unit_test(test_what_a_file_names),
		cmocka_unit_test(test_file_system_boundary),
	};
	return ts_run_group(tests, group_setup, group_teardown);
}
