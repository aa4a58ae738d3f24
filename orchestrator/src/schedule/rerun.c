#include "schedule/rerun.h"
#include "result/result_json.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *const only_names[] = {
	[RERUN_BOTH] = "both", [RERUN_FAILED] = "failed", [RERUN_ERROR] = "error",
};

const char *rerun_only_name(enum rerun_only only)
{
	return only_names[only];
}

int rerun_only_parse(const char *name, enum rerun_only *only)
{
	for (size_t i = 0; i < sizeof(only_names) / sizeof(only_names[0]); i++)
		if (!strcmp(name, only_names[i])) {
			*only = (enum rerun_only)i;
			return 0;
		}
	return -1;
}

static bool wanted(const struct test_result *tr, enum rerun_only only)
{
	bool failed = tr->status == STATUS_FAIL || (tr->regressed && tr->status != STATUS_ERROR);
	bool errored = tr->status == STATUS_ERROR || tr->board_offline;
	return only == RERUN_FAILED ? failed : only == RERUN_ERROR ? errored : failed || errored;
}

int rerun_load(const char *run_dir, enum rerun_only only, struct rerun_set *set, char *err,
	       size_t errlen)
{
	memset(set, 0, sizeof(*set));
	struct run_result run;
	if (run_result_load(run_dir, &run, err, errlen) < 0)
		return -1;
	set->run_dir = xstrdup(run_dir);
	set->n_results = run.n_results;
	set->pairs = xcalloc(run.n_results ? run.n_results : 1, sizeof(*set->pairs));
	for (size_t i = 0; i < run.n_results; i++) {
		const struct test_result *tr = &run.results[i];
		if (!wanted(tr, only))
			continue;
		set->pairs[set->n].board = xstrdup(tr->board);
		set->pairs[set->n].test = xstrdup(tr->test);
		set->n++;
	}
	run_result_release(&run);
	return 0;
}

void rerun_set_release(struct rerun_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->pairs[i].board);
		free(set->pairs[i].test);
	}
	free(set->pairs);
	free(set->run_dir);
	memset(set, 0, sizeof(*set));
}

static bool in_set(const struct rerun_set *set, const char *board, const char *test, bool *seen)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->pairs[i].board, board) && !strcmp(set->pairs[i].test, test)) {
			seen[i] = true;
			return true;
		}
	return false;
}

static void item_release(struct plan_item *it)
{
	for (size_t r = 0; r < it->n_roles; r++)
		free(it->roles[r].boards);
	free(it->roles);
}

void rerun_filter_plan(struct plan *p, const struct rerun_set *set, size_t *missing)
{
	bool *seen = xcalloc(set->n ? set->n : 1, sizeof(*seen));
	size_t nb = 0;
	p->n_items = p->n_skips = 0;
	for (size_t b = 0; b < p->n_boards; b++) {
		struct plan_board pb = p->boards[b];
		size_t ni = 0;
		for (size_t i = 0; i < pb.n_items; i++) {
			struct plan_item *it = &pb.items[i];
			if (!in_set(set, pb.board->name, it->test->name, seen)) {
				item_release(it);
				continue;
			}
			p->n_skips += it->skip_reason != NULL;
			pb.items[ni++] = *it;
		}
		pb.n_items = ni;
		p->n_items += ni;
		if (ni)
			p->boards[nb++] = pb;
		else
			free(pb.items);
	}
	p->n_boards = nb;
	size_t miss = 0;
	for (size_t i = 0; i < set->n; i++)
		miss += !seen[i];
	if (missing)
		*missing = miss;
	free(seen);
}
