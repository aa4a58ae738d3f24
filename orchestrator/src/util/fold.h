#ifndef ORCH_UTIL_FOLD_H
#define ORCH_UTIL_FOLD_H
/*
 * Groups of identical outcomes, as clush -b and dshbak -c print them: the
 * boards whose outcome (an output and exit status, a failure message, a
 * verdict) is the same are one group, named by their node set
 * (util/nodeset.h), so what orch prints grows with the number of distinct
 * outcomes, not with the number of boards. The key is the caller's text
 * (or a digest of it); members are borrowed names.
 */
#include <stddef.h>

struct fold_group {
	char *key;              /* owned copy of the key */
	const char **members;   /* borrowed, natural order after fold_sort */
	size_t n;
	size_t order;           /* when its first member was added */
	void *data;             /* the caller's, given with the first member */
};

struct fold {
	struct fold_group *groups;
	size_t n;
};

#define FOLD_INIT { NULL, 0 }

/* Adds member (borrowed) to the group of key, making the group when it is
 * new (with data). Returns that group (valid until the next fold_add). */
struct fold_group *fold_add(struct fold *f, const char *key, const char *member, void *data);
/* The group of key, or NULL. */
struct fold_group *fold_find(const struct fold *f, const char *key);

enum fold_order {
	FOLD_LARGEST_FIRST,     /* most members first, then by first member */
	FOLD_BY_MEMBER,         /* natural order of each group's first member */
	FOLD_AS_ADDED,          /* the order the groups were made */
};
/* Sorts each group's members in natural order, then the groups. */
void fold_sort(struct fold *f, enum fold_order order);
/* The group's members as a node set ("b[01-28,30-32]"); caller frees. */
char *fold_nodeset(const struct fold_group *g);
/* Frees the groups (not members or data); f is empty afterwards. */
void fold_release(struct fold *f);

#endif
