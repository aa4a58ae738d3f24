#include "config/include.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct inc {
	struct include_files *files;
	struct diag_list *diags;
	char *stack[INCLUDE_MAX_DEPTH + 1];   /* real paths of the files being expanded */
	size_t depth;
	bool bad;
};

static int expand(struct inc *ic, struct ynode *root, const char *file);

static void inc_error(struct inc *ic, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void inc_error(struct inc *ic, const struct ynode *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_add(ic->diags, at->file, at->line, at->col, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	ic->bad = true;
}

static char *cycle_text(struct inc *ic, const char *real)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < ic->depth; i++) {
		strbuf_puts(&sb, ic->stack[i]);
		strbuf_puts(&sb, " -> ");
	}
	strbuf_puts(&sb, real);
	return strbuf_detach(&sb);
}

/* Loads the file an include names; its tree (expanded) or NULL. */
static struct ynode *load_included(struct inc *ic, const struct ynode *name)
{
	if (name->kind != YNODE_SCALAR || !name->value[0]) {
		inc_error(ic, name, "'include' needs a file name");
		return NULL;
	}
	char *dir = fs_dirname(name->file);
	char *path = fs_resolve_path(name->value, dir);
	free(dir);
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		inc_error(ic, name, "cannot include '%s': no such file", name->value);
		free(path);
		return NULL;
	}
	for (size_t i = 0; i < ic->depth; i++) {
		if (strcmp(ic->stack[i], real) == 0) {
			char *cyc = cycle_text(ic, real);
			inc_error(ic, name, "include cycle: %s", cyc);
			free(cyc);
			free(path);
			return NULL;
		}
	}
	if (ic->depth == INCLUDE_MAX_DEPTH) {
		inc_error(ic, name, "includes nested deeper than %d levels", INCLUDE_MAX_DEPTH);
		free(path);
		return NULL;
	}
	ic->files->paths = xrealloc(ic->files->paths, (ic->files->n + 1) * sizeof(char *));
	ic->files->paths[ic->files->n++] = path;   /* nodes will borrow it */
	struct ynode *tree = NULL;
	if (ytree_load_file(path, &tree, ic->diags) < 0) {
		ic->bad = true;
		return NULL;
	}
	if (!tree) {
		inc_error(ic, name, "included file '%s' is empty", name->value);
		return NULL;
	}
	ic->stack[ic->depth++] = xstrdup(real);
	expand(ic, tree, path);
	free(ic->stack[--ic->depth]);
	return tree;
}

/* The test list of an included tree: the tree itself when it is a list,
 * else its 'tests:'. NULL (reported) when it has none. */
static struct ynode *tests_of(struct inc *ic, struct ynode *tree, const struct ynode *name)
{
	if (tree->kind == YNODE_SEQ)
		return tree;
	struct ynode *t = ymap_get_mut(tree, "tests");
	if (tree->kind == YNODE_MAP && (!t || t->kind == YNODE_SEQ) &&
	    (t || ymap_get(tree, "include")))
		return t;
	inc_error(ic, name, "included file '%s' holds neither a list of tests nor a scenario "
		  "with 'tests:'", name->value);
	return NULL;
}

/* Moves the items of from (a list) into into at index at; from is left empty. */
static void splice(struct ynode *into, size_t at, struct ynode *from)
{
	if (!from || from->n == 0)
		return;
	into->items = xrealloc(into->items, (into->n + from->n) * sizeof(*into->items));
	memmove(into->items + at + from->n, into->items + at, (into->n - at) * sizeof(*into->items));
	memcpy(into->items + at, from->items, from->n * sizeof(*into->items));
	into->n += from->n;
	from->n = 0;
}

/* `- include: FILE` items of a tests list, replaced by the file's tests. */
static void expand_test_items(struct inc *ic, struct ynode *tests)
{
	for (size_t i = 0; i < tests->n;) {
		struct ynode *item = tests->items[i];
		const struct ynode *name = ymap_get(item, "include");
		if (!name) {
			i++;
			continue;
		}
		if (item->n != 1)
			inc_error(ic, ymap_key(item, "include"),
				  "an 'include' item in 'tests' takes no other keys");
		struct ynode *tree = load_included(ic, name);
		struct ynode *list = tree ? tests_of(ic, tree, name) : NULL;
		size_t n = list ? list->n : 0;
		memmove(tests->items + i, tests->items + i + 1, (tests->n - i - 1) * sizeof(*tests->items));
		tests->n--;
		splice(tests, i, list);
		ynode_free(item);
		ynode_free(tree);
		i += n;
	}
}

/* The 'tests' list of a scenario mapping, created empty when absent. */
static struct ynode *tests_list(struct ynode *root, const struct ynode *at)
{
	struct ynode *t = ymap_get_mut(root, "tests");
	if (t)
		return t;
	struct ynode *key = xcalloc(1, sizeof(*key)), *seq = xcalloc(1, sizeof(*seq));
	key->kind = YNODE_SCALAR;
	key->value = xstrdup("tests");
	key->plain = true;
	key->file = at->file;
	key->line = at->line;
	key->col = at->col;
	*seq = *key;
	seq->kind = YNODE_SEQ;
	seq->value = NULL;
	root->pairs = xrealloc(root->pairs, (root->n + 1) * sizeof(*root->pairs));
	root->pairs[root->n].key = key;
	root->pairs[root->n].value = seq;
	root->n++;
	return seq;
}

/* Top-level `include:`: the included scenarios' tests go first. */
static void expand_top(struct inc *ic, struct ynode *root, const struct ynode *inc)
{
	struct ynode *own = ymap_get_mut(root, "tests");
	if (own && own->kind != YNODE_SEQ)
		return;   /* reported by the scenario reader */
	size_t at = 0;
	size_t n = inc->kind == YNODE_SEQ ? inc->n : 1;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *name = inc->kind == YNODE_SEQ ? inc->items[i] : inc;
		struct ynode *tree = load_included(ic, name);
		struct ynode *list = tree ? tests_of(ic, tree, name) : NULL;
		if (list && list->n) {
			struct ynode *tests = tests_list(root, name);
			size_t k = list->n;
			splice(tests, at, list);
			at += k;
		}
		ynode_free(tree);
	}
}

static int expand(struct inc *ic, struct ynode *root, const char *file)
{
	(void)file;
	if (root->kind == YNODE_SEQ) {
		expand_test_items(ic, root);
	} else if (root->kind == YNODE_MAP) {
		struct ynode *tests = ymap_get_mut(root, "tests");
		if (tests && tests->kind == YNODE_SEQ)
			expand_test_items(ic, tests);
		const struct ynode *inc = ymap_get(root, "include");
		if (inc && (inc->kind == YNODE_SCALAR || inc->kind == YNODE_SEQ))
			expand_top(ic, root, inc);
		else if (inc)
			inc_error(ic, inc, "'include' needs a file name or a list of them");
	}
	return ic->bad ? -1 : 0;
}

int include_expand(struct ynode *root, const char *file, struct include_files *files,
		   struct diag_list *diags)
{
	struct inc ic = { .files = files, .diags = diags };
	char real[PATH_MAX];
	if (!root)
		return 0;
	if (realpath(file, real))
		ic.stack[ic.depth++] = xstrdup(real);
	int rc = expand(&ic, root, file);
	while (ic.depth)
		free(ic.stack[--ic.depth]);
	return rc;
}

void include_files_release(struct include_files *files)
{
	for (size_t i = 0; i < files->n; i++)
		free(files->paths[i]);
	free(files->paths);
	files->paths = NULL;
	files->n = 0;
}
