#ifndef ORCH_UTIL_LOG_DIR_H
#define ORCH_UTIL_LOG_DIR_H
/*
 * The files inside a test's folder (RUN/BOARD/TEST/, a result's log_dir,
 * which store/ makes):
 * the one place their names are spelled and the one way orch opens them
 * for writing. Writers (execute/, store/) and readers (report/, cli/) take
 * the names from here, and config/ refuses them as fetch destinations,
 * which is why the names sit on the bottom floor.
 *
 *   stdout.log, stderr.log   a command's output, appended as it comes
 *   ROLE[.BOARD].stdout.log  the same for a role of a multi-board test
 *   result.json              the test's result (store/)
 *   boot.log, boot.raw       a boot: test's console, stamped lines and raw
 *   push.log                 one JSON line per file pushed for the test
 *   attempt-N/               the files of a try that was tried again
 *   DEST, DEST.part          a fetched file, and where it is written first
 *
 * Every open refuses a symbolic link at the file's place (O_NOFOLLOW) and
 * keeps the descriptor from the commands orch starts (O_CLOEXEC).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LOG_DIR_STDOUT   "stdout.log"
#define LOG_DIR_STDERR   "stderr.log"
#define LOG_DIR_RESULT   "result.json"
#define LOG_DIR_BOOT_LOG "boot.log"
#define LOG_DIR_BOOT_RAW "boot.raw"
#define LOG_DIR_PUSH_LOG "push.log"

/* A role's log in a multi-board test: "ROLE.stdout.log", or
 * "ROLE.BOARD.stdout.log" when board is not NULL (the role has several
 * boards); stderr.log for is_stderr. Caller frees. */
char *log_dir_role_log(const char *role, const char *board, bool is_stderr);
/* "attempt-N", the folder of try n's files. Caller frees. */
char *log_dir_attempt(int n);
/* Whether name (one component) is an attempt-N folder's name. */
bool log_dir_is_attempt(const char *name);
/* "DEST.part", where a fetched DEST is written until it is whole. Caller
 * frees. */
char *log_dir_part(const char *dest);
/* Whether dest (relative to the test's folder, "./" allowed in front)
 * would land on one of the names above or under them: its first component
 * is one of them, ends in stdout.log or stderr.log, is attempt-N, or is
 * such a name with .part after it (once or more). */
bool log_dir_reserved(const char *dest);

enum log_dir_how {
	LOG_DIR_APPEND,      /* a log that grows: created 0644, appended to */
	LOG_DIR_TRUNCATE,    /* created 0644, or emptied */
	LOG_DIR_PRIVATE,     /* created 0600, or emptied: a file whose mode
				    is set once it is whole (DEST.part) */
};

/* Opens dir/name for writing as how says; the folders of name must exist.
 * Returns the descriptor (the caller closes it), or -1 with err "cannot
 * open 'PATH': REASON" (a symbolic link there: "'PATH' is a symbolic link,
 * not a file orch writes") and errno set. */
int log_dir_open(const char *dir, const char *name, enum log_dir_how how, char *err,
		 size_t errlen);
/* The same as a stdio stream (the caller fcloses it), or NULL with err. */
FILE *log_dir_fopen(const char *dir, const char *name, enum log_dir_how how, char *err,
		    size_t errlen);

#endif
