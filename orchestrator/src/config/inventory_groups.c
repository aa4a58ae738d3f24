#include "config/inventory_groups.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static long group_index(const struct inv_groups *gs, const char *name)
{
	for (size_t i = 0; i < gs->n; i++)
		if (strcmp(gs->g[i].key->value, name) == 0)
			return (long)i;
	return -1;
}

/* A NULL-ended array of the keys of map (borrowed), for did-you-mean. */
static const char **key_names(const struct ynode *map)
{
	size_t n = map && map->kind == YNODE_MAP ? map->n : 0;
	const char **v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = map->pairs[i].key->value;
	return v;
}

static void unknown_name(struct cfg *c, const struct ynode *at, const char *what,
			 const struct ynode *known_map)
{
	const char **names = key_names(known_map);
	const char *s = cfg_suggest(at->value, names);
	cfg_error(c, at, "unknown %s '%s'%s%s%s", what, at->value, s ? " (did you mean '" : "",
		  s ? s : "", s ? "'?)" : "");
	free(names);
}

/* boards: of group g: names of boards: entries. */
static void read_members(struct cfg *c, const struct ynode *list, const struct ynode *boards)
{
	if (!list || ynode_is_null(list) || !cfg_want_seq(c, list, "a group's 'boards'"))
		return;
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *it = list->items[i];
		if (it->kind != YNODE_SCALAR) {
			char f[96];
			cfg_error(c, it, "a group's 'boards' lists board names, found %s",
				  cfg_found(it, f, sizeof(f)));
		} else if (!ymap_get(boards, it->value)) {
			unknown_name(c, it, "board", boards);
		}
	}
}

static void read_children(struct cfg *c, struct inv_groups *gs, size_t gi,
			  const struct ynode *groups)
{
	const struct ynode *list = ymap_get(gs->g[gi].map, "children");
	if (!list || ynode_is_null(list) || !cfg_want_seq(c, list, "a group's 'children'"))
		return;
	struct inv_group *g = &gs->g[gi];
	g->children = xcalloc(list->n + 1, sizeof(*g->children));
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *it = list->items[i];
		long k = it->kind == YNODE_SCALAR ? group_index(gs, it->value) : -1;
		if (it->kind != YNODE_SCALAR) {
			char f[96];
			cfg_error(c, it, "a group's 'children' lists group names, found %s",
				  cfg_found(it, f, sizeof(f)));
		} else if (k < 0) {
			unknown_name(c, it, "group", groups);
		} else {
			g->children[g->n_children++] = (size_t)k;
		}
	}
}

/* Depth-first from gi; a child already on the path is a cycle: reported
 * at that child's name in gi's children: and the edge dropped. */
static void drop_cycles(struct cfg *c, struct inv_groups *gs, size_t gi, size_t *path,
			size_t depth, char *state)
{
	state[gi] = 1;
	path[depth] = gi;
	struct inv_group *g = &gs->g[gi];
	for (size_t i = 0; i < g->n_children; i++) {
		size_t k = g->children[i];
		if (state[k] == 1) {
			struct strbuf sb = STRBUF_INIT;
			size_t from = 0;
			while (path[from] != k)
				from++;
			for (size_t j = from; j <= depth; j++)
				strbuf_printf(&sb, "%s -> ", gs->g[path[j]].key->value);
			const struct ynode *list = ymap_get(g->map, "children");
			const struct ynode *at = list;
			for (size_t j = 0; list && j < list->n; j++)
				if (list->items[j]->kind == YNODE_SCALAR &&
				    strcmp(list->items[j]->value, gs->g[k].key->value) == 0)
					at = list->items[j];
			cfg_error(c, at, "group '%s' is its own member: %s%s", gs->g[k].key->value,
				  strbuf_str(&sb), gs->g[k].key->value);
			strbuf_release(&sb);
			memmove(&g->children[i], &g->children[i + 1],
				(g->n_children - i - 1) * sizeof(*g->children));
			g->n_children--;
			i--;
		} else if (state[k] == 0) {
			drop_cycles(c, gs, k, path, depth + 1, state);
		}
	}
	state[gi] = 2;
}

/* Longest path from a group that is nobody's child (no cycles left). */
static void set_depths(struct inv_groups *gs)
{
	for (size_t round = 0; round < gs->n; round++)
		for (size_t p = 0; p < gs->n; p++)
			for (size_t i = 0; i < gs->g[p].n_children; i++) {
				struct inv_group *ch = &gs->g[gs->g[p].children[i]];
				if (ch->depth < gs->g[p].depth + 1)
					ch->depth = gs->g[p].depth + 1;
			}
}

void inv_groups_read(struct cfg *c, const struct ynode *groups, const struct ynode *boards,
		     struct inv_groups *gs)
{
	memset(gs, 0, sizeof(*gs));
	if (!groups || ynode_is_null(groups) || !cfg_want_map(c, groups, "groups"))
		return;
	gs->g = xcalloc(groups->n + 1, sizeof(*gs->g));
	for (size_t i = 0; i < groups->n; i++) {
		const struct ynode *key = groups->pairs[i].key;
		const struct ynode *m = groups->pairs[i].value;
		char f[96];
		if (!cfg_safe_name(key->value))
			cfg_error(c, key, "invalid group name, found %s (use letters, digits, '.', '_', "
				  "'-')", cfg_found(key, f, sizeof(f)));
		else if (strcmp(key->value, "all") == 0 || strcmp(key->value, "each") == 0)
			cfg_error(c, key, "group name '%s' is reserved for selectors", key->value);
		else if (ymap_get(boards, key->value))
			cfg_error(c, key, "group '%s' has the name of a board", key->value);
		if (ynode_is_null(m))
			m = NULL;
		else if (!cfg_want_map(c, m, "a group"))
			m = NULL;
		gs->g[gs->n++] = (struct inv_group){ .key = key, .map = m,
						     .boards = ymap_get(m, "boards") };
		read_members(c, gs->g[gs->n - 1].boards, boards);
	}
	for (size_t i = 0; i < gs->n; i++)
		read_children(c, gs, i, groups);
	size_t *path = xcalloc(gs->n + 1, sizeof(*path));
	char *state = xcalloc(gs->n + 1, 1);
	for (size_t i = 0; i < gs->n; i++)
		if (!state[i])
			drop_cycles(c, gs, i, path, 0, state);
	free(path);
	free(state);
	set_depths(gs);
}

static bool is_member(const struct inv_groups *gs, size_t gi, const char *board, size_t hops)
{
	const struct inv_group *g = &gs->g[gi];
	for (size_t i = 0; g->boards && g->boards->kind == YNODE_SEQ && i < g->boards->n; i++)
		if (g->boards->items[i]->kind == YNODE_SCALAR &&
		    strcmp(g->boards->items[i]->value, board) == 0)
			return true;
	for (size_t i = 0; hops < gs->n && i < g->n_children; i++)
		if (is_member(gs, g->children[i], board, hops + 1))
			return true;
	return false;
}

size_t *inv_groups_of(const struct inv_groups *gs, const char *board, size_t *n)
{
	size_t *v = xcalloc(gs->n + 1, sizeof(*v));
	*n = 0;
	for (int depth = 0; depth <= (int)gs->n; depth++)
		for (size_t i = 0; i < gs->n; i++)
			if (gs->g[i].depth == depth && is_member(gs, i, board, 0))
				v[(*n)++] = i;
	return v;
}

void inv_groups_release(struct inv_groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].children);
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}
