/* A merged run's end: shard folders read back (compare/merge), the new
 * folder written by store/, then the same finish as a run's. */
#include "finish/finish.h"

#include "compare/merge.h"
#include "result/exit_code.h"
#include "store/store.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *merged_run_json(void *ctx, const struct run_result *run)
{
	return merge_run_json(ctx, run);
}

/* Every shard's board folders into the new folder. */
static int copy_shards(struct store *st, const struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct merge_shard *sh = &m->shards[i];
		for (size_t k = 0; k < sh->n_tops; k++) {
			char *src = xasprintf("%s/%s", sh->dir, sh->tops[k]);
			int rc = access(src, F_OK) == 0 ? store_copy_in(st, src, sh->tops[k], err, errlen) : 0;
			free(src);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

/* A shard whose own exit code says the rack broke (3) keeps saying so in
 * the merged run even when no result of it shows why (a lost database, a
 * result that could not be written). */
static bool shard_infra(const struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->shards[i].run.exit_code == EXIT_INFRA)
			return true;
	return false;
}

int finish_merge(const char *out_dir, char *const *shard_dirs, size_t n_shards,
		 struct run_result *merged, char *err, size_t errlen)
{
	struct merge m;
	memset(merged, 0, sizeof(*merged));
	if (merge_load(&m, shard_dirs, n_shards, err, errlen) < 0)
		return -1;
	struct store *st = store_create_at(out_dir, merged, err, errlen);
	if (!st || copy_shards(st, &m, err, errlen) < 0) {
		store_discard(st);
		merge_release(&m);
		run_result_release(merged);
		memset(merged, 0, sizeof(*merged));
		return -1;
	}
	bool infra = shard_infra(&m);
	merge_take(&m, merged);
	struct finish_order ord;
	finish_order_load(shard_dirs[0], &ord);
	struct finish_options fo = {
		.forced_exit_code = -1,
		.infra_failed = infra,
		.stored = true,
		.run_json = merged_run_json,
		.run_json_ctx = &m,
	};
	finish_order_apply(&ord, &fo);
	finish_run(st, merged, &fo);
	finish_order_release(&ord);
	store_close(st);
	merge_release(&m);
	return 0;
}
