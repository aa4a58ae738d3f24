#include "util/fsutil.h"
#include "util/strbuf.h"

#include <pwd.h>
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

int fs_write_fd(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_fsync_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "cannot open folder", dir);
	int ret = 0;
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = fail(err, errlen, "cannot sync folder", dir);
	close(fd);
	return ret;
}

#define FS_ATOMIC_BUF 65536

int fs_replace_open(struct fs_replace *a, const char *path, char *err, size_t errlen)
{
	static atomic_ulong n_writes;
	memset(a, 0, sizeof(*a));
	a->tmp = xasprintf("%s.tmp.%ld.%lu", path, (long)getpid(),
			   atomic_fetch_add(&n_writes, 1));
	a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (a->fd < 0) {
		fail(err, errlen, "cannot create", a->tmp);
		free(a->tmp);
		a->tmp = NULL;
		return -1;
	}
	a->path = xstrdup(path);
	return 0;
}

bool fs_replace_tmp_name(const char *name, long *pid)
{
	const char *t = strstr(name, ".tmp.");
	if (!t)
		return false;
	char *end;
	*pid = strtol(t + 5, &end, 10);
	if (*pid <= 0 || *end != '.' || !end[1])
		return false;
	for (const char *p = end + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static void replace_flush(struct fs_replace *a)
{
	if (!a->error && a->len && fs_write_fd(a->fd, a->buf, a->len) < 0)
		a->error = errno;
	a->len = 0;
}

void fs_replace_write(struct fs_replace *a, const void *data, size_t len)
{
	if (a->error)
		return;
	if (a->len + len > FS_ATOMIC_BUF) {
		replace_flush(a);
		if (len > FS_ATOMIC_BUF) {
			if (!a->error && fs_write_fd(a->fd, data, len) < 0)
				a->error = errno;
			return;
		}
	}
	if (!a->buf)
		a->buf = xmalloc(FS_ATOMIC_BUF);
	memcpy(a->buf + a->len, data, len);
	a->len += len;
}

static void replace_release(struct fs_replace *a)
{
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	free(a->tmp);
	free(a->buf);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}

void fs_replace_abort(struct fs_replace *a)
{
	if (a->tmp)
		unlink(a->tmp);
	replace_release(a);
}

int fs_replace_commit(struct fs_replace *a, char *err, size_t errlen)
{
	int ret = -1;
	replace_flush(a);
	if (!a->error && !a->nosync && fsync(a->fd) < 0)
		a->error = errno;
	if (close(a->fd) < 0 && !a->error)
		a->error = errno;
	a->fd = -1;
	if (a->error) {
		errno = a->error;
		fail(err, errlen, "cannot write", a->tmp);
		goto out;
	}
	if (rename(a->tmp, a->path) < 0) {
		fail(err, errlen, "cannot rename to", a->path);
		goto out;
	}
	ret = 0;
	if (!a->nosync) {
		char *dir = fs_dirname(a->path);
		ret = fs_fsync_dir(dir, err, errlen);
		free(dir);
	}
out:
	if (ret < 0 && a->tmp)
		unlink(a->tmp);
	replace_release(a);
	return ret;
}

int fs_replace_file(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	struct fs_replace a;
	if (fs_replace_open(&a, path, err, errlen) < 0)
		return -1;
	fs_replace_write(&a, data, len);
	return fs_replace_commit(&a, err, errlen);
}

int fs_replace_file_nosync(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	struct fs_replace a;
	if (fs_replace_open(&a, path, err, errlen) < 0)
		return -1;
	a.nosync = 1;
	fs_replace_write(&a, data, len);
	return fs_replace_commit(&a, err, errlen);
}

/* The common case (the parent exists) is one mkdir; the walk up only when
 * a parent is missing. */
int fs_mkdir_p(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return fail(err, errlen, "cannot create directory", path);
	char *parent = fs_dirname(path);
	int ret = strcmp(parent, path) == 0 ? -1 : fs_mkdir_p(parent, err, errlen);
	free(parent);
	if (ret < 0)
		return ret;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return fail(err, errlen, "cannot create directory", path);
	return 0;
}

int fs_replace_symlink(const char *target, const char *linkpath, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.tmp.%ld", linkpath, (long)getpid());
	int ret = 0;
	unlink(tmp);
	if (symlink(target, tmp) < 0)
		ret = fail(err, errlen, "cannot create link", tmp);
	else if (rename(tmp, linkpath) < 0) {
		ret = fail(err, errlen, "cannot rename to", linkpath);
		unlink(tmp);
	} else {
		char *dir = fs_dirname(linkpath);
		ret = fs_fsync_dir(dir, err, errlen);
		free(dir);
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

const char *fs_kind_name(unsigned mode)
{
	mode_t m = (mode_t)mode;
	return S_ISREG(m) ? "a regular file" : S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory"
	       : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket"
	       : "a special file";
}

int fs_open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	struct stat sb = { 0 };
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (err)
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		if (err)
			snprintf(err, errlen, "'%s' is not a regular file, found %s", path,
				 fs_kind_name(sb.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (st)
		*st = sb;
	return fd;
}

void fs_owner_text(uid_t uid, char *buf, size_t len)
{
	struct passwd pwd, *pw = NULL;
	char pbuf[1024];
	if (getpwuid_r(uid, &pwd, pbuf, sizeof(pbuf), &pw) == 0 && pw)
		snprintf(buf, len, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}
