#ifndef ORCH_STORE_STORE_H
#define ORCH_STORE_STORE_H
/*
 * The run folder (DESIGN.md "A run folder"):
 *   RUNS_DIR/SCENARIO/YYYYMMDD-HHMMSS/   (a "-2", "-3" suffix if taken)
 *     run.json results.json junit.xml summary.txt report.html
 *     BOARD/TEST/ stdout.log stderr.log result.json ...
 *   RUNS_DIR/SCENARIO/latest -> YYYYMMDD-HHMMSS
 * Every file is written whole (fs_write_atomic). results.json is rewritten
 * after each finished test, so whatever finished before a crash or Ctrl-C
 * is on disk and valid. An existing folder is never written into.
 * Thread-safe: the scheduler's workers call it concurrently.
 */
#include <jansson.h>

#include "result/result.h"

struct store;

/* Creates the run folder. Returns the store (caller frees with store_close)
 * or NULL with a message in err. run->run_id is set from the folder name. */
struct store *store_create(const char *runs_dir, const char *scenario_name,
			   struct run_result *run, char *err, size_t errlen);
const char *store_path(const struct store *st);   /* the run folder */

/* Creates and returns BOARD/TEST/ inside the run folder (caller frees);
 * names are made path-safe (fs_safe_name). */
char *store_test_dir(struct store *st, const char *board, const char *test, char *err, size_t errlen);
/* "BOARD/TEST" as store_test_dir names it, relative to the run folder: what
 * goes in test_result.log_dir (caller frees). */
char *store_log_dir(const char *board, const char *test);

/* Writes BOARD/TEST/result.json and rewrites results.json: run's header
 * (scenario, run_id, host, start...) plus every test saved so far. Only the
 * header is read from run, and tr is copied, so workers may keep appending
 * to run while others save. */
int store_save_test(struct store *st, const struct run_result *run, const struct test_result *tr,
		    char *err, size_t errlen);
/* Writes run.json. Steals the caller's reference to run_json (it is
 * released here, also on error); it must hold no secrets. */
int store_save_run_json(struct store *st, json_t *run_json, char *err, size_t errlen);
/* Final results.json, then the latest link (reports are written by the
 * caller with report_write_all(), into store_path()). */
int store_finish(struct store *st, const struct run_result *run, char *err, size_t errlen);
void store_close(struct store *st);

#endif
