#include "cli/common.h"
#include "config/settings.h"
#include "plan/preflight.h"
#include "cli/cli.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Prints what a load found: warnings, then every error with its line and
 * a caret, then how many there were. */
static void print_loaded(const struct loaded *l)
{
	diag_print_warnings(&l->warnings, stderr);
	diag_print_source(&l->errors, stderr);
	if (l->errors.n > 1)
		fprintf(stderr, "orch: %zu errors; nothing was run\n", l->errors.n);
}

int cmd_load(const struct load_request *rq, struct scenario **sc, struct inventory **inv,
	     char *first_error, size_t len)
{
	struct loaded l;
	int rc = config_load(rq, &l);
	print_loaded(&l);
	if (first_error && len)
		first_error[0] = '\0';
	if (rc < 0 && first_error)
		loaded_first_error(&l, first_error, len);
	if (sc)
		*sc = l.sc;
	else
		scenario_free(l.sc);
	*inv = l.inv;
	l.sc = NULL;
	l.inv = NULL;
	loaded_release(&l);
	return rc < 0 ? EXIT_USAGE : EXIT_OK;
}

int cmd_load_scenario(const char *scenario, const char *inventory, const char *const *extra,
		      size_t n_extra, struct scenario **sc, struct inventory **inv)
{
	struct load_request rq = { .scenario = scenario, .inventory = inventory,
				   .extra_vars = extra, .n_extra_vars = n_extra };
	return cmd_load(&rq, sc, inv, NULL, 0);
}

int cmd_load_inventory(const char *inventory, struct inventory **inv)
{
	struct load_request rq = { .inventory = inventory };
	return cmd_load(&rq, NULL, inv, NULL, 0);
}

int cmd_check_before_run(const struct scenario *sc, const struct plan *plan,
			 const char *bench_dir_opt)
{
	struct diag_list dl = DIAG_LIST_INIT;
	char *bench_dir = settings_bench_dir(bench_dir_opt);
	int rc = plan_preflight(sc, plan, bench_dir, &dl);
	free(bench_dir);
	diag_sort(&dl);
	diag_print_source(&dl, stderr);
	if (dl.n > 1)
		fprintf(stderr, "orch: %zu errors; nothing was run\n", dl.n);
	diag_list_release(&dl);
	return rc;
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

