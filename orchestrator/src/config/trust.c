#include "config/trust.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
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

/* "owned by alice (uid 1001), not by you (bob) or root" */
static void say_owner(const char *what, const char *path, const struct stat *st, char *why,
		      size_t len)
{
	char who[128], me[128];
	fs_owner_text(st->st_uid, who, sizeof(who));
	fs_owner_text(geteuid(), me, sizeof(me));
	snprintf(why, len, "%s%s%s is owned by %s, not by you (%s) or root", what, *what ? " " : "",
		 path, who, me);
}

/* A folder on the way to a trusted path: theirs, and no one else may
 * rename what is in it (not writable by others, or sticky). */
static bool folder_ok(const char *dir, const struct stat *st, char *why, size_t len)
{
	if (!owner_ok(st->st_uid)) {
		say_owner("its folder", dir, st, why, len);
		return false;
	}
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX)) {
		snprintf(why, len, "its folder %s is writable by others (mode %04o)", dir,
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* Every folder from dir up to / passes folder_ok (OpenSSH's safe_path);
 * strict: dir itself may not be writable by others even when sticky (in a
 * sticky folder anyone may still add a file). */
static bool chain_ok(const char *dir, bool strict, char *why, size_t len)
{
	char *d = xstrdup(dir);
	bool ok = true;
	for (bool first = true;; first = false) {
		struct stat st;
		if (stat(d, &st) != 0) {
			snprintf(why, len, "its folder %s cannot be read: %s", d, strerror(errno));
			ok = false;
			break;
		}
		if (!folder_ok(d, &st, why, len)) {
			ok = false;
			break;
		}
		if (first && strict && (st.st_mode & 022)) {
			snprintf(why, len, "%s is writable by others (mode %04o)", d,
				 (unsigned)(st.st_mode & 07777));
			ok = false;
			break;
		}
		if (!strcmp(d, "/"))
			break;
		char *up = fs_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	return ok;
}

bool trust_file(const struct trust *t, const char *path, char *why, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOENT;
	if (trust_given(t, path))
		return true;
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		snprintf(why, len, "%s cannot be resolved: %s", path, strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a regular file", real);
		return false;
	}
	if (!owner_ok(st.st_uid)) {
		say_owner("", real, &st, why, len);
		return false;
	}
	if (st.st_mode & 022) {
		snprintf(why, len, "%s has mode %04o: others can write it", real,
			 (unsigned)(st.st_mode & 07777));
		return false;
	}
	char *dir = fs_dirname(real);
	bool ok = chain_ok(dir, false, why, len);
	free(dir);
	return ok;
}

bool trust_dir(const struct trust *t, const char *path, bool strict, char *why, size_t len)
{
	char *d = xstrdup(path);
	struct stat st;
	while (stat(d, &st) != 0 && strcmp(d, "/") && strcmp(d, ".")) {
		char *up = fs_dirname(d);
		free(d);
		d = up;
	}
	char real[PATH_MAX];
	bool ok = trust_given(t, path) || trust_given(t, d);
	if (!ok && !realpath(d, real))
		snprintf(why, len, "%s cannot be resolved: %s", d, strerror(errno));
	else if (!ok)
		ok = chain_ok(real, strict, why, len);
	free(d);
	return ok;
}

bool trust_search_dir(const struct trust *t, const char *dir, const struct stat *st, char *why,
		      size_t len)
{
	if (trust_given(t, dir))
		return true;
	if (!owner_ok(st->st_uid)) {
		say_owner("folder", dir, st, why, len);
		return false;
	}
	if (st->st_mode & 022) {
		snprintf(why, len, "folder %s is writable by others (mode %04o)", dir,
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}
