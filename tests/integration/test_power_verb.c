/*
 * orch power BOARD... on|off|cycle through the binary, on local boards
 * whose power: commands append to a file in the inventory's folder:
 *   - selectors (tag:) pick the boards; cycle is the cycle command, else
 *     off then on; one line per board;
 *   - the board's lock is held while its power command runs (a run of the
 *     board started by the power command itself errors naming orch power);
 *   - a board a run holds, or another person reserved, is refused naming
 *     the holder (exit 3) and nothing is run; --force goes on; the
 *     person's own reservation does not refuse;
 *   - a failing power command is an infrastructure error (exit 3) with its
 *     output; an unknown board, a missing command, a bad action: exit 2.
 * A private lock folder (ORCH_LOCK_DIR).
 */
#include "testsupport.h"
#include "ts_orch.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	struct ts_orch_cli cli;   /* its env sets ORCH_INVENTORY=inv.yaml */
	char *log;      /* TMP/power.log, what the power commands did */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ts_orch_cli_init(&f->cli, "power-verb", " ORCH_INVENTORY=inv.yaml");
	char *inv = xasprintf(
		"boards:\n"
		"  b1: { local: true, tags: [rack],\n"
		"        power: { on: 'echo on-b1 >> power.log', off: 'echo off-b1 >> power.log' } }\n"
		"  b2: { local: true, tags: [rack], power: { cycle: 'echo cycle-b2 >> power.log' } }\n"
		"  b3: { local: true, power: { on: 'echo relay stuck >&2; exit 5' } }\n"
		"  b4: { local: true }\n"
		"  b5: { local: true,\n"
		"        power: { on: 'ORCH_LOCK_DIR=%s/locks %s run sc.yaml -l b5 --wait 0 -q"
		" -o runs > nested.log 2>&1; echo $? > nested.rc' } }\n",
		f->cli.tmp, ORCH_BIN);
	free(ts_write_file(f->cli.tmp, "inv.yaml", inv));
	free(inv);
	free(ts_write_file(f->cli.tmp, "sc.yaml",
			   "name: power\ninventory: inv.yaml\ntests:\n"
			   "  - name: t1\n    run: sleep {env.SLEEP|0}\n"));
	f->log = xasprintf("%s/power.log", f->cli.tmp);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_orch_cli_release(&f->cli);
	TS_FREE(f->log, f);
	return 0;
}

static char *power_log(struct fixture *f)
{
	char *t = ts_read_file(f->log);
	return t ? t : xstrdup("");
}

static void test_selectors_and_cycle(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power 'tag:rack' cycle", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "b1: power cycle done", "b2: power cycle done");
	free(out);
	char *log = power_log(f);
	assert_string_equal(log, "off-b1\non-b1\ncycle-b2\n");
	free(log);
	rc = ts_run(&out, "%s %s power b1 off", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	log = power_log(f);
	assert_string_equal(log, "off-b1\non-b1\ncycle-b2\noff-b1\n");
	free(log);
}

/* The power command starts a run of its own board: the run finds the
 * board held by orch power and errors at once (--wait 0). */
static void test_lock_held_while_powering(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power b5 on", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	char *path = xasprintf("%s/nested.rc", f->cli.tmp);
	char *nested_rc = ts_read_file(path);
	assert_non_null(nested_rc);
	assert_int_equal(atoi(nested_rc), 3);
	TS_FREE(nested_rc, path);
	path = xasprintf("%s/nested.log", f->cli.tmp);
	char *nested = ts_read_file(path);
	print_message("nested run: %s", nested ? nested : "(none)");
	assert_non_null(nested);
	TS_ASSERT_HAS(nested, "(orch power b5 on)");
	TS_FREE(nested, path);
}

/* Starts `orch run` holding b1 for secs seconds; its pid once orch who
 * shows it. */
static pid_t start_holder(struct fixture *f, int secs)
{
	char *cmd = xasprintf("%s SLEEP=%d exec %s run sc.yaml -l b1 -q -o runs", f->cli.env, secs,
			      ORCH_BIN);
	char *log = xasprintf("%s/holder.log", f->cli.tmp);
	pid_t pid = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	char pidtext[32];
	snprintf(pidtext, sizeof(pidtext), "\t%ld\t", (long)pid);
	int64_t dl = deadline_in_ms(30000);
	bool held = false;
	while (!held && !deadline_expired(dl)) {
		char *out = NULL;
		ts_run(&out, "%s %s who", f->cli.env, ORCH_BIN);
		held = out && strstr(out, "b1\trun\t") && strstr(out, pidtext);
		free(out);
	}
	assert_true(held);
	return pid;
}

static void test_held_board_refused(void **state)
{
	struct fixture *f = *state;
	pid_t holder = start_holder(f, 60);
	char *before = power_log(f);
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power b1 on", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 3);
	char want[64];
	snprintf(want, sizeof(want), "b1 is held by ");
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), " pid %ld since ", (long)holder);
	assert_non_null(strstr(out, want));
	free(out);
	char *after = power_log(f);
	assert_string_equal(before, after);   /* nothing was run */
	free(after);
	rc = ts_run(&out, "%s %s power b1 on --force", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	TS_ASSERT_HAS(out, "warning: b1 is held by ");
	free(out);
	after = power_log(f);
	assert_int_equal(strlen(after), strlen(before) + strlen("on-b1\n"));
	TS_FREE(after, before);
	ts_stop(&holder);
}

static void test_reservations(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	/* the person's own reservation: they may power the board */
	assert_int_equal(ts_run(&out, "%s %s lock b2 --for 10m", f->cli.env, ORCH_BIN), 0);
	free(out);
	int rc = ts_run(&out, "%s %s power b2 cycle", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	assert_int_equal(ts_run(&out, "%s %s unlock b2", f->cli.env, ORCH_BIN), 0);
	free(out);
	/* another person's: refused naming them */
	char *locks = xasprintf("%s/locks", f->cli.tmp);
	char *text = xasprintf("board=b2\nuser=mallory\nhost=lab9\npid=1\nsince=x\n"
			       "since_us=%" PRId64 "\nexpires_us=%" PRId64 "\nnote=soldering\n",
			       clock_wall_us(), (int64_t)(clock_wall_us() + 600 * 1000000LL));
	free(ts_write_file(locks, "board-b2.reserved", text));
	free(text);
	char *before = power_log(f);
	rc = ts_run(&out, "%s %s power b2 cycle", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "b2 is held by mallory@lab9, reserved since", "(soldering)");
	free(out);
	char *after = power_log(f);
	assert_string_equal(before, after);
	TS_FREE(after, before, locks);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power b3 on", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 3);   /* a failed power command: infrastructure */
	assert_non_null(strstr(out, "b3: power on command 'echo relay stuck >&2; exit 5' failed: "
				    "relay stuck (exit status 5)"));
	free(out);
	rc = ts_run(&out, "%s %s power b1 b4 on", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "board b4 has no power: an on command");
	assert_null(strstr(out, "b1: power on done"));   /* nothing run */
	free(out);
	rc = ts_run(&out, "%s %s power bx on", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "no board 'bx'");
	free(out);
	rc = ts_run(&out, "%s %s power b1 reboot", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "give BOARD... then on, off or cycle, found 'reboot' last");
	free(out);
}

/* One power command in defaults: (for the boards with a power: section)
 * and one in a group serve every board:
 * {board.name} and {vars.outlet} substituted, quoted as in a run: command
 * (unquoted, in "..." and in '...'), a hostile value stays one word. */
static void test_substitutions(void **state)
{
	struct fixture *f = *state;
	free(ts_write_file(f->cli.tmp, "pdu.yaml",
			   "defaults:\n"
			   "  local: true\n"
			   "  power:\n"
			   "    on: echo on {board.name} {vars.outlet} >> sub.log\n"
			   "    off: 'echo \"off {board.name}:{vars.outlet}\" >> sub.log'\n"
			   "groups:\n"
			   "  pdu: { boards: [p2, p3], power: { cycle: \"printf '%s|' 'cycle {vars.outlet}' "
			   ">> sub.log\" } }\n"
			   "boards:\n"
			   "  p1: { vars: { outlet: 3 }, power: {} }\n"
			   "  p2: { vars: { outlet: '4; touch pwned' } }\n"
			   "  p3: { vars: { outlet: '$(touch pwned)' } }\n"));
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power -i pdu.yaml p1 on", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	rc = ts_run(&out, "%s %s power -i pdu.yaml p1 off", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	rc = ts_run(&out, "%s %s power -i pdu.yaml p2 p3 cycle", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	char *path = xasprintf("%s/sub.log", f->cli.tmp);
	char *log = ts_read_file(path);
	free(path);
	assert_non_null(log);
	assert_string_equal(log, "on p1 3\noff p1:3\ncycle 4; touch pwned|cycle $(touch pwned)|");
	free(log);
	path = xasprintf("%s/pwned", f->cli.tmp);
	assert_int_not_equal(access(path, F_OK), 0);
	free(path);
}

/* A {vars.X} no board defines, an unknown field: refused at load with the
 * position, nothing run. */
static void test_substitution_errors(void **state)
{
	struct fixture *f = *state;
	free(ts_write_file(f->cli.tmp, "bad.yaml",
			   "defaults:\n"
			   "  local: true\n"
			   "  power: { on: 'echo {vars.outlet} >> bad.log' }\n"
			   "boards:\n"
			   "  q1: { vars: { outlet: 1 } }\n"
			   "  q2: { power: { cycle: 'echo {board.hots} >> bad.log' } }\n"
			   "  q3: { power: {} }\n"));
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power -i bad.yaml q1 on", f->cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "bad.yaml:7:3: error: power on command of board 'q3': unknown "
				    "variable in {vars.outlet}: not in the vars: of board 'q3'"));
	TS_ASSERT_HAS(out, "bad.yaml:6:25: error: power cycle command of board 'q2': ",
		"{board.hots}");
	free(out);
	rc = ts_run(&out, "%s %s validate -i bad.yaml", f->cli.env, ORCH_BIN);
	assert_int_equal(rc, 2);
	free(out);
	char *path = xasprintf("%s/bad.log", f->cli.tmp);
	assert_int_not_equal(access(path, F_OK), 0);
	free(path);
}

TS_MAIN(setup, teardown, test_selectors_and_cycle, test_lock_held_while_powering,
	test_held_board_refused, test_reservations, test_errors, test_substitutions,
	test_substitution_errors)
