/*
 * orch copy and orch fetch against real sshd boards (tests/lab/sshd-lab.sh
 * on 127.0.124.x), through the binary: a file copied with its mode, the
 * second copy skipped as already there, a folder with -r, a dead board in a
 * group of its own (exit 3), a fetch into DIR/BOARD/, a file over the cap
 * refused with its size (exit 1), and a fetch that would overwrite refused
 * before any board is reached (exit 2).
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "lab.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_BASE "127.0.124"

static struct lab *lab;
static char *dir, *env;

static int setup(void **state)
{
	if (lab_group_up(&lab, LAB_BASE, 2, 0, false) < 0)
		return -1;
	dir = ts_mkdtemp("adhoc-copy");
	chmod(dir, 0755);
	/* where the boards (the lab's user) write */
	char *w = xasprintf("%s/board", dir);
	mkdir(w, 0777);
	chmod(w, 0777);
	free(w);
	char *inv = lab_write_inventory(
		lab, dir, "inv.yaml", LAB_PORT_KEY ", connect_timeout: 3s",
		"boards:\n"
		"  b1: { ssh: { host: " LAB_BASE ".1 } }\n"
		"  b2: { ssh: { host: " LAB_BASE ".2 } }\n"
		"  dead1: { ssh: { host: 127.0.125.1 } }\n");
	free(inv);
	env = xasprintf("cd '%s' && unset ORCH_DB; export ORCH_INVENTORY=inv.yaml "
			"ORCH_LOCK_DIR='%s/locks';", dir, dir);
	return 0;
}

static int teardown(void **state)
{
	lab_group_down(&lab);
	free(env);
	return ts_rmrf_free(&dir);
}

static char *orch(int want, const char *args)
{
	char *full = xasprintf("--color=never %s", args);
	char *out = ts_orch_want(want, env, full);
	free(full);
	return out;
}

static void test_copy_twice(void **state)
{
	free(ts_write_file(dir, "tool", "#!/bin/sh\necho tool ran\n"));
	char *src = xasprintf("%s/tool", dir);
	chmod(src, 0751);
	char *cmd = xasprintf("copy -l b1 '%s' '%s/board/on-board/tool'", src, dir);
	char *out = orch(0, cmd);
	TS_ASSERT_HAS(out, "b1 (1 board, copied)\ncopied to 1, already there on 0\n");
	free(out);
	char *dest = xasprintf("%s/board/on-board/tool", dir);
	struct stat st;
	assert_int_equal(stat(dest, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0751);
	out = orch(0, cmd);
	TS_ASSERT_HAS(out, "b1 (1 board, already there)\ncopied to 0, already there on 1\n");
	TS_FREE(out, cmd);
	/* a dead board beside: its own group, exit 3 */
	cmd = xasprintf("copy -l b1,dead1 '%s' '%s/board/on-board/'", src, dir);
	out = orch(3, cmd);
	TS_ASSERT_HAS(out, "b1 (1 board, already there)", "dead1 (1 board, unreachable: ");
	TS_FREE(out, cmd, dest, src);
}

static void test_copy_folder(void **state)
{
	char *t = xasprintf("%s/tree/sub", dir);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s'", t), 0);
	free(t);
	free(ts_write_file(dir, "tree/a", "a\n"));
	free(ts_write_file(dir, "tree/sub/b", "b\n"));
	char *cmd = xasprintf("copy -l b2 '%s/tree' '%s/board/tree-copy'", dir, dir);
	char *out = orch(2, cmd);   /* a folder needs -r */
	TS_ASSERT_HAS(out, "is a folder (give -r");
	TS_FREE(out, cmd);
	cmd = xasprintf("copy -r -l b2 '%s/tree' '%s/board/tree-copy'", dir, dir);
	out = orch(0, cmd);
	TS_ASSERT_HAS(out, "b2 (1 board, copied 2 files)");
	TS_FREE(out, cmd);
	char *b = ts_read_in(dir, "board/tree-copy/sub/b");
	assert_string_equal(b, "b\n");
	free(b);
}

static void test_fetch(void **state)
{
	free(ts_write_file(dir, "report.txt", "from the board\n"));
	char *cmd = xasprintf("fetch '%s/report.txt' got", dir);
	char *out = orch(3, cmd);
	TS_ASSERT_HAS(out, "b[1-2] (2 boards, fetched into got/BOARD/report.txt)",
		"dead1 (1 board, unreachable");
	free(out);
	char *got = ts_read_in(dir, "got/b2/report.txt");
	assert_string_equal(got, "from the board\n");
	free(got);
	/* a second fetch would overwrite: refused before any board */
	out = orch(2, cmd);
	TS_ASSERT_HAS(out, "got/b1/report.txt is there already; not overwritten");
	TS_FREE(out, cmd);
	/* over the cap: the board refuses, saying the size */
	cmd = xasprintf("fetch -l b1 --max-size 4 '%s/report.txt' got-cap", dir);
	out = orch(1, cmd);
	TS_ASSERT_HAS(out, "b1 (1 board, failed: fetch of b1:", "15 bytes, over the cap of 4");
	TS_FREE(out, cmd);
	char *part = xasprintf("%s/got-cap/b1/report.txt", dir);
	assert_false(ts_file_exists(part));
	free(part);
}

TS_MAIN(setup, teardown, test_copy_twice, test_copy_folder, test_fetch)
