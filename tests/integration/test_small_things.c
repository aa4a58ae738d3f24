/*
 * Small things users hit first, through the orch binary:
 * orch who prints its header once on a terminal and --format json,
 * orch history SCENARIO.yaml takes the file for its scenario's name (a
 * missing file is exit 2), and SIGTERM says it was a SIGTERM.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("small-things", "inventory.yaml", "boards:\n  l1: { local: true }\n");
	free(ts_write_file(tmp, "sc.yaml", "name: nightly-x\ninventory: inventory.yaml\n"
			   "tests:\n  - { name: t, run: 'echo started; sleep 30' }\n"));
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static void test_who(void **state)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && export ORCH_LOCK_DIR='%s/locks' && unset ORCH_DB && "
			"%s lock l1 -i inventory.yaml --note 'bench work' && "
			"script -qec '%s who' /dev/null", tmp, tmp, ORCH_BIN, ORCH_BIN);
	if (rc == 127)
		ts_skip("needs script(1) (apt-get install bsdutils)");
	if (rc != 0)
		fail_msg("orch lock/who: %d\n%s", rc, out);
	if (ts_count_lines(out, "BOARD", "HOLDER") != 1)
		fail_msg("header not once:\n%s", out);
	free(out);
	rc = ts_run(&out, "ORCH_LOCK_DIR='%s/locks' %s who --format json", tmp, ORCH_BIN);
	assert_int_equal(rc, 0);
	json_error_t e;
	json_t *a = json_loads(out, 0, &e);
	if (!json_is_array(a) || json_array_size(a) != 1)
		fail_msg("not a JSON list of one holder:\n%s", out);
	json_t *h = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(h, "board")), "l1");
	assert_string_equal(json_string_value(json_object_get(h, "kind")), "reservation");
	assert_string_equal(json_string_value(json_object_get(h, "note")), "bench work");
	json_decref(a);
	free(out);
	rc = ts_run(&out, "ORCH_LOCK_DIR='%s/locks' %s unlock l1", tmp, ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
}

static void test_history_file(void **state)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s history nothere.yaml -o runs 2>&1", tmp, ORCH_BIN);
	assert_int_equal(rc, 2);
	if (!strstr(out, "nothere.yaml: no such scenario file"))
		fail_msg("%s", out);
	free(out);
	rc = ts_run(&out, "cd '%s' && mkdir -p runs && %s history sc.yaml -o runs 2>&1", tmp, ORCH_BIN);
	if (rc != 0 || !strstr(out, "no runs of 'nightly-x'"))
		fail_msg("history sc.yaml: %d\n%s", rc, out);
	free(out);
}

static void test_sigterm(void **state)
{
	char *log = xasprintf("%s/term.log", tmp);
	char *cmd = xasprintf("cd '%s' && exec %s run -v sc.yaml -o runs", tmp, ORCH_BIN);
	pid_t pid = ts_spawn(cmd, log);
	char *text = NULL;
	for (int i = 0; i < 3000; i++) {   /* until the test has started (-v prints it), at most 30 s */
		free(text);
		text = ts_read_file(log);
		if (text && strstr(text, "t: started"))
			break;
		usleep(10000);
	}
	if (!text || !strstr(text, "t: started"))
		fail_msg("the run did not start:\n%s", text ? text : "");
	kill(pid, SIGTERM);
	int st = 0;
	waitpid(pid, &st, 0);
	free(text);
	text = ts_read_file(log);
	if (!strstr(text, "orch: terminated (SIGTERM): stopping the running commands") ||
	    strstr(text, "Ctrl-C again"))
		fail_msg("SIGTERM message:\n%s", text);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 130);
	TS_FREE(text, cmd, log);
}

TS_MAIN(group_setup, group_teardown, test_who, test_history_file, test_sigterm)
