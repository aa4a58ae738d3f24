#ifndef ORCH_TS_TERM_H
#define ORCH_TS_TERM_H
/*
 * A command on a pty of its own, as on a person's terminal: the pty is its
 * controlling terminal and its stdin, stdout and stderr; the test types on
 * the master side, reads what the command wrote, and reads the pty's
 * settings with stty (before, during and after the command).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"

struct ts_term {
	int master;
	int slave;               /* kept open: its settings can be read after the end */
	char *slave_path;
	char *before;            /* stty -g of the pty before the command started */
	pid_t pid;               /* 0 once reaped */
	struct strbuf seen;      /* everything the command wrote */
};

/* Starts `sh -c cmd` on a new pty (fails the test when it cannot). */
void ts_term_start(struct ts_term *t, const char *cmd);
/* `stty -g` of the pty; caller frees. */
char *ts_term_stty(const struct ts_term *t);
/* Reads what the command wrote, waiting at most ms. */
void ts_term_pump(struct ts_term *t, int ms);
/* Waits at most ms until text appears after offset *from (then *from
 * moves past it); while waiting, nudge (when not NULL) is typed every 3 s.
 * false (after printing what was seen) when it did not appear. */
bool ts_term_wait(struct ts_term *t, size_t *from, const char *text, int64_t ms,
		  const char *nudge);
/* Waits at most ms until the command made the pty raw (its settings
 * differ from before it started). */
bool ts_term_wait_raw(struct ts_term *t, int64_t ms);
/* Types keys on the terminal. */
void ts_term_type(struct ts_term *t, const char *keys);
/* The command's exit status (128+N for a signal), waited for at most ms
 * while its output is read; -1 when it still runs. */
int ts_term_wait_exit(struct ts_term *t, int64_t ms);
/* Starts CMD (an `orch console`, say) on a new pty and waits at most ms
 * until it wrote BANNER (*at moves past it) and made the pty raw; fails
 * the test, at the caller's line, when either does not come. */
#define ts_term_start_raw(t, cmd, banner, at, ms) \
	ts_term_start_raw_at(t, cmd, banner, at, ms, __FILE__, __LINE__)
void ts_term_start_raw_at(struct ts_term *t, const char *cmd, const char *banner, size_t *at,
			  int64_t ms, const char *file, int line);
/* Waits at most ms for the command's end; fails the test, at the caller's
 * line, unless its exit status is WANT and the pty's settings are again
 * those from before it started. */
#define ts_term_assert_exit(t, want, ms) ts_term_assert_exit_at(t, want, ms, __FILE__, __LINE__)
void ts_term_assert_exit_at(struct ts_term *t, int want, int64_t ms, const char *file, int line);
/* Kills the command if it still runs, closes the pty, frees. */
void ts_term_end(struct ts_term *t);

#endif
