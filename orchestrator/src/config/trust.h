#ifndef ORCH_CONFIG_TRUST_H
#define ORCH_CONFIG_TRUST_H
/*
 * Which files orch takes settings from, as git refuses a repository
 * another user owns (safe.directory) and OpenSSH a config file others can
 * write ("Bad owner or permissions"). A settings file, and the inventory,
 * bench, runs and lock folders it names, is trusted when it is owned by the
 * invoking user or by root, no one else can write it, and the folder that
 * holds it is likewise theirs (a sticky folder such as /tmp counts as
 * theirs for a file they own: no one else can replace it there). The
 * search for a project file (.orch.yaml) walks up from the current folder
 * and stops before a folder owned by someone else or writable by others
 * (sticky ones included) and at a file system boundary.
 *
 * Trusting on purpose: ORCH_TRUST (paths separated by ':', '*' for every
 * path) and the key trust: of the system and user configuration files; a
 * folder given there trusts everything below it. A project file cannot
 * trust anything.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct trust {
	char **paths;     /* trusted on purpose: files, or folders and all below */
	size_t n;
	bool all;         /* '*' */
};

#define TRUST_INIT { NULL, 0, false }

/* Adds the entries of ORCH_TRUST. */
void trust_add_env(struct trust *t);
/* Adds one entry (an absolute path, or "*"). */
void trust_add(struct trust *t, const char *path);
void trust_release(struct trust *t);

/* Whether path was trusted on purpose (itself or a folder above it). */
bool trust_given(const struct trust *t, const char *path);

/* Whether the file at path may be read for settings (a regular file,
 * symlinks followed: the target is judged). When not, why holds the
 * reason ("owned by alice (uid 1001), not by you (root) or root", "mode
 * 0666: others can write it", "its folder /srv is writable by others (mode
 * 0777)"). A file that does not exist is trusted (nothing is read). */
bool trust_file(const struct trust *t, const char *path, char *why, size_t len);
/* The same for a folder: one that does not exist yet is judged by the
 * nearest one above it that does. strict (a bench or runs folder): the
 * folder itself may not be writable by others, sticky or not, since anyone
 * may add a file to a sticky folder; not strict (the lock folder, sticky
 * and world-writable by design): sticky is enough. */
bool trust_dir(const struct trust *t, const char *path, bool strict, char *why, size_t len);

/* Whether the project-file search may look in the folder st describes
 * (the user's or root's, writable by no one else); when not, why says so. */
bool trust_search_dir(const struct trust *t, const char *dir, const struct stat *st, char *why,
		      size_t len);

/* What to tell a person who wants a refused path used anyway. */
const char *trust_hint(void);

#endif
