#include "config/trust.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void trust_add(struct trust *t, const char *path)
{
	if (!path || !*path)
		return;
	if (!strcmp(path, "*")) {
		t->all = true;
		return;
	}
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;
	t->paths = xrealloc(t->paths, (t->n + 1) * sizeof(*t->paths));
	t->paths[t->n++] = xstrdup(p);
}

void trust_add_env(struct trust *t)
{
	const char *env = getenv("ORCH_TRUST");
	if (!env || !*env)
		return;
	char *copy = xstrdup(env), *save = NULL;
	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
		trust_add(t, p);
	free(copy);
}

void trust_release(struct trust *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->paths[i]);
	free(t->paths);
	*t = (struct trust)TRUST_INIT;
}

bool trust_given(const struct trust *t, const char *path)
{
	if (t->all)
		return true;
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->paths[i]);
		if (!strncmp(p, t->paths[i], l) &&
		    (p[l] == '\0' || p[l] == '/' || (l == 1 && t->paths[i][0] == '/')))
			return true;
	}
	return false;
}

const char *trust_hint(void)
{
	return "settings are read only from files that you or root own and no one else can "
	       "write; to use it anyway, name it (or a folder above it) in ORCH_TRUST or in "
	       "'trust:' of /etc/orch/config.yaml or ~/.config/orch/config.yaml";
}

static bool owner_ok(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

/* "SUBJECT is owned by alice (uid 1001) with mode 0644: REASON" */
static void say(const char *subject, const struct stat *st, const char *reason, char *why,
		size_t len)
{
	char who[128];
	fs_owner_text(st->st_uid, who, sizeof(who));
	snprintf(why, len, "%s is owned by %s with mode %04o: %s", subject, who,
		 (unsigned)(st->st_mode & 07777), reason);
}

static void say_not_yours(const char *subject, const struct stat *st, char *why, size_t len)
{
	char me[128], reason[200];
	fs_owner_text(geteuid(), me, sizeof(me));
	snprintf(reason, sizeof(reason), "not you (%s) or root", me);
	say(subject, st, reason, why, len);
}

static enum trust_verdict unreadable(const char *path, int err, char *why, size_t len)
{
	snprintf(why, len, "%s: %s", path, strerror(err));
	return TRUST_UNREADABLE;
}

/* After a failed open or stat: nothing there (TRUST_ABSENT), or something
 * there that cannot be read (a link to nothing, a folder we may not enter). */
static enum trust_verdict gone(const char *path, int err, char *why, size_t len)
{
	struct stat st;
	if ((err == ENOENT || err == ENOTDIR) && lstat(path, &st) != 0)
		return TRUST_ABSENT;
	if (err == ENOENT) {
		snprintf(why, len, "%s: %s (a symbolic link to nothing)", path, strerror(err));
		return TRUST_UNREADABLE;
	}
	return unreadable(path, err, why, len);
}

/* A file to read: a regular one, theirs, that no one else can write. */
static enum trust_verdict file_ok(const char *name, const struct stat *st, char *why, size_t len)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, len, "%s is not a regular file, found %s", name,
			 fs_kind_name(st->st_mode));
		return TRUST_REFUSED;
	}
	if (!owner_ok(st->st_uid)) {
		say_not_yours(name, st, why, len);
		return TRUST_REFUSED;
	}
	if (st->st_mode & 022) {
		say(name, st, "others can write it", why, len);
		return TRUST_REFUSED;
	}
	return TRUST_OK;
}

/* A folder: theirs, and no one else may rename what is in it (not
 * writable by others, or sticky); strict: no one else may add to it either. */
static enum trust_verdict folder_ok(const char *subject, const struct stat *st, bool strict,
				    char *why, size_t len)
{
	if (!owner_ok(st->st_uid)) {
		say_not_yours(subject, st, why, len);
		return TRUST_REFUSED;
	}
	if ((st->st_mode & 022) && (strict || !(st->st_mode & S_ISVTX))) {
		say(subject, st, st->st_mode & S_ISVTX ? "others can add files to it"
			: "others can write in it", why, len);
		return TRUST_REFUSED;
	}
	return TRUST_OK;
}

/* Every folder from dir (a resolved path) up to / passes folder_ok
 * (OpenSSH's safe_path); dir itself strictly when strict. first names
 * dir in a message ("its folder"; NULL: dir alone), the others are
 * "folder D". */
static enum trust_verdict chain_ok(const char *first, const char *dir, bool strict, char *why,
				   size_t len)
{
	char *d = xstrdup(dir);
	enum trust_verdict v = TRUST_OK;
	for (bool top = true; v == TRUST_OK; top = false) {
		struct stat st;
		char *subject = top && first ? xasprintf("%s %s", first, d)
				: top ? xstrdup(d) : xasprintf("folder %s", d);
		if (stat(d, &st) != 0)
			v = unreadable(subject, errno, why, len);
		else
			v = folder_ok(subject, &st, top && strict, why, len);
		free(subject);
		if (v != TRUST_OK || !strcmp(d, "/") || !strcmp(d, "."))
			break;
		char *up = fs_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	return v;
}

/* chain_ok of the folder that holds path (resolved). */
static enum trust_verdict parent_ok(const char *first, const char *path, char *why, size_t len)
{
	char *dir = fs_dirname(path);
	char real[PATH_MAX];
	enum trust_verdict v = realpath(dir, real) ? chain_ok(first, real, false, why, len)
			       : unreadable(dir, errno, why, len);
	free(dir);
	return v;
}

/* Each symbolic link on the way from path to what it names: its own,
 * or root's, in a folder that passes chain_ok, so no one else chose where
 * it points. At most 40 links, as the kernel follows. */
static enum trust_verdict links_ok(const char *path, char *why, size_t len)
{
	char *p = xstrdup(path);
	enum trust_verdict v = TRUST_OK;
	for (int hop = 0; hop < 40 && v == TRUST_OK; hop++) {
		struct stat st;
		char target[PATH_MAX], dir[PATH_MAX];
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			break;
		char *up = fs_dirname(p);
		const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		bool found = realpath(up, dir) != NULL;
		v = found ? TRUST_OK : unreadable(up, errno, why, len);
		free(up);
		if (v != TRUST_OK)
			break;
		char *link = fs_path_join(dir, base);
		char *subject = xasprintf("link %s", link);
		char *first = xasprintf("%s: its folder", subject);
		ssize_t n = readlink(p, target, sizeof(target) - 1);
		if (!owner_ok(st.st_uid)) {
			say_not_yours(subject, &st, why, len);
			v = TRUST_REFUSED;
		} else if ((v = chain_ok(first, dir, false, why, len)) == TRUST_OK && n < 0) {
			v = unreadable(subject, errno, why, len);
		}
		free(first);
		free(subject);
		free(link);
		if (v != TRUST_OK)
			break;
		target[n] = '\0';
		free(p);
		p = target[0] == '/' ? xstrdup(target) : fs_path_join(dir, target);
	}
	free(p);
	return v;
}

/* What the descriptor is open on, for messages and its folders. */
static void fd_path(int fd, const char *path, char *real, size_t len)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, real, len - 1);
	if (n > 0 && real[0] == '/') {
		real[n] = '\0';
		return;
	}
	char buf[PATH_MAX];
	snprintf(real, len, "%s", realpath(path, buf) ? buf : path);
}

/* The open file, the folders above it, and the links that led to it. */
static enum trust_verdict judge_open(int fd, const char *path, char *why, size_t len)
{
	struct stat st;
	char real[PATH_MAX];
	if (fstat(fd, &st) != 0)
		return unreadable(path, errno, why, len);
	fd_path(fd, path, real, sizeof(real));
	enum trust_verdict v = file_ok(real, &st, why, len);
	if (v == TRUST_OK)
		v = parent_ok("its folder", real, why, len);
	if (v == TRUST_OK)
		v = links_ok(path, why, len);
	return v;
}

enum trust_verdict trust_open(const struct trust *t, const char *path, int *fd, char *why,
			      size_t len)
{
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return gone(path, errno, why, len);
	enum trust_verdict v = trust_given(t, path) ? TRUST_OK : judge_open(*fd, path, why, len);
	if (v != TRUST_OK) {
		close(*fd);
		*fd = -1;
	}
	return v;
}

/* A path that does not exist yet, by the nearest folder above it that
 * does: whoever may add to that folder may create the path first. */
static enum trust_verdict nearest_ok(const char *path, char *why, size_t len)
{
	char *d = fs_dirname(path);
	enum trust_verdict v = TRUST_OK;
	for (;;) {
		struct stat st;
		if (stat(d, &st) == 0)
			break;
		if ((v = gone(d, errno, why, len)) != TRUST_ABSENT)
			goto out;
		char *up = fs_dirname(d);
		bool top = !strcmp(up, d);
		free(d);
		d = up;
		if (top)
			break;
	}
	char real[PATH_MAX];
	char *first = xasprintf("%s does not exist yet; its nearest folder", path);
	v = realpath(d, real) ? chain_ok(first, real, true, why, len)
	    : unreadable(d, errno, why, len);
	free(first);
	if (v == TRUST_OK)
		v = links_ok(d, why, len);
out:
	free(d);
	return v;
}

enum trust_verdict trust_file(const struct trust *t, const char *path, char *why, size_t len)
{
	if (trust_given(t, path))
		return TRUST_OK;
	int fd;
	enum trust_verdict v = trust_open(t, path, &fd, why, len);
	if (v == TRUST_OK)
		close(fd);
	return v == TRUST_ABSENT ? nearest_ok(path, why, len) : v;
}

enum trust_verdict trust_dir(const struct trust *t, const char *path, bool strict, char *why,
			     size_t len)
{
	if (trust_given(t, path))
		return TRUST_OK;
	struct stat st;
	char real[PATH_MAX];
	if (stat(path, &st) != 0) {
		enum trust_verdict v = gone(path, errno, why, len);
		return v == TRUST_ABSENT ? nearest_ok(path, why, len) : v;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a folder, found %s", path, fs_kind_name(st.st_mode));
		return TRUST_REFUSED;
	}
	if (!realpath(path, real))
		return unreadable(path, errno, why, len);
	enum trust_verdict v = chain_ok(NULL, real, strict, why, len);
	return v == TRUST_OK ? links_ok(path, why, len) : v;
}

struct walk {
	const struct trust *t;
	const char *top;
	size_t entries;
	char *why;
	size_t len;
};

static enum trust_verdict walk_dir(struct walk *w, const char *dir, int depth);

/* One entry of a folder already judged: only its owner could have put it
 * there, and only they can change it, so what fstatat saw is what stays. */
static enum trust_verdict walk_entry(struct walk *w, int dfd, const char *name, const char *path,
				     int depth)
{
	struct stat st;
	if (trust_given(w->t, path))
		return TRUST_OK;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return unreadable(path, errno, w->why, w->len);
	if (S_ISLNK(st.st_mode)) {
		struct stat target;
		if (stat(path, &target) != 0) {
			enum trust_verdict v = gone(path, errno, w->why, w->len);
			return v == TRUST_ABSENT ? TRUST_OK : v;
		}
		if (!S_ISDIR(target.st_mode))
			return trust_file(w->t, path, w->why, w->len);
		enum trust_verdict v = trust_dir(w->t, path, true, w->why, w->len);
		return v == TRUST_OK ? walk_dir(w, path, depth + 1) : v;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!owner_ok(st.st_uid)) {
			say_not_yours(path, &st, w->why, w->len);
			return TRUST_REFUSED;
		}
		if (st.st_mode & 022) {
			say(path, &st, "others can write it", w->why, w->len);
			return TRUST_REFUSED;
		}
		return TRUST_OK;
	}
	enum trust_verdict v = folder_ok(path, &st, true, w->why, w->len);
	return v == TRUST_OK ? walk_dir(w, path, depth + 1) : v;
}

static enum trust_verdict walk_dir(struct walk *w, const char *dir, int depth)
{
	if (depth > TRUST_TREE_DEPTH) {
		snprintf(w->why, w->len, "%s is more than %d folders below %s: not read that deep",
			 dir, TRUST_TREE_DEPTH, w->top);
		return TRUST_REFUSED;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		enum trust_verdict v = unreadable(dir, errno, w->why, w->len);
		if (dfd >= 0)
			close(dfd);
		return v;
	}
	enum trust_verdict v = TRUST_OK;
	struct dirent *e;
	while (v == TRUST_OK && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++w->entries > TRUST_TREE_ENTRIES) {
			snprintf(w->why, w->len, "%s holds more than %d entries: not read that far",
				 w->top, TRUST_TREE_ENTRIES);
			v = TRUST_REFUSED;
			break;
		}
		char *path = fs_path_join(dir, e->d_name);
		v = walk_entry(w, dfd, e->d_name, path, depth);
		free(path);
	}
	closedir(d);
	return v;
}

enum trust_verdict trust_tree(const struct trust *t, const char *path, char *why, size_t len)
{
	struct stat st;
	enum trust_verdict v = trust_dir(t, path, true, why, len);
	if (v != TRUST_OK || trust_given(t, path) || stat(path, &st) != 0)
		return v;   /* not there yet: its nearest folder was judged */
	struct walk w = { t, path, 0, why, len };
	return walk_dir(&w, path, 0);
}

bool trust_search_dir(const struct trust *t, const char *dir, const struct stat *st, char *why,
		      size_t len)
{
	if (trust_given(t, dir))
		return true;
	char *subject = xasprintf("folder %s", dir);
	bool ok = folder_ok(subject, st, true, why, len) == TRUST_OK;
	free(subject);
	return ok;
}
