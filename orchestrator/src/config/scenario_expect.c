/*
 * expect: of a test: bounds on its metrics, each checked against what the
 * test can produce; its output checks are read by scenario_output.c.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bound_keys[] = { "min", "max", NULL };

static bool read_bound(struct cfg *c, const struct ynode *n, const char *key, struct quantity *q)
{
	char f[96];
	if (!n)
		return false;
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n) && units_parse_quantity(n->value, q) == 0) {
		scenario_check_unit(c, n, q->unit);
		return true;
	}
	cfg_error(c, n, "invalid quantity for '%s', found %s (use 20MiB/s, 1.5 Gbit/s, 300ms, 42)", key,
		  cfg_found(n, f, sizeof(f)));
	return false;
}

void scenario_read_expect(struct cfg *c, const struct ynode *n, struct test *t)
{
	if (!cfg_want_map(c, n, "expect"))
		return;
	scenario_read_output_expect(c, n, &t->output);
	if (scenario_output_expect_any(&t->output) &&
	    (t->kind == TEST_BOOT || t->kind == TEST_TRANSFER || t->kind == TEST_MULTI)) {
		const struct ynode *at = ymap_key(n, "stdout") ? ymap_key(n, "stdout")
				       : ymap_key(n, "stderr") ? ymap_key(n, "stderr")
				       : ymap_key(n, "exit_code");
		cfg_error(c, at, "'%s' in expect goes with 'run' and 'bench' tests%s", at->value,
			  t->kind == TEST_MULTI ? " (in a multi-host test: in a step's expect:)"
			  : t->kind == TEST_BOOT ? " (a boot test reads console lines: use its phases)"
			  : "");
	}
	t->expects = xcalloc(n->n ? n->n : 1, sizeof(*t->expects));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *key = n->pairs[i].key;
		const struct ynode *m = n->pairs[i].value;
		if (scenario_output_reserved(key->value))
			continue;
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
		x->unit_pos = cfg_pos(c, x->has_min && (qmin.unit[0] || !nmax) ? nmin : nmax);
		if (x->has_min && x->has_max && x->min > x->max)
			cfg_error(c, nmin, "'min' is above 'max' in %s", what);
	}
}

/* The unit metric name has as test t makes it ("" when unitless), or NULL
 * when orch cannot tell before the run (parse:, a program it does not
 * know). *unknown: t's kind says every metric it makes and name is none. */
static const char *unit_of(const struct test *t, const char *name, bool *unknown)
{
	*unknown = false;
	for (size_t j = 0; j < t->n_metrics; j++)
		if (t->metrics[j].name && !t->metrics[j].bench_override &&
		    strcmp(t->metrics[j].name, name) == 0)
			return t->metrics[j].unit;
	if (t->kind == TEST_TRANSFER)
		return strchr(name, '_') ? "%" : "MiB/s";
	if (t->kind == TEST_BENCH && t->bench && scenario_bench_known(t->bench)) {
		const char *u = scenario_bench_metric_unit(t->bench, name);
		*unknown = !u;
		return u;
	}
	return NULL;
}

/* Every bound's unit against its metric's, before the run: "min: 20 ms" on
 * a MiB/s metric can never be compared (at run time it would fail the
 * test); and an expect on a metric the bench program does not print. */
static void check_bound_units(struct cfg *c, const struct test *t)
{
	for (size_t i = 0; i < t->n_expects; i++) {
		const struct expectation *x = &t->expects[i];
		struct ynode at = { .kind = YNODE_SCALAR, .file = x->pos.file, .line = x->pos.line,
				    .col = x->pos.col };
		struct ynode uat = { .kind = YNODE_SCALAR, .file = x->unit_pos.file,
				     .line = x->unit_pos.line, .col = x->unit_pos.col };
		bool unknown;
		const char *mu = unit_of(t, x->metric, &unknown);
		if (unknown) {
			const char *names[64];
			scenario_bench_metric_names(t->bench, names, 64);
			const char *sug = cfg_suggest(x->metric, names);
			cfg_error(c, &at, "expect on metric '%s', which remote-bench %s does not print%s%s%s",
				  x->metric, t->bench, sug ? " (did you mean '" : "", sug ? sug : "",
				  sug ? "'?)" : "");
			continue;
		}
		if (!mu || !x->unit || !x->unit[0])
			continue;
		double v;
		if (units_convert(1, x->unit, mu, &v) == 0)
			continue;
		if (!mu[0])
			cfg_error(c, &uat, "the bound on '%s' is in '%s', but the metric has no unit: "
				  "write a plain number", x->metric, x->unit);
		else
			cfg_error(c, &uat, "the bound on '%s' is in '%s', which does not convert to the "
				  "metric's unit '%s' (write it in %s or a unit of its kind)", x->metric,
				  x->unit, mu, mu);
	}
}

/* The metrics a transfer test makes (config/model.h TEST_TRANSFER). */
static const char *const transfer_metrics[] = {
	"transfer.up", "transfer.up_syscpu", "transfer.up_cpu_user", "transfer.up_cpu_sys",
	"transfer.up_cpu_iowait", "transfer.down", "transfer.down_syscpu",
	"transfer.down_cpu_user", "transfer.down_cpu_sys", "transfer.down_cpu_iowait", NULL,
};

/* Whether name is one of the metrics of direction dir ("transfer.up"). */
static bool transfer_metric_of(const char *name, const char *dir)
{
	size_t n = strlen(dir);
	if (strncmp(name, dir, n) != 0 || (name[n] && name[n] != '_'))
		return false;
	for (size_t i = 0; transfer_metrics[i]; i++)
		if (strcmp(transfer_metrics[i], name) == 0)
			return true;
	return false;
}

/* A plain run: test (no parse:) has only its metrics: to give, a transfer
 * test only transfer.up/down; an expect: on anything else can never be met. */
void scenario_check_expects_producible(struct cfg *c, struct test *t)
{
	if (t->kind == TEST_TRANSFER) {
		for (size_t i = 0; i < t->n_expects; i++) {
			const struct expectation *x = &t->expects[i];
			bool up = transfer_metric_of(x->metric, "transfer.up") && t->transfer.up;
			bool down = transfer_metric_of(x->metric, "transfer.down") && t->transfer.down;
			if (up || down)
				continue;
			struct ynode at = { .kind = YNODE_SCALAR, .file = x->pos.file,
					    .line = x->pos.line, .col = x->pos.col };
			const char *sug = cfg_suggest(x->metric, transfer_metrics);
			cfg_error(c, &at, "expect on metric '%s', which transfer test '%s' does not "
				  "produce (it measures %s, each with _syscpu, _cpu_user, _cpu_sys and "
				  "_cpu_iowait)%s%s%s", x->metric, t->name ? t->name : "?",
				  t->transfer.up && t->transfer.down ? "transfer.up and transfer.down"
				  : t->transfer.up ? "transfer.up" : "transfer.down",
				  sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
		}
		check_bound_units(c, t);
		return;
	}
	check_bound_units(c, t);
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

