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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_ok(const char *s, size_t len)
{
	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

int extra_vars_add(const char *arg, const char *file_name, struct var **vars, size_t *n,
		   struct diag_list *diags)
{
	if (arg[0] == '@') {
		struct ynode *root = NULL;
		if (ytree_load_file(arg + 1, &root, diags) < 0)
			return -1;
		struct cfg c = { file_name, diags, diags->n };
		if (root && !ynode_is_null(root))
			cfg_vars(&c, root, "-e", true, vars, n);
		else
			diag_add(diags, file_name, 0, 0, "-e @FILE: the file holds no variables "
				 "(write NAME: value lines)");
		ynode_free(root);
		return cfg_failed(&c) || diags->n ? -1 : 0;
	}
	const char *eq = strchr(arg, '=');
	if (!eq || !name_ok(arg, (size_t)(eq - arg))) {
		diag_add(diags, "-e", 0, 0, "-e takes NAME=VALUE (NAME of letters, digits and '_') "
			 "or @FILE.yaml, found '%s'", arg);
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
