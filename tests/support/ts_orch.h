#ifndef ORCH_TS_ORCH_H
#define ORCH_TS_ORCH_H
/*
 * Running orch itself in an integration test: a scratch folder that holds
 * the inventory, the scenarios and the run folders (DIR/runs), a scenario
 * written there, `orch run` of it, and what the run left.
 */
#include <jansson.h>
#include <sys/types.h>

#include "util/strbuf.h"

/* A scratch folder named after PREFIX, mode 0755 (a lab board's user reads
 * what is pushed from it), with ORCH_LOCK_DIR set to DIR/locks so the runs
 * lock their boards in it. Caller frees (after ts_rmrf). */
char *ts_orch_dir(const char *prefix);
/* Writes TEXT to DIR/NAME.yaml; returns that path (caller frees). */
char *ts_write_scenario(const char *dir, const char *name, const char *text);
/* Appends an inventory of N local boards to SB: "boards:\n" and a line
 * "  PREFIX1: { local: true }" a board, the number WIDTH digits at least
 * (zero-padded). */
void ts_local_boards(struct strbuf *sb, const char *prefix, int width, int n);
/* The rack of the tests at rack scale: TS_RACK_BOARDS local boards. */
#define TS_RACK_BOARDS 64
/* A scratch folder (ts_mkdtemp, named after PREFIX) holding
 * inventory.yaml: the rack's boards b1..b64, tagged rack. Caller frees
 * (after ts_rmrf). */
char *ts_rack_dir(const char *prefix);
/* The start of a scenario NAME (a string literal) on that folder's boards:
 * inventory.yaml, boards [tag:rack], a 60 s timeout, then "tests:\n". */
#define TS_RACK_HEAD(name) \
	"name: " name "\ninventory: inventory.yaml\nboards: [tag:rack]\n" \
	"defaults: { timeout: 60s }\ntests:\n"
/* Writes DIR/NAME.yaml: scenario NAME on inventory rack.yaml, on the
 * boards SELECTOR matches, with `defaults: { DEFAULTS }` and the TESTS
 * list ("  - name: ...\n"). Returns its path (caller frees). */
char *ts_rack_scenario(const char *dir, const char *name, const char *selector,
		       const char *defaults, const char *tests);
/* results.json of DIR/runs/NAME/latest (caller json_decref), NULL (the
 * reason on stderr) when there is none. */
json_t *ts_orch_results(const char *dir, const char *name);
/* Writes TEXT to DIR/NAME.yaml and runs `orch run OPTS DIR/NAME.yaml -o
 * DIR/runs` to its end, stdout and stderr into *out (freed by the caller;
 * OUT may be NULL). Fails the current test, with that output, unless orch
 * exits WANT_RC; returns the run's results.json as ts_orch_results. */
json_t *ts_orch_run(const char *dir, const char *name, const char *text, const char *opts,
		    int want_rc, char **out);
/* ts_orch_run of "name: NAME\ninventory: inv.yaml\nboards: [BOARDS]\n
 * tests:\nTESTS". */
json_t *ts_orch_run_tests(const char *dir, const char *name, const char *boards,
			  const char *tests, const char *opts, int want_rc, char **out);
/* A scratch folder for orch commands a test runs through the shell, each
 * after the prefix ENV: "cd TMP && ORCH_LOCK_DIR=TMP/locks" and what the
 * test adds (" ORCH_INVENTORY=inv.yaml", say). */
struct ts_orch_cli {
	char *tmp;
	char *env;
};

/* Makes the folder (named after PREFIX) and the prefix, with EXTRA
 * appended ("" for none). */
void ts_orch_cli_init(struct ts_orch_cli *c, const char *prefix, const char *extra);
/* Removes the folder and frees both. */
void ts_orch_cli_release(struct ts_orch_cli *c);

/* Runs "PREFIX ORCH_BIN ARGS 2>&1" (PREFIX: "cd DIR &&", an environment,
 * as ts_orch_cli's env); fails the current test, with the output, unless
 * orch exits WANT. Returns the output (caller frees). */
char *ts_orch_want(int want, const char *prefix, const char *args);

/* waitpid(PID) for at most MS: its exit status as ts_run gives it, -1 when
 * it still runs. */
int ts_wait_exit(pid_t pid, int ms);

#endif
