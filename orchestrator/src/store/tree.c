/* Folders copied and removed whole, and what a killed writer left behind:
 * the store's own tools for run folders. */
#include "store/tree.h"
#include "util/errbuf.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t errlen)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errbuf_set(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		errbuf_set(err, errlen, "cannot create '%s': %s", dst, strerror(errno));
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
			ret = errbuf_set(err, errlen, "cannot read '%s': %s", src, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (fs_write_fd(out, buf, (size_t)n) < 0) {
			ret = errbuf_set(err, errlen,
					  "cannot write '%s': %s", dst, strerror(errno));
			break;
		}
	}
	if (close(out) < 0 && ret == 0)
		ret = errbuf_set(err, errlen, "cannot write '%s': %s", dst, strerror(errno));
	close(in);
	return ret;
}

int tree_copy(const char *src, const char *dst, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(src, &st) < 0)
		return errbuf_set(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, st.st_mode, err, errlen);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof(target) - 1);
		if (n < 0)
			return errbuf_set(err, errlen,
					  "cannot read link '%s': %s", src, strerror(errno));
		target[n] = '\0';
		if (symlink(target, dst) < 0)
			return errbuf_set(err, errlen,
					  "cannot create '%s': %s", dst, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;   /* sockets and fifos are not results */
	if (mkdir(dst, 0755) < 0)
		return errbuf_set(err, errlen,
				  "cannot create directory '%s': %s", dst, strerror(errno));
	DIR *d = opendir(src);
	if (!d)
		return errbuf_set(err, errlen, "cannot read '%s': %s", src, strerror(errno));
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *s = fs_path_join(src, de->d_name), *t = fs_path_join(dst, de->d_name);
		ret = tree_copy(s, t, err, errlen);
		free(s);
		free(t);
	}
	closedir(d);
	return ret;
}

void tree_remove(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *p = fs_path_join(path, de->d_name);
		tree_remove(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/* Whether name is a temporary file of a writer that is dead. */
static bool stale_tmp(const char *name)
{
	long pid;
	return fs_replace_tmp_name(name, &pid) && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

void tree_remove_stale_tmp(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = fs_path_join(dir, e->d_name);
		struct stat sb;
		if (lstat(path, &sb) == 0) {
			if (S_ISREG(sb.st_mode) && stale_tmp(e->d_name))
				unlink(path);
			else if (S_ISDIR(sb.st_mode) && depth > 0)
				tree_remove_stale_tmp(path, depth - 1);
		}
		free(path);
	}
	closedir(d);
}
