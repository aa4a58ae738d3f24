#ifndef ORCH_UTIL_FSUTIL_H
#define ORCH_UTIL_FSUTIL_H
/*
 * File-system helpers. Every file orch leaves for the user is written whole:
 * to "NAME.tmp.PID.N" beside it (N counts calls, so threads writing the same
 * NAME never share a temporary file), fsync'd, then renamed over NAME, so a
 * crash or a kill leaves either the old file or the new one, never half of one.
 * Functions return 0 or -1 with a message in err (which may be NULL).
 */
#include <stddef.h>

int fs_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* mkdir -p with mode 0755. */
int fs_mkdir_p(const char *path, char *err, size_t errlen);
/* Replace (or create) the symlink linkpath -> target atomically. */
int fs_symlink_atomic(const char *target, const char *linkpath, char *err, size_t errlen);

/* Newly allocated strings (caller frees). */
char *fs_path_join(const char *dir, const char *name);
char *fs_dirname(const char *path);        /* "." for a bare name */
/* "~/x" -> "$HOME/x"; relative paths resolved against base_dir (may be NULL). */
char *fs_resolve_path(const char *path, const char *base_dir);
/* A name safe as one path component: [A-Za-z0-9._-], others become '_'. */
char *fs_safe_name(const char *name);

#endif
