#include "compare/merge.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct shard {
	const char *dir;
	struct run_result run;
	char **tops;              /* top folders of its results' log_dirs */
	size_t n_tops;
};

static int errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t errlen)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errf(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		errf(err, errlen, "cannot create '%s': %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	int ret = 0;
	char buf[65536];
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = errf(err, errlen, "cannot read '%s': %s", src, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n; ) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = errf(err, errlen, "cannot write '%s': %s", dst,
					   strerror(errno));
				goto out;
			}
			off += w;
		}
	}
out:
	if (close(out) < 0 && ret == 0)
		ret = errf(err, errlen, "cannot write '%s': %s", dst, strerror(errno));
	close(in);
	return ret;
}

/* Copies src (a folder, file or symlink) to dst, which must not exist. */
static int copy_tree(const char *src, const char *dst, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(src, &st) < 0)
		return errf(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, st.st_mode, err, errlen);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof(target) - 1);
		if (n < 0)
			return errf(err, errlen, "cannot read link '%s': %s", src, strerror(errno));
		target[n] = '\0';
		if (symlink(target, dst) < 0)
			return errf(err, errlen, "cannot create '%s': %s", dst, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;   /* sockets and fifos are not results */
	if (mkdir(dst, 0755) < 0)
		return errf(err, errlen, "cannot create directory '%s': %s", dst, strerror(errno));
	DIR *d = opendir(src);
	if (!d)
		return errf(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *s = fs_path_join(src, de->d_name), *t = fs_path_join(dst, de->d_name);
		ret = copy_tree(s, t, err, errlen);
		free(s);
		free(t);
	}
	closedir(d);
	return ret;
}

/* rm -r of a folder this merge created. */
static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			char *p = fs_path_join(path, de->d_name);
			remove_tree(p);
			free(p);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

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
static int collect_tops(struct shard *sh, char *err, size_t errlen)
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
			return errf(err, errlen, "%s: log_dir '%s' is outside the run folder",
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

static int check_shards(struct shard *sh, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			const char *si = sh[i].run.scenario, *sj = sh[j].run.scenario;
			if (si && sj && strcmp(si, sj) != 0)
				return errf(err, errlen, "shards of different scenarios: '%s' and '%s'",
					    sj, si);
			for (size_t k = 0; k < sh[i].run.n_results; k++) {
				const char *board = sh[i].run.results[k].board;
				if (board && has_board(&sh[j].run, board))
					return errf(err, errlen, "board '%s' is in two shards, '%s' and '%s'",
						    board, sh[j].dir, sh[i].dir);
			}
			for (size_t k = 0; k < sh[i].n_tops; k++)
				if (in_list(sh[j].tops, sh[j].n_tops, sh[i].tops[k]))
					return errf(err, errlen, "folder '%s' is in two shards, '%s' and '%s'",
						    sh[i].tops[k], sh[j].dir, sh[i].dir);
		}
	}
	return 0;
}

static char *base_name(const char *path)
{
	char *copy = xstrdup(path);
	size_t len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	const char *slash = strrchr(copy, '/');
	char *name = xstrdup(slash && slash[1] ? slash + 1 : copy);
	free(copy);
	return name;
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
static void merge_header(struct run_result *m, const char *out_dir, struct shard *sh, size_t n)
{
	struct strbuf hosts = STRBUF_INIT;
	char **seen = xcalloc(n, sizeof(*seen));
	size_t n_seen = 0;
	m->run_id = base_name(out_dir);
	for (size_t i = 0; i < n; i++) {
		const struct run_result *r = &sh[i].run;
		if (!m->scenario)
			m->scenario = xstrdup(r->scenario);
		if (!m->orch_version)
			m->orch_version = xstrdup(r->orch_version);
		if (!m->baseline)
			m->baseline = xstrdup(r->baseline);
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

static json_t *run_json(const struct run_result *m, struct shard *sh, size_t n)
{
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

static int write_json(const char *dir, const char *name, json_t *j, char *err, size_t errlen)
{
	char *text = result_json_dump(j);
	char *path = fs_path_join(dir, name);
	int ret = text ? fs_replace_file(path, text, strlen(text), err, errlen)
		       : errf(err, errlen, "cannot encode '%s'", path);
	free(text);
	free(path);
	return ret;
}

int merge_runs(const char *out_dir, char *const *shard_dirs, size_t n_shards,
	       struct run_result *merged, char *err, size_t errlen)
{
	struct shard *sh = xcalloc(n_shards ? n_shards : 1, sizeof(*sh));
	bool created = false;
	int ret = -1;
	struct stat st;
	json_t *rj = NULL;

	memset(merged, 0, sizeof(*merged));
	if (n_shards == 0) {
		errf(err, errlen, "no run folders to merge");
		goto out;
	}
	if (lstat(out_dir, &st) == 0) {
		errf(err, errlen, "'%s' already exists; merge writes a new folder only",
		     out_dir);
		goto out;
	}
	for (size_t i = 0; i < n_shards; i++) {
		sh[i].dir = shard_dirs[i];
		if (run_result_load(shard_dirs[i], &sh[i].run, err, errlen) < 0 ||
		    collect_tops(&sh[i], err, errlen) < 0)
			goto out;
	}
	if (check_shards(sh, n_shards, err, errlen) < 0)
		goto out;

	char *parent = fs_dirname(out_dir);
	int mk = fs_mkdir_p(parent, err, errlen);
	free(parent);
	if (mk < 0)
		goto out;
	if (mkdir(out_dir, 0755) < 0) {
		errf(err, errlen, "cannot create '%s': %s", out_dir, strerror(errno));
		goto out;
	}
	created = true;

	for (size_t i = 0; i < n_shards; i++) {
		for (size_t k = 0; k < sh[i].n_tops; k++) {
			char *src = fs_path_join(sh[i].dir, sh[i].tops[k]);
			char *dst = fs_path_join(out_dir, sh[i].tops[k]);
			int rc = lstat(src, &st) == 0 ? copy_tree(src, dst, err, errlen) : 0;
			free(src);
			free(dst);
			if (rc < 0)
				goto out;
		}
	}

	merge_header(merged, out_dir, sh, n_shards);
	for (size_t i = 0; i < n_shards; i++)
		for (size_t k = 0; k < sh[i].run.n_results; k++)
			run_result_take(merged, &sh[i].run.results[k]);
	merged->exit_code = run_result_exit_code(merged);

	json_t *results = run_result_to_json(merged);
	int rc = write_json(out_dir, "results.json", results, err, errlen);
	json_decref(results);
	if (rc < 0)
		goto out;
	rj = run_json(merged, sh, n_shards);
	if (write_json(out_dir, "run.json", rj, err, errlen) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0) {
		if (created)
			remove_tree(out_dir);
		run_result_release(merged);
		memset(merged, 0, sizeof(*merged));
	}
	json_decref(rj);
	for (size_t i = 0; i < n_shards; i++) {
		run_result_release(&sh[i].run);
		for (size_t k = 0; k < sh[i].n_tops; k++)
			free(sh[i].tops[k]);
		free(sh[i].tops);
	}
	free(sh);
	return ret;
}
