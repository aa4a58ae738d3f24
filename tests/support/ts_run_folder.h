#ifndef ORCH_TS_RUN_FOLDER_H
#define ORCH_TS_RUN_FOLDER_H
/*
 * A run folder written by the test itself, not by `orch run`, for the
 * tests of what reads one (compare, merge, report): a run_result filled
 * in the test, its results.json and run.json, and test logs beside them.
 */
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"

/* Zeroes RUN and gives it its header: scenario, run id, orch version,
 * host and wall-clock start and end (microseconds). */
void ts_run_folder_init(struct run_result *run, const char *scenario, const char *run_id,
			const char *version, const char *host, int64_t start_us, int64_t end_us);
/* Writes DIR/LOG_DIR/NAME with TEXT, the folders made as needed. */
void ts_run_folder_log(const char *dir, const char *log_dir, const char *name,
		       const char *text);
/* Makes DIR and writes there RUN's results.json (its exit code computed
 * first) and run.json with RUN_JSON; releases RUN. */
void ts_run_folder_write(const char *dir, struct run_result *run, const char *run_json);
/* The run folder's reports as the finish stage writes them (rendered by
 * report/, written by store/) for RUN in DIR: 0, or -1 with ERR filled. */
int ts_run_folder_reports(const struct run_result *run, const char *dir, char *err,
			  size_t errlen);

#endif
