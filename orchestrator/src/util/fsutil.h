#ifndef ORCH_UTIL_FSUTIL_H
#define ORCH_UTIL_FSUTIL_H
/*
 * File-system helpers. Two words for two ways of writing:
 *   replace  a whole file, through "NAME.tmp.PID.N" beside it (N counts
 *            calls, so threads replacing the same NAME never share a
 *            temporary file) renamed over NAME: a crash or a kill leaves
 *            either the old file or the new one, never half of one.
 *            fs_replace_file also fsyncs the file and its folder (durable
 *            across a power cut); fs_replace_file_nosync does not;
 *            fs_replace_open..commit does it piece by piece;
 *            fs_replace_symlink the same for a symlink.
 *   write    bytes to a descriptor already open (fs_write_fd), for files
 *            that grow by appending (the run's journal).
 * Functions return 0 or -1 with a message in err (which may be NULL).
 */
#include <sys/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

int fs_replace_file(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* The same without the fsyncs: whole or absent after a crash of orch, but
 * not necessarily after a power cut. For files that a synced record (the
 * run's journal) can rebuild; an fsync costs milliseconds on a busy disk. */
int fs_replace_file_nosync(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* The same, written piece by piece: fs_replace_open, fs_replace_write as often
 * as needed (buffered; the first error is kept and reported by commit),
 * then fs_replace_commit (flush, fsync, rename, fsync of the folder) or
 * fs_replace_abort (temporary file removed). Both release the writer. */
struct fs_replace {
	char *path;
	char *tmp;
	int fd;
	int error;             /* first errno seen, 0 if none */
	char *buf;
	size_t len;
	int nosync;
};
int fs_replace_open(struct fs_replace *a, const char *path, char *err, size_t errlen);
/* nosync: no fsync of the file or its folder (see fs_replace_file_nosync). */
void fs_replace_write(struct fs_replace *a, const void *data, size_t len);
int fs_replace_commit(struct fs_replace *a, char *err, size_t errlen);
void fs_replace_abort(struct fs_replace *a);
/* Whether name (no folder) is a temporary file of fs_replace_open,
 * NAME.tmp.PID.N, with *pid set to its writer's PID. */
bool fs_replace_tmp_name(const char *name, long *pid);
/* fsync of a folder, so the renames and creations inside it are durable. */
int fs_fsync_dir(const char *dir, char *err, size_t errlen);
/* write() all of data, retrying on EINTR and short writes. 0, or -1 with errno set. */
int fs_write_fd(int fd, const void *data, size_t len);
/* mkdir -p with mode 0755. */
int fs_mkdir_p(const char *path, char *err, size_t errlen);
/* Replace (or create) the symlink linkpath -> target atomically. */
int fs_replace_symlink(const char *target, const char *linkpath, char *err, size_t errlen);

/* Opens path for reading only if it is a regular file: opened O_NONBLOCK
 * (a FIFO without a writer never blocks the open) and fstat'd before any
 * read, so a FIFO, a device or a folder is refused ("not a regular file,
 * found a FIFO") whatever it was when it was checked before. Returns the
 * descriptor (O_NONBLOCK cleared, st filled; may be NULL), or -1 with err. */
int fs_open_regular(const char *path, struct stat *st, char *err, size_t errlen);
/* "a FIFO", "a device", "a directory", "a socket", "a special file" or "a
 * regular file", for messages. */
const char *fs_kind_name(unsigned mode);

/* Newly allocated strings (caller frees). */
char *fs_path_join(const char *dir, const char *name);
char *fs_dirname(const char *path);        /* "." for a bare name */
/* "~/x" -> "$HOME/x"; relative paths resolved against base_dir (may be NULL). */
char *fs_resolve_path(const char *path, const char *base_dir);
/* A name safe as one path component: [A-Za-z0-9._-], others become '_'. */
char *fs_safe_name(const char *name);
/* "name (uid N)", or "uid N" when the user has no name, for messages
 * about who owns a file. */
void fs_owner_text(uid_t uid, char *buf, size_t len);

#endif
