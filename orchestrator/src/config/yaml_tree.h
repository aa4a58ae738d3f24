#ifndef ORCH_CONFIG_YAML_TREE_H
#define ORCH_CONFIG_YAML_TREE_H
/*
 * A YAML document as a small tree of scalars, sequences and mappings, each
 * node with the file and 1-based line:col where it was written, so every
 * later message can point at the user's text. Built from libyaml's event
 * API. Anchors (&name), aliases (*name) and merge keys (<<: *name or
 * <<: [*a, *b]; keys written in the mapping win, then earlier merged maps)
 * are resolved here: an alias becomes a copy of the anchored node, keeping
 * the anchored text's positions. Copies count against YTREE_MAX_NODES, so
 * an alias bomb ends with a clear error. Duplicate keys, non-scalar keys,
 * unknown aliases and multiple documents are rejected; tags are ignored.
 * Private to config/.
 */
#include <stdbool.h>
#include <stddef.h>

#include "util/diag.h"

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode;

struct ypair {
	struct ynode *key;     /* always a scalar */
	struct ynode *value;
};

/* Nodes a document may grow to, aliases expanded. */
#define YTREE_MAX_NODES 100000

struct ynode {
	enum ynode_kind kind;
	const char *file;      /* the name given to ytree_parse (borrowed from the caller) */
	int line;
	int col;
	char *value;           /* YNODE_SCALAR: the text, never NULL */
	bool plain;            /* YNODE_SCALAR: written unquoted (so may be null) */
	bool single_quoted;    /* YNODE_SCALAR: written in '...' */
	struct ynode **items;  /* YNODE_SEQ */
	struct ypair *pairs;   /* YNODE_MAP, in file order */
	size_t n;              /* number of items or pairs */
};

/*
 * Parses data (len bytes; name is used in messages and kept, not copied,
 * in every node's file: it must outlive the tree). Returns 0 and *root
 * (NULL for an empty document; free with ynode_free), or -1 with every
 * problem found added to diags.
 */
int ytree_parse(const char *name, const char *data, size_t len, struct ynode **root,
		struct diag_list *diags);
/* Reads and parses a file; as ytree_parse, plus "cannot read" errors. */
int ytree_load_file(const char *path, struct ynode **root, struct diag_list *diags);
/* The same for a file that may be anyone's (-e @FILE): no message quotes
 * a word of it (a duplicate key or an unknown alias is told by place). */
int ytree_load_file_opaque(const char *path, struct ynode **root, struct diag_list *diags);
/* Reads a regular file whole into *data (NUL-ended, caller frees) and
 * *len: 0, or -1 with "cannot open", "not a regular file" or "file larger
 * than" in diags. */
int ytree_read_file(const char *path, char **data, size_t *len, struct diag_list *diags);
/* The same from a descriptor already open (and judged: config/trust.h),
 * name for messages; fd stays open. */
int ytree_read_fd(int fd, const char *name, char **data, size_t *len, struct diag_list *diags);
void ynode_free(struct ynode *n);

/* The value for key in a mapping, or NULL (also when n is not a mapping). */
const struct ynode *ymap_get(const struct ynode *map, const char *key);
/* The same for a tree the caller owns and may change. */
struct ynode *ymap_get_mut(struct ynode *map, const char *key);
/* The key node for key, or NULL. */
const struct ynode *ymap_key(const struct ynode *map, const char *key);
/* Whether a scalar is YAML's null: an unquoted "", "~", "null". */
bool ynode_is_null(const struct ynode *n);

#endif
