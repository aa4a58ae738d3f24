/*
 * push: and fetch: through `orch run` against a real OpenSSH board and a
 * dropbear board on loopback (127.0.161.x): a pushed file arrives whole with
 * its mode and is not sent again when the board has it; a board log comes
 * back into the test's folder, is checksummed and is listed in results.json
 * and linked from report.html; a missing file fails the test with its name.
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct lab *L;
static char *tmp;

static int group_setup(void **state)
{
	if (lab_group_up(&L, "127.0.161", 1, 1, false) < 0)
		return -1;
	tmp = ts_orch_dir("artifacts");
	free(lab_write_inventory(L, tmp, "inv.yaml", LAB_PORT_KEY,
				 "boards:\n"
				 "  art-ossh: { ssh: { host: %s.1 } }\n"
				 "  art-drop: { ssh: { host: %s.200 } }\n",
				 L->base, L->base));
	/* 3 MiB of varied bytes and a script */
	char *big = xasprintf("%s/fw.bin", tmp);
	assert_int_equal(ts_run(NULL, "head -c 3145728 /dev/urandom > '%s'", big), 0);
	free(big);
	free(ts_write_file(tmp, "probe.sh", "#!/bin/sh\necho probe ran on $(uname -s)\n"));
	return 0;
}

static int group_teardown(void **state)
{
	lab_down(L);
	return ts_rmrf_free(&tmp);
}

static json_t *run(const char *name, const char *tests, int want_rc)
{
	char *text = xasprintf("name: %s\ninventory: inv.yaml\ntests:\n%s", name, tests);
	json_t *res = ts_orch_run(tmp, name, text, "", want_rc, NULL);
	free(text);
	return res;
}

static void test_push_fetch_and_skip(void **state)
{
	const char *tests =
		"  - name: deploy\n"
		"    push:\n"
		"      - { src: fw.bin, dest: /tmp/orch-art/fw.bin, mode: '0600' }\n"
		"      - { src: probe.sh, dest: /tmp/orch-art/probe.sh, mode: '0755' }\n"
		/* both lab boards share one /tmp: the log is replaced whole
		 * (rename), never seen half-written by the other's fetch */
		"    run: \"/tmp/orch-art/probe.sh > /tmp/orch-art/board.log.$$ && "
		"mv /tmp/orch-art/board.log.$$ /tmp/orch-art/board.log; "
		"stat -c '%a %s' /tmp/orch-art/fw.bin; sha256sum < /tmp/orch-art/fw.bin\"\n"
		"    fetch:\n"
		"      - { src: /tmp/orch-art/board.log }\n"
		"      - { src: /tmp/orch-art/fw.bin, dest: back/fw.bin }\n";
	json_t *res = run("deploy", tests, 0);
	char *sum = NULL;
	assert_int_equal(ts_run(&sum, "sha256sum < '%s/fw.bin'", tmp), 0);
	const char *boards[] = { "art-ossh", "art-drop" };
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "deploy");
		if (strcmp(ts_json_str(r, "status"), "pass") != 0)
			fail_msg("%s: %s", boards[i], ts_json_str(r, "message"));
		json_t *arts = json_object_get(r, "artifacts");
		assert_int_equal(json_array_size(arts), 2);
		assert_string_equal(json_string_value(json_array_get(arts, 0)), "board.log");
		char *d = xasprintf("%s/runs/deploy/latest/%s/deploy", tmp, boards[i]);
		char *out = xasprintf("%s/stdout.log", d);
		char *text = ts_read_file(out);
		TS_ASSERT_HAS(text, "600 3145728\n");
		assert_non_null(strstr(text, sum));
		TS_FREE(text, out);
		char *log = xasprintf("%s/board.log", d);
		text = ts_read_file(log);
		assert_non_null(text);
		assert_string_equal(text, "probe ran on Linux\n");
		TS_FREE(text, log);
		char *back = NULL;
		assert_int_equal(ts_run(&back, "cmp '%s/fw.bin' '%s/back/fw.bin' && echo same", tmp, d), 0);
		TS_FREE(back, d);
	}
	json_decref(res);
	char *html_path = xasprintf("%s/runs/deploy/latest/report.html", tmp);
	char *html = ts_read_file(html_path);
	assert_non_null(html);
	TS_ASSERT_HAS(html, "art-ossh/deploy/board.log");
	TS_FREE(html, html_path);

	/* the board has the same file now: not sent again (its mtime stays) */
	char *before = NULL, *after = NULL;
	assert_int_equal(ts_run(&before, "ssh -F %s lab1 stat -c %%Y.%%i /tmp/orch-art/fw.bin",
				L->ssh_config), 0);
	sleep(1);
	res = run("deploy", tests, 0);
	json_decref(res);
	assert_int_equal(ts_run(&after, "ssh -F %s lab1 stat -c %%Y.%%i /tmp/orch-art/fw.bin",
				L->ssh_config), 0);
	assert_string_equal(before, after);
	TS_FREE(before, after, sum);
}

static void test_missing_files_fail_clearly(void **state)
{
	json_t *res = run("missing",
			  "  - name: nolog\n"
			  "    run: 'true'\n"
			  "    fetch: { src: /tmp/orch-art/never-written.log }\n", 1);
	json_t *r = ts_json_result_or_fail(res, "art-ossh", "nolog");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	assert_non_null(strstr(ts_json_str(r, "message"),
			       "fetch of art-ossh:/tmp/orch-art/never-written.log: no such file"));
	json_decref(res);
	/* a push source that does not exist is refused before the run */
	char *sc = ts_write_file(tmp, "nosrc.yaml", "inventory: inv.yaml\ntests:\n"
				 "  - { name: t, run: 'true', push: { src: nope.bin, dest: x } }\n");
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s validate %s 2>&1", ORCH_BIN, sc), 2);
	if (!strstr(out, "nosrc.yaml:3:42: error: push: cannot read 'nope.bin'"))
		fail_msg("%s", out);
	TS_FREE(out, sc);
}

TS_MAIN(group_setup, group_teardown, test_push_fetch_and_skip, test_missing_files_fail_clearly)
