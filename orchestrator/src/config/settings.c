#include "config/settings.h"
#include "config/cfg_read.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
	const char *key, *env;
	bool path;
} table[SETTING_COUNT] = {
	[SETTING_INVENTORY] = { "inventory", "ORCH_INVENTORY", true },
	[SETTING_LOCK_DIR] = { "lock_dir", "ORCH_LOCK_DIR", true },
	[SETTING_DB] = { "db", "ORCH_DB", false },
	[SETTING_RUNS_DIR] = { "runs_dir", "ORCH_RUNS_DIR", true },
	[SETTING_BENCH_DIR] = { "bench_dir", "ORCH_BENCH_DIR", true },
	[SETTING_COLOR] = { "color", "ORCH_COLOR", false },
};
static const char *const keys[] = { "inventory", "lock_dir", "db", "runs_dir", "bench_dir",
				    "color", NULL };
static const char *const colors[] = { "auto", "always", "never", NULL };

const char *settings_key(enum setting s)
{
	return table[s].key;
}

const char *settings_env(enum setting s)
{
	return table[s].env;
}

static void read_one(struct cfg *c, const struct ynode *root, enum setting k, const char *dir,
		     struct settings *s)
{
	const struct ynode *n = ymap_get(root, table[k].key);
	char *v = NULL;
	int e;
	if (k == SETTING_COLOR) {
		if (cfg_enum(c, n, "color", colors, &e) > 0) {
			free(s->value[k]);
			s->value[k] = xstrdup(colors[e]);
		}
		return;
	}
	if (cfg_str(c, n, table[k].key, &v) <= 0)
		return;
	if (!v[0]) {
		cfg_error(c, n, "'%s' must not be empty", table[k].key);
		free(v);
		return;
	}
	free(s->value[k]);
	s->value[k] = table[k].path ? fs_resolve_path(v, dir) : v;
	if (table[k].path)
		free(v);
}

int settings_read(const char *path, struct settings *s, struct diag_list *diags)
{
	struct stat st;
	if (stat(path, &st) != 0 && errno == ENOENT)
		return 0;
	struct ynode *root = NULL;
	struct cfg c = { path, diags, diags->n };
	if (ytree_load_file(path, &root, diags) < 0)
		return -1;
	char *dir = fs_dirname(path);
	if (root && !ynode_is_null(root) && cfg_want_map(&c, root, "a configuration file")) {
		cfg_check_keys(&c, root, keys, "the configuration file");
		for (int k = 0; k < SETTING_COUNT; k++)
			read_one(&c, root, (enum setting)k, dir, s);
	}
	free(dir);
	ynode_free(root);
	cfg_sort_errors(&c);
	return cfg_failed(&c) ? -1 : 0;
}

void settings_release(struct settings *s)
{
	for (int k = 0; k < SETTING_COUNT; k++) {
		free(s->value[k]);
		s->value[k] = NULL;
	}
}

char *settings_find_project(const char *dir)
{
	char *d = xstrdup(dir);
	for (;;) {
		char *p = fs_path_join(d, ".orch.yaml");
		struct stat st;
		if (stat(p, &st) == 0) {
			free(d);
			return p;
		}
		free(p);
		char *up = fs_dirname(d);
		bool top = strcmp(up, d) == 0 || !strcmp(d, "/") || !strcmp(up, ".");
		free(d);
		d = up;
		if (top)
			break;
	}
	free(d);
	return NULL;
}
