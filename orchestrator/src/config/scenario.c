/*
 * scenario_load(): a scenario file (scenarios/NAME.yaml) -> struct scenario, every default
 * filled in (DESIGN.md "Scenario"), every regex compiled, every problem
 * reported at the place it was written.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/include.h"
#include "config/selector.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const top_keys[] = { "name", "inventory", "boards", "defaults", "baseline",
					"threshold", "tests", "include", "vars", "facts", "label", NULL };
static const char *const defaults_keys[] = { "timeout", "repeat", "log_limit", "leftovers",
					     NULL };
static const char *const leftovers_names[] = { "warn", "fail", NULL };
static const char *const test_keys[] = { "name", "run", "bench", "boot", "steps", "roles", "args",
					 "repeat", "repeat_max", "timeout", "log_limit", "leftovers", "metrics",
					 "expect", "parse", "vars", "env", "push", "fetch", "boards", "transfer",
					 NULL };
static const char *const transfer_keys[] = { "size", "direction", NULL };
static const char *const direction_names[] = { "both", "up", "down", NULL };
static const char *const push_keys[] = { "src", "dest", "mode", NULL };
static const char *const fetch_keys[] = { "src", "dest", NULL };
static const char *const metric_keys[] = { "name", "regex", "unit", "unit_group", "better", "from",
					   NULL };
static const char *const bound_keys[] = { "min", "max", NULL };
static const char *const boot_keys[] = { "trigger", "timeout", "base", "phases", NULL };
static const char *const phase_keys[] = { "name", "until", "max", NULL };
static const char *const step_keys[] = { "on", "run", "bench", "args", "background", "ready",
					 "push", "fetch",
					 "ready_timeout", "timeout", "parse", "env", NULL };
static const char *const better_names[] = { "higher", "lower", NULL };
static const char *const trigger_names[] = { "power-cycle", "reboot", "none", NULL };
static const char *const parse_names[] = { "iperf3-json", "remote-bench", NULL };
/* in enum test_kind's order */
static const char *const kind_keys[] = { "run", "bench", "boot", "steps", "transfer", NULL };

#define REPEAT_MAX_LIMIT 10000

static void read_parse(struct cfg *c, const struct ynode *n, char **out)
{
	int e;
	if (cfg_enum(c, n, "parse", parse_names, &e) > 0) {
		free(*out);
		*out = xstrdup(parse_names[e]);
	}
}

/* args: --size 4M is one argument with a space, which a program reads as
 * one unknown option: refused, with the list to write instead. */
static void check_args(struct cfg *c, const struct ynode *n, char **args, size_t n_args)
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

static void read_bench(struct cfg *c, const struct ynode *n, char **out)
{
	char f[96];
	if (cfg_str(c, n, "bench", out) > 0 && !cfg_safe_name(*out))
		cfg_error(c, n, "invalid remote-bench program name, found %s",
			  cfg_found(n, f, sizeof(f)));
}

/* repeat: N or "auto". */
static void read_repeat(struct cfg *c, const struct ynode *n, int *repeat, bool *is_auto)
{
	char f[96];
	if (!n)
		return;
	if (n->kind == YNODE_SCALAR && strcmp(n->value, "auto") == 0) {
		*is_auto = true;
		return;
	}
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n)) {
		char *end;
		long v = strtol(n->value, &end, 10);
		if (end != n->value && !*end && isdigit((unsigned char)n->value[0])) {
			if (v >= 1 && v <= REPEAT_MAX_LIMIT) {
				*repeat = (int)v;
				*is_auto = false;
				return;
			}
			cfg_error(c, n, "'repeat' out of range, found %s (use 1..%d or auto)",
				  cfg_found(n, f, sizeof(f)), REPEAT_MAX_LIMIT);
			return;
		}
	}
	cfg_error(c, n, "invalid value for 'repeat', found %s (use a count or auto)",
		  cfg_found(n, f, sizeof(f)));
}

/*
 * Checks the {NS.FIELD} substitutions in text: NS is board, vars, env or,
 * in a multi-host test, a role. A {vars.X} the scenario and test do not
 * define must come from every board's vars: (checked against the
 * inventory, check.c).
 */
static void check_substitutions(struct cfg *c, const struct ynode *n, const char *cmd,
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
		if (r == q + 1 || *r != '}')
			continue;
		size_t len = (size_t)(q - p - 1);
		if ((len == 5 && strncmp(p + 1, "board", 5) == 0) ||
		    (len == 4 && strncmp(p + 1, "vars", 4) == 0) ||
		    (len == 3 && strncmp(p + 1, "env", 3) == 0))
			continue;   /* namespaces every command has (DESIGN.md) */
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
		check_substitutions(c, n, text, t);
}

static void read_env(struct cfg *c, const struct ynode *n, struct var **env, size_t *n_env,
		     const struct test *t)
{
	if (cfg_vars(c, n, "env", true, env, n_env) <= 0)
		return;
	for (size_t i = 0; i < n->n; i++)
		if (n->pairs[i].value->kind == YNODE_SCALAR)
			check_var_substitutions(c, n->pairs[i].value, n->pairs[i].value->value, t);
}

/*
 * A unit orch converts must be spelled as its table has it; a name it does
 * not know is taken as a unit of its own ("BogoMIPS"), compared only with
 * itself, unless it is one typo away from a known unit ("MB/sec").
 */
static void check_unit(struct cfg *c, const struct ynode *n, const char *unit)
{
	if (units_known(unit))
		return;
	const char *near = units_nearest(unit);
	if (near)
		cfg_error(c, n, "unknown unit '%s' (did you mean '%s'?)", unit, near);
}

/* value_group: the group named "value", else 1, else the whole match;
 * unit_group: a number or a group name. */
static void read_metric_groups(struct cfg *c, const struct ynode *m, struct metric_spec *ms)
{
	char f[96];
	if (!ms->regex.compiled)
		return;
	int named = orch_regex_group_number(&ms->regex, "value");
	ms->value_group = named > 0 ? named : ms->regex.n_groups >= 1 ? 1 : 0;
	const struct ynode *ug = ymap_get(m, "unit_group");
	if (!ug)
		return;
	if (ug->kind != YNODE_SCALAR || ynode_is_null(ug)) {
		cfg_error(c, ug, "invalid value for 'unit_group', found %s (use a group number or name)",
			  cfg_found(ug, f, sizeof(f)));
		return;
	}
	char *end;
	long v = strtol(ug->value, &end, 10);
	if (end == ug->value || *end)
		v = orch_regex_group_number(&ms->regex, ug->value);
	if (v < 1 || (size_t)v > ms->regex.n_groups || v >= ORCH_REGEX_MAX_GROUPS) {
		cfg_error(c, ug, "'unit_group' %s names no group of the regex (it has %zu)",
			  cfg_found(ug, f, sizeof(f)), ms->regex.n_groups);
		return;
	}
	if (v == ms->value_group)
		cfg_error(c, ug, "'unit_group' is the group that holds the value");
	ms->unit_group = (int)v;
	if (!ms->unit[0])
		cfg_error(c, ug, "'unit_group' needs 'unit:' (the unit values are converted to)");
	else if (!units_known(ms->unit))
		cfg_error(c, ymap_get(m, "unit"),
			  "unit '%s' cannot take values from 'unit_group' (orch does not know it)",
			  ms->unit);
}

/* from: stdout (default), stderr, or file:PATH inside the test's folder. */
static void read_metric_from(struct cfg *c, const struct ynode *n, struct metric_spec *ms)
{
	char f[96];
	char *v = NULL;
	if (cfg_str(c, n, "from", &v) <= 0)
		return;
	if (strcmp(v, "stdout") == 0) {
		ms->from = METRIC_FROM_STDOUT;
	} else if (strcmp(v, "stderr") == 0) {
		ms->from = METRIC_FROM_STDERR;
	} else if (strncmp(v, "file:", 5) == 0 && v[5] && v[5] != '/' && !strstr(v, "..")) {
		ms->from = METRIC_FROM_FILE;
		ms->from_file = xstrdup(v + 5);
	} else {
		cfg_error(c, n, "invalid value for 'from', found %s (use stdout, stderr or "
			  "file:PATH, a path in the test's folder as fetch: writes it)",
			  cfg_found(n, f, sizeof(f)));
	}
	free(v);
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
		if (access(a->src, R_OK) != 0)
			cfg_error(c, src, "push: cannot read %s (%s)", cfg_found(src, f, sizeof(f)),
				  a->src);
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

static void read_artifacts(struct cfg *c, const struct ynode *n, bool push, struct artifact **out,
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

static void artifacts_free(struct artifact *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].src);
		free(a[i].dest);
	}
	free(a);
}

static void read_metrics(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	if (!cfg_want_seq(c, n, "metrics"))
		return;
	t->metrics = xcalloc(n->n ? n->n : 1, sizeof(*t->metrics));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *m = n->items[i];
		if (!cfg_want_map(c, m, "a metric"))
			continue;
		struct metric_spec *ms = &t->metrics[t->n_metrics++];
		ms->pos = cfg_pos(c, m);
		cfg_check_keys(c, m, metric_keys, "a metric");
		const struct ynode *name = ymap_get(m, "name");
		if (!name)
			cfg_error(c, m, "metric needs a 'name'");
		else if (cfg_str(c, name, "name", &ms->name) > 0) {
			for (size_t j = 0; j + 1 < t->n_metrics; j++)
				if (t->metrics[j].name && strcmp(t->metrics[j].name, ms->name) == 0)
					cfg_error(c, name, "duplicate metric %s in test '%s'",
						  cfg_found(name, f, sizeof(f)), t->name ? t->name : "");
		}
		const struct ynode *rx = ymap_get(m, "regex");
		if (!rx)
			cfg_error(c, m, "metric needs a 'regex'");
		else
			cfg_regex(c, rx, "regex", &ms->regex_src, &ms->regex);
		cfg_str(c, ymap_get(m, "unit"), "unit", &ms->unit);
		if (!ms->unit)
			ms->unit = xstrdup("");
		else
			check_unit(c, ymap_get(m, "unit"), ms->unit);
		read_metric_groups(c, m, ms);
		read_metric_from(c, ymap_get(m, "from"), ms);
		int e;
		if (cfg_enum(c, ymap_get(m, "better"), "better", better_names, &e) > 0) {
			ms->better = (enum metric_better)e;
		} else {
			enum units_better d = units_better_of(ms->unit, ms->name);
			ms->better = d == UNITS_BETTER_LOWER ? BETTER_LOWER : BETTER_HIGHER;
			ms->better_guessed = d == UNITS_BETTER_UNKNOWN;
		}
	}
}

/* A boot test's metrics are read from its console lines: no stream or file. */
static void check_boot_metrics(struct cfg *c, const struct ynode *metrics)
{
	for (size_t i = 0; metrics->kind == YNODE_SEQ && i < metrics->n; i++) {
		const struct ynode *m = metrics->items[i];
		const struct ynode *from = m->kind == YNODE_MAP ? ymap_get(m, "from") : NULL;
		if (from)
			cfg_error(c, from, "'from' does not go with 'boot' (its metrics are read "
				  "from the console lines)");
	}
}

static bool read_bound(struct cfg *c, const struct ynode *n, const char *key, struct quantity *q)
{
	char f[96];
	if (!n)
		return false;
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n) && units_parse_quantity(n->value, q) == 0) {
		check_unit(c, n, q->unit);
		return true;
	}
	cfg_error(c, n, "invalid quantity for '%s', found %s (use 20MiB/s, 1.5 Gbit/s, 300ms, 42)", key,
		  cfg_found(n, f, sizeof(f)));
	return false;
}

static void read_expect(struct cfg *c, const struct ynode *n, struct test *t)
{
	if (!cfg_want_map(c, n, "expect"))
		return;
	t->expects = xcalloc(n->n ? n->n : 1, sizeof(*t->expects));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *key = n->pairs[i].key;
		const struct ynode *m = n->pairs[i].value;
		struct expectation *x = &t->expects[t->n_expects++];
		x->metric = xstrdup(key->value);
		x->pos = cfg_pos(c, key);
		x->unit = xstrdup("");
		char what[128];
		snprintf(what, sizeof(what), "expect for '%.100s'", key->value);
		if (!cfg_want_map(c, m, what))
			continue;
		cfg_check_keys(c, m, bound_keys, what);
		struct quantity qmin, qmax;
		const struct ynode *nmin = ymap_get(m, "min"), *nmax = ymap_get(m, "max");
		x->has_min = read_bound(c, nmin, "min", &qmin);
		x->has_max = read_bound(c, nmax, "max", &qmax);
		if (!nmin && !nmax) {
			cfg_error(c, m, "%s needs 'min' or 'max'", what);
			continue;
		}
		if (x->has_min) {
			x->min = qmin.value;
			free(x->unit);
			x->unit = xstrdup(qmin.unit);
		}
		if (x->has_max) {
			x->max = qmax.value;
			if (!x->has_min || !qmin.unit[0]) {
				free(x->unit);
				x->unit = xstrdup(qmax.unit);
			} else if (qmax.unit[0] &&
				   units_convert(qmax.value, qmax.unit, qmin.unit, &x->max) < 0) {
				cfg_error(c, nmax, "unit '%s' of 'max' does not convert to '%s' of 'min'",
					  qmax.unit, qmin.unit);
				x->has_max = false;
			}
		}
		if (x->has_min && x->has_max && x->min > x->max)
			cfg_error(c, nmin, "'min' is above 'max' in %s", what);
	}
}

/* A plain run: test (no parse:) has only its metrics: to give; an expect:
 * on anything else can never be met. */
/* transfer: SIZE, or { size: SIZE, direction: both|up|down } */
static void read_transfer(struct cfg *c, const struct ynode *n, struct transfer_spec *x)
{
	const struct ynode *size = n;
	int e = 0;
	x->bytes = 64ull << 20;
	if (n->kind == YNODE_MAP) {
		cfg_check_keys(c, n, transfer_keys, "transfer");
		size = ymap_get(n, "size");
		cfg_enum(c, ymap_get(n, "direction"), "direction", direction_names, &e);
	}
	x->up = e != 2;
	x->down = e != 1;
	if (size && cfg_size(c, size, "size", &x->bytes) > 0 &&
	    (x->bytes < 1 || x->bytes > (64ull << 30)))
		cfg_error(c, size, "transfer size must be from 1 byte to 64GiB");
}

/* The metrics a transfer test makes (config/model.h TEST_TRANSFER). */
static const char *const transfer_metrics[] = { "transfer.up", "transfer.down", NULL };

static void check_expects_producible(struct cfg *c, struct test *t)
{
	if (t->kind == TEST_TRANSFER) {
		for (size_t i = 0; i < t->n_expects; i++) {
			const struct expectation *x = &t->expects[i];
			bool up = strcmp(x->metric, "transfer.up") == 0 && t->transfer.up;
			bool down = strcmp(x->metric, "transfer.down") == 0 && t->transfer.down;
			if (up || down)
				continue;
			struct ynode at = { .kind = YNODE_SCALAR, .file = x->pos.file,
					    .line = x->pos.line, .col = x->pos.col };
			const char *sug = cfg_suggest(x->metric, transfer_metrics);
			cfg_error(c, &at, "expect on metric '%s', which transfer test '%s' does not "
				  "produce (it measures %s)%s%s%s", x->metric, t->name ? t->name : "?",
				  t->transfer.up && t->transfer.down ? "transfer.up and transfer.down"
				  : t->transfer.up ? "transfer.up" : "transfer.down",
				  sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
		}
		return;
	}
	if (t->kind != TEST_RUN || t->parse)
		return;
	for (size_t i = 0; i < t->n_expects; i++) {
		const struct expectation *x = &t->expects[i];
		bool found = false;
		for (size_t j = 0; j < t->n_metrics; j++)
			found = found || (t->metrics[j].name && strcmp(t->metrics[j].name, x->metric) == 0);
		if (found)
			continue;
		struct ynode at = { .kind = YNODE_SCALAR, .file = x->pos.file, .line = x->pos.line,
				    .col = x->pos.col };
		const char **names = xcalloc(t->n_metrics + 1, sizeof(char *));
		for (size_t j = 0; j < t->n_metrics; j++)
			names[j] = t->metrics[j].name;
		const char *sug = cfg_suggest(x->metric, names);
		if (sug)
			cfg_error(c, &at, "expect on metric '%s', which test '%s' does not produce "
				  "(did you mean '%s'?)", x->metric, t->name ? t->name : "?", sug);
		else
			cfg_error(c, &at, "expect on metric '%s', which test '%s' does not produce "
				  "(its metrics: are what it measures)", x->metric, t->name ? t->name : "?");
		free(names);
	}
}

static void read_boot(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	struct boot_spec *b = &t->boot;
	int e;
	b->timeout_ms = t->timeout_ms;
	if (!cfg_want_map(c, n, "boot"))
		return;
	cfg_check_keys(c, n, boot_keys, "boot");
	if (cfg_enum(c, ymap_get(n, "trigger"), "trigger", trigger_names, &e) > 0)
		b->trigger = (enum boot_trigger)e;
	cfg_duration(c, ymap_get(n, "timeout"), "timeout", &b->timeout_ms);
	cfg_regex(c, ymap_get(n, "base"), "base", &b->base_src, &b->base);
	const struct ynode *ph = ymap_get(n, "phases");
	if (!ph) {
		cfg_error(c, n, "boot needs 'phases'");
		return;
	}
	if (!cfg_want_seq(c, ph, "phases"))
		return;
	if (ph->n == 0)
		cfg_error(c, ph, "boot needs at least one phase");
	b->phases = xcalloc(ph->n ? ph->n : 1, sizeof(*b->phases));
	for (size_t i = 0; i < ph->n; i++) {
		const struct ynode *m = ph->items[i];
		if (!cfg_want_map(c, m, "a boot phase"))
			continue;
		struct boot_phase *p = &b->phases[b->n_phases++];
		p->pos = cfg_pos(c, m);
		cfg_check_keys(c, m, phase_keys, "a boot phase");
		const struct ynode *name = ymap_get(m, "name");
		if (!name) {
			cfg_error(c, m, "boot phase needs a 'name'");
		} else if (cfg_str(c, name, "name", &p->name) > 0) {
			if (!cfg_safe_name(p->name))
				cfg_error(c, name,
					  "invalid phase name, found %s (use letters, digits, '.', '_', '-')",
					  cfg_found(name, f, sizeof(f)));
			for (size_t j = 0; j + 1 < b->n_phases; j++)
				if (b->phases[j].name && strcmp(b->phases[j].name, p->name) == 0)
					cfg_error(c, name, "duplicate boot phase %s",
						  cfg_found(name, f, sizeof(f)));
		}
		const struct ynode *until = ymap_get(m, "until");
		if (!until)
			cfg_error(c, m, "boot phase needs 'until'");
		else
			cfg_regex(c, until, "until", &p->until_src, &p->until);
		cfg_duration(c, ymap_get(m, "max"), "max", &p->max_ms);
	}
}

static void read_roles(struct cfg *c, const struct ynode *n, struct test *t)
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

static void read_steps(struct cfg *c, const struct ynode *n, struct test *t)
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
			check_substitutions(c, run, s->run, t);
		read_env(c, ymap_get(m, "env"), &s->env, &s->n_env, t);
		read_bench(c, bench, &s->bench);
		const struct ynode *args = ymap_get(m, "args");
		if (args && !bench)
			cfg_error(c, ymap_key(m, "args"), "'args' only goes with 'bench'");
		else if (cfg_str_list(c, args, "args", &s->args, &s->n_args, NULL) > 0)
			check_args(c, args, s->args, s->n_args);
		cfg_bool(c, ymap_get(m, "background"), "background", &s->background);
		const struct ynode *ready = ymap_get(m, "ready");
		if (ready && !s->background)
			cfg_error(c, ymap_key(m, "ready"), "'ready' needs 'background: true'");
		cfg_regex(c, ready, "ready", &s->ready_src, &s->ready);
		cfg_duration(c, ymap_get(m, "ready_timeout"), "ready_timeout", &s->ready_timeout_ms);
		cfg_duration(c, ymap_get(m, "timeout"), "timeout", &s->timeout_ms);
		read_parse(c, ymap_get(m, "parse"), &s->parse);
		read_artifacts(c, ymap_get(m, "push"), true, &s->push, &s->n_push);
		read_artifacts(c, ymap_get(m, "fetch"), false, &s->fetch, &s->n_fetch);
	}
	free(role_names);
}

/* A test's own boards: (a selector narrowing the scenario's). */
static void read_test_boards(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96], err[256];
	if (!n || cfg_str_list(c, n, "boards", &t->board_selectors, &t->n_board_selectors,
			       &t->board_selector_pos) <= 0)
		return;
	for (size_t i = 0; i < t->n_board_selectors; i++) {
		const struct ynode *it = n->kind == YNODE_SEQ ? n->items[i] : n;
		if (!selector_well_formed(t->board_selectors[i], err, sizeof(err)))
			cfg_error(c, it, "invalid selector in 'boards', found %s: %s",
				  cfg_found(it, f, sizeof(f)), err);
	}
	if (t->n_board_selectors == 0)
		cfg_error(c, n, "'boards' is empty (use all, a name or tag:NAME)");
}

static void read_test(struct cfg *c, const struct ynode *m, const struct scenario *sc, struct test *t)
{
	char f[96];
	t->pos = cfg_pos(c, m);
	t->repeat = sc->default_repeat;
	t->repeat_max = 10;
	t->timeout_ms = sc->default_timeout_ms;
	t->log_limit = sc->default_log_limit;
	t->leftovers_fail = sc->default_leftovers_fail;
	cfg_check_keys(c, m, test_keys, "a test");

	const struct ynode *name = ymap_get(m, "name");
	if (!name)
		cfg_error(c, m, "test needs a 'name'");
	else if (cfg_str(c, name, "name", &t->name) > 0 && !cfg_safe_name(t->name))
		cfg_error(c, name, "invalid test name, found %s (use letters, digits, '.', '_', '-')",
			  cfg_found(name, f, sizeof(f)));
	read_test_boards(c, ymap_get(m, "boards"), t);
	const char *tn = t->name ? t->name : "?";

	cfg_duration(c, ymap_get(m, "timeout"), "timeout", &t->timeout_ms);
	cfg_size(c, ymap_get(m, "log_limit"), "log_limit", &t->log_limit);
	int lo = t->leftovers_fail;
	if (cfg_enum(c, ymap_get(m, "leftovers"), "leftovers", leftovers_names, &lo) > 0)
		t->leftovers_fail = lo == 1;
	read_repeat(c, ymap_get(m, "repeat"), &t->repeat, &t->repeat_auto);
	const struct ynode *rmax = ymap_get(m, "repeat_max");
	cfg_int(c, rmax, "repeat_max", 1, REPEAT_MAX_LIMIT, &t->repeat_max);
	if (rmax && !t->repeat_auto)
		cfg_error(c, ymap_key(m, "repeat_max"), "'repeat_max' only goes with 'repeat: auto'");
	if (t->repeat_auto)
		t->repeat = t->repeat_max < 3 ? t->repeat_max : 3;

	const struct ynode *kind_at = NULL;
	int n_kinds = 0;
	for (int i = 0; kind_keys[i]; i++) {
		const struct ynode *k = ymap_key(m, kind_keys[i]);
		if (!k)
			continue;
		if (n_kinds++ == 0) {
			kind_at = k;
			t->kind = (enum test_kind)i;
		} else {
			cfg_error(c, k, "test '%s' has both '%s' and '%s'; use one", tn, kind_at->value,
				  k->value);
		}
	}
	if (n_kinds == 0)
		cfg_error(c, m, "test '%s' needs one of 'run', 'bench', 'boot', 'steps' or 'transfer'",
			  tn);
	const struct ynode *transfer = ymap_get(m, "transfer");
	if (transfer)
		read_transfer(c, transfer, &t->transfer);
	if (transfer && ymap_get(m, "metrics"))
		cfg_error(c, ymap_key(m, "metrics"), "'metrics' does not go with 'transfer' (it "
			  "measures transfer.up and transfer.down itself)");

	cfg_vars_copy(&t->vars, &t->n_vars, sc->vars, sc->n_vars);
	cfg_vars(c, ymap_get(m, "vars"), "vars", true, &t->vars, &t->n_vars);
	if (cfg_str(c, ymap_get(m, "run"), "run", &t->run) > 0)
		check_substitutions(c, ymap_get(m, "run"), t->run, t);
	read_bench(c, ymap_get(m, "bench"), &t->bench);
	const struct ynode *args = ymap_get(m, "args");
	if (args && !ymap_get(m, "bench"))
		cfg_error(c, ymap_key(m, "args"), "'args' only goes with 'bench'");
	else if (cfg_str_list(c, args, "args", &t->args, &t->n_args, NULL) > 0)
		check_args(c, args, t->args, t->n_args);
	const struct ynode *parse = ymap_get(m, "parse");
	if (parse && !ymap_get(m, "run"))
		cfg_error(c, ymap_key(m, "parse"), "'parse' only goes with 'run' (and in steps)");
	else
		read_parse(c, parse, &t->parse);

	const struct ynode *metrics = ymap_get(m, "metrics");
	if (metrics)
		read_metrics(c, metrics, t);
	if (metrics && ymap_get(m, "boot"))
		check_boot_metrics(c, metrics);
	const struct ynode *expect = ymap_get(m, "expect");
	if (expect)
		read_expect(c, expect, t);
	check_expects_producible(c, t);

	const struct ynode *boot = ymap_get(m, "boot");
	if (boot)
		read_boot(c, boot, t);
	else
		t->boot.timeout_ms = t->timeout_ms;

	const struct ynode *roles = ymap_get(m, "roles"), *steps = ymap_get(m, "steps");
	if (roles && !steps)
		cfg_error(c, ymap_key(m, "roles"), "'roles' only goes with 'steps'");
	else if (steps && !roles)
		cfg_error(c, ymap_key(m, "steps"), "test '%s' has 'steps' but no 'roles'", tn);
	if (roles)
		read_roles(c, roles, t);
	if (steps && roles)
		read_steps(c, steps, t);
	read_env(c, ymap_get(m, "env"), &t->env, &t->n_env, t);
	const struct ynode *push = ymap_get(m, "push"), *fetch = ymap_get(m, "fetch");
	if ((push || fetch) && (t->kind == TEST_BOOT || t->kind == TEST_MULTI ||
				t->kind == TEST_TRANSFER))
		cfg_error(c, ymap_key(m, push ? "push" : "fetch"),
			  "'%s' goes with 'run' and 'bench' tests%s", push ? "push" : "fetch",
			  t->kind == TEST_MULTI ? " (in a multi-host test: on its steps)" : "");
	read_artifacts(c, push, true, &t->push, &t->n_push);
	read_artifacts(c, fetch, false, &t->fetch, &t->n_fetch);
}

static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
		len -= 5;
	else if (len > 4 && strcmp(base + len - 4, ".yml") == 0)
		len -= 4;
	return xstrndup(base, len);
}

static void read_threshold(struct cfg *c, const struct ynode *n, double *out)
{
	char f[96];
	if (!n)
		return;
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n)) {
		char *end;
		double v = strtod(n->value, &end);
		if (end != n->value && (*end == '\0' || strcmp(end, "%") == 0) && isfinite(v) &&
		    v >= 0 && (isdigit((unsigned char)n->value[0]) || n->value[0] == '.')) {
			*out = v;
			return;
		}
	}
	cfg_error(c, n, "invalid percentage for 'threshold', found %s (use 5 or 2.5%%)",
		  cfg_found(n, f, sizeof(f)));
}

static void load_tree(struct cfg *c, const struct ynode *root, struct scenario *sc)
{
	char f[96];
	char err[160];

	if (!root || ynode_is_null(root)) {
		cfg_error(c, NULL, "empty scenario (expected 'tests:')");
		return;
	}
	if (!cfg_want_map(c, root, "a scenario"))
		return;
	cfg_check_keys(c, root, top_keys, "the scenario");

	const struct ynode *n = ymap_get(root, "name");
	if (cfg_str(c, n, "name", &sc->name) > 0 && !cfg_safe_name(sc->name))
		cfg_error(c, n, "invalid scenario name, found %s (use letters, digits, '.', '_', '-')",
			  cfg_found(n, f, sizeof(f)));
	if (!sc->name) {
		sc->name = default_name(sc->path);
		if (!cfg_safe_name(sc->name))
			cfg_error(c, NULL,
				  "the file name does not make a valid scenario name; set 'name:' "
				  "(letters, digits, '.', '_', '-')");
	}

	char *inv = NULL;
	if (cfg_str(c, ymap_get(root, "inventory"), "inventory", &inv) > 0) {
		sc->inventory_path = fs_resolve_path(inv, sc->dir);
		free(inv);
	}

	cfg_vars(c, ymap_get(root, "vars"), "vars", false, &sc->vars, &sc->n_vars);

	n = ymap_get(root, "boards");
	if (cfg_str_list(c, n, "boards", &sc->board_selectors, &sc->n_board_selectors,
			 &sc->board_selector_pos) > 0) {
		for (size_t i = 0; i < sc->n_board_selectors; i++) {
			const struct ynode *it = n->kind == YNODE_SEQ ? n->items[i] : n;
			if (!selector_well_formed(sc->board_selectors[i], err, sizeof(err)))
				cfg_error(c, it, "invalid selector in 'boards', found %s: %s",
					  cfg_found(it, f, sizeof(f)), err);
		}
		if (sc->n_board_selectors == 0)
			cfg_error(c, n, "'boards' is empty (use all, a name or tag:NAME)");
	}
	if (!sc->board_selectors) {
		sc->board_selectors = xcalloc(1, sizeof(char *));
		sc->board_selectors[0] = xstrdup("all");
		sc->n_board_selectors = 1;
		sc->board_selector_pos = xcalloc(1, sizeof(*sc->board_selector_pos));
		sc->board_selector_pos[0].file = sc->path;
	}

	n = ymap_get(root, "defaults");
	if (n && !ynode_is_null(n) && cfg_want_map(c, n, "defaults")) {
		cfg_check_keys(c, n, defaults_keys, "defaults");
		cfg_duration(c, ymap_get(n, "timeout"), "timeout", &sc->default_timeout_ms);
		cfg_size(c, ymap_get(n, "log_limit"), "log_limit", &sc->default_log_limit);
		int lo = 0;
		if (cfg_enum(c, ymap_get(n, "leftovers"), "leftovers", leftovers_names, &lo) > 0)
			sc->default_leftovers_fail = lo == 1;
		cfg_int(c, ymap_get(n, "repeat"), "repeat", 1, REPEAT_MAX_LIMIT, &sc->default_repeat);
	}

	char *baseline = NULL;
	if (cfg_str(c, ymap_get(root, "baseline"), "baseline", &baseline) > 0) {
		if (strcmp(baseline, "latest") == 0 || strcmp(baseline, "history") == 0)
			sc->baseline = xstrdup(baseline);
		else
			sc->baseline = fs_resolve_path(baseline, sc->dir);
		free(baseline);
	}
	read_threshold(c, ymap_get(root, "threshold"), &sc->threshold_pct);
	scenario_read_facts(c, root, sc);

	n = ymap_get(root, "tests");
	if (!n || ynode_is_null(n)) {
		cfg_error(c, n ? n : root, "scenario has no 'tests'");
		return;
	}
	if (!cfg_want_seq(c, n, "tests"))
		return;
	if (n->n == 0)
		cfg_error(c, n, "'tests' is empty");
	sc->tests = xcalloc(n->n ? n->n : 1, sizeof(*sc->tests));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *m = n->items[i];
		if (!cfg_want_map(c, m, "a test"))
			continue;
		struct test *t = &sc->tests[sc->n_tests++];
		read_test(c, m, sc, t);
		if (!t->name)
			continue;
		for (size_t j = 0; j + 1 < sc->n_tests; j++) {
			if (sc->tests[j].name && strcmp(sc->tests[j].name, t->name) == 0) {
				if (sc->tests[j].pos.file == t->pos.file)
					cfg_error(c, ymap_get(m, "name"),
						  "duplicate test name '%s' (first at line %d)", t->name,
						  sc->tests[j].pos.line);
				else
					cfg_error(c, ymap_get(m, "name"),
						  "duplicate test name '%s' (first at %s:%d)", t->name,
						  sc->tests[j].pos.file, sc->tests[j].pos.line);
				break;
			}
		}
	}
}

/* keep_partial: on errors after a clean YAML parse, still hand out what was
 * understood, so cross-file checks can report their errors in the same pass. */
static int load(const char *path, const char *data, size_t len, struct scenario **out,
		struct diag_list *diags, bool keep_partial)
{
	struct ynode *root = NULL;
	struct scenario *sc = xcalloc(1, sizeof(*sc));
	sc->path = xstrdup(path);
	sc->dir = fs_dirname(path);
	sc->default_timeout_ms = 5 * 60 * 1000;
	sc->default_log_limit = LOG_LIMIT_DEFAULT;
	sc->default_repeat = 1;
	sc->threshold_pct = 5.0;
	struct cfg c = { sc->path, diags, diags->n };
	struct include_files inc = { NULL, 0 };
	int rc = data ? ytree_parse(sc->path, data, len, &root, diags)
		      : ytree_load_file(sc->path, &root, diags);
	if (rc == 0 && include_expand(root, sc->path, &inc, diags) < 0)
		rc = -1;
	sc->files = inc.paths;
	sc->n_files = inc.n;
	if (rc == 0)
		load_tree(&c, root, sc);
	ynode_free(root);
	cfg_sort_errors(&c);
	if (rc < 0 || cfg_failed(&c)) {
		if (rc < 0 || !keep_partial) {
			scenario_free(sc);
			sc = NULL;
		}
		*out = sc;
		return -1;
	}
	*out = sc;
	return 0;
}

int scenario_load(const char *path, struct scenario **out, struct diag_list *diags)
{
	return load(path, NULL, 0, out, diags, false);
}

int scenario_load_partial(const char *path, struct scenario **out, struct diag_list *diags)
{
	return load(path, NULL, 0, out, diags, true);
}

int scenario_load_buffer(const char *name, const char *data, size_t len, struct scenario **out,
			 struct diag_list *diags)
{
	return load(name, data ? data : "", len, out, diags, false);
}

static void test_release(struct test *t)
{
	cfg_strv_free(t->board_selectors, t->n_board_selectors);
	free(t->board_selector_pos);
	free(t->name);
	free(t->run);
	free(t->bench);
	cfg_strv_free(t->args, t->n_args);
	free(t->parse);
	for (size_t i = 0; i < t->n_metrics; i++) {
		free(t->metrics[i].name);
		free(t->metrics[i].regex_src);
		orch_regex_free(&t->metrics[i].regex);
		free(t->metrics[i].unit);
		free(t->metrics[i].from_file);
	}
	free(t->metrics);
	for (size_t i = 0; i < t->n_expects; i++) {
		free(t->expects[i].metric);
		free(t->expects[i].unit);
	}
	free(t->expects);
	free(t->boot.base_src);
	orch_regex_free(&t->boot.base);
	for (size_t i = 0; i < t->boot.n_phases; i++) {
		free(t->boot.phases[i].name);
		free(t->boot.phases[i].until_src);
		orch_regex_free(&t->boot.phases[i].until);
	}
	free(t->boot.phases);
	for (size_t i = 0; i < t->n_roles; i++) {
		free(t->roles[i].name);
		free(t->roles[i].selector);
	}
	free(t->roles);
	for (size_t i = 0; i < t->n_steps; i++) {
		struct step *s = &t->steps[i];
		free(s->on);
		free(s->run);
		free(s->bench);
		cfg_strv_free(s->args, s->n_args);
		free(s->ready_src);
		orch_regex_free(&s->ready);
		free(s->parse);
		cfg_vars_free(s->env, s->n_env);
		artifacts_free(s->push, s->n_push);
		artifacts_free(s->fetch, s->n_fetch);
	}
	free(t->steps);
	cfg_vars_free(t->vars, t->n_vars);
	cfg_vars_free(t->env, t->n_env);
	artifacts_free(t->push, t->n_push);
	artifacts_free(t->fetch, t->n_fetch);
}

void scenario_free(struct scenario *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->n_tests; i++)
		test_release(&sc->tests[i]);
	free(sc->tests);
	free(sc->path);
	free(sc->dir);
	free(sc->name);
	free(sc->inventory_path);
	cfg_strv_free(sc->board_selectors, sc->n_board_selectors);
	free(sc->board_selector_pos);
	free(sc->baseline);
	cfg_strv_free(sc->files, sc->n_files);
	cfg_vars_free(sc->vars, sc->n_vars);
	scenario_facts_release(sc);
	free(sc);
}
