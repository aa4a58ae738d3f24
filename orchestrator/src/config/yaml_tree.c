#include "config/yaml_tree.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Deeper nesting than any orch file needs; keeps freeing's recursion bounded. */
#define YTREE_MAX_DEPTH 64
/* A config file larger than this is a mistake, not a scenario. */
#define YTREE_MAX_FILE (4 * 1024 * 1024)

struct frame {
	struct ynode *node;
	struct ynode *pending_key;   /* mappings: a key waiting for its value */
	size_t cap;
};

static struct ynode *node_new(enum ynode_kind kind, const yaml_mark_t *mark)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->line = (int)mark->line + 1;
	n->col = (int)mark->column + 1;
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

static void describe_problem(const yaml_parser_t *p, struct strbuf *sb)
{
	if (p->context) {
		strbuf_puts(sb, p->context);
		strbuf_puts(sb, ": ");
	}
	strbuf_puts(sb, p->problem ? p->problem : "invalid YAML");
}

/* Attaches child to the open container on top of the stack; takes ownership. */
static void attach(const char *name, struct frame *top, struct ynode *child, struct diag_list *diags,
		   bool *bad)
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
			diag_add(diags, name, child->line, child->col,
				 "mapping keys must be plain strings, found a %s",
				 child->kind == YNODE_SEQ ? "list" : "mapping");
			*bad = true;
			struct ynode *placeholder = xcalloc(1, sizeof(*placeholder));
			placeholder->kind = YNODE_SCALAR;
			placeholder->line = child->line;
			placeholder->col = child->col;
			placeholder->value = xstrdup("");
			ynode_free(child);
			child = placeholder;
		}
		top->pending_key = child;
		return;
	}
	struct ynode *key = top->pending_key;
	top->pending_key = NULL;
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->pairs[i].key->value, key->value) == 0) {
			diag_add(diags, name, key->line, key->col,
				 "duplicate key '%s' (first at line %d)", key->value,
				 c->pairs[i].key->line);
			*bad = true;
			ynode_free(key);
			ynode_free(child);
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

int ytree_parse(const char *name, const char *data, size_t len, struct ynode **root,
		struct diag_list *diags)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct frame stack[YTREE_MAX_DEPTH];
	size_t depth = 0;
	struct ynode *doc = NULL;
	int n_docs = 0;
	bool bad = false, done = false;
	int ret = -1;

	*root = NULL;
	if (!yaml_parser_initialize(&parser)) {
		diag_add(diags, name, 0, 0, "cannot initialise the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);

	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			struct strbuf sb = STRBUF_INIT;
			describe_problem(&parser, &sb);
			diag_add(diags, name, (int)parser.problem_mark.line + 1,
				 (int)parser.problem_mark.column + 1, "%s", strbuf_str(&sb));
			strbuf_release(&sb);
			bad = true;
			break;
		}
		struct ynode *node = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++n_docs > 1) {
				diag_add(diags, name, (int)ev.start_mark.line + 1,
					 (int)ev.start_mark.column + 1,
					 "more than one YAML document in the file");
				bad = true;
				done = true;
			}
			break;
		case YAML_ALIAS_EVENT:
			diag_add(diags, name, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				 "aliases are not supported, found '*%s'",
				 ev.data.alias.anchor ? (const char *)ev.data.alias.anchor : "");
			bad = true;
			node = node_new(YNODE_SCALAR, &ev.start_mark);
			node->value = xstrdup("");
			break;
		case YAML_SCALAR_EVENT:
			node = node_new(YNODE_SCALAR, &ev.start_mark);
			node->value = xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
			node->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			if (strlen(node->value) != ev.data.scalar.length) {
				diag_add(diags, name, node->line, node->col, "NUL byte in a value");
				bad = true;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth == YTREE_MAX_DEPTH) {
				diag_add(diags, name, (int)ev.start_mark.line + 1,
					 (int)ev.start_mark.column + 1, "nesting deeper than %d levels",
					 YTREE_MAX_DEPTH);
				bad = true;
				done = true;
				break;
			}
			stack[depth].node = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ
											  : YNODE_MAP,
						     &ev.start_mark);
			stack[depth].pending_key = NULL;
			stack[depth].cap = 0;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0) {
				depth--;
				ynode_free(stack[depth].pending_key);
				node = stack[depth].node;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (!node)
			continue;
		if (depth > 0)
			attach(name, &stack[depth - 1], node, diags, &bad);
		else if (!doc)
			doc = node;
		else
			ynode_free(node);
	}
	while (depth > 0) {
		depth--;
		ynode_free(stack[depth].pending_key);
		ynode_free(stack[depth].node);
	}
	yaml_parser_delete(&parser);
	if (bad) {
		ynode_free(doc);
		goto out;
	}
	*root = doc;
	ret = 0;
out:
	return ret;
}

int ytree_load_file(const char *path, struct ynode **root, struct diag_list *diags)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;
	char buf[8192];
	FILE *f = fopen(path, "rb");

	*root = NULL;
	if (!f) {
		diag_add(diags, path, 0, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		strbuf_append(&sb, buf, n);
		if (sb.len > YTREE_MAX_FILE) {
			diag_add(diags, path, 0, 0, "file larger than %d bytes", YTREE_MAX_FILE);
			goto out;
		}
	}
	if (ferror(f)) {
		diag_add(diags, path, 0, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	ret = ytree_parse(path, strbuf_str(&sb), sb.len, root, diags);
out:
	fclose(f);
	strbuf_release(&sb);
	return ret;
}

const struct ynode *ymap_key(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key->value, key) == 0)
			return map->pairs[i].key;
	return NULL;
}

const struct ynode *ymap_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key->value, key) == 0)
			return map->pairs[i].value;
	return NULL;
}

bool ynode_is_null(const struct ynode *n)
{
	return n && n->kind == YNODE_SCALAR && n->plain &&
	       (n->value[0] == '\0' || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0 ||
		strcmp(n->value, "Null") == 0 || strcmp(n->value, "NULL") == 0);
}
