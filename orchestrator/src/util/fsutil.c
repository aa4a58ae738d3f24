#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *what, const char *path)
{
	if (err && errlen)
		snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
	return -1;
}

int fs_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	static atomic_ulong n_writes;
	char *tmp = xasprintf("%s.tmp.%ld.%lu", path, (long)getpid(),
			      atomic_fetch_add(&n_writes, 1));
	int ret = -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fail(err, errlen, "cannot create", tmp);
		goto out;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(err, errlen, "cannot write", tmp);
			close(fd);
			unlink(tmp);
			goto out;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fail(err, errlen, "cannot write", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		fail(err, errlen, "cannot rename to", path);
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

int fs_mkdir_p(const char *path, char *err, size_t errlen)
{
	char *copy = xstrdup(path);
	int ret = 0;
	for (char *p = copy + (*copy != '\0'); ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
			ret = fail(err, errlen, "cannot create directory", copy);
			break;
		}
		*p = saved;
		if (!saved)
			break;
	}
	free(copy);
	return ret;
}

int fs_symlink_atomic(const char *target, const char *linkpath, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%ld", linkpath, (long)getpid());
	int ret = 0;
	unlink(tmp);
	if (symlink(target, tmp) < 0)
		ret = fail(err, errlen, "cannot create link", tmp);
	else if (rename(tmp, linkpath) < 0) {
		ret = fail(err, errlen, "cannot rename to", linkpath);
		unlink(tmp);
	}
	free(tmp);
	return ret;
}

char *fs_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

char *fs_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *fs_resolve_path(const char *path, const char *base_dir)
{
	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
		const char *home = getenv("HOME");
		return xasprintf("%s%s", home ? home : "", path + 1);
	}
	if (path[0] == '/' || !base_dir)
		return xstrdup(path);
	return fs_path_join(base_dir, path);
}

char *fs_safe_name(const char *name)
{
	char *s = xstrdup(name);
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	if (s[0] == '.')
		s[0] = '_';
	return s;
}
