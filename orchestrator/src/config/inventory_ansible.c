#include "config/inventory_ansible.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const group_keys[] = { "hosts", "vars", "children", NULL };
/* Connection vars of Ansible (and their older ansible_ssh_ names) -> ssh: keys. */
static const struct {
	const char *var, *key;
} ssh_vars[] = {
	{ "ansible_host", "host" }, { "ansible_ssh_host", "host" },
	{ "ansible_port", "port" }, { "ansible_ssh_port", "port" },
	{ "ansible_user", "user" }, { "ansible_ssh_user", "user" },
	{ "ansible_ssh_private_key_file", "identity" }, { "ansible_private_key_file", "identity" },
};
/* Secrets orch never reads from a file (password_env instead). */
static const char *const secret_vars[] = {
	"ansible_password", "ansible_ssh_pass", "ansible_ssh_password", "ansible_become_pass",
	"ansible_become_password", "ansible_sudo_pass", "ansible_su_pass", NULL,
};

static struct ynode *node_new(enum ynode_kind kind, const struct ynode *at, const char *value)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->file = at->file;
	n->line = at->line;
	n->col = at->col;
	n->plain = true;
	if (kind == YNODE_SCALAR)
		n->value = xstrdup(value ? value : "");
	return n;
}

static struct ynode *clone(const struct ynode *src)
{
	struct ynode *n = node_new(src->kind, src, src->value);
	n->plain = src->plain;
	n->single_quoted = src->single_quoted;
	n->n = src->n;
	if (src->kind == YNODE_SEQ) {
		n->items = xcalloc(src->n + 1, sizeof(*n->items));
		for (size_t i = 0; i < src->n; i++)
			n->items[i] = clone(src->items[i]);
	} else if (src->kind == YNODE_MAP) {
		n->pairs = xcalloc(src->n + 1, sizeof(*n->pairs));
		for (size_t i = 0; i < src->n; i++) {
			n->pairs[i].key = clone(src->pairs[i].key);
			n->pairs[i].value = clone(src->pairs[i].value);
		}
	}
	return n;
}

/* Sets map[key] = value (owned), over an entry of that name. */
static void map_put(struct ynode *map, const char *key, const struct ynode *at,
		    struct ynode *value)
{
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key->value, key) == 0) {
			ynode_free(map->pairs[i].value);
			map->pairs[i].value = value;
			return;
		}
	map->pairs = xrealloc(map->pairs, (map->n + 1) * sizeof(*map->pairs));
	map->pairs[map->n].key = node_new(YNODE_SCALAR, at, key);
	map->pairs[map->n++].value = value;
}

/* map[key], a mapping made when absent. */
static struct ynode *map_sub(struct ynode *map, const char *key, const struct ynode *at)
{
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key->value, key) == 0)
			return map->pairs[i].value;
	struct ynode *sub = node_new(YNODE_MAP, at, NULL);
	map_put(map, key, at, sub);
	return sub;
}

static void seq_push(struct ynode *seq, struct ynode *item)
{
	seq->items = xrealloc(seq->items, (seq->n + 1) * sizeof(*seq->items));
	seq->items[seq->n++] = item;
}

static bool in_list(const char *w, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

/* ansible_connection: local or ssh (paramiko and smart are ssh too). */
static void put_connection(struct cfg *c, struct ynode *target, const struct ynode *k,
			   const struct ynode *v)
{
	char f[96];
	const char *t = v->kind != YNODE_SCALAR ? NULL
			: strcmp(v->value, "local") == 0 ? "local"
			: in_list(v->value, (const char *const[]){ "ssh", "paramiko", "smart", NULL })
			? "ssh" : NULL;
	if (!t) {
		cfg_error(c, v, "ansible_connection %s is not one orch has (ssh, paramiko, smart "
			  "or local)", cfg_found(v, f, sizeof(f)));
		return;
	}
	map_put(target, "transport", k, node_new(YNODE_SCALAR, v, t));
	if (strcmp(t, "local") == 0)
		map_put(target, "local", k, node_new(YNODE_SCALAR, v, "true"));
}

/* The word after "NAME=" (or "NAME ") in ssh options text, or NULL; caller frees. */
static char *ssh_option(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if (p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *v = p + len;
		if (*v != '=' && *v != ' ')
			continue;
		v += strspn(v, "= ");
		size_t n = strcspn(v, " \t'\"");
		return n ? xstrndup(v, n) : NULL;
	}
	return NULL;
}

/* ansible_ssh_common_args / _extra_args: the host-key options OpenSSH
 * would take from them (StrictHostKeyChecking, UserKnownHostsFile). */
static void put_ssh_args(struct ynode *target, const struct ynode *k, const struct ynode *v)
{
	char *strict = ssh_option(v->value, "StrictHostKeyChecking");
	char *kh = ssh_option(v->value, "UserKnownHostsFile");
	if (strict) {
		const char *policy = !strcasecmp(strict, "no") || !strcasecmp(strict, "off") ? "off"
				     : !strcasecmp(strict, "accept-new") ? "accept-new" : "strict";
		map_put(map_sub(target, "ssh", k), "host_key", k, node_new(YNODE_SCALAR, v, policy));
	}
	if (kh)
		map_put(map_sub(target, "ssh", k), "known_hosts", k, node_new(YNODE_SCALAR, v, kh));
	free(strict);
	free(kh);
}

/* ansible_host_key_checking: false is host_key: off. */
static void put_host_key_checking(struct ynode *target, const struct ynode *k,
				  const struct ynode *v)
{
	bool off = !strcasecmp(v->value, "false") || !strcasecmp(v->value, "no") ||
		   !strcmp(v->value, "0");
	map_put(map_sub(target, "ssh", k), "host_key", k,
		node_new(YNODE_SCALAR, v, off ? "off" : "strict"));
}

/* Ansible vars into target (a board, a group or defaults:). */
static void put_vars(struct cfg *c, struct ynode *target, const struct ansible_var *vars,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ynode *k = vars[i].key, *v = vars[i].value;
		const char *name = k->value;
		bool scalar = v->kind == YNODE_SCALAR;
		const char *ssh_key = NULL;
		for (size_t j = 0; j < sizeof(ssh_vars) / sizeof(ssh_vars[0]); j++)
			if (strcmp(name, ssh_vars[j].var) == 0)
				ssh_key = ssh_vars[j].key;
		if (in_list(name, secret_vars)) {
			if (scalar)
				secret_known(v->value);   /* never used, never shown */
			continue;
		}
		if (ssh_key) {
			map_put(map_sub(target, "ssh", k), ssh_key, k, clone(v));
			continue;
		}
		if (strcmp(name, "ansible_connection") == 0) {
			put_connection(c, target, k, v);
			continue;
		}
		if (scalar && (strcmp(name, "ansible_ssh_common_args") == 0 ||
			       strcmp(name, "ansible_ssh_extra_args") == 0))
			put_ssh_args(target, k, v);
		if (scalar && strcmp(name, "ansible_host_key_checking") == 0)
			put_host_key_checking(target, k, v);
		if (scalar)
			map_put(map_sub(target, "vars", k), name, k, clone(v));
	}
}

static bool skip_group(const char *name)
{
	return strcmp(name, "all") == 0 || strcmp(name, "ungrouped") == 0;
}

static struct ynode *emit_group(struct cfg *c, const struct ansible_group *g)
{
	struct ynode *m = node_new(YNODE_MAP, g->name, NULL);
	struct ynode *boards = node_new(YNODE_SEQ, g->name, NULL);
	struct ynode *children = node_new(YNODE_SEQ, g->name, NULL);
	for (size_t i = 0; i < g->n_hosts; i++)
		seq_push(boards, clone(g->hosts[i]));
	for (size_t i = 0; i < g->n_children; i++)
		if (!skip_group(g->children[i]->value))
			seq_push(children, clone(g->children[i]));
	map_put(m, "boards", g->name, boards);
	map_put(m, "children", g->name, children);
	struct ynode *tags = node_new(YNODE_SEQ, g->name, NULL);
	seq_push(tags, node_new(YNODE_SCALAR, g->name, g->name->value));
	map_put(m, "tags", g->name, tags);
	put_vars(c, m, g->vars, g->n_vars);
	return m;
}

struct ynode *ansible_emit(struct cfg *c, const struct ansible_inv *a, const struct ynode *at)
{
	struct ynode *root = node_new(YNODE_MAP, at, NULL);
	for (size_t i = 0; i < a->n_groups; i++)
		if (strcmp(a->groups[i].name->value, "all") == 0 && a->groups[i].n_vars)
			put_vars(c, map_sub(root, "defaults", a->groups[i].name), a->groups[i].vars,
				 a->groups[i].n_vars);
	for (size_t i = 0; i < a->n_groups; i++)
		if (!skip_group(a->groups[i].name->value))
			map_put(map_sub(root, "groups", a->groups[i].name), a->groups[i].name->value,
				a->groups[i].name, emit_group(c, &a->groups[i]));
	struct ynode *boards = map_sub(root, "boards", at);
	for (size_t i = 0; i < a->n_hosts; i++) {
		const struct ansible_host *h = &a->hosts[i];
		struct ynode *m = node_new(YNODE_MAP, h->name, NULL);
		map_sub(m, "ssh", h->name);
		put_vars(c, m, h->vars, h->n_vars);
		map_put(boards, h->name->value, h->name, m);
	}
	return root;
}

struct ynode *ansible_scalar(struct ansible_inv *a, const char *file, int line, int col,
			     const char *value, size_t len)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->kind = YNODE_SCALAR;
	n->file = file;
	n->line = line;
	n->col = col;
	n->plain = true;
	n->value = xstrndup(value, len);
	a->pool = xrealloc(a->pool, (a->n_pool + 1) * sizeof(*a->pool));
	a->pool[a->n_pool++] = n;
	return n;
}

size_t ansible_group(struct ansible_inv *a, const struct ynode *name)
{
	for (size_t i = 0; i < a->n_groups; i++)
		if (strcmp(a->groups[i].name->value, name->value) == 0)
			return i;
	a->groups = xrealloc(a->groups, (a->n_groups + 1) * sizeof(*a->groups));
	a->groups[a->n_groups] = (struct ansible_group){ .name = name };
	return a->n_groups++;
}

void ansible_add_var(struct ansible_var **v, size_t *n, const struct ynode *key,
		     const struct ynode *value)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct ansible_var){ key, value };
}

/* "NAME:PORT" -> NAME, and an ansible_port var before the host's own. */
size_t ansible_add_host(struct cfg *c, struct ansible_inv *a, size_t gi, const struct ynode *name)
{
	const char *colon = strchr(name->value, ':');
	const struct ynode *port = NULL;
	if (colon && colon == strrchr(name->value, ':') && colon[1] &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		port = ansible_scalar(a, name->file, name->line, name->col + (int)(colon + 1 - name->value),
				      colon + 1, strlen(colon + 1));
		name = ansible_scalar(a, name->file, name->line, name->col, name->value,
				      (size_t)(colon - name->value));
	}
	if (strchr(name->value, '[')) {
		cfg_error(c, name, "host ranges such as '%s' are not read: list the hosts",
			  name->value);
	}
	size_t hi = 0;
	while (hi < a->n_hosts && strcmp(a->hosts[hi].name->value, name->value) != 0)
		hi++;
	if (hi == a->n_hosts) {
		a->hosts = xrealloc(a->hosts, (a->n_hosts + 1) * sizeof(*a->hosts));
		a->hosts[a->n_hosts++] = (struct ansible_host){ .name = name };
	}
	if (port)
		ansible_add_var(&a->hosts[hi].vars, &a->hosts[hi].n_vars,
				ansible_scalar(a, name->file, name->line, name->col, "ansible_port", 12),
				port);
	if (gi != SIZE_MAX) {
		struct ansible_group *g = &a->groups[gi];
		g->hosts = xrealloc(g->hosts, (g->n_hosts + 1) * sizeof(*g->hosts));
		g->hosts[g->n_hosts++] = name;
	}
	return hi;
}

void ansible_inv_release(struct ansible_inv *a)
{
	for (size_t i = 0; i < a->n_hosts; i++)
		free(a->hosts[i].vars);
	for (size_t i = 0; i < a->n_groups; i++) {
		free(a->groups[i].hosts);
		free(a->groups[i].children);
		free(a->groups[i].vars);
	}
	for (size_t i = 0; i < a->n_pool; i++)
		ynode_free(a->pool[i]);
	free(a->hosts);
	free(a->groups);
	free(a->pool);
	memset(a, 0, sizeof(*a));
}

/* A group mapping of the YAML form: hosts:, vars:, children: (recursively). */
static void yaml_group(struct cfg *c, struct ansible_inv *a, const struct ynode *key,
		       const struct ynode *m, int depth)
{
	size_t gi = ansible_group(a, key);
	if (ynode_is_null(m) || !cfg_want_map(c, m, "an Ansible group"))
		return;
	cfg_check_keys(c, m, group_keys, "an Ansible group");
	const struct ynode *hosts = ymap_get(m, "hosts");
	if (hosts && !ynode_is_null(hosts) && cfg_want_map(c, hosts, "hosts"))
		for (size_t i = 0; i < hosts->n; i++) {
			size_t hi = ansible_add_host(c, a, gi, hosts->pairs[i].key);
			const struct ynode *hv = hosts->pairs[i].value;
			if (ynode_is_null(hv) || !cfg_want_map(c, hv, "a host's vars"))
				continue;
			for (size_t k = 0; k < hv->n; k++)
				ansible_add_var(&a->hosts[hi].vars, &a->hosts[hi].n_vars,
						hv->pairs[k].key, hv->pairs[k].value);
		}
	const struct ynode *vars = ymap_get(m, "vars");
	if (vars && !ynode_is_null(vars) && cfg_want_map(c, vars, "vars"))
		for (size_t k = 0; k < vars->n; k++)
			ansible_add_var(&a->groups[gi].vars, &a->groups[gi].n_vars, vars->pairs[k].key,
					vars->pairs[k].value);
	const struct ynode *children = ymap_get(m, "children");
	if (!children || ynode_is_null(children) || !cfg_want_map(c, children, "children"))
		return;
	for (size_t i = 0; i < children->n && depth < 64; i++) {
		struct ansible_group *g = &a->groups[gi];
		g->children = xrealloc(g->children, (g->n_children + 1) * sizeof(*g->children));
		g->children[g->n_children++] = children->pairs[i].key;
		yaml_group(c, a, children->pairs[i].key, children->pairs[i].value, depth + 1);
	}
}

bool ansible_yaml_detect(const struct ynode *root)
{
	return root && root->kind == YNODE_MAP && ymap_get(root, "all") && !ymap_get(root, "boards");
}

struct ynode *ansible_from_yaml(struct cfg *c, const struct ynode *root)
{
	struct ansible_inv a = { 0 };
	for (size_t i = 0; i < root->n; i++)
		yaml_group(c, &a, root->pairs[i].key, root->pairs[i].value, 0);
	struct ynode *out = ansible_emit(c, &a, root);
	ansible_inv_release(&a);
	return out;
}

bool ansible_ini_detect(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		while (p < eol && isspace((unsigned char)*p))
			p++;
		if (p < eol && *p != '#' && *p != ';') {
			if (eol - p >= 3 && strncmp(p, "---", 3) == 0)
				return false;
			bool host = isalnum((unsigned char)*p) || *p == '_' || *p == '.';
			return *p == '[' || (host && !memchr(p, ':', (size_t)(eol - p)));
		}
		p = eol + 1;
	}
	return false;
}
