/* Board locks between real orch processes on one controller: a run that
 * finds its board held errors naming the holder (--wait 0) or waits for it;
 * a lock left by a kill -9 is gone; reservations (orch lock) block runs
 * until they expire or orch unlock; orch who lists holders. Local boards,
 * a private lock folder (ORCH_LOCK_DIR). */
#include "testsupport.h"
#include "ts_orch.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	struct ts_orch_cli cli;
	char *scenario; /* b1, b2: t1 sleeps {env.SLEEP|0}: orch's SLEEP, which local tests no longer inherit */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ts_orch_cli_init(&f->cli, "board-lock", "");
	free(ts_write_file(f->cli.tmp, "inv.yaml",
			   "boards:\n  b1: { local: true }\n  b2: { local: true }\n"));
	f->scenario = ts_write_file(f->cli.tmp, "sc.yaml",
				    "name: locks\ninventory: inv.yaml\nboards: [all]\ntests:\n"
				    "  - name: t1\n    run: sleep {env.SLEEP|0}\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_orch_cli_release(&f->cli);
	TS_FREE(f->scenario, f);
	return 0;
}

/* Starts `orch run` holding b1 for `secs` seconds; returns its pid (orch
 * itself: exec) once orch who shows it. */
static pid_t start_holder(struct fixture *f, int secs)
{
	char *cmd = xasprintf("%s SLEEP=%d exec %s run %s -l b1 -q -o runs",
			      f->cli.env, secs, ORCH_BIN, f->scenario);
	char *log = xasprintf("%s/holder.log", f->cli.tmp);
	pid_t pid = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	char pidtext[32];
	snprintf(pidtext, sizeof(pidtext), "\t%ld\t", (long)pid);
	for (int i = 0; i < 100; i++) {
		char *out = NULL;
		ts_run(&out, "%s %s who", f->cli.env, ORCH_BIN);
		bool held = out && strstr(out, "b1\trun\t") && strstr(out, pidtext);
		free(out);
		if (held)
			return pid;
		usleep(50 * 1000);
	}
	fail_msg("the holder never showed up in orch who");
	return pid;
}

static void test_held_board_errors_naming_holder(void **state)
{
	struct fixture *f = *state;
	pid_t holder = start_holder(f, 3);
	char *out = NULL;
	int rc = ts_run(&out, "%s %s run %s -o runs --wait 0", f->cli.env, ORCH_BIN, f->scenario);
	assert_int_equal(rc, 3);   /* b1 error, b2 passed: infrastructure, no failure */
	char who[64];
	snprintf(who, sizeof(who), "pid %ld since", (long)holder);
	TS_ASSERT_HAS(out, "board b1 is held by");
	assert_non_null(strstr(out, who));
	TS_ASSERT_HAS(out, "@", "1 passed, 0 failed, 1 error");
	free(out);
	int status;
	assert_int_equal(waitpid(holder, &status, 0), holder);
	assert_int_equal(WEXITSTATUS(status), 0);   /* the holder was never disturbed */
}

static void test_waiting_run_runs_after_holder(void **state)
{
	struct fixture *f = *state;
	pid_t holder = start_holder(f, 2);
	int64_t t0 = clock_mono_ms();
	char *out = NULL;
	int rc = ts_run(&out, "%s %s run %s -o runs --wait 30s", f->cli.env, ORCH_BIN, f->scenario);
	int64_t waited = clock_mono_ms() - t0;
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "2 passed, 0 failed, 0 errors");
	assert_true(waited >= 1000);   /* it waited for the holder's 2 s sleep */
	free(out);
	int status;
	assert_int_equal(waitpid(holder, &status, 0), holder);
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_wait_gives_up_when_held_longer(void **state)
{
	struct fixture *f = *state;
	pid_t holder = start_holder(f, 4);
	char *out = NULL;
	int64_t t0 = clock_mono_ms();
	int rc = ts_run(&out, "%s %s run %s -o runs --wait 1s -l b1",
			f->cli.env, ORCH_BIN, f->scenario);
	int64_t waited = clock_mono_ms() - t0;
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "is held by");
	assert_true(waited >= 900 && waited < 3500);
	free(out);
	ts_stop(&holder);
}

static void test_kill9_leaves_no_lock(void **state)
{
	struct fixture *f = *state;
	pid_t holder = start_holder(f, 3);
	assert_int_equal(kill(holder, SIGKILL), 0);
	int status;
	assert_int_equal(waitpid(holder, &status, 0), holder);
	assert_true(WIFSIGNALED(status));
	char *out = NULL;
	int rc = ts_run(&out, "%s %s run %s -o runs --wait 0", f->cli.env, ORCH_BIN, f->scenario);
	assert_int_equal(rc, 0);
	free(out);
	ts_run(&out, "%s %s who", f->cli.env, ORCH_BIN);
	assert_string_equal(out, "");
	free(out);
}

static void test_reservation_blocks_until_unlock(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s %s lock b2 --for 10m --note 'soldering uart'", f->cli.env,
				ORCH_BIN), 0);
	free(out);
	ts_run(&out, "%s %s who", f->cli.env, ORCH_BIN);
	TS_ASSERT_HAS(out, "b2\treservation\t", "soldering uart");
	free(out);
	int rc = ts_run(&out, "%s %s run %s -o runs", f->cli.env, ORCH_BIN, f->scenario);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "board b2 is held by", "reserved since", "soldering uart");
	free(out);
	/* a run holding the board makes a reservation fail, and nothing is reserved */
	assert_int_equal(ts_run(&out, "%s %s unlock b2", f->cli.env, ORCH_BIN), 0);
	free(out);
	pid_t holder = start_holder(f, 2);
	rc = ts_run(&out, "%s %s lock b2 b1", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "board b1 is held by");
	free(out);
	ts_run(&out, "%s %s who", f->cli.env, ORCH_BIN);
	TS_ASSERT_LACKS(out, "reservation");
	free(out);
	ts_stop(&holder);
	rc = ts_run(&out, "%s %s run %s -o runs", f->cli.env, ORCH_BIN, f->scenario);
	assert_int_equal(rc, 0);
	free(out);
}

static void test_reservation_expires(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s %s lock b1 --for 1s", f->cli.env, ORCH_BIN), 0);
	free(out);
	assert_int_equal(ts_run(&out, "%s %s run %s -o runs -l b1",
				f->cli.env, ORCH_BIN, f->scenario), 3);
	free(out);
	/* orch who lists a reservation until it expires */
	ts_run_until(1200, 1, "%s %s who | grep -q '^b1\t'", f->cli.env, ORCH_BIN);
	assert_int_equal(ts_run(&out, "%s %s run %s -o runs -l b1",
				f->cli.env, ORCH_BIN, f->scenario), 0);
	free(out);
}

/* orch boot opens the board's console: it takes the board lock first */
static void test_boot_respects_board_lock(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s %s lock b1 --note 'on the bench'",
				f->cli.env, ORCH_BIN), 0);
	free(out);
	int rc = ts_run(&out, "%s %s boot b1 -i inv.yaml -o boot --timeout 1s",
			f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "orch boot: board b1 is held by", "on the bench");
	TS_ASSERT_LACKS(out, "listening on the serial console");
	free(out);
}

static void test_lock_usage_errors(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s %s lock", f->cli.env, ORCH_BIN), 2);
	free(out);
	assert_int_equal(ts_run(&out, "%s %s lock b1 --for soon", f->cli.env, ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "--for takes a duration");
	free(out);
	assert_int_equal(ts_run(&out, "%s %s lock nosuch -i inv.yaml", f->cli.env, ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "no board 'nosuch'");
	free(out);
	assert_int_equal(ts_run(&out, "%s %s run %s --wait forever",
				f->cli.env, ORCH_BIN, f->scenario), 2);
	free(out);
}

int main(void)
{
	return TS_RUN_EACH(setup, teardown, test_held_board_errors_naming_holder,
		   test_waiting_run_runs_after_holder, test_wait_gives_up_when_held_longer,
		   test_kill9_leaves_no_lock, test_reservation_blocks_until_unlock,
		   test_reservation_expires, test_boot_respects_board_lock, test_lock_usage_errors);
}
