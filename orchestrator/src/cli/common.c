#include "cli/common.h"
#include "config/selector.h"
#include "plan/plan.h"
#include "cli/cli.h"
#include "util/fsutil.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <dirent.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char first_error[1024];

const char *cmd_first_error(void)
{
	return first_error[0] ? first_error : NULL;
}

static int print_diags(struct diag_list *diags)
{
	diag_sort(diags);
	if (diags->n && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%s:%d:%d: %s",
			 diags->items[0].file ? diags->items[0].file : "?", diags->items[0].line,
			 diags->items[0].col, diags->items[0].message ? diags->items[0].message : "");
	diag_print_source(diags, stderr);
	if (diags->n > 1)
		fprintf(stderr, "orch: %zu errors; nothing was run\n", diags->n);
	diag_list_release(diags);
	return EXIT_USAGE;
}

/* Takes every password_env of the inventory out of the environment now,
 * before any child can be started (docs/guarantees.md "Secrets"). */
static void take_secrets(const struct inventory *inv)
{
	for (size_t i = 0; inv && i < inv->n_boards; i++) {
		if (inv->boards[i].ssh.password_env)
			secret_take(inv->boards[i].ssh.password_env);
		if (inv->boards[i].serial.password_env)
			secret_take(inv->boards[i].serial.password_env);
	}
}

int cmd_load_inventory(const char *inventory_path, struct inventory **inv)
{
	*inv = NULL;
	if (!inventory_path)
		inventory_path = getenv("ORCH_INVENTORY");
	if (!inventory_path) {
		fprintf(stderr, "orch: no inventory: give -i INVENTORY.yaml (or set ORCH_INVENTORY)\n");
		return EXIT_USAGE;
	}
	struct diag_list diags = DIAG_LIST_INIT;
	if (inventory_load(inventory_path, inv, &diags) < 0)
		return print_diags(&diags);
	diag_list_release(&diags);
	take_secrets(*inv);
	return EXIT_OK;
}

/* A metric whose direction nobody gave: compare would judge it as
 * higher-is-better, which is wrong for a latency without a unit. */
static void warn_metric_directions(const struct scenario *sc)
{
	for (size_t i = 0; i < sc->n_tests; i++) {
		const struct test *t = &sc->tests[i];
		for (size_t k = 0; k < t->n_metrics; k++) {
			const struct metric_spec *ms = &t->metrics[k];
			if (!ms->better_guessed)
				continue;
			fprintf(stderr, "%s:%d:%d: warning: metric '%s': neither its unit ('%s') nor "
				"its name says which way is better, and there is no 'better:'; "
				"taking higher (add better: higher or better: lower)\n",
				ms->pos.file ? ms->pos.file : sc->path, ms->pos.line, ms->pos.col,
				ms->name ? ms->name : "", ms->unit ? ms->unit : "");
		}
	}
}

static struct var *extra_vars;
static size_t n_extra_vars;

int cmd_extra_var(const char *arg)
{
	struct diag_list diags = DIAG_LIST_INIT;
	if (extra_vars_add(arg, arg[0] == '@' ? arg + 1 : "-e", &extra_vars, &n_extra_vars,
			   &diags) < 0)
		return print_diags(&diags);
	diag_list_release(&diags);
	return EXIT_OK;
}

int cmd_load_scenario(const char *scenario_path, const char *inventory_path,
		      struct scenario **sc, struct inventory **inv)
{
	struct diag_list diags = DIAG_LIST_INIT;
	*inv = NULL;
	/* Even a scenario with errors is checked against its inventory, so that
	 * every problem in both files is reported in one pass. */
	int scenario_rc = scenario_load_partial(scenario_path, sc, &diags);
	if (!*sc)
		return print_diags(&diags);
	scenario_apply_extra_vars(*sc, extra_vars, n_extra_vars);
	if (!inventory_path)
		inventory_path = (*sc)->inventory_path;
	if (!inventory_path && getenv("ORCH_INVENTORY") && *getenv("ORCH_INVENTORY"))
		inventory_path = getenv("ORCH_INVENTORY");
	if (!inventory_path) {
		diag_add(&diags, scenario_path, 0, 0, "no inventory: add 'inventory: FILE' to the "
			 "scenario, give -i INVENTORY.yaml or set ORCH_INVENTORY");
	} else if (inventory_load(inventory_path, inv, &diags) == 0) {
		scenario_check_against(*sc, *inv, &diags);
	}
	if (scenario_rc < 0 || diags.n) {
		print_diags(&diags);
		scenario_free(*sc);
		inventory_free(*inv);
		*sc = NULL;
		*inv = NULL;
		return EXIT_USAGE;
	}
	diag_list_release(&diags);
	warn_metric_directions(*sc);
	take_secrets(*inv);
	return EXIT_OK;
}

int cmd_parse_percent(const char *s, double *pct)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -1;
	*pct = v;
	return 0;
}

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "orch %s: ", name);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'orch %s --help'\n", name);
	return EXIT_USAGE;
}

int cmd_int_option(const char *name, const char *opt, const char *arg, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!errno && end != arg && !*end && v >= lo && v <= hi) {
		*out = (int)v;
		return EXIT_OK;
	}
	if (hi == INT_MAX)
		return cmd_usage_error(name, "%s takes a number from %d, found '%s'", opt, lo, arg);
	return cmd_usage_error(name, "%s takes a number from %d to %d, found '%s'", opt, lo, hi,
			       arg);
}

int cmd_percent_option(const char *name, const char *opt, const char *arg, double *pct)
{
	if (cmd_parse_percent(arg, pct) == 0)
		return EXIT_OK;
	return cmd_usage_error(name, "%s takes a percentage, found '%s'", opt, arg);
}

void cmd_add_arg(const char ***v, size_t *n, const char *arg)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = arg;
}

int cmd_option_error(const char *name, int opt, const char *arg)
{
	if (opt == ':')
		return cmd_usage_error(name, "option '%s' needs a value", arg);
	return cmd_usage_error(name, "unknown option '%s'", arg);
}

int cmd_parse_help_only(int argc, char **argv, const char *name, void (*usage)(FILE *out))
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		return cmd_option_error(name, opt, argv[optind - 1]);
	}
	return -1;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *cmd_default_bench_dir(void)
{
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

/* Whether BENCH/ARCH/remote-bench-NAME exists for some ARCH. */
static bool bench_known(const char *bench_dir, const char *name)
{
	DIR *d = opendir(bench_dir);
	struct dirent *e;
	bool found = false;
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s/remote-bench-%s", bench_dir, e->d_name, name);
		found = access(p, F_OK) == 0;
		free(p);
	}
	if (d)
		closedir(d);
	return found;
}

/* The programs of the bench folder (remote-bench-NAME in any ARCH/), for
 * a did-you-mean; NULL-ended, caller frees with cfg_strv_free-alike. */
static char **bench_names(const char *bench_dir, size_t *n)
{
	char **names = xcalloc(1, sizeof(char *));
	*n = 0;
	DIR *d = opendir(bench_dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *sub = xasprintf("%s/%s", bench_dir, e->d_name);
		DIR *a = opendir(sub);
		struct dirent *f;
		while (a && (f = readdir(a))) {
			if (strncmp(f->d_name, "remote-bench-", 13) != 0)
				continue;
			bool dup = false;
			for (size_t i = 0; i < *n; i++)
				dup = dup || !strcmp(names[i], f->d_name + 13);
			if (dup)
				continue;
			names = xrealloc(names, (*n + 2) * sizeof(char *));
			names[(*n)++] = xstrdup(f->d_name + 13);
			names[*n] = NULL;
		}
		if (a)
			closedir(a);
		free(sub);
	}
	if (d)
		closedir(d);
	return names;
}

static void check_bench(struct diag_list *dl, const char *bench_dir, const char *name,
			const struct src_pos *pos)
{
	if (!name || bench_known(bench_dir, name))
		return;
	size_t n;
	char **names = bench_names(bench_dir, &n);
	const char *sug = selector_suggest(name, (const char *const *)names);
	if (sug)
		diag_add(dl, pos->file, pos->line, pos->col,
			 "unknown remote-bench program '%s' (did you mean '%s'? no remote-bench-%s "
			 "in %s)", name, sug, name, bench_dir);
	else
		diag_add(dl, pos->file, pos->line, pos->col,
			 "unknown remote-bench program '%s' (no remote-bench-%s in %s)", name, name,
			 bench_dir);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool same_pos(const struct src_pos *a, const struct src_pos *b)
{
	return a->line == b->line && a->col == b->col &&
	       (a->file == b->file || (a->file && b->file && strcmp(a->file, b->file) == 0));
}

static bool missing_identity(const struct board *bd)
{
	return bd->transport == TRANSPORT_KIND_SSH && bd->ssh.identity &&
	       access(bd->ssh.identity, F_OK) != 0;
}

/* A missing identity file once, where it is written (a board, a group or
 * defaults:), naming the boards that would use it. */
static void check_identities(struct diag_list *dl, const struct plan *plan)
{
	for (size_t b = 0; b < plan->n_boards; b++) {
		const struct board *bd = plan->boards[b].board;
		const struct src_pos *at = &bd->ssh.identity_pos;
		bool seen = false;
		for (size_t k = 0; k < b && !seen; k++)
			seen = missing_identity(plan->boards[k].board) &&
			       same_pos(&plan->boards[k].board->ssh.identity_pos, at);
		if (seen || !missing_identity(bd))
			continue;
		struct strbuf users = STRBUF_INIT;
		size_t n = 0;
		for (size_t k = b; k < plan->n_boards; k++) {
			const struct board *o = plan->boards[k].board;
			if (missing_identity(o) && same_pos(&o->ssh.identity_pos, at))
				strbuf_printf(&users, "%s'%s'", n++ ? ", " : "", o->name);
		}
		diag_add(dl, at->file ? at->file : bd->pos.file, at->file ? at->line : bd->pos.line,
			 at->file ? at->col : bd->pos.col, "%s %s: identity file '%s' does not exist",
			 n > 1 ? "boards" : "board", strbuf_str(&users), bd->ssh.identity);
		strbuf_release(&users);
	}
}

int cmd_check_before_run(const struct scenario *sc, const struct plan *plan,
			 const char *bench_dir_opt)
{
	struct diag_list dl = DIAG_LIST_INIT;
	check_identities(&dl, plan);
	char *bench_dir = bench_dir_opt ? xstrdup(bench_dir_opt) : cmd_default_bench_dir();
	struct stat st;
	if (bench_dir && stat(bench_dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		for (size_t t = 0; t < sc->n_tests; t++) {
			const struct test *test = &sc->tests[t];
			check_bench(&dl, bench_dir, test->bench, &test->pos);
			for (size_t i = 0; i < test->n_steps; i++)
				check_bench(&dl, bench_dir, test->steps[i].bench, &test->steps[i].pos);
		}
	}
	free(bench_dir);
	if (!dl.n)
		return 0;
	print_diags(&dl);
	return -1;
}
