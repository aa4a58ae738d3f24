/* Run folders other than the one a run creates as it starts: an existing
 * folder finished again, a new one at a path given (a merge), and the
 * files every finish writes into them. */
#include "store/store.h"
#include "store/store_int.h"
#include "store/tree.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A store of folder path (taken), with no journal of its own. */
static struct store *store_of(char *path)
{
	struct store *st = xcalloc(1, sizeof(*st));
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	const char *slash = strrchr(path, '/');
	st->path = path;
	st->run_id = xstrdup(slash && slash[1] ? slash + 1 : path);
	st->scenario_dir = fs_dirname(path);
	st->clock_us = clock_mono_us;
	st->journal_fd = -1;
	st->started = true;   /* no journal: store_start has nothing to do */
	pthread_mutex_init(&st->lock, NULL);
	return st;
}

struct store *store_open(const char *run_dir, char *err, size_t errlen)
{
	struct stat sb;
	if (stat(run_dir, &sb) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", run_dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a run folder (%s)", run_dir,
			 fs_kind_name(sb.st_mode));
		return NULL;
	}
	return store_of(xstrdup(run_dir));
}

struct store *store_create_at(const char *dir, struct run_result *run, char *err, size_t errlen)
{
	struct stat sb;
	if (lstat(dir, &sb) == 0) {
		snprintf(err, errlen, "'%s' already exists; a new run folder goes to a new path only",
			 dir);
		return NULL;
	}
	char *parent = fs_dirname(dir);
	int mk = fs_mkdir_p(parent, err, errlen);
	free(parent);
	if (mk < 0)
		return NULL;
	if (mkdir(dir, 0755) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		return NULL;
	}
	struct store *st = store_of(xstrdup(dir));
	st->created = true;
	free(run->run_id);
	run->run_id = xstrdup(st->run_id);
	return st;
}

int store_copy_in(struct store *st, const char *src, const char *name, char *err, size_t errlen)
{
	char *dst = fs_path_join(st->path, name);
	int ret = tree_copy(src, dst, err, errlen);
	free(dst);
	return ret;
}

void store_discard(struct store *st)
{
	if (st && st->created)
		tree_remove(st->path);
	store_close(st);
}

int store_write_file(struct store *st, const char *rel, const void *data, size_t len,
		     char *err, size_t errlen)
{
	if (rel[0] == '/' || !strcmp(rel, "..") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
	    (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/.."))) {
		snprintf(err, errlen, "'%s' is outside the run folder", rel);
		return -1;
	}
	char *path = fs_path_join(st->path, rel);
	char *dir = fs_dirname(path);
	int ret = strchr(rel, '/') ? fs_mkdir_p(dir, err, errlen) : 0;
	if (ret == 0)
		ret = fs_replace_file(path, data, len, err, errlen);
	free(dir);
	free(path);
	return ret;
}

struct store_file {
	struct fs_replace w;
};

struct store_file *store_file_open(struct store *st, const char *name, char *err,
				   size_t errlen)
{
	struct store_file *f = xcalloc(1, sizeof(*f));
	char *path = fs_path_join(st->path, name);
	int ret = fs_replace_open(&f->w, path, err, errlen);
	free(path);
	if (ret < 0) {
		free(f);
		return NULL;
	}
	return f;
}

void store_file_put(void *file, const void *data, size_t len)
{
	struct store_file *f = file;
	fs_replace_write(&f->w, data, len);
}

int store_file_commit(struct store_file *f, char *err, size_t errlen)
{
	int ret = fs_replace_commit(&f->w, err, errlen);
	free(f);
	return ret;
}

void store_remove_stale_tmp(struct store *st)
{
	tree_remove_stale_tmp(st->path, 2);
}
