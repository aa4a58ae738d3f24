/*
 * Facts of every board a test touches, through `orch run` with local
 * boards (no root, no lab): a multi-host test's role board that runs no
 * test of its own (the server) reports its facts like the others, each
 * board's work folder has its file system (workdir_fs, workdir_device),
 * and a `label: { fact: NAME }` that differs across the boards is refused
 * with each board's value named, never joined into one label.
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
	if (access("/dev/shm", W_OK) != 0)
		ts_skip_file("needs a writable /dev/shm (a tmpfs) for a board's work folder");
	tmp = ts_mkdtemp("facts-boards");
	char *inv = xasprintf("boards:\n"
			      "  fb-srv: { local: true, workdir: %s/srv-work }\n"
			      "  fb-disk: { local: true, workdir: %s/disk-work }\n"
			      "  fb-shm: { local: true, workdir: /dev/shm/orch-fb-%ld }\n",
			      tmp, tmp, (long)getpid());
	free(ts_write_file(tmp, "inventory.yaml", inv));
	free(inv);
	return 0;
}

static int group_teardown(void **state)
{
	ts_run(NULL, "rm -rf /dev/shm/orch-fb-%ld", (long)getpid());
	return ts_rmrf_free(&tmp);
}

/* orch run of a scenario: exit status, stderr+stdout in *out, results.json. */
static int run(const char *name, const char *head, const char *tests, char **out, json_t **res)
{
	char *text = xasprintf("name: %s\ninventory: inventory.yaml\n%stests:\n%s", name, head,
			       tests);
	char *file = xasprintf("%s.yaml", name);
	char *sc = ts_write_file(tmp, file, text);
	int rc = ts_run(out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, tmp);
	char *dir = xasprintf("%s/runs/%s/latest", tmp, name);
	*res = ts_json_load_in(dir, "results.json");
	if (!*res)
		fail_msg("no results.json; orch said:\n%s", *out);
	TS_FREE(dir, sc, file, text);
	return rc;
}

static const char *fact(json_t *res, const char *board, const char *name)
{
	json_t *b = json_object_get(json_object_get(res, "boards"), board);
	return json_string_value(json_object_get(json_object_get(b, "facts"), name));
}

/* The server board runs only a background step; its facts are there. */
static void test_role_board_facts(void **state)
{
	char *out = NULL;
	json_t *res;
	int rc = run("roles", "boards: [fb-disk]\nfacts: { flavour: 'echo vanilla' }\n",
		     "  - name: pair\n"
		     "    roles: { server: fb-srv, client: each }\n"
		     "    steps:\n"
		     "      - { on: server, run: 'echo ready; exec sleep 30', background: true,"
		     " ready: ready }\n"
		     "      - { on: client, run: 'true' }\n", &out, &res);
	if (rc != 0)
		fail_msg("orch exited %d:\n%s", rc, out);
	assert_null(ts_json_result(res, "fb-srv", "pair"));   /* no test of its own */
	const char *k = fact(res, "fb-srv", "kernel");
	if (!k)
		fail_msg("the role board has no facts:\n%s", json_dumps(res, JSON_INDENT(1)));
	assert_string_equal(fact(res, "fb-srv", "flavour"), "vanilla");
	assert_non_null(fact(res, "fb-disk", "kernel"));
	/* the work folder's file system, as df sees it */
	char *df = NULL;
	assert_int_equal(ts_run(&df, "df --output=fstype '%s' | tail -n 1 | tr -d ' \\n'", tmp), 0);
	assert_string_equal(fact(res, "fb-srv", "workdir_fs"), df);
	assert_non_null(fact(res, "fb-srv", "workdir_device"));
	free(df);
	json_decref(res);
	free(out);
}

/* Boards whose label fact differs: no joined label, an error naming each. */
static void test_label_fact_differs(void **state)
{
	char *out = NULL;
	json_t *res;
	int rc = run("split", "boards: [fb-disk, fb-shm]\nlabel: { fact: workdir_fs }\n",
		     "  - name: t\n    run: 'true'\n", &out, &res);
	assert_int_equal(rc, 0);   /* the tests passed: the label is no test's verdict */
	const char *disk = fact(res, "fb-disk", "workdir_fs"), *shm = fact(res, "fb-shm", "workdir_fs");
	assert_non_null(disk);
	assert_string_equal(shm, "tmpfs");
	if (strcmp(disk, "tmpfs") == 0)
		ts_skip("this machine's temporary folder is a tmpfs too: the boards do not differ");
	const char *line = strstr(out, "label: { fact: workdir_fs } differs across the boards (");
	char *each = xasprintf("fb-disk: %s", disk);
	if (!line || !strstr(line, each) || !strstr(line, "fb-shm: tmpfs") ||
	    !strstr(line, "a run has one label"))
		fail_msg("wanted each board's value in the refusal:\n%s", out);
	free(each);
	assert_true(json_is_null(json_object_get(res, "label")) || !json_object_get(res, "label"));
	assert_null(strstr(out, ", tmpfs"));   /* never joined */
	json_decref(res);
	free(out);
	/* one board: its value is the label */
	rc = run("one", "boards: [fb-shm]\nlabel: { fact: workdir_fs }\n",
		 "  - name: t\n    run: 'true'\n", &out, &res);
	assert_int_equal(rc, 0);
	assert_string_equal(json_string_value(json_object_get(res, "label")), "tmpfs");
	json_decref(res);
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_role_board_facts, test_label_fact_differs)
