#ifndef ORCH_TESTSUPPORT_H
#define ORCH_TESTSUPPORT_H
/*
 * Helpers shared by the cmocka tests: scratch directories, running commands
 * (orch itself, lab scripts) with their output captured, reading files.
 * Paths: ORCH_SOURCE_DIR, ORCH_BINARY_DIR and ORCH_BIN are compiled in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

/* A fresh empty directory under $ORCH_TEST_TMP (or /tmp); caller frees. */
char *ts_mkdtemp(const char *prefix);
/* rm -rf dir (refuses anything outside the test tmp areas). */
void ts_rmrf(const char *dir);
/* A fresh directory as ts_mkdtemp makes it, holding one file NAME with
 * TEXT (an inventory, say); caller frees. */
char *ts_mkdtemp_with(const char *prefix, const char *name, const char *text);
/* ts_rmrf(*dir), then frees it and sets it NULL; returns 0 (a group
 * teardown's value). */
int ts_rmrf_free(char **dir);

/* A scratch folder for a test file that needs nothing else: ts_tmp, made
 * (named after the test program) by ts_tmp_setup and removed by
 * ts_tmp_teardown, as group fixtures or around each test. */
extern char *ts_tmp;
int ts_tmp_setup(void **state);
int ts_tmp_teardown(void **state);

/* Writes text to dir/name; returns the full path (caller frees). */
char *ts_write_file(const char *dir, const char *name, const char *text);
/* Whole file as a string, or NULL; caller frees. */
char *ts_read_file(const char *path);
/* Whole file DIR/NAME as a string (caller frees); fails the current test
 * when it cannot be read. */
char *ts_read_in(const char *dir, const char *name);
bool ts_file_exists(const char *path);
/* Whether process PID runs (a zombie does not). */
bool ts_pid_running(long pid);
/* Lines of text holding w1, and w2 too when it is not NULL (an strace
 * log's system calls of one kind, say). */
size_t ts_count_lines(const char *text, const char *w1, const char *w2);

/* Runs a shell command; its stdout and stderr (merged, at most 1 MiB) go to
 * *output when output is not NULL (caller frees). Returns the exit status,
 * or 128+N for a signal. */
int ts_run(char **output, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts `sh -c cmd` in a session of its own, stdout and stderr to log
 * (NULL: /dev/null). The process is killed if this test process dies, so a
 * crashed test leaves no peer running. Returns its pid (the group id too). */
pid_t ts_spawn(const char *cmd, const char *log);
/* Stops what ts_spawn started (TERM to its group, KILL after 2 s) and
 * reaps it; *pid becomes 0. Accepts a zero pid. */
void ts_stop(pid_t *pid);

/* Runs the shell command again every 20 ms until it exits WANT or MS
 * pass (a process gone, a line in a log); returns its last status, as
 * ts_run gives it. */
int ts_run_until(int ms, int want, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Polls: evaluates COND every 10 ms until it holds or MS pass (the caller
 * checks COND once more for its verdict). */
#define TS_WAIT_UNTIL(ms, cond) \
	for (int64_t ts_dl_ = ts_deadline_in_ms(ms); !(cond) && !ts_deadline_passed(ts_dl_);) \
		ts_pause_ms(10)
int64_t ts_deadline_in_ms(int ms);
bool ts_deadline_passed(int64_t deadline);
void ts_pause_ms(int ms);
/* Whether process PID has PATH open (a link in /proc/PID/fd to it). */
bool ts_pid_has_open(pid_t pid, const char *path);

/* The first of chromium, chromium-browser and google-chrome on PATH, or
 * NULL. */
const char *ts_find_chromium(void);

/* Where a lab script (tests/lab/NAME-lab.sh) runs: makes this process a
 * child subreaper (the daemons it starts are reaped by
 * ts_lab_script_down), a scratch folder *TMP named after NAME with MODE
 * (the daemons' users must reach in), and *DIR = TMP/NAME for the script's
 * --dir. The caller frees both. */
void ts_lab_script_dirs(const char *name, unsigned mode, char **tmp, char **dir);
/* Stops what a lab script (tests/lab/SCRIPT) started in DIR with
 * `SCRIPT down --dir DIR`, saying on stderr when that fails, then reaps
 * every child that has ended (the test process is the lab's subreaper). */
void ts_lab_script_down(const char *script, const char *dir);

/* Whether we are root (lab tests that need root skip otherwise). */
bool ts_is_root(void);

/*
 * Skips: the one policy (tests/README.md). A test file whose requirement
 * is not met here (root, a tool, a kernel feature) says so on stderr as
 * "SKIP: needs WHAT" and exits 77, which ctest shows as Skipped
 * (SKIP_RETURN_CODE); under CI=true scripts/test.sh then fails. Anything
 * else that goes wrong (a lab that does not come up) is a failure, never a
 * skip.
 */
/* Exits 77 unless root: why names what needs it. */
void ts_require_root(const char *why);
/* Exits 77 unless `command -v tool` finds it: how says how to get it. */
void ts_require_tool(const char *tool, const char *how);
/* Exits 77 with the reason (a requirement checked by the caller). */
void ts_skip_file(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Skips the running test (cmocka's skip()) with a reason on stderr; the
 * file then exits 77 (ts_run_group). */
#define ts_skip(...) do { ts_note_skip(__VA_ARGS__); skip(); } while (0)
void ts_note_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A test file's exit status: cmocka's count of failures, else 77 when a
 * test was skipped, else 0. */
int ts_exit_code(int failed);
#define ts_run_group(tests, setup, teardown) \
	ts_exit_code(cmocka_run_group_tests(tests, setup, teardown))

/*
 * Short forms for what nearly every test writes (ts_check.c).
 */
/* free() of each pointer, in order (NULL ones too): TS_FREE(out, a, b). */
#define TS_FREE(...) \
	ts_free_all((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
void ts_free_all(void *const *ptrs, size_t n);
/* Fails the current test at the caller's line unless the text HAY holds
 * every string that follows (TS_ASSERT_HAS), or none of them
 * (TS_ASSERT_LACKS); the message names the string and shows HAY (a NULL
 * HAY fails both). */
#define TS_ASSERT_HAS(hay, ...) \
	ts_assert_has((hay), true, (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)
#define TS_ASSERT_LACKS(hay, ...) \
	ts_assert_has((hay), false, (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)
void ts_assert_has(const char *hay, bool want, const char *const *needles, const char *file,
		   int line);
/* A test file's group: the test functions named, run in that order
 * (their names as cmocka prints them taken from the list) with the group
 * fixtures GSETUP and GTEARDOWN (NULL for none); returns ts_run_group's
 * status. TS_RUN_EACH runs SETUP and TEARDOWN around each test instead.
 * TS_MAIN is a main() that only does TS_RUN_TESTS. */
#define TS_RUN_TESTS(gsetup, gteardown, ...) \
	ts_run_tests(#__VA_ARGS__, (CMUnitTestFunction[]){ __VA_ARGS__ }, \
		     sizeof((CMUnitTestFunction[]){ __VA_ARGS__ }) / sizeof(CMUnitTestFunction), \
		     (gsetup), (gteardown), NULL, NULL)
#define TS_RUN_EACH(setup, teardown, ...) \
	ts_run_tests(#__VA_ARGS__, (CMUnitTestFunction[]){ __VA_ARGS__ }, \
		     sizeof((CMUnitTestFunction[]){ __VA_ARGS__ }) / sizeof(CMUnitTestFunction), \
		     NULL, NULL, (setup), (teardown))
#define TS_MAIN(gsetup, gteardown, ...) \
	int main(void) \
	{ \
		return TS_RUN_TESTS(gsetup, gteardown, __VA_ARGS__); \
	}
int ts_run_tests(const char *names, const CMUnitTestFunction *fns, size_t n,
		 CMFixtureFunction gsetup, CMFixtureFunction gteardown, CMFixtureFunction setup,
		 CMFixtureFunction teardown);

#endif
