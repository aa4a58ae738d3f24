/* The files of orch copy (cli/adhoc_files.h). */
#include "cli/adhoc_files.h"
#include "cli/cli.h"
#include "util/fsutil.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add(struct local_files *f, const char *path, const char *dest, int mode)
{
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	f->v[f->n++] = (struct local_file){ xstrdup(path), xstrdup(dest), mode };
}

static int refuse(const char *path, const char *why)
{
	fprintf(stderr, "orch copy: %s: %s\n", path, why);
	return EXIT_USAGE;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every regular file under dir into f, dest its place under to. */
static int walk(const char *dir, const char *to, struct local_files *f, int depth)
{
	if (depth > 64)
		return refuse(dir, "folders nested more than 64 deep");
	DIR *d = opendir(dir);
	if (!d)
		return refuse(dir, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	int ret = EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		char *path = fs_path_join(dir, names[i]);
		char *dest = xasprintf("%s/%s", to, names[i]);
		struct stat st;
		if (ret != EXIT_OK)
			;
		else if (lstat(path, &st) < 0)
			ret = refuse(path, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ret = walk(path, dest, f, depth + 1);
		else if (S_ISREG(st.st_mode))
			add(f, path, dest, (int)(st.st_mode & 07777));
		else
			ret = refuse(path, "is a symbolic link or a device: only regular files and "
					   "folders are copied");
		free(path);
		free(dest);
		free(names[i]);
	}
	free(names);
	return ret;
}

int local_files_list(const char *src, const char *dest, bool recursive, struct local_files *out)
{
	memset(out, 0, sizeof(*out));
	struct stat st;
	if (stat(src, &st) < 0)
		return refuse(src, strerror(errno));
	size_t dl = strlen(dest);
	int ret = EXIT_OK;
	if (S_ISDIR(st.st_mode)) {
		if (!recursive)
			return refuse(src, "is a folder (give -r to copy its tree)");
		char *to = xstrndup(dest, dl > 1 && dest[dl - 1] == '/' ? dl - 1 : dl);
		ret = walk(src, to, out, 0);
		free(to);
		if (ret == EXIT_OK && !out->n)
			ret = refuse(src, "holds no file");
	} else if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
		char *to = dest[dl - 1] == '/' ? xasprintf("%s%s", dest, base) : xstrdup(dest);
		add(out, src, to, (int)(st.st_mode & 07777));
		free(to);
	} else {
		ret = refuse(src, "is not a regular file or a folder");
	}
	if (ret != EXIT_OK)
		local_files_release(out);
	return ret;
}

void local_files_release(struct local_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].dest);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}
