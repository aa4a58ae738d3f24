/*
 * orch lock with selectors and --wait, through the binary and a private
 * lock folder: tag: and globs resolve against the inventory, a name no
 * inventory knows is refused (exit 2), a selector without an inventory is
 * refused, and --wait takes a board once its holder lets it go.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmp, *env;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("lock-select", "inv.yaml",
			      "boards:\n"
			      "  rb1: { local: true, tags: [rb] }\n"
			      "  rb2: { local: true, tags: [rb] }\n"
			      "  apu1: { local: true, tags: [x86] }\n");
	env = xasprintf("cd '%s' && unset ORCH_DB ORCH_INVENTORY; export ORCH_LOCK_DIR='%s/locks';",
			tmp, tmp);
	return 0;
}

static int group_teardown(void **state)
{
	ts_rmrf(tmp);
	TS_FREE(tmp, env);
	return 0;
}

static char *orch(int want, const char *args)
{
	return ts_orch_want(want, env, args);
}

static void test_selectors(void **state)
{
	char *out = orch(0, "lock tag:rb -i inv.yaml");
	if (!strstr(out, "reserved 2 boards"))
		fail_msg("%s", out);
	free(out);
	out = orch(0, "who");
	if (!strstr(out, "rb1\treservation") || !strstr(out, "rb2\treservation") ||
	    strstr(out, "apu1"))
		fail_msg("who after lock tag:rb:\n%s", out);
	free(out);
	free(orch(0, "unlock rb1 rb2"));
	out = orch(0, "lock 'a*' -i inv.yaml");
	if (!strstr(out, "reserved 1 board"))
		fail_msg("%s", out);
	free(out);
	free(orch(0, "unlock apu1"));
	out = orch(2, "lock rb3 -i inv.yaml");
	if (!strstr(out, "no board 'rb3'"))
		fail_msg("%s", out);
	free(out);
	out = orch(2, "lock tag:rb");
	if (!strstr(out, "is a selector: give the inventory"))
		fail_msg("%s", out);
	free(out);
	out = orch(2, "lock tag:nope -i inv.yaml");
	free(out);
}

static bool wait_for(const char *log, const char *text)
{
	for (int i = 0; i < 3000; i++) {   /* at most 30 s */
		char *t = ts_read_file(log);
		bool ok = t && strstr(t, text);
		free(t);
		if (ok)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_wait(void **state)
{
	free(ts_write_file(tmp, "hold.yaml", "inventory: inv.yaml\nboards: [rb1]\n"
			   "tests:\n  - { name: hold, run: 'echo started; sleep 3' }\n"));
	char *run_cmd = xasprintf("%s exec %s run -v hold.yaml -o runs", env, ORCH_BIN);
	char *run_log = xasprintf("%s/run.log", tmp);
	pid_t run = ts_spawn(run_cmd, run_log);
	if (!wait_for(run_log, "hold: started"))
		fail_msg("the run holding rb1 did not start");
	/* held by the run: without --wait it fails at once */
	char *out = orch(3, "lock rb1 -i inv.yaml");
	if (!strstr(out, "board rb1 is held by"))
		fail_msg("%s", out);
	free(out);
	char *cmd = xasprintf("%s exec %s lock rb1 -i inv.yaml --wait 60s --for 5m", env, ORCH_BIN);
	char *log = xasprintf("%s/wait.log", tmp);
	pid_t pid = ts_spawn(cmd, log);
	if (!wait_for(log, "orch lock: board rb1 is held; waiting up to 1m"))
		fail_msg("lock --wait does not say it waits");
	int st = 0;
	waitpid(pid, &st, 0);        /* it gets the board when the run ends */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	waitpid(run, &st, 0);
	out = orch(0, "who --format json");
	if (!strstr(out, "\"board\": \"rb1\"") || !strstr(out, "reservation"))
		fail_msg("after --wait:\n%s", out);
	free(out);
	free(orch(0, "unlock rb1"));
	TS_FREE(cmd, log, run_cmd, run_log);
}

TS_MAIN(group_setup, group_teardown, test_selectors, test_wait)
