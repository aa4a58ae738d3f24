/*
 * The command line without any board: help texts, version, usage errors
 * (exit 2), and orch validate on good and bad files.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static char *dir;

static int setup(void **state)
{
	dir = ts_mkdtemp_with("cli", "rack.yaml",
			      "boards:\n"
			      "  a: { tags: [x], ssh: { host: 127.0.0.1 } }\n"
			      "  b: { tags: [x, y], ssh: { host: 127.0.0.1 } }\n"
			      "  c: { local: true }\n");
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

/* DIR/SUB does not exist (a refused run made no run folder). */
static void assert_no_folder(const char *sub)
{
	char *path = xasprintf("%s/%s", dir, sub);
	assert_false(ts_file_exists(path));
	free(path);
}

static void test_every_command_has_help(void **state)
{
	const char *cmds[] = { "run", "validate", "boards", "boot", "compare", "report", "ports",
			       "merge" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *out;
		int code = ts_run(&out, "%s %s --help", ORCH_BIN, cmds[i]);
		if (code != 0 || !strstr(out, "usage: orch"))
			fail_msg("orch %s --help: exit %d, output: %s", cmds[i], code, out);
		free(out);
	}
	char *out;
	assert_int_equal(ts_run(&out, "%s --help", ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "orch run");
	free(out);
	assert_int_equal(ts_run(&out, "%s --version", ORCH_BIN), 0);
	assert_true(strncmp(out, "orch ", 5) == 0);
	free(out);
}

static void test_usage_errors_exit_2(void **state)
{
	char *out;
	assert_int_equal(ts_run(&out, "%s", ORCH_BIN), 2);
	free(out);
	assert_int_equal(ts_run(&out, "%s frobnicate", ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "'frobnicate' is not a command");
	free(out);
	assert_int_equal(ts_run(&out, "%s run", ORCH_BIN), 2);
	free(out);
	assert_int_equal(ts_run(&out, "%s run x.yaml -j zero", ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "-j");
	free(out);
	assert_int_equal(ts_run(&out, "%s run x.yaml --shard 3/2", ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "--shard");
	free(out);
	assert_int_equal(ts_run(&out, "%s run %s/missing.yaml", ORCH_BIN, dir), 2);
	TS_ASSERT_HAS(out, "missing.yaml");
	free(out);
}

static void test_validate_ok_and_plan(void **state)
{
	char *sc = ts_write_file(dir, "ok.yaml",
				 "name: ok\ninventory: rack.yaml\nboards: [tag:x]\n"
				 "tests:\n  - name: t\n    run: 'true'\n  - name: u\n    run: 'true'\n");
	char *out;
	int code = ts_run(&out, "%s validate %s --plan", ORCH_BIN, sc);
	assert_int_equal(code, 0);
	TS_ASSERT_HAS(out, "ok: 2 tests, 2 boards selected of 3, 4 test runs");
	free(out);
	code = ts_run(&out, "%s validate %s -l tag:y", ORCH_BIN, sc);
	assert_int_equal(code, 0);
	TS_ASSERT_HAS(out, "1 board selected");
	TS_FREE(out, sc);
}

/* A multi-host test with only fixed roles plans nothing: validate says so
 * and run refuses with exit 2, nothing contacted, no run folder. */
static void test_plan_that_runs_nothing_exits_2(void **state)
{
	char *sc = ts_write_file(dir, "fixed.yaml",
				 "name: fixed\ninventory: rack.yaml\nboards: [all]\ntests:\n"
				 "  - name: pair\n    roles: { server: c, client: a }\n"
				 "    steps:\n      - { on: client, run: 'true' }\n");
	char *out;
	int code = ts_run(&out, "%s validate %s", ORCH_BIN, sc);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "fixed.yaml:5:5: test", "test 'pair' would run nowhere");
	free(out);
	code = ts_run(&out, "%s run %s -o %s/fixed-runs", ORCH_BIN, sc, dir);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "would run nowhere");
	free(out);
	assert_no_folder("fixed-runs/fixed");
	free(sc);
}

/* A FIFO (or any file that is not regular) given as inventory or scenario
 * is refused at once, not waited on forever. */
static void test_fifo_refused_at_once(void **state)
{
	char *fifo = xasprintf("%s/fifo.yaml", dir);
	assert_int_equal(ts_run(NULL, "mkfifo '%s'", fifo), 0);
	char *sc = ts_write_file(dir, "fifo-sc.yaml", "name: f\ntests:\n  - { name: t, run: 'true' }\n");
	char *out;
	int code = ts_run(&out, "timeout 10 %s validate %s -i %s", ORCH_BIN, sc, fifo);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "not a regular file, found a FIFO");
	free(out);
	code = ts_run(&out, "timeout 10 %s validate %s", ORCH_BIN, fifo);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "found a FIFO");
	free(out);
	code = ts_run(&out, "timeout 10 %s run %s -i %s -o %s/fifo-runs", ORCH_BIN, sc, fifo, dir);
	assert_int_equal(code, 2);
	TS_FREE(out, sc, fifo);
}

/* A baseline that cannot be read stops the run before anything is made. */
static void test_unreadable_baseline_exits_2_and_leaves_no_folder(void **state)
{
	char *sc = ts_write_file(dir, "base.yaml",
				 "name: base\ninventory: rack.yaml\nboards: [c]\n"
				 "tests:\n  - name: t\n    run: 'true'\n");
	char *out;
	int code = ts_run(&out, "%s run %s -q -o %s/runs --baseline %s/no-such-run", ORCH_BIN, sc,
			  dir, dir);
	assert_int_equal(code, 2);
	TS_ASSERT_HAS(out, "baseline:");
	free(out);
	assert_no_folder("runs/base");
	free(sc);
}

/* run and compare take the same thresholds: finite, >= 0, '%' allowed. */
static void test_threshold_is_a_finite_percentage(void **state)
{
	char *sc = ts_write_file(dir, "thr.yaml",
				 "name: thr\ninventory: rack.yaml\nboards: [c]\n"
				 "tests:\n  - name: t\n    run: 'true'\n");
	static const char *const good[] = { "5", "2.5", "5%" };
	static const char *const bad[] = { "nan", "inf", "-1", "5x" };
	char *out;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(ts_run(&out, "%s run %s --dry-run --threshold %s", ORCH_BIN, sc,
					good[i]), 0);
		free(out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ts_run(&out, "%s run %s --dry-run --threshold %s", ORCH_BIN, sc,
					bad[i]), 2);
		TS_ASSERT_HAS(out, "--threshold takes a percentage");
		free(out);
		assert_int_equal(ts_run(&out, "%s compare -t %s %s %s", ORCH_BIN, bad[i], dir, dir),
				 2);
		TS_ASSERT_HAS(out, "bad threshold");
		free(out);
	}
	free(sc);
}

static void test_validate_reports_every_error_with_position(void **state)
{
	char *sc = ts_write_file(dir, "bad.yaml",
				 "name: bad\ninventory: rack.yaml\nboards: [tag:nope, zz]\n"
				 "tests:\n"
				 "  - name: t\n    run: 'true'\n    timeout: soon\n"
				 "  - name: t\n    run: 'true'\n");
	char *out;
	int code = ts_run(&out, "%s validate %s", ORCH_BIN, sc);
	assert_int_equal(code, 2);
	assert_non_null(strstr(out, "bad.yaml:7:"));      /* timeout: soon */
	TS_ASSERT_HAS(out, "soon");
	assert_non_null(strstr(out, "bad.yaml:8:"));      /* duplicate test name */
	TS_ASSERT_HAS(out, "nope", "zz");
	TS_FREE(out, sc);
}

static void test_help_command_and_global_options(void **state)
{
	char *out;
	assert_int_equal(ts_run(&out, "%s help compare", ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "usage: orch compare");
	free(out);
	assert_int_equal(ts_run(&out, "%s help frobnicate", ORCH_BIN), 2);
	free(out);
	assert_int_equal(ts_run(&out, "%s --color=sometimes boards -i %s/rack.yaml", ORCH_BIN, dir),
			 2);
	TS_ASSERT_HAS(out, "invalid --color 'sometimes'");
	free(out);
	/* global options are taken before or after the command */
	assert_int_equal(ts_run(&out, "%s -v --color=never boards -i %s/rack.yaml --color=always -v",
				ORCH_BIN, dir), 0);
	TS_ASSERT_HAS(out, "\tx,y\t");
	free(out);
	/* -v: the connection steps and every command sent, on stderr */
	char *scen = ts_write_file(dir, "verbose.yaml", "name: verbose\ninventory: rack.yaml\n"
				   "boards: [c]\ntests:\n  - { name: hi, run: 'echo hi-there' }\n");
	assert_int_equal(ts_run(&out, "cd %s && %s run %s -o runs -v -q", dir, ORCH_BIN, scen), 0);
	TS_ASSERT_HAS(out, "c: local board: commands run on this machine", "c: connected: ",
		"echo hi-there", ": exit 0");
	free(out);
	assert_int_equal(ts_run(&out, "cd %s && %s run %s -o runs -q", dir, ORCH_BIN, scen), 0);
	TS_ASSERT_LACKS(out, "echo hi-there");
	TS_FREE(out, scen);
}

/* orch run on a terminal (script(1) gives it a pty): TERM=dumb gets plain
 * lines, no cursor movement; another TERM gets the live redraw, and colour
 * unless --color=never or NO_COLOR. */
static char *run_on_pty(const char *env, const char *opts)
{
	char *scen = ts_write_file(dir, "pty.yaml",
				   "name: pty\ninventory: rack.yaml\nboards: [c]\n"
				   "tests:\n  - { name: wait, run: 'sleep 1.3' }\n"
				   "  - { name: fails, run: 'exit 3' }\n");
	char *out = NULL;
	ts_run(&out, "cd %s && env %s script -qfec '%s %s run %s -o runs' /dev/null", dir, env,
	       ORCH_BIN, opts, scen);
	free(scen);
	return out;
}

static void test_terminal_conventions(void **state)
{
	char *out = run_on_pty("TERM=xterm", "");
	assert_non_null(strstr(out, "\033[K"));    /* live lines */
	assert_non_null(strstr(out, "31mfail"));  /* red: a failed test */
	free(out);
	out = run_on_pty("TERM=dumb", "");
	if (strchr(out, '\033'))
		fail_msg("TERM=dumb got escape sequences: %s", out);
	TS_ASSERT_HAS(out, "fails");
	free(out);
	out = run_on_pty("TERM=xterm NO_COLOR=1", "");
	TS_ASSERT_HAS(out, "\033[K");
	TS_ASSERT_LACKS(out, "31mfail");
	free(out);
	out = run_on_pty("TERM=xterm", "--color=never");
	TS_ASSERT_LACKS(out, "31mfail");
	free(out);
	out = run_on_pty("TERM=dumb NO_COLOR=1", "--color=always");
	TS_ASSERT_HAS(out, "31mfail");
	TS_ASSERT_LACKS(out, "\033[K");
	free(out);
}

TS_MAIN(setup, teardown, test_every_command_has_help, test_usage_errors_exit_2,
	test_validate_ok_and_plan, test_plan_that_runs_nothing_exits_2, test_fifo_refused_at_once,
	test_validate_reports_every_error_with_position,
	test_unreadable_baseline_exits_2_and_leaves_no_folder,
	test_threshold_is_a_finite_percentage, test_help_command_and_global_options,
	test_terminal_conventions)
