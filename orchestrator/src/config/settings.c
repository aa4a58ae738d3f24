#include "config/settings.h"
#include "config/cfg_read.h"
#include "util/fsutil.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a path setting names, for the trust check of what a file names. */
enum named { NAMED_NONE, NAMED_FILE, NAMED_DIR, NAMED_DIR_STRICT, NAMED_BENCH };

static const struct {
	const char *key, *env;
	enum named kind;
} table[SETTING_COUNT] = {
	[SETTING_INVENTORY] = { "inventory", "ORCH_INVENTORY", NAMED_FILE },
	[SETTING_LOCK_DIR] = { "lock_dir", "ORCH_LOCK_DIR", NAMED_DIR },
	[SETTING_DB] = { "db", "ORCH_DB", NAMED_NONE },
	[SETTING_RUNS_DIR] = { "runs_dir", "ORCH_RUNS_DIR", NAMED_DIR_STRICT },
	[SETTING_BENCH_DIR] = { "bench_dir", "ORCH_BENCH_DIR", NAMED_BENCH },
	[SETTING_COLOR] = { "color", "ORCH_COLOR", NAMED_NONE },
};
static const char *const keys[] = { "inventory", "lock_dir", "db", "runs_dir", "bench_dir",
				    "color", "trust", NULL };
static const char *const colors[] = { "auto", "always", "never", NULL };

const char *settings_key(enum setting s)
{
	return table[s].key;
}

const char *settings_env(enum setting s)
{
	return table[s].env;
}

/* Whether what a setting of this file names may be used; a bench folder
 * with everything in it (its ARCH folders and their programs: anyone who
 * can change one chooses what runs on the boards). */
static enum trust_verdict named_trusted(const struct settings *s, enum setting k,
					const char *path, char *why, size_t len)
{
	switch (table[k].kind) {
	case NAMED_FILE: return trust_file(&s->trust, path, why, len);
	case NAMED_DIR: return trust_dir(&s->trust, path, false, why, len);
	case NAMED_DIR_STRICT: return trust_dir(&s->trust, path, true, why, len);
	case NAMED_BENCH: return trust_tree(&s->trust, path, why, len);
	case NAMED_NONE: break;
	}
	return TRUST_OK;
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
	if (k == SETTING_DB)
		secret_known_url(v);   /* masked also in this file's own errors */
	if (!v[0]) {
		cfg_error(c, n, "'%s' must not be empty", table[k].key);
		free(v);
		return;
	}
	if (table[k].kind != NAMED_NONE) {
		char *path = fs_resolve_path(v, dir);
		free(v);
		v = path;
		char why[2 * PATH_MAX + 200];
		enum trust_verdict tv = named_trusted(s, k, v, why, sizeof(why));
		if (tv == TRUST_UNREADABLE)
			cfg_error(c, n, "cannot check %s '%s': %s", table[k].key, v, why);
		else if (tv != TRUST_OK)
			cfg_error(c, n, "refusing %s '%s': %s; %s", table[k].key, v, why,
				  trust_hint());
		if (tv != TRUST_OK) {
			free(v);
			return;
		}
	}
	free(s->value[k]);
	s->value[k] = v;
}

/* trust: [PATH...] of the system and user files. */
static void read_trust(struct cfg *c, const struct ynode *root, enum settings_level level,
		       const char *dir, struct settings *s)
{
	const struct ynode *n = ymap_get(root, "trust");
	if (!n)
		return;
	if (level == SETTINGS_PROJECT) {
		cfg_error(c, n, "'trust' is read only from the system and user configuration "
			  "files: a project file cannot trust paths");
		return;
	}
	char **v = NULL;
	size_t nv = 0;
	if (cfg_str_list(c, n, "trust", &v, &nv, NULL) <= 0)
		return;
	for (size_t i = 0; i < nv; i++) {
		char *p = strcmp(v[i], "*") ? fs_resolve_path(v[i], dir) : xstrdup("*");
		trust_add(&s->trust, p);
		free(p);
	}
	cfg_strv_free(v, nv);
}

/* The file's text, read from the descriptor that was judged: 0 and
 * *data, 1 when there is no file, or -1 with the problem in errors. */
static int read_trusted(const char *path, const struct trust *t, char **data, size_t *len,
			struct diag_list *errors)
{
	char why[2 * PATH_MAX + 200];
	int fd = -1, ret = -1;
	switch (trust_open(t, path, &fd, why, sizeof(why))) {
	case TRUST_ABSENT:
		return 1;
	case TRUST_UNREADABLE:
		/* "PATH: reason" about the file itself is said without PATH again */
		diag_add(errors, path, 0, 0, "cannot read this configuration file: %s",
			 !strncmp(why, path, strlen(path)) && !strncmp(why + strlen(path), ": ", 2)
			 ? why + strlen(path) + 2 : why);
		return -1;
	case TRUST_REFUSED:
		diag_add(errors, path, 0, 0, "refusing this configuration file: %s; %s", why,
			 trust_hint());
		return -1;
	case TRUST_OK:
		break;
	}
	ret = ytree_read_fd(fd, path, data, len, errors);
	close(fd);
	return ret;
}

int settings_read(const char *path, enum settings_level level, struct settings *s,
		  struct diag_list *errors)
{
	char *data = NULL;
	size_t len = 0;
	int rc = read_trusted(path, &s->trust, &data, &len, errors);
	if (rc != 0)
		return rc > 0 ? 0 : -1;
	struct ynode *root = NULL;
	struct cfg c = { path, errors, errors->n };
	rc = ytree_parse(path, data, len, &root, errors);
	free(data);
	if (rc < 0)
		return -1;
	char *dir = fs_dirname(path);
	if (root && !ynode_is_null(root) && cfg_want_map(&c, root, "a configuration file")) {
		cfg_check_keys(&c, root, keys, "the configuration file");
		read_trust(&c, root, level, dir, s);
		for (int k = 0; k < SETTING_COUNT; k++)
			read_one(&c, root, (enum setting)k, dir, s);
	}
	free(dir);
	ynode_free(root);
	cfg_sort_errors(&c);
	return cfg_failed(&c) ? -1 : 0;
}

int settings_load(struct settings *s, struct diag_list *errors, struct diag_list *warnings)
{
	trust_add_env(&s->trust);
	const char *sys = getenv("ORCH_CONFIG_SYSTEM");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *user = xdg && *xdg ? xasprintf("%s/orch/config.yaml", xdg)
		     : home ? xasprintf("%s/.config/orch/config.yaml", home) : NULL;
	int bad = settings_read(sys ? sys : "/etc/orch/config.yaml", SETTINGS_SYSTEM, s, errors);
	bad |= user ? settings_read(user, SETTINGS_USER, s, errors) : 0;
	char cwd[PATH_MAX];
	char *project = getcwd(cwd, sizeof(cwd)) ? settings_find_project(cwd, &s->trust, warnings)
						 : NULL;
	bad |= project ? settings_read(project, SETTINGS_PROJECT, s, errors) : 0;
	free(user);
	free(project);
	return bad ? -1 : 0;
}

void settings_export(const struct settings *s)
{
	for (int k = 0; k < SETTING_COUNT; k++)
		if (s->value[k])
			setenv(settings_env((enum setting)k), s->value[k], 0);
}

void settings_release(struct settings *s)
{
	for (int k = 0; k < SETTING_COUNT; k++) {
		free(s->value[k]);
		s->value[k] = NULL;
	}
	trust_release(&s->trust);
}

/* A project file in a folder the search does not look in. */
static void passed_over(const char *dir, const char *why, struct diag_list *warnings)
{
	char *p = fs_path_join(dir, ".orch.yaml");
	struct stat st;
	if (lstat(p, &st) == 0)
		diag_add(warnings, p, 0, 0, "not read: %s; %s", why, trust_hint());
	free(p);
}

char *settings_find_project(const char *dir, const struct trust *t, struct diag_list *warnings)
{
	char *d = xstrdup(dir), *found = NULL;
	struct stat first;
	bool have_dev = stat(d, &first) == 0;
	for (;;) {
		struct stat st;
		char why[PATH_MAX + 200];
		if (stat(d, &st) != 0 || (have_dev && st.st_dev != first.st_dev))
			break;
		if (!trust_search_dir(t, d, &st, why, sizeof(why))) {
			passed_over(d, why, warnings);
			break;
		}
		char *p = fs_path_join(d, ".orch.yaml");
		if (lstat(p, &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) {
			found = p;   /* one that cannot be looked at is said by settings_read */
			break;
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
	return found;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *settings_bench_dir(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *env = getenv("ORCH_BENCH_DIR");
	if (env && *env)
		return xstrdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return xstrdup("remote-bench/bin");
	exe[n] = '\0';
	char *dir = fs_dirname(exe);
	char *bench = fs_path_join(dir, "remote-bench/bin");
	if (!is_dir(bench)) {
		free(bench);
		bench = fs_path_join(dir, "../lib/orch/remote-bench");
	}
	free(dir);
	return bench;
}
