#include "util/fold.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct fold_group *fold_find(const struct fold *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->groups[i].key, key))
			return &f->groups[i];
	return NULL;
}

struct fold_group *fold_add(struct fold *f, const char *key, const char *member, void *data)
{
	struct fold_group *g = fold_find(f, key);
	if (!g) {
		f->groups = xrealloc(f->groups, (f->n + 1) * sizeof(*f->groups));
		g = &f->groups[f->n];
		*g = (struct fold_group){ .key = xstrdup(key), .order = f->n, .data = data };
		f->n++;
	}
	g->members = xrealloc(g->members, (g->n + 1) * sizeof(*g->members));
	g->members[g->n++] = member;
	return g;
}

static int by_size(const void *x, const void *y)
{
	const struct fold_group *a = x, *b = y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return nodeset_cmp(a->members[0], b->members[0]);
}

static int by_member(const void *x, const void *y)
{
	const struct fold_group *a = x, *b = y;
	int c = nodeset_cmp(a->members[0], b->members[0]);
	return c ? c : (a->order < b->order ? -1 : a->order > b->order);
}

static int by_order(const void *x, const void *y)
{
	const struct fold_group *a = x, *b = y;
	return a->order < b->order ? -1 : a->order > b->order;
}

void fold_sort(struct fold *f, enum fold_order order)
{
	for (size_t i = 0; i < f->n; i++)
		nodeset_sort(f->groups[i].members, f->groups[i].n);
	int (*cmp)(const void *, const void *) = order == FOLD_LARGEST_FIRST ? by_size
						 : order == FOLD_BY_MEMBER   ? by_member
									     : by_order;
	if (f->n > 1)
		qsort(f->groups, f->n, sizeof(*f->groups), cmp);
}

char *fold_nodeset(const struct fold_group *g)
{
	return nodeset_fold_str(g->members, g->n);
}

void fold_release(struct fold *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->groups[i].key);
		free(f->groups[i].members);
	}
	free(f->groups);
	f->groups = NULL;
	f->n = 0;
}
