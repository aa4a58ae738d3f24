/*
 * The parts of a test that say what runs where: run:/bench: arguments,
 * {NS.FIELD} substitutions, env:, push:/fetch: artifacts, and a multi-host
 * test's roles: and steps: (orch-scenario(5)).
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "config/selector.h"
#include "util/fsutil.h"
#include "util/log_dir.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const push_keys[] = { "src", "dest", "mode", NULL };
static const char *const fetch_keys[] = { "src", "dest", NULL };
static const char *const step_keys[] = { "on", "run", "bench", "args", "background", "ready",
					 "expect",
					 "push", "fetch",
					 "ready_timeout", "timeout", "parse", "env", NULL };
static const char *const parse_names[] = { "iperf3-json", "remote-bench", NULL };

void scenario_read_parse(struct cfg *c, const struct ynode *n, char **out)
{
	int e;
	if (cfg_enum(c, n, "parse", parse_names, &e) > 0) {
		free(*out);
		*out = xstrdup(parse_names[e]);
	}
}

/* args: --size 4M is one argument with a space, which a program reads as
 * one unknown option: refused, with the list to write instead. */
void scenario_check_args(struct cfg *c, const struct ynode *n, char **args, size_t n_args)
{
	for (size_t i = 0; i < n_args; i++) {
		const char *a = args[i];
		if (a[0] != '-' || !strpbrk(a, " \t"))
			continue;
		const struct ynode *at = n->kind == YNODE_SEQ && i < n->n ? n->items[i] : n;
		struct strbuf sb = STRBUF_INIT;
		for (const char *p = a; *p;) {
			size_t len = strcspn(p, " \t");
			if (len)
				strbuf_printf(&sb, "%s%.*s", sb.len ? ", " : "", (int)len, p);
			p += len;
			p += strspn(p, " \t");
		}
		cfg_error(c, at, "'%s' in 'args' is one argument with spaces, not several options; "
			  "write a list: [%s]", a, strbuf_str(&sb));
		strbuf_release(&sb);
	}
}

void scenario_read_bench(struct cfg *c, const struct ynode *n, char **out)
{
	char f[96];
	if (cfg_str(c, n, "bench", out) > 0 && !cfg_safe_name(*out))
		cfg_error(c, n, "invalid remote-bench program name, found %s",
			  cfg_found(n, f, sizeof(f)));
}

/*
 * Checks the {NS.FIELD} substitutions in text: NS is board, vars, env or,
 * in a multi-host test, a role. A {vars.X} the scenario and test do not
 * define must come from every board's vars: (checked against the
 * inventory, check.c).
 */
void scenario_check_substitutions(struct cfg *c, const struct ynode *n, const char *cmd,
				const struct test *t)
{
	for (const char *p = strchr(cmd, '{'); p; p = strchr(p + 1, '{')) {
		if (p > cmd && p[-1] == '{')
			continue;
		const char *q = p + 1;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-')
			q++;
		if (q == p + 1 || *q != '.')
			continue;
		const char *r = q + 1;
		while (isalnum((unsigned char)*r) || *r == '_' || *r == '-')
			r++;
		size_t len = (size_t)(q - p - 1);
		bool is_env = len == 3 && strncmp(p + 1, "env", 3) == 0;
		bool has_default = false;
		if (r != q + 1 && *r == '|' && is_env) {
			const char *d = r + 1 + strcspn(r + 1, "{}\n");
			if (*d != '}')
				continue;
			has_default = true;
		} else if (r == q + 1 || *r != '}') {
			continue;
		}
		if (is_env && !has_default) {
			char *var = xstrndup(q + 1, (size_t)(r - q - 1));
			if (!getenv(var))
				cfg_error(c, n, "{env.%s}: %s is not set in orch's environment (set it, "
					  "give a default as {env.%s|DEFAULT}, or use {vars.%s} with "
					  "-e %s=VALUE)", var, var, var, var, var);
			free(var);
		}
		if ((len == 5 && strncmp(p + 1, "board", 5) == 0) ||
		    (len == 4 && strncmp(p + 1, "vars", 4) == 0) || is_env)
			continue;   /* namespaces every command has (orch-scenario(5)) */
		bool found = false;
		for (size_t i = 0; i < t->n_roles; i++)
			if (strlen(t->roles[i].name) == len && strncmp(t->roles[i].name, p + 1, len) == 0)
				found = true;
		if (found)
			continue;
		if (t->n_roles)
			cfg_error(c, n, "unknown role '%.*s' in '%.*s' of test '%s'", (int)len, p + 1,
				  (int)(r - p + 1), p, t->name ? t->name : "");
		else
			cfg_error(c, n, "unknown namespace '%.*s' in '%.*s' (use board, vars, env)",
				  (int)len, p + 1, (int)(r - p + 1), p);
	}
}

static void check_var_substitutions(struct cfg *c, const struct ynode *n, const char *text,
				    const struct test *t)
{
	if (text)
		scenario_check_substitutions(c, n, text, t);
}

void scenario_read_env(struct cfg *c, const struct ynode *n, struct var **env, size_t *n_env,
		     const struct test *t)
{
	if (cfg_vars(c, n, "env", true, env, n_env) <= 0)
		return;
	for (size_t i = 0; i < n->n; i++)
		if (n->pairs[i].value->kind == YNODE_SCALAR)
			check_var_substitutions(c, n->pairs[i].value, n->pairs[i].value->value, t);
}

/* One push: or fetch: entry; false when it is unusable. */
static bool read_artifact(struct cfg *c, const struct ynode *m, bool push, struct artifact *a)
{
	char f[96];
	const char *what = push ? "push" : "fetch";
	if (!cfg_want_map(c, m, what))
		return false;
	cfg_check_keys(c, m, push ? push_keys : fetch_keys, what);
	a->pos = cfg_pos(c, m);
	a->mode = -1;
	const struct ynode *src = ymap_get(m, "src"), *dest = ymap_get(m, "dest");
	char *s = NULL;
	if (!src) {
		cfg_error(c, m, "%s needs 'src'", what);
		return false;
	}
	if (cfg_str(c, src, "src", &s) <= 0)
		return false;
	if (push) {
		char *dir = fs_dirname(src->file ? src->file : c->file);
		a->src = fs_resolve_path(s, dir);
		free(dir);
		struct stat st;
		if (access(a->src, R_OK) != 0)
			cfg_error(c, src, "push: cannot read %s (%s)", cfg_found(src, f, sizeof(f)),
				  a->src);
		else if (stat(a->src, &st) == 0 && !S_ISREG(st.st_mode))
			cfg_error(c, src, "push: 'src' must be a regular file, found %s (%s)",
				  fs_kind_name(st.st_mode), a->src);
		if (!dest)
			a->dest = xstrdup(strrchr(s, '/') ? strrchr(s, '/') + 1 : s);
		free(s);
	} else {
		a->src = s;
		if (!dest)
			a->dest = xstrdup(strrchr(s, '/') ? strrchr(s, '/') + 1 : s);
	}
	if (dest)
		cfg_str(c, dest, "dest", &a->dest);
	if (!push && a->dest && (a->dest[0] == '/' || strstr(a->dest, "..") || !a->dest[0]))
		cfg_error(c, dest ? dest : src, "fetch: 'dest' must be a path inside the test's "
			  "folder, found '%s'", a->dest);
	else if (!push && a->dest && log_dir_reserved(a->dest))
		cfg_error(c, dest ? dest : src, "fetch: 'dest' '%s' is one of orch's own files in "
			  "the test's folder; give it another name (dest: NAME)", a->dest);
	const struct ynode *mode = ymap_get(m, "mode");
	if (mode) {
		char *end = NULL;
		long v = mode->kind == YNODE_SCALAR ? strtol(mode->value, &end, 8) : -1;
		if (!end || end == mode->value || *end || v < 0 || v > 07777)
			cfg_error(c, mode, "invalid 'mode', found %s (use octal, e.g. 0755)",
				  cfg_found(mode, f, sizeof(f)));
		else
			a->mode = (int)v;
	}
	return a->src && a->dest;
}

void scenario_read_artifacts(struct cfg *c, const struct ynode *n, bool push, struct artifact **out,
			   size_t *n_out)
{
	if (!n)
		return;
	size_t count = n->kind == YNODE_SEQ ? n->n : 1;
	*out = xcalloc(count ? count : 1, sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		const struct ynode *m = n->kind == YNODE_SEQ ? n->items[i] : n;
		struct artifact *a = &(*out)[*n_out];
		if (read_artifact(c, m, push, a)) {
			(*n_out)++;
		} else {
			free(a->src);
			free(a->dest);
			memset(a, 0, sizeof(*a));
		}
	}
}

void scenario_artifacts_free(struct artifact *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].src);
		free(a[i].dest);
	}
	free(a);
}

void scenario_read_roles(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	char err[160];
	if (!cfg_want_map(c, n, "roles"))
		return;
	if (n->n == 0)
		cfg_error(c, n, "roles must name at least one role");
	t->roles = xcalloc(n->n ? n->n : 1, sizeof(*t->roles));
	const struct ynode *each_at = NULL;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *key = n->pairs[i].key;
		const struct ynode *v = n->pairs[i].value;
		struct role *r = &t->roles[t->n_roles++];
		r->name = xstrdup(key->value);
		r->pos = cfg_pos(c, v);
		if (!cfg_safe_name(key->value))
			cfg_error(c, key, "invalid role name, found %s (use letters, digits, '.', '_', '-')",
				  cfg_found(key, f, sizeof(f)));
		else if (strcmp(key->value, "board") == 0)
			cfg_error(c, key, "role name 'board' is reserved for {board.field}");
		if (cfg_str(c, v, key->value, &r->selector) <= 0)
			continue;
		if (strcmp(r->selector, "each") == 0) {
			r->each = true;
			if (each_at)
				cfg_error(c, v, "only one role can be 'each' (first at line %d)",
					  each_at->line);
			each_at = v;
		} else if (!selector_well_formed(r->selector, err, sizeof(err))) {
			cfg_error(c, v, "invalid selector for role '%s', found %s: %s", r->name,
				  cfg_found(v, f, sizeof(f)), err);
		}
	}
}

static const struct role *find_role(const struct test *t, const char *name)
{
	for (size_t i = 0; i < t->n_roles; i++)
		if (strcmp(t->roles[i].name, name) == 0)
			return &t->roles[i];
	return NULL;
}

/* A foreground step's expect: takes output checks only (metric bounds are
 * the test's). */
static void read_step_expect(struct cfg *c, const struct ynode *n, struct step *s)
{
	if (!n || !cfg_want_map(c, n, "a step's expect"))
		return;
	for (size_t i = 0; i < n->n; i++)
		if (!scenario_output_reserved(n->pairs[i].key->value))
			cfg_error(c, n->pairs[i].key, "a step's expect takes 'stdout', 'stderr' and "
				  "'exit_code', found '%s' (metric bounds go in the test's expect:)",
				  n->pairs[i].key->value);
	scenario_read_output_expect(c, n, &s->output);
	if (s->background && scenario_output_expect_any(&s->output))
		cfg_error(c, n, "expect does not go with 'background: true' (a background step is "
			  "stopped by orch: its output and exit status are not its own verdict)");
}

void scenario_read_steps(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	if (!cfg_want_seq(c, n, "steps"))
		return;
	if (n->n == 0)
		cfg_error(c, n, "steps must hold at least one step");
	t->steps = xcalloc(n->n ? n->n : 1, sizeof(*t->steps));
	const char **role_names = xcalloc(t->n_roles + 1, sizeof(char *));
	for (size_t i = 0; i < t->n_roles; i++)
		role_names[i] = t->roles[i].name;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *m = n->items[i];
		if (!cfg_want_map(c, m, "a step"))
			continue;
		struct step *s = &t->steps[t->n_steps++];
		s->pos = cfg_pos(c, m);
		s->ready_timeout_ms = 30000;
		s->timeout_ms = t->timeout_ms;
		cfg_check_keys(c, m, step_keys, "a step");
		const struct ynode *on = ymap_get(m, "on");
		if (!on) {
			cfg_error(c, m, "step needs 'on' (a role of the test)");
		} else if (cfg_str(c, on, "on", &s->on) > 0 && !find_role(t, s->on)) {
			const char *sug = cfg_suggest(s->on, role_names);
			if (sug)
				cfg_error(c, on, "unknown role %s in 'on' (did you mean '%s'?)",
					  cfg_found(on, f, sizeof(f)), sug);
			else
				cfg_error(c, on, "unknown role %s in 'on' (roles are declared in 'roles:')",
					  cfg_found(on, f, sizeof(f)));
		}
		const struct ynode *run = ymap_get(m, "run"), *bench = ymap_get(m, "bench");
		if (!run && !bench)
			cfg_error(c, m, "step needs 'run' or 'bench'");
		else if (run && bench)
			cfg_error(c, ymap_key(m, "bench"), "step has both 'run' and 'bench'; use one");
		if (cfg_str(c, run, "run", &s->run) > 0)
			scenario_check_substitutions(c, run, s->run, t);
		scenario_read_env(c, ymap_get(m, "env"), &s->env, &s->n_env, t);
		scenario_read_bench(c, bench, &s->bench);
		const struct ynode *args = ymap_get(m, "args");
		if (args && !bench)
			cfg_error(c, ymap_key(m, "args"), "'args' only goes with 'bench'");
		else if (cfg_str_list(c, args, "args", &s->args, &s->n_args, NULL) > 0)
			scenario_check_args(c, args, s->args, s->n_args);
		cfg_bool(c, ymap_get(m, "background"), "background", &s->background);
		const struct ynode *ready = ymap_get(m, "ready");
		if (ready && !s->background)
			cfg_error(c, ymap_key(m, "ready"), "'ready' needs 'background: true'");
		cfg_regex(c, ready, "ready", &s->ready_src, &s->ready);
		cfg_duration(c, ymap_get(m, "ready_timeout"), "ready_timeout", &s->ready_timeout_ms);
		cfg_duration(c, ymap_get(m, "timeout"), "timeout", &s->timeout_ms);
		scenario_read_parse(c, ymap_get(m, "parse"), &s->parse);
		read_step_expect(c, ymap_get(m, "expect"), s);
		scenario_read_artifacts(c, ymap_get(m, "push"), true, &s->push, &s->n_push);
		scenario_read_artifacts(c, ymap_get(m, "fetch"), false, &s->fetch, &s->n_fetch);
	}
	free(role_names);
}
