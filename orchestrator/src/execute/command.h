#ifndef ORCH_EXECUTE_COMMAND_H
#define ORCH_EXECUTE_COMMAND_H
/*
 * One command on a board, its output into the test's log files and through
 * a line callback, and the verdict in result terms: what every executor
 * (run, bench, multi-host steps) shares.
 */
#include <stdint.h>

#include "config/model.h"
#include "execute/output.h"
#include "execute/timing.h"
#include "result/result.h"
#include "util/strbuf.h"
#include "link/board_link.h"

struct command_spec {
	const char *command;
	int64_t timeout_ms;
	int stdin_fd;                  /* -1: none */
	const char *dir;               /* log folder */
	const char *stdout_name;       /* "stdout.log"; NULL discards */
	const char *stderr_name;
	output_line_fn line_fn;        /* may be NULL */
	void *line_ctx;
	output_long_fn long_fn;        /* lines too long for line_fn; may be NULL */
	struct strbuf *capture;        /* also keep stdout here (parse: iperf3-json), or NULL */
	size_t capture_max;            /* beyond this much, capture_overflow is set instead */
	uint64_t log_limit;            /* bytes kept per log file; 0: LOG_LIMIT_DEFAULT */
	/* A command run first, in a subshell of the same shell with stdin and
	 * stderr on /dev/null; its stdout, up to an end line of its own, goes to
	 * prelude_out and not to the logs (a board's facts ride on its first
	 * test command: no channel and no shell of their own). NULL: none. */
	const char *prelude;
	struct strbuf *prelude_out;
	/* The prelude runs in the command's own shell instead (no process of
	 * its own): it must leave that shell as it found it and its output in
	 * $orch_o, written with the end line at once (facts_prelude). */
	bool prelude_inline;
	bool reap;                     /* a test's step: what it leaves running is found and
					  stopped (transport.h), see command_leftovers() */
	bool timed;                    /* the board times the command (timing.h): its
					  clocks come back in outcome.marks */
};

struct command_outcome {
	int ret;                       /* transport_exec's: -1 = infrastructure failure */
	struct transport_status st;
	char err[512];                 /* for ret < 0 */
	bool capture_overflow;         /* stdout was larger than capture_max */
	bool log_cut;                  /* a log file reached log_limit */
	uint64_t long_lines;           /* lines over OUTPUT_MAX_LINE: not matched */
	bool prelude_done;             /* the prelude's end line came: prelude_out is whole */
	struct timing_marks marks;     /* spec.timed: the board's clocks around the command */
};

/* Runs spec on t. Returns outcome.ret. A log file that cannot be opened is
 * an infrastructure failure too. */
int command_run(struct transport *t, const struct command_spec *spec,
		struct command_outcome *out);

/* What command_run sends for a spec with a prelude: the prelude, then its
 * end line end ("\nTEXT\n"), then the command (on a line of its own: it
 * runs as if it came alone). Inline, the same bytes come out: the
 * prelude's lines (from $orch_o), then the end line, in one write.
 * Caller frees. */
char *command_prelude_text(const struct command_spec *spec, const char *end);

/*
 * The verdict for a command that was expected to exit 0: sets tr->status,
 * exit_code and message ("exit status 3: <last stderr line>", "timed out
 * after 5s; remote process group killed", ...) and returns true when it
 * passed. what names the command in messages. A command killed by KILL,
 * TERM, INT or HUP that orch did not send (no timeout, Ctrl-C or stop of
 * its own), or whose parent process was killed (transport_status's
 * parent_lost), is an error that says so, never a pass or a failure.
 */
bool command_judge(const struct command_outcome *out, int64_t timeout_ms, const char *what,
		   const char *last_stderr, struct test_result *tr);
/* As command_judge, for a command whose exit status must be one that
 * expect's exit_code: lists (x NULL or without one: 0). */
bool command_judge_expect(const struct command_outcome *out, int64_t timeout_ms,
			  const char *what, const char *last_stderr,
			  const struct output_expect *x, struct test_result *tr);

/* Adds to tr->leftovers what the command (run with spec.reap) left running
 * and orch stopped, prefixed with step (e.g. "client step 'iperf3 -c'")
 * when not NULL, and logs a warning naming board. */
void command_leftovers(const struct command_outcome *out, const char *board, const char *step,
		       struct test_result *tr);

/* The test's rule for leftovers (leftovers: fail): a test that passed but
 * left processes running fails, naming them. */
void command_leftovers_verdict(const struct test *test, struct test_result *tr);

#endif
