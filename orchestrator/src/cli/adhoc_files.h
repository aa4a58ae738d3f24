#ifndef ORCH_CLI_ADHOC_FILES_H
#define ORCH_CLI_ADHOC_FILES_H
/*
 * The controller's side of orch copy and fetch: the files SRC names (a
 * regular file, or with -r every regular file under a folder, in a stable
 * order) with where each goes on a board, checked before any board is
 * reached; and fetch's folder DIR/BOARD/.
 */
#include <stdbool.h>
#include <stddef.h>

struct local_file {
	char *path;                /* on the controller */
	char *dest;                /* on the board */
	int mode;                  /* the file's permission bits */
};

struct local_files {
	struct local_file *v;
	size_t n;
};

/* SRC to DEST: a file to DEST (DEST ending in '/': DEST/NAME), or with
 * recursive a folder's tree under DEST (SRC/a/b to DEST/a/b). EXIT_OK, or
 * EXIT_USAGE after saying what is wrong (missing, a folder without -r,
 * a symbolic link or a device in the tree, no file at all). */
int local_files_list(const char *src, const char *dest, bool recursive, struct local_files *out);
void local_files_release(struct local_files *f);

#endif
