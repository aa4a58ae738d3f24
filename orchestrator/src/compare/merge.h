#ifndef ORCH_COMPARE_MERGE_H
#define ORCH_COMPARE_MERGE_H
/*
 * merge: shard run folders (`orch run --shard K/N`, one controller per CI
 * job) joined into one run folder, as if one controller had run them all.
 * Like compare it only reads run folders back; it lives beside it.
 *
 * The merged folder OUT gets each shard's board folders (the top folder of
 * every result's log_dir, copied whole), one results.json holding every
 * shard's results in shard order (start = earliest start, end = latest end,
 * interrupted if any shard was, exit code recomputed with
 * run_result_exit_code), a run.json that names the shards (with each
 * shard's own run.json inside). The reports (summary.txt, junit.xml,
 * report.html) are the caller's: report_write_all() on the merged run.
 *
 * Refused, before anything is written: OUT exists (merge never writes into
 * an existing path), a shard cannot be read, shards of different scenarios,
 * a board present in two shards.
 */
#include <stddef.h>

#include "result/result.h"

/*
 * Merges shard_dirs[0..n_shards) into out_dir. Returns 0 with the merged
 * run in *merged (caller releases with run_result_release), or -1 with
 * err set and *merged empty; a half-written OUT is removed again.
 */
int merge_runs(const char *out_dir, char *const *shard_dirs, size_t n_shards,
	       struct run_result *merged, char *err, size_t errlen);

#endif
