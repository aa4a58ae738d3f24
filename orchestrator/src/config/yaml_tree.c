#include "config/yaml_tree.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* Deeper nesting than any orch file needs; keeps freeing's recursion bounded. */
#define YTREE_MAX_DEPTH 64
/* A config file larger than this is a mistake, not a scenario. */
#define YTREE_MAX_FILE (4 * 1024 * 1024)

struct frame {
	struct ynode *node;
	struct ynode *pending_key;   /* mappings: a key waiting for its value */
	size_t cap;
	char *anchor;                /* &name on this container, or NULL */
	struct ynode **merges;       /* mappings: values of '<<' keys, in order */
	size_t n_merges;
};

struct anchor {
	char *name;
	struct ynode *node;          /* owned by the tree or the graveyard */
};

struct ystate {
	const char *name;
	struct diag_list *diags;
	bool opaque;                 /* messages quote no key or anchor of the file */
	bool bad;
	bool done;
	size_t n_nodes;
	struct anchor *anchors;
	size_t n_anchors;
	struct ynode **graveyard;    /* nodes out of the tree an anchor may still point at */
	size_t n_graveyard;
};

static struct ynode *node_new(struct ystate *st, enum ynode_kind kind, const yaml_mark_t *mark)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->file = st->name;
	n->line = (int)mark->line + 1;
	n->col = (int)mark->column + 1;
	st->n_nodes++;
	return n;
}

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	free(n->value);
	for (size_t i = 0; n->kind == YNODE_SEQ && i < n->n; i++)
		ynode_free(n->items[i]);
	for (size_t i = 0; n->kind == YNODE_MAP && i < n->n; i++) {
		ynode_free(n->pairs[i].key);
		ynode_free(n->pairs[i].value);
	}
	free(n->items);
	free(n->pairs);
	free(n);
}

static void bury(struct ystate *st, struct ynode *n)
{
	if (!n)
		return;
	st->graveyard = xrealloc(st->graveyard, (st->n_graveyard + 1) * sizeof(*st->graveyard));
	st->graveyard[st->n_graveyard++] = n;
}

static void too_many_nodes(struct ystate *st, const struct ynode *at)
{
	if (!st->done)
		diag_add(st->diags, st->name, at->line, at->col,
			 "more than %d nodes once aliases are expanded (an alias bomb?)",
			 YTREE_MAX_NODES);
	st->bad = true;
	st->done = true;
}

/* A deep copy of n (positions kept), or NULL when the node limit is hit. */
static struct ynode *ynode_copy(struct ystate *st, const struct ynode *n)
{
	if (st->n_nodes >= YTREE_MAX_NODES) {
		too_many_nodes(st, n);
		return NULL;
	}
	struct ynode *c = xcalloc(1, sizeof(*c));
	*c = *n;
	c->value = n->value ? xstrdup(n->value) : NULL;
	c->items = NULL;
	c->pairs = NULL;
	c->n = 0;
	st->n_nodes++;
	if (n->kind == YNODE_SEQ && n->n)
		c->items = xcalloc(n->n, sizeof(*c->items));
	if (n->kind == YNODE_MAP && n->n)
		c->pairs = xcalloc(n->n, sizeof(*c->pairs));
	for (size_t i = 0; i < n->n; i++) {
		if (n->kind == YNODE_SEQ) {
			c->items[i] = ynode_copy(st, n->items[i]);
			if (!c->items[i])
				break;
		} else {
			c->pairs[i].key = ynode_copy(st, n->pairs[i].key);
			c->pairs[i].value = c->pairs[i].key ? ynode_copy(st, n->pairs[i].value) : NULL;
			if (!c->pairs[i].value) {
				ynode_free(c->pairs[i].key);
				break;
			}
		}
		c->n++;
	}
	if (c->n != n->n) {
		ynode_free(c);
		return NULL;
	}
	return c;
}

static void anchor_add(struct ystate *st, const unsigned char *name, struct ynode *node)
{
	if (!name)
		return;
	st->anchors = xrealloc(st->anchors, (st->n_anchors + 1) * sizeof(*st->anchors));
	st->anchors[st->n_anchors].name = xstrdup((const char *)name);
	st->anchors[st->n_anchors].node = node;
	st->n_anchors++;
}

/* The node an alias stands for, as a copy; a placeholder after errors. */
static struct ynode *alias_resolve(struct ystate *st, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct ynode *found = NULL;
	for (size_t i = st->n_anchors; i > 0 && name; i--) {
		if (strcmp(st->anchors[i - 1].name, name) == 0) {
			found = st->anchors[i - 1].node;
			break;
		}
	}
	if (!found && st->opaque) {
		diag_add(st->diags, st->name, (int)ev->start_mark.line + 1,
			 (int)ev->start_mark.column + 1,
			 "unknown alias (no anchor of its name before it, or it is used inside "
			 "itself)");
		st->bad = true;
	} else if (!found) {
		diag_add(st->diags, st->name, (int)ev->start_mark.line + 1,
			 (int)ev->start_mark.column + 1,
			 "unknown alias '*%s' (no '&%s' before it, or it is used inside itself)",
			 name ? name : "", name ? name : "");
		st->bad = true;
	}
	struct ynode *copy = found && !st->bad ? ynode_copy(st, found) : NULL;
	if (!copy) {
		copy = node_new(st, YNODE_SCALAR, &ev->start_mark);
		copy->value = xstrdup("");
	}
	return copy;
}

static void describe_problem(const yaml_parser_t *p, struct strbuf *sb)
{
	if (p->context) {
		strbuf_puts(sb, p->context);
		strbuf_puts(sb, ": ");
	}
	strbuf_puts(sb, p->problem ? p->problem : "invalid YAML");
}

static bool is_merge_key(const struct ynode *key)
{
	return key->plain && strcmp(key->value, "<<") == 0;
}

/* Keeps a '<<' value for when its mapping ends; false after an error. */
static bool merge_defer(struct ystate *st, struct frame *top, struct ynode *key,
			struct ynode *value)
{
	bool ok = value->kind == YNODE_MAP || (value->kind == YNODE_SEQ && value->n > 0);
	for (size_t i = 0; value->kind == YNODE_SEQ && i < value->n; i++)
		if (value->items[i]->kind != YNODE_MAP)
			ok = false;
	if (!ok) {
		diag_add(st->diags, st->name, value->line, value->col,
			 "merge key '<<' needs a mapping or a list of mappings (*alias), found %s",
			 value->kind == YNODE_SCALAR ? "a scalar" : "a list of other things");
		st->bad = true;
	}
	top->merges = xrealloc(top->merges, (top->n_merges + 1) * sizeof(*top->merges));
	top->merges[top->n_merges++] = value;
	bury(st, key);
	return ok;
}

static bool map_has(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->pairs[i].key->value, key) == 0)
			return true;
	return false;
}

static void merge_one(struct ystate *st, struct frame *f, const struct ynode *src)
{
	struct ynode *c = f->node;
	for (size_t i = 0; i < src->n && !st->done; i++) {
		if (map_has(c, src->pairs[i].key->value))
			continue;
		struct ynode *k = ynode_copy(st, src->pairs[i].key);
		struct ynode *v = k ? ynode_copy(st, src->pairs[i].value) : NULL;
		if (!v) {
			ynode_free(k);
			return;
		}
		if (c->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 4;
			c->pairs = xrealloc(c->pairs, f->cap * sizeof(*c->pairs));
		}
		c->pairs[c->n].key = k;
		c->pairs[c->n].value = v;
		c->n++;
	}
}

/* At the end of a mapping: the keys of its '<<' maps it does not have. */
static void merge_apply(struct ystate *st, struct frame *f)
{
	for (size_t i = 0; i < f->n_merges; i++) {
		const struct ynode *m = f->merges[i];
		if (!st->bad && m->kind == YNODE_MAP)
			merge_one(st, f, m);
		for (size_t j = 0; !st->bad && m->kind == YNODE_SEQ && j < m->n; j++)
			merge_one(st, f, m->items[j]);
		bury(st, f->merges[i]);
	}
	free(f->merges);
	f->merges = NULL;
	f->n_merges = 0;
}

/* Attaches child to the open container on top of the stack; takes ownership. */
static void attach(struct ystate *st, struct frame *top, struct ynode *child)
{
	struct ynode *c = top->node;
	if (c->kind == YNODE_SEQ) {
		if (c->n == top->cap) {
			top->cap = top->cap ? top->cap * 2 : 4;
			c->items = xrealloc(c->items, top->cap * sizeof(*c->items));
		}
		c->items[c->n++] = child;
		return;
	}
	if (!top->pending_key) {
		if (child->kind != YNODE_SCALAR) {
			diag_add(st->diags, st->name, child->line, child->col,
				 "mapping keys must be plain strings, found a %s",
				 child->kind == YNODE_SEQ ? "list" : "mapping");
			st->bad = true;
			struct ynode *placeholder = xcalloc(1, sizeof(*placeholder));
			placeholder->kind = YNODE_SCALAR;
			placeholder->file = st->name;
			placeholder->line = child->line;
			placeholder->col = child->col;
			placeholder->value = xstrdup("");
			bury(st, child);
			child = placeholder;
		}
		top->pending_key = child;
		return;
	}
	struct ynode *key = top->pending_key;
	top->pending_key = NULL;
	if (is_merge_key(key)) {
		merge_defer(st, top, key, child);
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->pairs[i].key->value, key->value) == 0) {
			if (st->opaque)
				diag_add(st->diags, st->name, key->line, key->col,
					 "duplicate key (first at line %d)", c->pairs[i].key->line);
			else
				diag_add(st->diags, st->name, key->line, key->col,
					 "duplicate key '%s' (first at line %d)", key->value,
					 c->pairs[i].key->line);
			st->bad = true;
			bury(st, key);
			bury(st, child);
			return;
		}
	}
	if (c->n == top->cap) {
		top->cap = top->cap ? top->cap * 2 : 4;
		c->pairs = xrealloc(c->pairs, top->cap * sizeof(*c->pairs));
	}
	c->pairs[c->n].key = key;
	c->pairs[c->n].value = child;
	c->n++;
}

static void frame_release(struct frame *f)
{
	ynode_free(f->pending_key);
	ynode_free(f->node);
	for (size_t i = 0; i < f->n_merges; i++)
		ynode_free(f->merges[i]);
	free(f->merges);
	free(f->anchor);
}

static void state_release(struct ystate *st)
{
	for (size_t i = 0; i < st->n_anchors; i++)
		free(st->anchors[i].name);
	free(st->anchors);
	for (size_t i = 0; i < st->n_graveyard; i++)
		ynode_free(st->graveyard[i]);
	free(st->graveyard);
}

/* One event: returns the node it completes (to attach), or NULL. */
static struct ynode *on_event(struct ystate *st, yaml_event_t *ev, struct frame *stack,
			      size_t *depth, int *n_docs)
{
	struct ynode *node = NULL;
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		st->done = true;
		break;
	case YAML_DOCUMENT_START_EVENT:
		if (++*n_docs > 1) {
			diag_add(st->diags, st->name, (int)ev->start_mark.line + 1,
				 (int)ev->start_mark.column + 1, "more than one YAML document in the file");
			st->bad = true;
			st->done = true;
		}
		break;
	case YAML_ALIAS_EVENT:
		node = alias_resolve(st, ev);
		break;
	case YAML_SCALAR_EVENT:
		node = node_new(st, YNODE_SCALAR, &ev->start_mark);
		node->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		node->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		node->single_quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE;
		if (strlen(node->value) != ev->data.scalar.length) {
			diag_add(st->diags, st->name, node->line, node->col, "NUL byte in a value");
			st->bad = true;
		}
		anchor_add(st, ev->data.scalar.anchor, node);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (*depth == YTREE_MAX_DEPTH) {
			diag_add(st->diags, st->name, (int)ev->start_mark.line + 1,
				 (int)ev->start_mark.column + 1, "nesting deeper than %d levels",
				 YTREE_MAX_DEPTH);
			st->bad = true;
			st->done = true;
			break;
		}
		{
			bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
			const unsigned char *a = seq ? ev->data.sequence_start.anchor
						     : ev->data.mapping_start.anchor;
			struct frame *f = &stack[(*depth)++];
			memset(f, 0, sizeof(*f));
			f->node = node_new(st, seq ? YNODE_SEQ : YNODE_MAP, &ev->start_mark);
			f->anchor = a ? xstrdup((const char *)a) : NULL;
		}
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (*depth > 0) {
			struct frame *f = &stack[--*depth];
			merge_apply(st, f);
			ynode_free(f->pending_key);
			node = f->node;
			anchor_add(st, (const unsigned char *)f->anchor, node);
			free(f->anchor);
		}
		break;
	default:
		break;
	}
	if (st->n_nodes > YTREE_MAX_NODES && node) {
		too_many_nodes(st, node);
	}
	return node;
}

static int parse(const char *name, const char *data, size_t len, bool opaque,
		 struct ynode **root, struct diag_list *diags)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct frame stack[YTREE_MAX_DEPTH];
	size_t depth = 0;
	struct ynode *doc = NULL;
	int n_docs = 0;
	struct ystate st = { .name = name, .diags = diags, .opaque = opaque };

	*root = NULL;
	if (!yaml_parser_initialize(&parser)) {
		diag_add(diags, name, 0, 0, "cannot initialise the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);

	while (!st.done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			struct strbuf sb = STRBUF_INIT;
			size_t at = parser.problem_mark.index;
			if (at < len && data[at] == '\t')
				strbuf_puts(&sb, "a tab character: YAML indents with spaces only "
					    "(replace the tab with spaces)");
			else
				describe_problem(&parser, &sb);
			diag_add(diags, name, (int)parser.problem_mark.line + 1,
				 (int)parser.problem_mark.column + 1, "%s", strbuf_str(&sb));
			strbuf_release(&sb);
			st.bad = true;
			break;
		}
		struct ynode *node = on_event(&st, &ev, stack, &depth, &n_docs);
		yaml_event_delete(&ev);
		if (!node)
			continue;
		if (depth > 0)
			attach(&st, &stack[depth - 1], node);
		else if (!doc)
			doc = node;
		else
			bury(&st, node);
	}
	while (depth > 0)
		frame_release(&stack[--depth]);
	yaml_parser_delete(&parser);
	state_release(&st);
	if (st.bad) {
		ynode_free(doc);
		return -1;
	}
	*root = doc;
	return 0;
}

int ytree_parse(const char *name, const char *data, size_t len, struct ynode **root,
		struct diag_list *diags)
{
	return parse(name, data, len, false, root, diags);
}

static int load_file(const char *path, bool opaque, struct ynode **root,
		     struct diag_list *diags)
{
	char *data = NULL;
	size_t len = 0;
	*root = NULL;
	if (ytree_read_file(path, &data, &len, diags) < 0)
		return -1;
	int ret = parse(path, data, len, opaque, root, diags);
	free(data);
	return ret;
}

int ytree_load_file(const char *path, struct ynode **root, struct diag_list *diags)
{
	return load_file(path, false, root, diags);
}

int ytree_load_file_opaque(const char *path, struct ynode **root, struct diag_list *diags)
{
	return load_file(path, true, root, diags);
}

int ytree_read_fd(int fd, const char *name, char **data, size_t *len, struct diag_list *diags)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;
	char buf[8192];
	struct stat st;

	*data = NULL;
	*len = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		diag_add(diags, name, 0, 0, "not a regular file, found %s (give a YAML file)",
			 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
			 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file");
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_add(diags, name, 0, 0, "cannot read: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		strbuf_append(&sb, buf, (size_t)n);
		if (sb.len > YTREE_MAX_FILE) {
			diag_add(diags, name, 0, 0, "file larger than %d bytes", YTREE_MAX_FILE);
			goto out;
		}
	}
	*len = sb.len;
	*data = sb.len ? strbuf_detach(&sb) : xstrdup("");
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

int ytree_read_file(const char *path, char **data, size_t *len, struct diag_list *diags)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not hang; it is
	 * refused by ytree_read_fd like any file that is not a regular one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	*data = NULL;
	*len = 0;
	if (fd < 0) {
		diag_add(diags, path, 0, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	int ret = ytree_read_fd(fd, path, data, len, diags);
	close(fd);
	return ret;
}

/* The index of key's pair in map, or SIZE_MAX (also when map is not a
 * mapping). */
static size_t map_find(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return SIZE_MAX;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key->value, key) == 0)
			return i;
	return SIZE_MAX;
}

const struct ynode *ymap_key(const struct ynode *map, const char *key)
{
	size_t i = map_find(map, key);
	return i == SIZE_MAX ? NULL : map->pairs[i].key;
}

const struct ynode *ymap_get(const struct ynode *map, const char *key)
{
	size_t i = map_find(map, key);
	return i == SIZE_MAX ? NULL : map->pairs[i].value;
}

struct ynode *ymap_get_mut(struct ynode *map, const char *key)
{
	size_t i = map_find(map, key);
	return i == SIZE_MAX ? NULL : map->pairs[i].value;
}

bool ynode_is_null(const struct ynode *n)
{
	return n && n->kind == YNODE_SCALAR && n->plain &&
	       (n->value[0] == '\0' || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0 ||
		strcmp(n->value, "Null") == 0 || strcmp(n->value, "NULL") == 0);
}
