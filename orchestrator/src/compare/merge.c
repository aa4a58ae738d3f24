/* Shard run folders read back and joined into one run (read only). */
#include "compare/merge.h"
#include "result/result_json.h"
#include "util/errbuf.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool in_list(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static bool has_board(const struct run_result *run, const char *board)
{
	for (size_t i = 0; i < run->n_results; i++)
		if (run->results[i].board && strcmp(run->results[i].board, board) == 0)
			return true;
	return false;
}

/* Collects the shard's top folders; refuses log_dirs that leave the run folder. */
static int collect_tops(struct merge_shard *sh, char *err, size_t errlen)
{
	for (size_t i = 0; i < sh->run.n_results; i++) {
		const char *ld = sh->run.results[i].log_dir;
		if (!ld || !*ld)
			continue;
		size_t len = strcspn(ld, "/");
		char *top = xstrndup(ld, len);
		if (ld[0] == '/' || strcmp(top, ".") == 0 || strcmp(top, "..") == 0 ||
		    strstr(ld, "/../") || strcmp(ld + len, "/..") == 0) {
			free(top);
			return errbuf_set(err, errlen, "%s: log_dir '%s' is outside the run folder",
				    sh->dir, ld);
		}
		if (in_list(sh->tops, sh->n_tops, top)) {
			free(top);
			continue;
		}
		sh->tops = xrealloc(sh->tops, (sh->n_tops + 1) * sizeof(*sh->tops));
		sh->tops[sh->n_tops++] = top;
	}
	return 0;
}

static int check_shards(struct merge_shard *sh, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			const char *si = sh[i].run.scenario, *sj = sh[j].run.scenario;
			if (si && sj && strcmp(si, sj) != 0)
				return errbuf_set(err, errlen,
						  "shards of different scenarios: '%s' and '%s'",
						  sj, si);
			for (size_t k = 0; k < sh[i].run.n_results; k++) {
				const char *board = sh[i].run.results[k].board;
				if (board && has_board(&sh[j].run, board))
					return errbuf_set(err, errlen,
							  "board '%s' is in two shards, '%s' and '%s'",
							  board, sh[j].dir, sh[i].dir);
			}
			for (size_t k = 0; k < sh[i].n_tops; k++)
				if (in_list(sh[j].tops, sh[j].n_tops, sh[i].tops[k]))
					return errbuf_set(err, errlen,
							  "folder '%s' is in two shards, '%s' and '%s'",
							  sh[i].tops[k], sh[j].dir, sh[i].dir);
		}
	}
	return 0;
}

static json_t *time_json(int64_t wall_us)
{
	if (!wall_us)
		return json_null();
	char *iso = result_time_iso(wall_us);
	json_t *j = json_string(iso);
	free(iso);
	return j;
}

static json_t *load_json_file(const char *dir, const char *name)
{
	char *path = fs_path_join(dir, name);
	json_t *j = json_load_file(path, 0, NULL);
	free(path);
	return j ? j : json_null();
}

/* The merged run's header from the shards' (results not yet moved). */
static void merge_header(struct run_result *m, const struct merge_shard *sh, size_t n)
{
	struct strbuf hosts = STRBUF_INIT;
	char **seen = xcalloc(n, sizeof(*seen));
	size_t n_seen = 0;
	for (size_t i = 0; i < n; i++) {
		const struct run_result *r = &sh[i].run;
		if (!m->scenario)
			m->scenario = xstrdup(r->scenario);
		if (!m->orch_version)
			m->orch_version = xstrdup(r->orch_version);
		if (!m->baseline)
			m->baseline = xstrdup(r->baseline);
		if (!m->label)
			m->label = xstrdup(r->label);
		for (size_t k = 0; k < r->n_facts; k++)
			if (!run_result_facts(m, r->facts[k].board))
				run_result_put_facts(m, &r->facts[k]);
		if (!m->baseline_kind && r->baseline_kind) {
			m->baseline_kind = r->baseline_kind;
			m->baseline_name = xstrdup(r->baseline_name);
		}
		if (r->host && !in_list(seen, n_seen, r->host)) {
			seen[n_seen++] = r->host;
			strbuf_printf(&hosts, "%s%s", hosts.len ? "," : "", r->host);
		}
		if (r->start_wall_us && (!m->start_wall_us || r->start_wall_us < m->start_wall_us))
			m->start_wall_us = r->start_wall_us;
		if (r->end_wall_us > m->end_wall_us)
			m->end_wall_us = r->end_wall_us;
		m->interrupted = m->interrupted || r->interrupted;
	}
	m->host = hosts.len ? strbuf_detach(&hosts) : NULL;
	strbuf_release(&hosts);
	free(seen);
}

json_t *merge_run_json(const struct merge *mg, const struct run_result *m)
{
	const struct merge_shard *sh = mg->shards;
	size_t n = mg->n;
	json_t *shards = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct run_result *r = &sh[i].run;
		char *abs = realpath(sh[i].dir, NULL);
		json_t *o = json_pack("{s:s, s:s?, s:s?, s:o, s:o, s:i, s:b, s:I, s:o}",
				      "path", abs ? abs : sh[i].dir,
				      "run_id", r->run_id, "host", r->host,
				      "start", time_json(r->start_wall_us),
				      "end", time_json(r->end_wall_us),
				      "exit_code", r->exit_code,
				      "interrupted", r->interrupted,
				      "results", (json_int_t)r->n_results,
				      "run", load_json_file(sh[i].dir, "run.json"));
		free(abs);
		json_array_append_new(shards, o);
	}
	return json_pack("{s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:i, s:b, s:o}",
			 "orch_version", m->orch_version, "scenario", m->scenario,
			 "run_id", m->run_id, "host", m->host,
			 "start", time_json(m->start_wall_us), "end", time_json(m->end_wall_us),
			 "exit_code", m->exit_code, "interrupted", m->interrupted,
			 "merged_from", shards);
}

int merge_load(struct merge *m, char *const *shard_dirs, size_t n_shards, char *err,
	       size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (n_shards == 0)
		return errbuf_set(err, errlen, "no run folders to merge");
	m->shards = xcalloc(n_shards, sizeof(*m->shards));
	m->n = n_shards;
	for (size_t i = 0; i < n_shards; i++) {
		m->shards[i].dir = shard_dirs[i];
		if (run_result_load(shard_dirs[i], &m->shards[i].run, err, errlen) < 0 ||
		    collect_tops(&m->shards[i], err, errlen) < 0)
			goto fail;
	}
	if (check_shards(m->shards, n_shards, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	merge_release(m);
	return -1;
}

void merge_take(struct merge *m, struct run_result *merged)
{
	merge_header(merged, m->shards, m->n);
	for (size_t i = 0; i < m->n; i++) {
		for (size_t k = 0; k < m->shards[i].run.n_results; k++)
			run_result_take(merged, &m->shards[i].run.results[k]);
		m->shards[i].run.n_results = 0;
	}
}

void merge_release(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		run_result_release(&m->shards[i].run);
		for (size_t k = 0; k < m->shards[i].n_tops; k++)
			free(m->shards[i].tops[k]);
		free(m->shards[i].tops);
	}
	free(m->shards);
	memset(m, 0, sizeof(*m));
}
