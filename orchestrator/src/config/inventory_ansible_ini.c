/*
 * ansible_from_ini(): Ansible's INI inventory, line by line: [GROUP]
 * (hosts, each "NAME [VAR=VALUE]..."), [GROUP:vars] ("VAR=VALUE") and
 * [GROUP:children] (group names); hosts before any section are
 * ungrouped. '#' and ';' start a comment line; a word starting with '#'
 * ends a host line. Values may be quoted '...' or "...".
 */
#include "config/inventory_ansible.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum section { SEC_HOSTS, SEC_VARS, SEC_CHILDREN };

struct ini {
	struct cfg *c;
	struct ansible_inv *a;
	int line;
	const char *bol;       /* the line's first byte, for columns */
	size_t group;          /* SIZE_MAX before any section */
	enum section sec;
};

static struct ynode *word(struct ini *r, const char *p, size_t len)
{
	return ansible_scalar(r->a, r->c->file, r->line, (int)(p - r->bol) + 1, p, len);
}

/* A place for a message about the text at p. */
static struct ynode *at(struct ini *r, const char *p)
{
	return word(r, p, 0);
}

/* The end of the word at p: whitespace ends it, except inside quotes. */
static const char *word_end(const char *p, const char *eol)
{
	char q = 0;
	for (; p < eol; p++) {
		if (q) {
			if (*p == q)
				q = 0;
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (isspace((unsigned char)*p)) {
			break;
		}
	}
	return p;
}

/* A value without its quotes, when the quotes enclose all of it. */
static struct ynode *value(struct ini *r, const char *p, const char *end)
{
	if (end - p >= 2 && (*p == '\'' || *p == '"') && end[-1] == *p) {
		struct ynode *n = word(r, p + 1, (size_t)(end - p - 2));
		n->plain = false;
		return n;
	}
	return word(r, p, (size_t)(end - p));
}

static void section(struct ini *r, const char *p, const char *eol)
{
	const char *close = memchr(p, ']', (size_t)(eol - p));
	if (!close) {
		cfg_error(r->c, at(r, eol), "a section header needs its ']', found the end of "
			  "the line");
		return;
	}
	const char *colon = memchr(p, ':', (size_t)(close - p));
	const char *name_end = colon ? colon : close;
	if (name_end == p + 1) {
		cfg_error(r->c, at(r, p + 1), "a section needs a group name, found '%.*s'",
			  (int)(close - p + 1), p);
		return;
	}
	r->sec = SEC_HOSTS;
	if (colon) {
		size_t klen = (size_t)(close - colon - 1);
		if (klen == 4 && strncmp(colon + 1, "vars", 4) == 0) {
			r->sec = SEC_VARS;
		} else if (klen == 8 && strncmp(colon + 1, "children", 8) == 0) {
			r->sec = SEC_CHILDREN;
		} else {
			char *k = xstrndup(colon + 1, klen);
			cfg_error(r->c, at(r, colon + 1), "unknown section kind '%s' (use [GROUP], "
				  "[GROUP:vars] or [GROUP:children])", k);
			free(k);
		}
	}
	r->group = ansible_group(r->a, word(r, p + 1, (size_t)(name_end - p - 1)));
}

/* NAME=VALUE from p to end; value may be written "NAME = VALUE". */
static void var(struct ini *r, const char *p, const char *end, struct ansible_var **v, size_t *n)
{
	const char *eq = memchr(p, '=', (size_t)(end - p));
	if (!eq) {
		char *w = xstrndup(p, (size_t)(end - p));
		cfg_error(r->c, at(r, p), "expected NAME=VALUE, found '%s'", w);
		free(w);
		return;
	}
	const char *kend = eq;
	while (kend > p && isspace((unsigned char)kend[-1]))
		kend--;
	const char *vs = eq + 1;
	while (vs < end && isspace((unsigned char)*vs))
		vs++;
	const char *ve = end;
	while (ve > vs && isspace((unsigned char)ve[-1]))
		ve--;
	if (kend == p) {
		cfg_error(r->c, at(r, p), "expected NAME=VALUE, found no name before '='");
		return;
	}
	ansible_add_var(v, n, word(r, p, (size_t)(kend - p)), value(r, vs, ve));
}

static void host_line(struct ini *r, const char *p, const char *eol)
{
	const char *e = word_end(p, eol);
	size_t hi = ansible_add_host(r->c, r->a, r->group, word(r, p, (size_t)(e - p)));
	for (p = e; p < eol;) {
		while (p < eol && isspace((unsigned char)*p))
			p++;
		if (p >= eol || *p == '#')
			break;
		e = word_end(p, eol);
		var(r, p, e, &r->a->hosts[hi].vars, &r->a->hosts[hi].n_vars);
		p = e;
	}
}

static void body_line(struct ini *r, const char *p, const char *eol)
{
	if (r->sec == SEC_HOSTS) {
		host_line(r, p, eol);
	} else if (r->sec == SEC_VARS) {
		struct ansible_group *g = &r->a->groups[r->group];
		var(r, p, eol, &g->vars, &g->n_vars);
	} else {
		const char *e = word_end(p, eol);
		const struct ynode *child = word(r, p, (size_t)(e - p));
		ansible_group(r->a, child);
		struct ansible_group *g = &r->a->groups[r->group];
		g->children = xrealloc(g->children, (g->n_children + 1) * sizeof(*g->children));
		g->children[g->n_children++] = child;
	}
}

struct ynode *ansible_from_ini(struct cfg *c, const char *data, size_t len)
{
	struct ansible_inv a = { 0 };
	struct ini r = { .c = c, .a = &a, .group = SIZE_MAX, .sec = SEC_HOSTS };
	const char *p = data, *end = data + len;
	for (r.line = 1; p < end; r.line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		r.bol = p;
		const char *next = eol < end ? eol + 1 : end;
		if (eol > p && eol[-1] == '\r')
			eol--;
		while (p < eol && isspace((unsigned char)*p))
			p++;
		while (eol > p && isspace((unsigned char)eol[-1]))
			eol--;
		if (p < eol && *p == '[')
			section(&r, p, eol);
		else if (p < eol && *p != '#' && *p != ';')
			body_line(&r, p, eol);
		p = next;
	}
	struct ynode at = { .kind = YNODE_SCALAR, .file = c->file, .line = 1, .col = 1 };
	struct ynode *out = ansible_emit(c, &a, &at);
	ansible_inv_release(&a);
	return out;
}
