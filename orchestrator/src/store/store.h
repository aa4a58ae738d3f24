#ifndef ORCH_STORE_STORE_H
#define ORCH_STORE_STORE_H
/*
 * The run folder (orch(1) THE RUN FOLDER, docs/results-json.md):
 *   RUNS_DIR/SCENARIO/YYYYMMDD-HHMMSS/   (a "-2", "-3" suffix if taken)
 *     run.json results.json journal.jsonl junit.xml summary.txt report.html
 *     BOARD/TEST/ stdout.log stderr.log result.json ... (util/log_dir.h)
 *   RUNS_DIR/SCENARIO/latest -> YYYYMMDD-HHMMSS
 *
 * The journal (journal.jsonl) is the run's record while it goes on: a
 * header line, then one line per finished test holding its whole result,
 * appended and handed to the kernel as the test ends (so a SIGKILL loses
 * nothing that finished), and an end line when the run ends. Its space is
 * reserved ahead (fallocate), so a disk that logs fill up still takes the
 * next results. results.json is rebuilt from the journal at most once a
 * second (less often as it grows, so the bytes written stay proportional to
 * the results) and once at the end from the caller's run. The journal is
 * synced at most once a second; the run's own files are written whole
 * (temp file, fsync, rename, fsync of the folder); a test's result.json is
 * written whole without the syncs (the journal holds the same result).
 * store_journal_load() reads a journal back: `orch report` rebuilds a
 * killed run's results.json and reports from it.
 * Thread-safe: the scheduler's workers call store_save_test concurrently;
 * the work per result does not grow with the number of results.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "result/result.h"

struct store;

#define STORE_JOURNAL "journal.jsonl"

/* Creates the run folder. Returns the store (caller frees with store_close)
 * or NULL with a message in err. run->run_id is set from the folder name. */
struct store *store_create(const char *runs_dir, const char *scenario_name,
			   struct run_result *run, char *err, size_t errlen);
const char *store_path(const struct store *st);   /* the run folder */

/* Opens the journal with run's header (scenario, run_id, host, start,
 * baseline) and writes an empty results.json. Called once before the first
 * test; store_save_test calls it itself if it was not. 0 or -1 + err. */
int store_start(struct store *st, const struct run_result *run, char *err, size_t errlen);

/* Creates and returns BOARD/TEST/ inside the run folder (caller frees);
 * names are made path-safe (fs_safe_name). */
char *store_test_dir(struct store *st, const char *board, const char *test, char *err, size_t errlen);
/* "BOARD/TEST" as store_test_dir names it, relative to the run folder: what
 * goes in test_result.log_dir (caller frees). */
char *store_log_dir(const char *board, const char *test);

/* Records a finished test: a journal line, BOARD/TEST/result.json, and now
 * and then a new results.json. Reads only run's header (for store_start)
 * and does not keep tr. 0, or -1 + err when any of it could not be written
 * (the store remembers it: store_failed). */
int store_save_test(struct store *st, const struct run_result *run, const struct test_result *tr,
		    char *err, size_t errlen);
/* Called about once a second while the run goes on (outside the
 * scheduler's lock): syncs the journal and rebuilds results.json if results
 * have waited long enough. Errors are remembered (store_failed). */
void store_tick(struct store *st);
/* Ctrl-C came: results.json is written again at once saying interrupted
 * (exit code 130), and so is every rebuild after it, so a run that is then
 * killed outright still leaves a results.json that says it was cut short. */
void store_mark_interrupted(struct store *st);
/* Writes run.json. Steals the caller's reference to run_json (it is
 * released here, also on error); it must hold no secrets. */
int store_save_run_json(struct store *st, json_t *run_json, char *err, size_t errlen);
/* The end line of the journal, then the final results.json from run (all
 * of it, in run's order). 0 or -1 + err. */
int store_finish(struct store *st, const struct run_result *run, char *err, size_t errlen);
/* Points RUNS_DIR/SCENARIO/latest at this run. Something else called
 * latest (a folder, a file) is left alone: -1 + err. */
int store_link_latest(struct store *st, char *err, size_t errlen);
/*
 * Run folders a run did not create as it started, and the files every
 * finish writes (store/folder.c). Nothing outside store/ writes into a run
 * folder: report/ renders text, store/ writes it.
 */
/* An existing run folder, to finish it again (orch report): results.json,
 * run.json and the reports are replaced whole; its journal is left as it
 * is. NULL + err when run_dir is not a folder. */
struct store *store_open(const char *run_dir, char *err, size_t errlen);
/* A new run folder at exactly dir (orch merge OUT), its parents created;
 * refused when dir exists (nothing there is touched). It keeps no journal.
 * run->run_id becomes dir's last component. NULL + err. */
struct store *store_create_at(const char *dir, struct run_result *run, char *err, size_t errlen);
/* Copies src (a folder, file or link) to NAME in the run folder, which must
 * not exist yet. 0, or -1 + err. */
int store_copy_in(struct store *st, const char *src, const char *name, char *err, size_t errlen);
/* Removes a folder store_create_at made (a merge that could not be
 * completed), then store_close. Any other store is only closed. */
void store_discard(struct store *st);
/* rel ("summary.txt", or "BOARD/TEST/NAME" with its folders created)
 * written whole into the run folder. 0, or -1 + err. */
int store_write_file(struct store *st, const char *rel, const void *data, size_t len,
		     char *err, size_t errlen);
/* The same a piece at a time (report.html is megabytes): store_file_open,
 * store_file_put as often as needed (its signature is a renderer's sink),
 * store_file_commit, which writes it whole or not at all and frees f. */
struct store_file;
struct store_file *store_file_open(struct store *st, const char *name, char *err,
				   size_t errlen);
void store_file_put(void *f, const void *data, size_t len);
int store_file_commit(struct store_file *f, char *err, size_t errlen);
/* Removes what a killed orch was writing when it died (its temporary
 * files) from the run folder and its BOARD/TEST folders. */
void store_remove_stale_tmp(struct store *st);

/* The first error any write of this store met, or NULL. */
const char *store_failed(struct store *st);
void store_close(struct store *st);

/* results.json from run into run_dir (written whole). 0 or -1 + err. */
int store_write_results(const char *run_dir, const struct run_result *run, char *err,
			size_t errlen);
/* results.json's text for run on f (orch run --format json), written one
 * result at a time. 0, or -1 + err when f did not take it all. */
int store_print_results(FILE *f, const struct run_result *run, char *err, size_t errlen);
/* Reads RUN_DIR/journal.jsonl into run (caller releases it): the header,
 * every whole result line in the order written, and the end line if the
 * run ended (else run->end_wall_us is 0). A last line cut short (a kill
 * mid-write) is left out and counted in *n_bad (may be NULL), as is any
 * line that is not a result. 0, or -1 + err (no journal, no header). */
int store_journal_load(const char *run_dir, struct run_result *run, size_t *n_bad, char *err,
		       size_t errlen);

/* For tests of the cost per result: what a store wrote, and a clock
 * (microseconds, monotonic) to decide when results.json is rebuilt. */
struct store_stats {
	uint64_t journal_bytes;
	uint64_t results_bytes;      /* all results.json written so far */
	uint64_t rebuilds;
};
void store_get_stats(struct store *st, struct store_stats *out);
void store_set_clock(struct store *st, int64_t (*clock_us)(void));

#endif
