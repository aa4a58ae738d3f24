/*
 * scenario_load(): a scenario file (scenarios/NAME.yaml) -> struct scenario, every default
 * filled in (docs/orch-scenario.5.md), every regex compiled, every problem
 * reported at the place it was written.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "config/include.h"
#include "config/selector.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The runs folder holds the history file too (orch-history.sqlite). */
#define SCENARIO_RESERVED_PREFIX "orch-history"

static const char *const top_keys[] = { "name", "inventory", "boards", "defaults", "baseline",
					"threshold", "tests", "include", "vars", "facts", "label", NULL };
static const char *const defaults_keys[] = { "timeout", "repeat", "log_limit", "leftovers",
					     "retry", NULL };
static const char *const retry_keys[] = { "infra", "backoff", NULL };
static const char *const leftovers_names[] = { "warn", "fail", NULL };
static const char *const test_keys[] = { "name", "tags", "run", "bench", "boot", "steps", "roles", "args",
					 "repeat", "repeat_max", "timeout", "log_limit", "leftovers", "metrics",
					 "expect", "parse", "vars", "env", "push", "fetch", "boards", "transfer",
					 "retry", NULL };
/* in enum test_kind's order */
static const char *const kind_keys[] = { "run", "bench", "boot", "steps", "transfer", NULL };

#define REPEAT_MAX_LIMIT 10000

/* retry: { infra: N, backoff: DURATION }: how often an infrastructure
 * error is tried again (execute.c), and the pause before each try. */
static void read_retry(struct cfg *c, const struct ynode *n, int *infra, int64_t *backoff_ms)
{
	if (!n || ynode_is_null(n) || !cfg_want_map(c, n, "retry"))
		return;
	cfg_check_keys(c, n, retry_keys, "retry");
	cfg_int(c, ymap_get(n, "infra"), "infra", 0, RETRY_INFRA_MAX, infra);
	cfg_duration(c, ymap_get(n, "backoff"), "backoff", backoff_ms);
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

/* tags: [a, b] of a test (selected with -t tag:a). */
static void read_test_tags(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	if (!n || cfg_str_list(c, n, "tags", &t->tags, &t->n_tags, NULL) <= 0)
		return;
	for (size_t i = 0; i < t->n_tags; i++) {
		const struct ynode *it = n->kind == YNODE_SEQ ? n->items[i] : n;
		if (!cfg_safe_name(t->tags[i]))
			cfg_error(c, it, "invalid tag, found %s (use letters, digits, '.', '_', '-')",
				  cfg_found(it, f, sizeof(f)));
	}
}

/* A test's frame: name, boards:, timeout, log_limit, leftovers, repeat. */
static void read_test_frame(struct cfg *c, const struct ynode *m, const struct scenario *sc,
			    struct test *t)
{
	char f[96];
	t->pos = cfg_pos(c, m);
	t->repeat = sc->default_repeat;
	t->repeat_max = 10;
	t->timeout_ms = sc->default_timeout_ms;
	t->log_limit = sc->default_log_limit;
	t->leftovers_fail = sc->default_leftovers_fail;
	t->retry_infra = sc->default_retry_infra;
	t->retry_backoff_ms = sc->default_retry_backoff_ms;
	cfg_check_keys(c, m, test_keys, "a test");
	read_retry(c, ymap_get(m, "retry"), &t->retry_infra, &t->retry_backoff_ms);

	const struct ynode *name = ymap_get(m, "name");
	if (!name)
		cfg_error(c, m, "test needs a 'name'");
	else if (cfg_str(c, name, "name", &t->name) > 0 && !cfg_safe_name(t->name))
		cfg_error(c, name, "invalid test name, found %s (use letters, digits, '.', '_', '-')",
			  cfg_found(name, f, sizeof(f)));
	read_test_boards(c, ymap_get(m, "boards"), t);
	read_test_tags(c, ymap_get(m, "tags"), t);
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
}

/* Exactly one of run, bench, boot, steps, transfer says the test's kind. */
static void read_test_kind(struct cfg *c, const struct ynode *m, struct test *t)
{
	const char *tn = t->name ? t->name : "?";
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
}

void scenario_read_check(struct cfg *c, const struct ynode *m, struct test *t);
void scenario_test_release(struct test *t);
static void test_release(struct test *t);
static void read_test(struct cfg *c, const struct ynode *m, const struct scenario *sc, struct test *t);

void scenario_read_check(struct cfg *c, const struct ynode *m, struct test *t)
{
	struct scenario sc;
	memset(&sc, 0, sizeof(sc));
	sc.default_timeout_ms = 60000;
	sc.default_log_limit = LOG_LIMIT_DEFAULT;
	sc.default_repeat = 1;
	sc.default_retry_backoff_ms = RETRY_BACKOFF_DEFAULT_MS;
	memset(t, 0, sizeof(*t));
	read_test(c, m, &sc, t);
}

void scenario_test_release(struct test *t)
{
	test_release(t);
}

static void read_test(struct cfg *c, const struct ynode *m, const struct scenario *sc, struct test *t)
{
	const char *tn;
	read_test_frame(c, m, sc, t);
	read_test_kind(c, m, t);
	tn = t->name ? t->name : "?";
	const struct ynode *transfer = ymap_get(m, "transfer");
	if (transfer)
		scenario_read_transfer(c, transfer, &t->transfer);
	if (transfer && ymap_get(m, "metrics"))
		cfg_error(c, ymap_key(m, "metrics"), "'metrics' does not go with 'transfer' (it "
			  "measures transfer.up and transfer.down itself)");

	cfg_vars_copy(&t->vars, &t->n_vars, sc->vars, sc->n_vars);
	cfg_vars(c, ymap_get(m, "vars"), "vars", true, &t->vars, &t->n_vars);
	if (t->transfer.path)
		scenario_check_substitutions(c, ymap_get(transfer, "path"), t->transfer.path, t);
	if (cfg_str(c, ymap_get(m, "run"), "run", &t->run) > 0)
		scenario_check_substitutions(c, ymap_get(m, "run"), t->run, t);
	scenario_read_bench(c, ymap_get(m, "bench"), &t->bench);
	const struct ynode *args = ymap_get(m, "args");
	if (args && !ymap_get(m, "bench"))
		cfg_error(c, ymap_key(m, "args"), "'args' only goes with 'bench'");
	else if (cfg_str_list(c, args, "args", &t->args, &t->n_args, NULL) > 0)
		scenario_check_args(c, args, t->args, t->n_args);
	const struct ynode *parse = ymap_get(m, "parse");
	if (parse && !ymap_get(m, "run"))
		cfg_error(c, ymap_key(m, "parse"), "'parse' only goes with 'run' (and in steps)");
	else
		scenario_read_parse(c, parse, &t->parse);

	const struct ynode *metrics = ymap_get(m, "metrics");
	if (metrics)
		scenario_read_metrics(c, metrics, t);
	if (metrics && ymap_get(m, "boot"))
		scenario_check_boot_metrics(c, metrics);
	const struct ynode *expect = ymap_get(m, "expect");
	if (expect)
		scenario_read_expect(c, expect, t);
	scenario_check_expects_producible(c, t);

	const struct ynode *boot = ymap_get(m, "boot");
	if (boot)
		scenario_read_boot(c, boot, t);
	else
		t->boot.timeout_ms = t->timeout_ms;

	const struct ynode *roles = ymap_get(m, "roles"), *steps = ymap_get(m, "steps");
	if (roles && !steps)
		cfg_error(c, ymap_key(m, "roles"), "'roles' only goes with 'steps'");
	else if (steps && !roles)
		cfg_error(c, ymap_key(m, "steps"), "test '%s' has 'steps' but no 'roles'", tn);
	if (roles)
		scenario_read_roles(c, roles, t);
	if (steps && roles)
		scenario_read_steps(c, steps, t);
	scenario_read_env(c, ymap_get(m, "env"), &t->env, &t->n_env, t);
	const struct ynode *push = ymap_get(m, "push"), *fetch = ymap_get(m, "fetch");
	if ((push || fetch) && (t->kind == TEST_BOOT || t->kind == TEST_MULTI ||
				t->kind == TEST_TRANSFER))
		cfg_error(c, ymap_key(m, push ? "push" : "fetch"),
			  "'%s' goes with 'run' and 'bench' tests%s", push ? "push" : "fetch",
			  t->kind == TEST_MULTI ? " (in a multi-host test: on its steps)" : "");
	scenario_read_artifacts(c, push, true, &t->push, &t->n_push);
	scenario_read_artifacts(c, fetch, false, &t->fetch, &t->n_fetch);
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

/* boards: of the scenario (default: all). */
static void read_scenario_boards(struct cfg *c, const struct ynode *n, struct scenario *sc)
{
	char f[96], err[160];
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
}

/* defaults: { timeout, repeat, log_limit, leftovers } for every test. */
static void read_defaults(struct cfg *c, const struct ynode *n, struct scenario *sc)
{
	if (n && !ynode_is_null(n) && cfg_want_map(c, n, "defaults")) {
		cfg_check_keys(c, n, defaults_keys, "defaults");
		cfg_duration(c, ymap_get(n, "timeout"), "timeout", &sc->default_timeout_ms);
		cfg_size(c, ymap_get(n, "log_limit"), "log_limit", &sc->default_log_limit);
		int lo = 0;
		if (cfg_enum(c, ymap_get(n, "leftovers"), "leftovers", leftovers_names, &lo) > 0)
			sc->default_leftovers_fail = lo == 1;
		cfg_int(c, ymap_get(n, "repeat"), "repeat", 1, REPEAT_MAX_LIMIT, &sc->default_repeat);
		read_retry(c, ymap_get(n, "retry"), &sc->default_retry_infra,
			   &sc->default_retry_backoff_ms);
	}
}

/* tests: in order; names unique across the included files. */
static void read_tests(struct cfg *c, const struct ynode *root, const struct ynode *n,
		       struct scenario *sc)
{
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

static void load_tree(struct cfg *c, const struct ynode *root, struct scenario *sc)
{
	char f[96];

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
	/* a scenario's runs are RUNS_DIR/NAME/, beside the history file
	 * RUNS_DIR/orch-history.sqlite (history/history.h) and its -wal, -shm */
	if (sc->name && !strncmp(sc->name, SCENARIO_RESERVED_PREFIX, strlen(SCENARIO_RESERVED_PREFIX)))
		cfg_error(c, n, "scenario name %s is reserved: names starting with '%s' are the "
			  "history's files in the runs folder; set another 'name:'", sc->name,
			  SCENARIO_RESERVED_PREFIX);

	char *inv = NULL;
	if (cfg_str(c, ymap_get(root, "inventory"), "inventory", &inv) > 0) {
		sc->inventory_path = fs_resolve_path(inv, sc->dir);
		free(inv);
	}

	cfg_vars(c, ymap_get(root, "vars"), "vars", false, &sc->vars, &sc->n_vars);

	read_scenario_boards(c, ymap_get(root, "boards"), sc);
	read_defaults(c, ymap_get(root, "defaults"), sc);

	char *baseline = NULL;
	if (cfg_str(c, ymap_get(root, "baseline"), "baseline", &baseline) > 0) {
		if (strcmp(baseline, "latest") == 0 || strcmp(baseline, "history") == 0)
			sc->baseline = xstrdup(baseline);
		else
			sc->baseline = fs_resolve_path(baseline, sc->dir);
		free(baseline);
	}
	scenario_read_threshold(c, ymap_get(root, "threshold"), &sc->threshold_pct);
	scenario_read_facts(c, root, sc);

	read_tests(c, root, ymap_get(root, "tests"), sc);
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
	sc->default_retry_backoff_ms = RETRY_BACKOFF_DEFAULT_MS;
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
	cfg_strv_free(t->tags, t->n_tags);
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
	scenario_output_expect_release(&t->output);
	free(t->boot.base_src);
	orch_regex_free(&t->boot.base);
	for (size_t i = 0; i < t->boot.n_phases; i++) {
		free(t->boot.phases[i].name);
		free(t->boot.phases[i].until_src);
		orch_regex_free(&t->boot.phases[i].until);
	}
	free(t->boot.phases);
	free(t->transfer.path);
	free(t->transfer.ciphers);
	free(t->transfer.macs);
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
		scenario_artifacts_free(s->push, s->n_push);
		scenario_artifacts_free(s->fetch, s->n_fetch);
		scenario_output_expect_release(&s->output);
	}
	free(t->steps);
	cfg_vars_free(t->vars, t->n_vars);
	cfg_vars_free(t->env, t->n_env);
	scenario_artifacts_free(t->push, t->n_push);
	scenario_artifacts_free(t->fetch, t->n_fetch);
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
