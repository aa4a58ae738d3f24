#ifndef ORCH_CONFIG_INCLUDE_H
#define ORCH_CONFIG_INCLUDE_H
/*
 * `include:` in scenarios, resolved on the YAML tree before the scenario
 * is read, so every later message still points at the file, line and
 * column where a thing was written:
 *   - top level `include: FILE` or `include: [A, B]`: other scenario files,
 *     whose tests come before this file's own (nightly = smoke + benchmarks);
 *   - an item `- include: FILE` in `tests:`: the tests of FILE (a list of
 *     tests, or a scenario) in its place.
 * Paths are relative to the including file. A file that includes itself,
 * directly or not, is refused ("include cycle: a.yaml -> b.yaml -> a.yaml"),
 * and so is nesting deeper than INCLUDE_MAX_DEPTH. Private to config/.
 */
#include <stddef.h>

#include "config/yaml_tree.h"
#include "util/diag.h"

#define INCLUDE_MAX_DEPTH 16

struct include_files {
	char **paths;          /* every file read, owned; nodes borrow these */
	size_t n;
};

/* Expands the includes in root (a scenario's tree, read from file).
 * Returns 0, or -1 with problems added to diags. files gets the paths of
 * the files read; release them with include_files_release once no node
 * or model refers to them. */
int include_expand(struct ynode *root, const char *file, struct include_files *files,
		   struct diag_list *diags);
void include_files_release(struct include_files *files);

#endif
