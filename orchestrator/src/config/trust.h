#ifndef ORCH_CONFIG_TRUST_H
#define ORCH_CONFIG_TRUST_H
/*
 * Which files orch takes settings from, as git refuses a repository
 * another user owns (safe.directory) and OpenSSH a config file others can
 * write ("Bad owner or permissions"). A settings file, and the inventory,
 * bench, runs and lock folders it names, is trusted when it is owned by the
 * invoking user or by root, no one else can write it, and the folder that
 * holds it is likewise theirs (a sticky folder such as /tmp counts as
 * theirs for a file they own: no one else can replace it there). A file
 * is judged on the descriptor orch reads it from; a symbolic link by its
 * target and by the link's own owner and folder; a path not there yet by
 * the nearest folder that is, which no one else may write (sticky or
 * not). The search for a project file (.orch.yaml) walks up from the
 * current folder and stops before a folder owned by someone else or
 * writable by others (sticky ones included) and at a file system boundary.
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

/* What a check found. */
enum trust_verdict {
	TRUST_OK,          /* may be read (trust_open: *fd is open) */
	TRUST_ABSENT,      /* trust_open only: nothing there, not even a link */
	TRUST_REFUSED,     /* someone else's, or others may change it: why says how */
	TRUST_UNREADABLE,  /* there, but cannot be read: why names it and the errno */
};

/* Folders a tree (trust_tree) may nest below its top, and the entries
 * it may hold in all: a bench folder needs two levels and a few files. */
#define TRUST_TREE_DEPTH 8
#define TRUST_TREE_ENTRIES 10000

/*
 * Opens a settings file and judges what was opened, not what the path
 * named a moment before: the open descriptor's owner (the invoking user
 * or root), mode (no group or other write bit) and kind (a regular file),
 * then every folder above the file it reached, and, when path is a
 * symbolic link (or a chain of them), each link's owner (the user or
 * root) and every folder that holds one (a link in a folder others can
 * write is theirs to point anywhere).
 * Returns TRUST_OK with *fd open (the caller closes it), TRUST_ABSENT (no
 * such file, nothing at path), or TRUST_REFUSED / TRUST_UNREADABLE with
 * why ("/srv/.orch.yaml is owned by alice (uid 1001) with mode 0644: not
 * you (root (uid 0)) or root", "/srv/.orch.yaml: Permission denied").
 * A path trusted on purpose is only opened.
 */
enum trust_verdict trust_open(const struct trust *t, const char *path, int *fd, char *why,
			      size_t len);
/* The same for a file a settings file names (an inventory), closed again;
 * one that does not exist yet is judged by its nearest existing folder,
 * which must be the user's or root's and writable by no one else (a
 * sticky /tmp counts as writable by others: anyone may create the file
 * there first). Never TRUST_ABSENT. */
enum trust_verdict trust_file(const struct trust *t, const char *path, char *why, size_t len);
/* The same for a folder (its folders above and the links to it judged as
 * trust_open does). strict (a runs folder): the folder itself may not be
 * writable by others, sticky or not, since anyone may add a file to a
 * sticky folder; not strict (the lock folder, sticky and world-writable
 * by design): sticky is enough. One that does not exist yet: as
 * trust_file. */
enum trust_verdict trust_dir(const struct trust *t, const char *path, bool strict, char *why,
			     size_t len);
/* A folder and all it holds (a bench folder: its ARCH folders and the
 * programs in them): the folder as trust_dir strict, then every entry, to
 * TRUST_TREE_DEPTH folders below it and TRUST_TREE_ENTRIES entries in all
 * (more is refused): each the user's or root's, writable by no one else;
 * a symbolic link is judged by its target, as trust_file or trust_dir. */
enum trust_verdict trust_tree(const struct trust *t, const char *path, char *why, size_t len);

/* Whether the project-file search may look in the folder st describes
 * (the user's or root's, writable by no one else); when not, why says so. */
bool trust_search_dir(const struct trust *t, const char *dir, const struct stat *st, char *why,
		      size_t len);

/* What to tell a person who wants a refused path used anyway. */
const char *trust_hint(void);

#endif
