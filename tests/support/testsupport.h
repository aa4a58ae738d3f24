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

/* Writes text to dir/name; returns the full path (caller frees). */
char *ts_write_file(const char *dir, const char *name, const char *text);
/* Whole file as a string, or NULL; caller frees. */
char *ts_read_file(const char *path);
bool ts_file_exists(const char *path);
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

/* Whether we are root (lab tests that need root skip otherwise). */
bool ts_is_root(void);

#endif
