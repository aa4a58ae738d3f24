/*
 * Settings only from files the user owns (config/trust.h). A table of
 * planted .orch.yaml files, every owner (the invoking user, root, another
 * user) x mode (600, 644, 664, 666) x folder mode (755, 777, 1777 sticky),
 * in the current folder and in a parent, as the file itself and as a
 * symbolic link to it, run once by root and once by nobody: each case is
 * accepted (its inventory's board listed) or refused with the exact line
 * that names the file, its owner and mode and how to trust it on purpose.
 * Then what a trusted file names (an inventory, a bench folder) over the
 * same rule, links to settings files, a file that is there but cannot be
 * read, ORCH_TRUST and trust:, and the file system boundary. "Another
 * user" is nobody (uid 65534) for root, and uid 4242 (no name) for nobody;
 * chown and running as nobody need root.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OTHER_UID 4242

static char *tmp;

static const char hint[] =
	"settings are read only from files that you or root own and no one else can write; "
	"to use it anyway, name it (or a folder above it) in ORCH_TRUST or in 'trust:' of "
	"/etc/orch/config.yaml or ~/.config/orch/config.yaml";

static int group_setup(void **state)
{
	ts_require_root("chown of planted files to another user, orch run as nobody");
	if (getpwuid(OTHER_UID))
		ts_skip_file("needs uid %d to have no user (it stands for an unnamed owner)",
			     OTHER_UID);
	char *made = ts_mkdtemp("trust-settings");
	char real[PATH_MAX];
	assert_non_null(realpath(made, real));
	free(made);
	tmp = xstrdup(real);   /* the path orch prints: no link in it */
	assert_int_equal(ts_run(NULL, "chmod 755 '%s'", tmp), 0);
	free(ts_write_file(tmp, "planted-inv.yaml", "boards:\n  planted: { local: true }\n"));
	free(ts_write_file(tmp, "mine-inv.yaml", "boards:\n  mine: { local: true }\n"));
	return 0;
}

static int group_teardown(void **state)
{
	ts_run(NULL, "umount '%s/mnt/m' 2>/dev/null", tmp);
	return ts_rmrf_free(&tmp);
}

/* Who runs orch: the shell words before it, and the owners of the table. */
struct invoker {
	const char *name;
	const char *as;           /* prefix of the orch command */
	const char *self, *other; /* chown arguments */
	const char *me, *other_text, *self_text;
};

static const struct invoker by_root = {
	"root", "", "root", "nobody", "root (uid 0)", "nobody (uid 65534)", "root (uid 0)",
};
static const struct invoker by_nobody = {
	"nobody", "setpriv --reuid=65534 --regid=65534 --clear-groups", "nobody", "4242:4242",
	"nobody (uid 65534)", "uid 4242", "nobody (uid 65534)",
};

/* orch boards from CWD (absolute) with nothing configured but the test's
 * files; PRE: more shell words (variables); AS: run as whom. */
static char *boards_as(const char *cwd, const char *pre, const char *as, int *rc)
{
	char *out = NULL;
	*rc = ts_run(&out, "cd '%s' && unset ORCH_INVENTORY ORCH_DB ORCH_LOCK_DIR "
		     "ORCH_RUNS_DIR ORCH_BENCH_DIR ORCH_COLOR ORCH_TRUST; "
		     "export ORCH_CONFIG_SYSTEM=/nonexistent/config.yaml XDG_CONFIG_HOME='%s/xdg'; "
		     "%s %s %s --color=never boards 2>&1", cwd, tmp, pre, as, ORCH_BIN);
	return out;
}

static char *boards_in(const char *cwd, const char *pre, int *rc)
{
	char *at = xasprintf("%s/%s", tmp, cwd);
	char *out = boards_as(at, pre, "", rc);
	free(at);
	return out;
}

enum owner { OWN_SELF, OWN_ROOT, OWN_OTHER };
static const char *const owner_names[] = { "self", "root", "other" };
static const char *const file_modes[] = { "600", "644", "664", "666" };
static const char *const dir_modes[] = { "755", "777", "1777" };

struct tcase {
	const struct invoker *who;
	enum owner owner;
	const char *mode, *dir_mode;
	bool in_parent;           /* run in D/ci, not in D */
	bool link;                /* D/.orch.yaml is a link to the file, in a 755 folder */
};

static const char *owner_arg(const struct tcase *c)
{
	return c->owner == OWN_SELF ? c->who->self : c->owner == OWN_ROOT ? "root" : c->who->other;
}

static const char *owner_text(const struct tcase *c)
{
	return c->owner == OWN_SELF ? c->who->self_text : c->owner == OWN_ROOT ? "root (uid 0)"
	       : c->who->other_text;
}

/* The rule, written out: NULL when the file is read, else the line orch
 * prints about FILE (D/.orch.yaml), whose text is at TARGET. */
static char *expected(const struct tcase *c, const char *d, const char *file, const char *target)
{
	if (strcmp(c->dir_mode, "755"))
		return xasprintf("%s: warning: not read: folder %s is owned by root (uid 0) with "
				 "mode %04o: %s; %s", file, d, (unsigned)strtoul(c->dir_mode, NULL, 8),
				 strcmp(c->dir_mode, "1777") ? "others can write in it"
				 : "others can add files to it", hint);
	bool mine = c->owner == OWN_SELF || c->owner == OWN_ROOT;
	bool readable = c->who == &by_root || c->owner == OWN_SELF || strcmp(c->mode, "600");
	if (!readable)
		return xasprintf("%s: error: cannot read this configuration file: Permission denied",
				 file);
	if (!mine)
		return xasprintf("%s: error: refusing this configuration file: %s is owned by %s "
				 "with mode 0%s: not you (%s) or root; %s", file, target,
				 owner_text(c), c->mode, c->who->me, hint);
	if (!strcmp(c->mode, "664") || !strcmp(c->mode, "666"))
		return xasprintf("%s: error: refusing this configuration file: %s is owned by %s "
				 "with mode 0%s: others can write it; %s", file, target,
				 owner_text(c), c->mode, hint);
	return NULL;
}

static void run_case(const struct tcase *c, int n)
{
	char *d = xasprintf("%s/t%d/d", tmp, n);
	char *file = xasprintf("%s/.orch.yaml", d);
	char *target = c->link ? xasprintf("%s/t%d/real/settings.yaml", tmp, n) : xstrdup(file);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/ci' '%s/t%d/real' && printf 'inventory: "
				"%s/planted-inv.yaml\\n' > '%s' && chown %s '%s' && chmod %s '%s'", d,
				tmp, n, tmp, target, owner_arg(c), target, c->mode, target), 0);
	if (c->link)
		assert_int_equal(ts_run(NULL, "ln -s '%s' '%s'", target, file), 0);
	assert_int_equal(ts_run(NULL, "chmod %s '%s'", c->dir_mode, d), 0);
	char *cwd = c->in_parent ? xasprintf("%s/ci", d) : xstrdup(d);
	int rc;
	char *out = boards_as(cwd, "", c->who->as, &rc);
	char *want = expected(c, d, file, target);
	if (want && !strstr(out, want))
		fail_msg("case %d (run by %s; file %s %s, folder %s, %s%s): want\n%s\ngot\n%s", n,
			 c->who->name, owner_names[c->owner], c->mode, c->dir_mode,
			 c->in_parent ? "from a child folder" : "in the current folder",
			 c->link ? ", through a link" : "", want, out);
	if (want && (rc != 2 || strstr(out, "planted")))
		fail_msg("case %d: refused, yet rc %d or its inventory read:\n%s", n, rc, out);
	if (!want && (rc != 0 || !strstr(out, "planted")))
		fail_msg("case %d (run by %s; file %s %s, folder %s, %s%s): want it read, got rc "
			 "%d:\n%s", n, c->who->name, owner_names[c->owner], c->mode, c->dir_mode,
			 c->in_parent ? "from a child folder" : "in the current folder",
			 c->link ? ", through a link" : "", rc, out);
	TS_FREE(want, out, cwd, target, file, d);
}

static void run_table(const struct invoker *who, int base)
{
	int n = base;
	for (int o = 0; o < 3; o++)
		for (int m = 0; m < 4; m++)
			for (int f = 0; f < 3; f++)
				for (int where = 0; where < 2; where++)
					for (int link = 0; link < 2; link++) {
						struct tcase c = { who, (enum owner)o, file_modes[m],
								   dir_modes[f], where, link };
						run_case(&c, n++);
					}
}

static void test_table_run_by_root(void **state)
{
	run_table(&by_root, 0);
}

static void test_table_run_by_nobody(void **state)
{
	run_table(&by_nobody, 1000);
}

/* A trusted .orch.yaml in tmp/FOLDER holding TEXT; orch boards there
 * with PRE before it. */
static char *named(const char *folder, const char *text, const char *pre, int *rc)
{
	char *dir = xasprintf("%s/%s", tmp, folder);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s'", dir), 0);
	char *name = xasprintf("%s/.orch.yaml", folder);
	free(ts_write_file(tmp, name, text));
	free(name);
	char *out = boards_as(dir, pre, "", rc);
	free(dir);
	return out;
}

/* PREFIX, then TMPL with each {X} replaced by x and each {Y} by y, then
 * "; " and the hint. */
static char *fill(const char *prefix, const char *tmpl, const char *x, const char *y)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, prefix);
	for (const char *p = tmpl; *p;) {
		if (!strncmp(p, "{X}", 3)) {
			strbuf_puts(&sb, x);
			p += 3;
		} else if (!strncmp(p, "{Y}", 3)) {
			strbuf_puts(&sb, y);
			p += 3;
		} else {
			strbuf_append(&sb, p++, 1);
		}
	}
	strbuf_printf(&sb, "; %s", hint);
	return strbuf_detach(&sb);
}

/* An inventory a trusted file names: owner x mode x its folder, and one
 * not there yet, judged by the folder it would be made in. */
static void test_inventory_named(void **state)
{
	static const struct {
		const char *owner, *mode, *dir_mode;
		const char *why;   /* after "refusing inventory 'INV': ", NULL: read */
	} table[] = {
		{ "root", "644", "755", NULL },
		{ "root", "600", "755", NULL },
		{ "root", "644", "1777", NULL },   /* sticky: only root can replace it */
		{ "nobody", "644", "755", "{X} is owned by nobody (uid 65534) with mode 0644: not "
					  "you (root (uid 0)) or root" },
		{ "nobody", "600", "1777", "{X} is owned by nobody (uid 65534) with mode 0600: not "
					   "you (root (uid 0)) or root" },
		{ "root", "664", "755", "{X} is owned by root (uid 0) with mode 0664: others can "
					"write it" },
		{ "root", "666", "755", "{X} is owned by root (uid 0) with mode 0666: others can "
					"write it" },
		{ "root", "644", "777", "its folder {Y} is owned by root (uid 0) with mode 0777: "
					"others can write in it" },
		{ "root", "644", "775", "its folder {Y} is owned by root (uid 0) with mode 0775: "
					"others can write in it" },
		{ NULL, NULL, "1777", "{X} does not exist yet; its nearest folder {Y} is owned by "
				      "root (uid 0) with mode 1777: others can add files to it" },
		{ NULL, NULL, "777", "{X} does not exist yet; its nearest folder {Y} is owned by "
				     "root (uid 0) with mode 0777: others can write in it" },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		char *dir = xasprintf("%s/inv%zu", tmp, i);
		char *inv = xasprintf("%s/inv.yaml", dir);
		assert_int_equal(ts_run(NULL, "mkdir -p '%s' && chmod %s '%s'", dir,
					table[i].dir_mode, dir), 0);
		if (table[i].owner)
			assert_int_equal(ts_run(NULL, "cp '%s/planted-inv.yaml' '%s' && chown %s '%s' "
						"&& chmod %s '%s'", tmp, inv, table[i].owner, inv,
						table[i].mode, inv), 0);
		char *text = xasprintf("inventory: %s\n", inv);
		char *folder = xasprintf("inv%zu-user", i);
		int rc;
		char *out = named(folder, text, "", &rc);
		if (!table[i].why) {
			assert_int_equal(rc, 0);
			TS_ASSERT_HAS(out, "planted");
		} else {
			char *at = xasprintf("%s/%s/.orch.yaml:1:12: error: refusing inventory '%s': ",
					     tmp, folder, inv);
			char *want = fill(at, table[i].why, inv, dir);
			TS_ASSERT_HAS(out, want);
			TS_ASSERT_LACKS(out, "planted");
			assert_int_equal(rc, 2);
			TS_FREE(want, at);
		}
		TS_FREE(out, folder, text, inv, dir);
	}
}

/* A bench folder a trusted file names: every folder and program in it,
 * links judged by their targets, the walk bounded in depth. */
static void test_bench_named(void **state)
{
	static const struct {
		const char *make;   /* shell in the bench's parent B (bench is B/bench) */
		const char *why;    /* after "refusing bench_dir 'B/bench': ", NULL: read */
	} table[] = {
		{ "", NULL },
		{ "chown nobody bench/x86_64/remote-bench-cpu",
		  "{X}/bench/x86_64/remote-bench-cpu is owned by nobody (uid 65534) with mode 0755: "
		  "not you (root (uid 0)) or root" },
		{ "chmod 777 bench/x86_64/remote-bench-cpu",
		  "{X}/bench/x86_64/remote-bench-cpu is owned by root (uid 0) with mode 0777: others "
		  "can write it" },
		{ "chmod 777 bench/x86_64",
		  "{X}/bench/x86_64 is owned by root (uid 0) with mode 0777: others can write in it" },
		{ "chmod 1777 bench/x86_64",
		  "{X}/bench/x86_64 is owned by root (uid 0) with mode 1777: others can add files to it" },
		{ "chown nobody bench/x86_64",
		  "{X}/bench/x86_64 is owned by nobody (uid 65534) with mode 0755: not you (root (uid "
		  "0)) or root" },
		{ "chmod 1777 bench",
		  "{X}/bench is owned by root (uid 0) with mode 1777: others can add files to it" },
		{ "mkdir -p other && cp bench/x86_64/remote-bench-cpu other/prog && chown nobody "
		  "other/prog && ln -s ../../other/prog bench/x86_64/remote-bench-io",
		  "{X}/other/prog is owned by nobody (uid 65534) with mode 0755: not you (root (uid 0)) "
		  "or root" },
		{ "mkdir -m 777 ww && cp bench/x86_64/remote-bench-cpu ww/prog && "
		  "ln -s ../../ww/prog bench/x86_64/remote-bench-io",
		  "its folder {X}/ww is owned by root (uid 0) with mode 0777: others can write in it" },
		{ "ln -s .. bench/x86_64/loop",
		  "{X}/bench/x86_64/loop/x86_64/loop/x86_64/loop/x86_64/loop/x86_64 is more than 8 "
		  "folders below {X}/bench: not read that deep" },
		{ "rm -r bench && chmod 1777 .",
		  "{X}/bench does not exist yet; its nearest folder {X} is owned by root (uid 0) with "
		  "mode 1777: others can add files to it" },
	};
	free(ts_write_file(tmp, "bench-inv.yaml", "boards:\n  mine: { local: true }\n"));
	char *pre = xasprintf("ORCH_INVENTORY='%s/bench-inv.yaml'", tmp);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		char *b = xasprintf("%s/bench%zu", tmp, i);
		assert_int_equal(ts_run(NULL, "mkdir -p '%s/bench/x86_64' && cd '%s' && printf "
					"'#!/bin/sh\\n' > bench/x86_64/remote-bench-cpu && chmod 755 "
					"bench/x86_64/remote-bench-cpu && { %s%s true; }", b, b,
					table[i].make, *table[i].make ? " &&" : ""), 0);
		char *text = xasprintf("bench_dir: %s/bench\n", b);
		char *folder = xasprintf("bench%zu-user", i);
		int rc;
		char *out = named(folder, text, pre, &rc);
		if (!table[i].why) {
			assert_int_equal(rc, 0);
			TS_ASSERT_HAS(out, "mine");
		} else {
			char *at = xasprintf("%s/%s/.orch.yaml:1:12: error: refusing bench_dir "
					     "'%s/bench': ", tmp, folder, b);
			char *want = fill(at, table[i].why, b, "");
			TS_ASSERT_HAS(out, want);
			assert_int_equal(rc, 2);
			TS_FREE(want, at);
		}
		TS_FREE(out, folder, text, b);
	}
	free(pre);
}

/* The user's file (XDG_CONFIG_HOME/orch/config.yaml) as a link: judged
 * by its target and by where the link lies and who made it. */
static void test_links_to_settings(void **state)
{
	static const struct {
		const char *make;   /* shell in X (the file is X/xdg/orch/config.yaml) */
		const char *why;    /* after "refusing this configuration file: ", NULL: read */
	} table[] = {
		{ "ln -s ../../real/s.yaml xdg/orch/config.yaml", NULL },
		{ "chmod 1777 xdg/orch && ln -s ../../real/s.yaml xdg/orch/config.yaml", NULL },
		{ "chmod 777 xdg/orch && ln -s ../../real/s.yaml xdg/orch/config.yaml",
		  "link {X}/xdg/orch/config.yaml: its folder {X}/xdg/orch is owned by root (uid 0) "
		  "with mode 0777: others can write in it" },
		{ "chmod 1777 xdg/orch && ln -s ../../real/s.yaml xdg/orch/config.yaml && chown -h "
		  "nobody xdg/orch/config.yaml",
		  "link {X}/xdg/orch/config.yaml is owned by nobody (uid 65534) with mode 0777: not "
		  "you (root (uid 0)) or root" },
		{ "chown nobody xdg/orch && ln -s ../../real/s.yaml xdg/orch/config.yaml",
		  "link {X}/xdg/orch/config.yaml: its folder {X}/xdg/orch is owned by nobody (uid "
		  "65534) with mode 0755: not you (root (uid 0)) or root" },
		{ "mkdir -m 1777 hop && ln -s ../real/s.yaml hop/l && chown -h nobody hop/l && "
		  "ln -s ../../hop/l xdg/orch/config.yaml",
		  "link {X}/hop/l is owned by nobody (uid 65534) with mode 0777: not you (root (uid "
		  "0)) or root" },
		{ "chmod 777 real && ln -s ../../real/s.yaml xdg/orch/config.yaml",
		  "its folder {X}/real is owned by root (uid 0) with mode 0777: others can write in it" },
		{ "chown nobody real/s.yaml && ln -s ../../real/s.yaml xdg/orch/config.yaml",
		  "{X}/real/s.yaml is owned by nobody (uid 65534) with mode 0644: not you (root (uid "
		  "0)) or root" },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		char *x = xasprintf("%s/link%zu", tmp, i);
		assert_int_equal(ts_run(NULL, "mkdir -p '%s/xdg/orch' '%s/real' '%s/cwd' && cd '%s' "
					"&& printf 'inventory: %s/planted-inv.yaml\\n' > real/s.yaml && "
					"%s", x, x, x, x, tmp, table[i].make), 0);
		char *cwd = xasprintf("%s/cwd", x);
		char *pre = xasprintf("XDG_CONFIG_HOME='%s/xdg'", x);
		int rc;
		char *out = boards_as(cwd, pre, "", &rc);
		if (!table[i].why) {
			if (rc != 0 || !strstr(out, "planted"))
				fail_msg("case %zu (%s): want it read, got rc %d:\n%s", i,
					 table[i].make, rc, out);
		} else {
			char *at = xasprintf("%s/xdg/orch/config.yaml: error: refusing this "
					     "configuration file: ", x);
			char *want = fill(at, table[i].why, x, "");
			if (!strstr(out, want))
				fail_msg("case %zu (%s): want\n%s\ngot\n%s", i, table[i].make, want,
					 out);
			assert_int_equal(rc, 2);
			TS_ASSERT_LACKS(out, "planted");
			TS_FREE(want, at);
		}
		TS_FREE(out, pre, cwd, x);
	}
}

/* A file that is there but cannot be read is said, with the reason,
 * never passed over as if it were not there. */
static void test_unreadable_said(void **state)
{
	static const struct {
		const char *make;   /* shell in X (cwd X/d, the file X/d/.orch.yaml) */
		const char *as;
		const char *why;    /* after "cannot read this configuration file: " */
	} table[] = {
		{ "printf 'color: never\\n' > d/.orch.yaml && chmod 600 d/.orch.yaml",
		  "setpriv --reuid=65534 --regid=65534 --clear-groups", "Permission denied" },
		{ "ln -s missing.yaml d/.orch.yaml", "",
		  "No such file or directory (a symbolic link to nothing)" },
		{ "ln -s .orch.yaml d/.orch.yaml", "", "Too many levels of symbolic links" },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		char *x = xasprintf("%s/unreadable%zu", tmp, i);
		assert_int_equal(ts_run(NULL, "mkdir -p '%s/d' && cd '%s' && %s", x, x,
					table[i].make), 0);
		char *cwd = xasprintf("%s/d", x);
		int rc;
		char *out = boards_as(cwd, "", table[i].as, &rc);
		char *want = xasprintf("%s/d/.orch.yaml: error: cannot read this configuration "
				       "file: %s\n", x, table[i].why);
		if (!strstr(out, want))
			fail_msg("case %zu (%s): want\n%s\ngot\n%s", i, table[i].make, want, out);
		assert_int_equal(rc, 2);
		TS_FREE(want, out, cwd, x);
	}
}

/* Trusted on purpose: ORCH_TRUST, then trust: of the user's own file. */
static void test_trust_on_purpose(void **state)
{
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/foreign/ci' && printf 'inventory: "
				"%s/planted-inv.yaml\\n' > '%s/foreign/.orch.yaml' && chown nobody "
				"'%s/foreign/.orch.yaml'", tmp, tmp, tmp, tmp), 0);
	int rc;
	char *out = boards_in("foreign/ci", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_LACKS(out, "planted");
	TS_ASSERT_HAS(out, "is owned by nobody (uid 65534) with mode 0644: not you (root (uid 0)) or root");
	free(out);
	char *pre = xasprintf("ORCH_TRUST='%s/foreign/.orch.yaml'", tmp);
	out = boards_in("foreign/ci", pre, &rc);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "planted");
	TS_FREE(out, pre);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/xdg/orch'", tmp), 0);
	char *user = xasprintf("trust: [%s/foreign]\n", tmp);
	free(ts_write_file(tmp, "xdg/orch/config.yaml", user));
	free(user);
	out = boards_in("foreign/ci", "", &rc);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "planted");
	free(out);
	assert_int_equal(ts_run(NULL, "rm '%s/xdg/orch/config.yaml'", tmp), 0);
}

/* A runs folder and a lock folder a trusted file names, and a project
 * file's trust: (an error of its own). */
static void test_folders_named(void **state)
{
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p runs-ww locks-ok locks-open open && "
				"chmod 1777 runs-ww locks-ok && chmod 777 locks-open open", tmp), 0);
	char *text = xasprintf("runs_dir: %s/runs-ww\nlock_dir: %s/locks-ok\n"
			       "trust: ['*']\n", tmp, tmp);
	int rc;
	char *out = named("names", text, "", &rc);
	free(text);
	assert_int_equal(rc, 2);
	char *at = xasprintf("%s/names/.orch.yaml:1:11: error: refusing runs_dir '%s/runs-ww': ",
			     tmp, tmp);
	char *want = fill(at, "{X}/runs-ww is owned by root (uid 0) with mode 1777: others can "
			  "add files to it", tmp, "");
	TS_ASSERT_HAS(out, want);
	TS_FREE(want, at);
	TS_ASSERT_LACKS(out, "lock_dir");   /* a sticky lock folder is shared by design */
	TS_ASSERT_HAS(out, "names/.orch.yaml:3:8: error: 'trust' is read only from the system and user "
		 "configuration files");
	free(out);
	/* not there yet: the folder it would be made in decides */
	text = xasprintf("lock_dir: %s/open/locks\nruns_dir: %s/runs-new/r\n", tmp, tmp);
	out = named("names2", text, "", &rc);
	free(text);
	assert_int_equal(rc, 2);
	at = xasprintf("%s/names2/.orch.yaml:1:11: error: refusing lock_dir '%s/open/locks': ",
		       tmp, tmp);
	want = fill(at, "{X}/open/locks does not exist yet; its nearest folder {X}/open is owned "
		    "by root (uid 0) with mode 0777: others can write in it", tmp, "");
	TS_ASSERT_HAS(out, want);
	TS_FREE(want, at);
	TS_ASSERT_LACKS(out, "runs_dir");   /* runs-new: its nearest folder is ours */
	free(out);
	text = xasprintf("lock_dir: %s/locks-open\n", tmp);
	out = named("names3", text, "", &rc);
	free(text);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "locks-open is owned by root (uid 0) with mode 0777: others can write in it");
	free(out);
}

/* The search ends at a file system boundary: a .orch.yaml above a mount
 * point is not the mounted tree's. */
static void test_file_system_boundary(void **state)
{
	char *text = xasprintf("inventory: %s/mine-inv.yaml\n", tmp);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s/mnt/m'", tmp), 0);
	free(ts_write_file(tmp, "mnt/.orch.yaml", text));
	free(text);
	int rc;
	char *out = boards_in("mnt/m", "", &rc);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "mine");   /* read while m is a plain folder */
	free(out);
	if (ts_run(NULL, "mount -t tmpfs -o size=1m,mode=755 orch-test '%s/mnt/m'", tmp) != 0)
		ts_skip("mounting a tmpfs is not allowed here");
	out = boards_in("mnt/m", "", &rc);
	assert_int_equal(rc, 2);
	TS_ASSERT_LACKS(out, "mine");
	free(out);
	assert_int_equal(ts_run(NULL, "umount '%s/mnt/m'", tmp), 0);
}

TS_MAIN(group_setup, group_teardown, test_table_run_by_root, test_table_run_by_nobody,
	test_inventory_named, test_bench_named, test_links_to_settings, test_unreadable_said,
	test_trust_on_purpose, test_folders_named, test_file_system_boundary)
