/*
 * A scenario's `facts:` (more facts for every board: NAME: "command") and
 * `label:` (text, or { fact: NAME }: the run is named by a fact's value).
 */
#include "config/cfg_read.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

const char *const scenario_builtin_facts[] = {
	"kernel", "os", "os_version", "arch", "cpu", "cores", "mhz", "bogomips", "memory", "libc",
	"workdir_fs", "workdir_device", "workdir_model", NULL,
};

static bool fact_known(const struct scenario *sc, const char *name)
{
	for (size_t i = 0; scenario_builtin_facts[i]; i++)
		if (strcmp(scenario_builtin_facts[i], name) == 0)
			return true;
	for (size_t i = 0; i < sc->n_facts; i++)
		if (strcmp(sc->facts[i].name, name) == 0)
			return true;
	return false;
}

static void read_fact_map(struct cfg *c, const struct ynode *n, struct scenario *sc)
{
	char f[96];
	if (!n || ynode_is_null(n) || !cfg_want_map(c, n, "facts"))
		return;
	sc->facts = xcalloc(n->n ? n->n : 1, sizeof(*sc->facts));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->pairs[i].key, *v = n->pairs[i].value;
		if (!cfg_safe_name(k->value)) {
			cfg_error(c, k, "invalid fact name, found %s (use letters, digits, '.', '_', '-')",
				  cfg_found(k, f, sizeof(f)));
			continue;
		}
		if (fact_known(sc, k->value)) {
			cfg_error(c, k, "fact '%s' is gathered already (built-in facts: kernel, os, "
				  "os_version, arch, cpu, cores, mhz, bogomips, memory, libc)", k->value);
			continue;
		}
		char *cmd = NULL;
		if (cfg_str(c, v, k->value, &cmd) <= 0)
			continue;
		if (!*cmd) {
			cfg_error(c, v, "empty command for fact '%s'", k->value);
			free(cmd);
			continue;
		}
		struct fact_spec *fs = &sc->facts[sc->n_facts++];
		fs->name = xstrdup(k->value);
		fs->command = cmd;
		fs->pos = cfg_pos(c, k);
	}
}

static void read_label(struct cfg *c, const struct ynode *n, struct scenario *sc)
{
	char f[96];
	static const char *const label_keys[] = { "fact", NULL };
	if (!n || ynode_is_null(n))
		return;
	if (n->kind == YNODE_SCALAR) {
		cfg_str(c, n, "label", &sc->label);
		return;
	}
	if (n->kind != YNODE_MAP) {
		cfg_error(c, n, "invalid 'label', found %s (use text, or { fact: NAME })",
			  cfg_found(n, f, sizeof(f)));
		return;
	}
	cfg_check_keys(c, n, label_keys, "label");
	const struct ynode *fact = ymap_get(n, "fact");
	if (!fact) {
		cfg_error(c, n, "'label' needs 'fact: NAME'");
		return;
	}
	char *name = NULL;
	if (cfg_str(c, fact, "fact", &name) <= 0)
		return;
	if (!fact_known(sc, name)) {
		const char *cands[64];
		size_t k = 0;
		for (size_t i = 0; scenario_builtin_facts[i] && k < 60; i++)
			cands[k++] = scenario_builtin_facts[i];
		for (size_t i = 0; i < sc->n_facts && k < 63; i++)
			cands[k++] = sc->facts[i].name;
		cands[k] = NULL;
		const char *near = cfg_suggest(name, cands);
		cfg_error(c, fact, "unknown fact '%s' for 'label'%s%s%s (name one under 'facts:' or "
			  "a built-in one)", name, near ? " (did you mean '" : "", near ? near : "",
			  near ? "'?)" : "");
		free(name);
		return;
	}
	sc->label_fact = name;
}

void scenario_read_facts(struct cfg *c, const struct ynode *root, struct scenario *sc)
{
	read_fact_map(c, ymap_get(root, "facts"), sc);
	read_label(c, ymap_get(root, "label"), sc);
}

void scenario_facts_release(struct scenario *sc)
{
	for (size_t i = 0; i < sc->n_facts; i++) {
		free(sc->facts[i].name);
		free(sc->facts[i].command);
	}
	free(sc->facts);
	free(sc->label);
	free(sc->label_fact);
}
