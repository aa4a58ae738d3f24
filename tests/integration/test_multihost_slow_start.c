/*
 * A background step's ready_timeout counts from the moment its command
 * started on its board, not from when the controller asked for it: on a
 * loaded machine the SSH exec of the server command may take longer than
 * the whole ready_timeout. The lab board's sshd here takes 4 s to start
 * any command that carries a background step's wrapper (ForceCommand, the
 * shell of an overloaded board), and the client is a local board.
 *
 * Checked: a server that prints its ready line at once passes with
 * ready_timeout 2s; one that never prints it still fails, with its output
 * ("last output: starting": the 2 s ran while it was running).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define LAB_BASE "127.0.231"
#define START_DELAY "4"

static struct lab *L;
static char *tmp;

static int group_setup(void **state)
{
	if (lab_group_up_with(&L, "SSHD_LAB_EXTRA",
			      "ForceCommand case \"$SSH_ORIGINAL_COMMAND\" in *orch-bg-pgid*) sleep "
			      START_DELAY ";; esac; exec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"",
			      LAB_BASE, 1, 0, false) < 0)
		return -1;
	tmp = ts_orch_dir("multihost-slow-start");
	free(lab_write_inventory(L, tmp, "rack.yaml", LAB_PORT_KEY,
				 "boards:\n"
				 "  srv: { ssh: { host: %s.1 } }\n"
				 "  here: { local: true }\n", L->base));
	return 0;
}

static int group_teardown(void **state)
{
	lab_group_down(&L);
	if (tmp)
		ts_rmrf(tmp);
	free(tmp);
	return 0;
}

/* A scenario of one multi-host test: the server step on srv (its ready
 * pattern READY), then a client step on here. */
static json_t *run_server(const char *name, const char *ready, int want_rc)
{
	char *tests = xasprintf(
		"  - name: serve\n"
		"    roles: { server: srv, client: each }\n"
		"    steps:\n"
		"      - { on: server, run: \"echo starting; sleep 60\", background: true, "
		"ready: \"%s\", ready_timeout: 2s }\n"
		"      - { on: client, run: \"echo client-ran\" }\n", ready);
	char *path = ts_rack_scenario(tmp, name, "here", "timeout: 1m", tests);
	TS_FREE(path, tests);
	char *out = NULL;
	char *sc = xasprintf("%s/%s.yaml", tmp, name);
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, tmp);
	if (rc != want_rc)
		fail_msg("orch run %s exited %d, not %d:\n%s", name, rc, want_rc, out);
	TS_FREE(out, sc);
	json_t *root = ts_orch_results(tmp, name);
	assert_non_null(root);
	return root;
}

static void test_ready_counts_from_start(void **state)
{
	json_t *root = run_server("slowready", "starting", 0);
	json_t *r = ts_json_result_or_fail(root, "here", "serve");
	if (strcmp(ts_json_str(r, "status"), "pass"))
		fail_msg("status %s: %s", ts_json_str(r, "status"), ts_json_str(r, "message"));
	json_decref(root);
}

static void test_never_ready_after_slow_start(void **state)
{
	json_t *root = run_server("slownever", "never-printed", 1);
	json_t *r = ts_json_result_or_fail(root, "here", "serve");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	const char *msg = ts_json_str(r, "message");
	if (!strstr(msg, "never printed ready pattern 'never-printed' within 2s; last output: "
			 "starting"))
		fail_msg("message: %s", msg);
	json_decref(root);
}

TS_MAIN(group_setup, group_teardown, test_ready_counts_from_start,
	test_never_ready_after_slow_start)
