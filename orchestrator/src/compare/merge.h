#ifndef ORCH_COMPARE_MERGE_H
#define ORCH_COMPARE_MERGE_H
/*
 * merge: shard run folders (`orch run --shard K/N`, one controller per CI
 * job) read back and joined into one run, as if one controller had run
 * them all. Like compare it only reads run folders: the merged folder is
 * written by the finish stage (finish_merge), through store/.
 *
 * The merged run holds every shard's results in shard order (start =
 * earliest start, end = latest end, interrupted if any shard was, the
 * first shard's label and baseline, every board's facts; its exit code is
 * the finish stage's, from these results); its run.json names the shards
 * (with each shard's own run.json inside). Its folder gets the top folder
 * of every result's log_dir from its shard.
 *
 * Refused: a shard cannot be read, shards of different scenarios, a board
 * (or a top folder) present in two shards, a log_dir outside its run folder.
 */
#include <jansson.h>
#include <stddef.h>

#include "result/result.h"

struct merge_shard {
	const char *dir;          /* borrowed */
	struct run_result run;
	char **tops;              /* top folders of its results' log_dirs */
	size_t n_tops;
};

struct merge {
	struct merge_shard *shards;
	size_t n;
};

/* Reads and checks shard_dirs[0..n_shards). 0, or -1 + err (m empty). */
int merge_load(struct merge *m, char *const *shard_dirs, size_t n_shards, char *err,
	       size_t errlen);
/* The merged run into merged (zeroed by the caller; its run_id is kept):
 * the header from the shards, their results moved over. */
void merge_take(struct merge *m, struct run_result *merged);
/* The merged run's run.json (caller releases). */
json_t *merge_run_json(const struct merge *m, const struct run_result *merged);
void merge_release(struct merge *m);

#endif
