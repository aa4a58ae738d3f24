/*
 * Variables from outside the scenario (orch run/validate -e): NAME=VALUE
 * or @FILE.yaml (a mapping of NAME to a plain value), put over every
 * level of vars: a scenario has (orch-scenario(5) "Variables").
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/yaml_tree.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool name_ok(const char *s, size_t len)
{
	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

static const char *kind_name(const struct ynode *n)
{
	return n->kind == YNODE_MAP ? "a mapping" : n->kind == YNODE_SEQ ? "a list" : "a scalar";
}

/* A -e @FILE may be any file the user points at (a symlink to /etc/shadow,
 * /proc/self/environ): its problems are told by place and kind only, its
 * text is never quoted. 0 when it is a mapping of NAME: plain value. */
static int check_var_file(const char *file_name, const struct ynode *root,
			  struct diag_list *diags)
{
	if (root->kind != YNODE_MAP) {
		diag_add(diags, file_name, root->line, root->col, "-e @FILE must hold a mapping "
			 "of NAME: value, found %s", kind_name(root));
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < root->n; i++) {
		const struct ynode *k = root->pairs[i].key, *v = root->pairs[i].value;
		if (!name_ok(k->value, strlen(k->value))) {
			diag_add(diags, file_name, k->line, k->col, "-e @FILE: invalid variable "
				 "name (use letters, digits and '_', not starting with a digit)");
			rc = -1;
		} else if (v->kind != YNODE_SCALAR) {
			diag_add(diags, file_name, v->line, v->col, "-e @FILE: a variable's value "
				 "must be a plain value, found %s", kind_name(v));
			rc = -1;
		}
		for (size_t j = 0; j < i && rc == 0; j++)
			if (!strcasecmp(root->pairs[j].key->value, k->value)) {
				diag_add(diags, file_name, k->line, k->col, "-e @FILE: two variables "
					 "differ only in case; both would reach commands as the same "
					 "ORCH_VARS_ variable");
				rc = -1;
			}
	}
	return rc;
}

/* Files of the kernel's own (/proc, /sys) are no variables file: they hold
 * other processes' environments and the machine's state. */
static bool kernel_file(const char *path)
{
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;
	return !strncmp(p, "/proc/", 6) || !strcmp(p, "/proc") || !strncmp(p, "/sys/", 5) ||
	       !strcmp(p, "/sys");
}

static int add_var_file(const char *path, const char *file_name, struct var **vars, size_t *n,
			struct diag_list *diags)
{
	size_t first = diags->n;
	if (kernel_file(path)) {
		diag_add(diags, file_name, 0, 0, "-e @FILE: refusing a file under /proc or /sys");
		return -1;
	}
	struct ynode *root = NULL;
	int rc = ytree_load_file_opaque(path, &root, diags);
	if (rc == 0 && (!root || ynode_is_null(root))) {
		diag_add(diags, file_name, 0, 0, "-e @FILE: the file holds no variables "
			 "(write NAME: value lines)");
		rc = -1;
	}
	if (rc == 0)
		rc = check_var_file(file_name, root, diags);
	if (rc == 0) {
		struct cfg c = { file_name, diags, diags->n };
		cfg_vars(&c, root, "-e", true, vars, n);
		rc = cfg_failed(&c) ? -1 : 0;
	}
	ynode_free(root);
	diag_hide_source(diags, first);
	return rc;
}

int extra_vars_add(const char *arg, const char *file_name, struct var **vars, size_t *n,
		   struct diag_list *diags)
{
	if (arg[0] == '@')
		return add_var_file(arg + 1, file_name, vars, n, diags);
	const char *eq = strchr(arg, '=');
	if (!eq) {   /* the value may be a secret: quoted by its name only */
		diag_add(diags, "-e", 0, 0, "-e takes NAME=VALUE (NAME of letters, digits and '_') "
			 "or @FILE.yaml, found no '='");
		return -1;
	}
	if (!name_ok(arg, (size_t)(eq - arg))) {
		diag_add(diags, "-e", 0, 0, "-e takes NAME=VALUE (NAME of letters, digits and '_') "
			 "or @FILE.yaml, found the name '%.*s'", (int)(eq - arg), arg);
		return -1;
	}
	char *name = xstrndup(arg, (size_t)(eq - arg));
	char *value = xstrdup(eq + 1);
	struct var one = { .name = name, .value = value, .test_level = true,
			   .pos = { file_name, 0, 0 } };
	cfg_vars_copy(vars, n, &one, 1);
	free(name);
	free(value);
	return 0;
}

void scenario_apply_extra_vars(struct scenario *sc, const struct var *vars, size_t n)
{
	if (!sc || !n)
		return;
	cfg_vars_copy(&sc->vars, &sc->n_vars, vars, n);
	for (size_t i = 0; i < sc->n_tests; i++)
		cfg_vars_copy(&sc->tests[i].vars, &sc->tests[i].n_vars, vars, n);
}
