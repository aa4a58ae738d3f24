#ifndef ORCH_CONFIG_INVENTORY_GROUPS_H
#define ORCH_CONFIG_INVENTORY_GROUPS_H
/*
 * The membership of an inventory's groups: (orch-inventory(5) GROUPS).
 * A group names its boards (boards:) and its child groups (children:),
 * whose members are its members too. A group's settings apply to its
 * members in this order, each over the ones before: shallower groups
 * before deeper ones (a child over its parent), then document order (a
 * later sibling over an earlier one). Unknown names and cycles are
 * reported at the name that is wrong. Private to config/.
 */
#include <stddef.h>

#include "config/cfg_read.h"

struct inv_group {
	const struct ynode *key;     /* the group's name, in the tree */
	const struct ynode *map;     /* its settings, or NULL */
	size_t *children;            /* indices into inv_groups.g */
	size_t n_children;
	const struct ynode *boards;  /* its own boards: list, or NULL */
	int depth;                   /* 0 for a group that is nobody's child */
};

struct inv_groups {
	struct inv_group *g;
	size_t n;
};

/* Reads groups (a mapping, or NULL) against the boards: mapping; reports
 * every problem through c. The tree must outlive gs. */
void inv_groups_read(struct cfg *c, const struct ynode *groups, const struct ynode *boards,
		     struct inv_groups *gs);
/* The indices of the groups board is in, in the order their settings
 * apply; caller frees. */
size_t *inv_groups_of(const struct inv_groups *gs, const char *board, size_t *n);
void inv_groups_release(struct inv_groups *gs);

#endif
