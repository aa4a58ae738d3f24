#ifndef ORCH_STORE_TREE_H
#define ORCH_STORE_TREE_H
/*
 * Whole folders (inside store/ only): copied into a run folder, removed
 * again, cleared of what a killed writer left.
 */
#include <stddef.h>

/* Copies src (a folder, file or link; sockets and fifos are left out) to
 * dst, which must not exist. 0, or -1 + err (what was copied stays). */
int tree_copy(const char *src, const char *dst, char *err, size_t errlen);
/* rm -r path (a folder the store created). */
void tree_remove(const char *path);
/* Removes the temporary files (fs_replace_tmp_name) of writers that are
 * dead in dir and its folders down to depth levels below it. */
void tree_remove_stale_tmp(const char *dir, int depth);

#endif
