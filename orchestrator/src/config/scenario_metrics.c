/*
 * metrics: of a test: a name, a regex whose group holds the value, the
 * unit, the stream or file it is read from, and which way is better.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <stdlib.h>
#include <string.h>

static const char *const metric_keys[] = { "name", "regex", "unit", "unit_group", "better", "from",
					   "optional", "threshold", "settle", "rate_of", NULL };
static const char *const better_names[] = { "higher", "lower", NULL };
static const char *const override_keys[] = { "name", "threshold", "settle", NULL };
static const char *const rate_keys[] = { "name", "rate_of", "unit", "optional", "threshold",
					 "settle", NULL };

/* settle: N, the runs after which a step against the history is the new
 * normal by itself (docs/compare.md) */
static void read_settle(struct cfg *c, const struct ynode *m, struct metric_spec *ms)
{
	cfg_int(c, ymap_get(m, "settle"), "settle", 1, 1000, &ms->settle);
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

/* A metrics: entry without regex on a test whose program prints its own
 * metrics (bench:, parse:): names one of them to give it a threshold:. */
static void read_override(struct cfg *c, const struct ynode *m, const struct test *t,
			  struct metric_spec *ms)
{
	const char *what = t->kind == TEST_BENCH
			   ? "a metric of a bench: program (name, threshold and settle only)"
			   : "a metric of a parse: remote-bench test (name, threshold and settle only)";
	cfg_check_keys(c, m, override_keys, what);
	ms->bench_override = true;
	ms->unit = xstrdup("");
	ms->has_threshold = scenario_read_threshold(c, ymap_get(m, "threshold"),
						    &ms->threshold_pct) > 0;
	read_settle(c, m, ms);
	if (!ymap_get(m, "threshold") && !ymap_get(m, "settle"))
		cfg_error(c, m, "metric '%s' has neither 'regex' (a metric of its own) nor "
			  "'threshold' or 'settle' (for the metric the %s prints)", ms->name ? ms->name : "?",
			  t->kind == TEST_BENCH ? "program" : "command");
	const struct ynode *name = ymap_get(m, "name");
	if (!ms->name || t->kind != TEST_BENCH || !t->bench || !scenario_bench_known(t->bench) ||
	    scenario_bench_metric_unit(t->bench, ms->name))
		return;
	const char *names[64] = { NULL };
	scenario_bench_metric_names(t->bench, names, 64);
	const char *sug = cfg_suggest(ms->name, names);
	cfg_error(c, name, "metric '%s', which remote-bench %s does not print%s%s%s", ms->name,
		  t->bench, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
}

/* rate_of: SIZE, a rate from the time the command took: the size the
 * command moves, a rate unit (MB/s when none is given), higher better. */
static void read_rate(struct cfg *c, const struct ynode *m, const struct test *t,
		      struct metric_spec *ms)
{
	const struct ynode *rate = ymap_get(m, "rate_of");
	cfg_check_keys(c, m, rate_keys, "a rate metric (rate_of: the size its command moves)");
	if (t->kind != TEST_RUN)
		cfg_error(c, ymap_key(m, "rate_of"), "'rate_of' goes with a 'run:' test only (it times "
			  "the test's command)");
	cfg_size(c, rate, "rate_of", &ms->rate_bytes);
	cfg_str(c, ymap_get(m, "unit"), "unit", &ms->unit);
	if (!ms->unit)
		ms->unit = xstrdup("MB/s");
	const char *base = units_base(ms->unit);
	if (!base || (strcmp(base, "B/s") != 0 && strcmp(base, "bit/s") != 0)) {
		const char *near = units_nearest(ms->unit);
		if (near && (!strcmp(near, ms->unit) || !units_is_rate(near)))
			near = NULL;
		cfg_error(c, ymap_get(m, "unit"), "a rate_of metric's unit is a byte or bit rate "
			  "(MB/s, MiB/s, Mbit/s, ...), found '%s'%s%s%s", ms->unit,
			  near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	}
	cfg_bool(c, ymap_get(m, "optional"), "optional", &ms->optional);
	ms->has_threshold = scenario_read_threshold(c, ymap_get(m, "threshold"),
						    &ms->threshold_pct) > 0;
	read_settle(c, m, ms);
	ms->better = BETTER_HIGHER;
}

void scenario_read_metrics(struct cfg *c, const struct ynode *n, struct test *t)
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
		bool override = !ymap_get(m, "regex") && !ymap_get(m, "rate_of") &&
				(t->kind == TEST_BENCH || (t->parse && !strcmp(t->parse, "remote-bench")));
		if (!override && !ymap_get(m, "rate_of"))
			cfg_check_keys(c, m, metric_keys, "a metric");
		const struct ynode *name = ymap_get(m, "name");
		if (!name)
			cfg_error(c, m, "metric needs a 'name'");
		else if (cfg_str(c, name, "name", &ms->name) > 0) {
			if (scenario_output_reserved(ms->name))
				cfg_error(c, name, "metric name %s is reserved for output checks in "
					  "expect: (stdout, stderr, exit_code); name the metric otherwise",
					  cfg_found(name, f, sizeof(f)));
			for (size_t j = 0; j + 1 < t->n_metrics; j++)
				if (t->metrics[j].name && strcmp(t->metrics[j].name, ms->name) == 0)
					cfg_error(c, name, "duplicate metric %s in test '%s'",
						  cfg_found(name, f, sizeof(f)), t->name ? t->name : "");
		}
		if (override) {
			read_override(c, m, t, ms);
			continue;
		}
		if (ymap_get(m, "rate_of")) {
			read_rate(c, m, t, ms);
			continue;
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
			scenario_check_unit(c, ymap_get(m, "unit"), ms->unit);
		read_metric_groups(c, m, ms);
		read_metric_from(c, ymap_get(m, "from"), ms);
		cfg_bool(c, ymap_get(m, "optional"), "optional", &ms->optional);
		ms->has_threshold = scenario_read_threshold(c, ymap_get(m, "threshold"),
							    &ms->threshold_pct) > 0;
		read_settle(c, m, ms);
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
void scenario_check_boot_metrics(struct cfg *c, const struct ynode *metrics)
{
	for (size_t i = 0; metrics->kind == YNODE_SEQ && i < metrics->n; i++) {
		const struct ynode *m = metrics->items[i];
		const struct ynode *from = m->kind == YNODE_MAP ? ymap_get(m, "from") : NULL;
		if (from)
			cfg_error(c, from, "'from' does not go with 'boot' (its metrics are read "
				  "from the console lines)");
	}
}

