#include "execute/metrics.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metric_collector_init(struct metric_collector *mc, const struct test *test, bool json_lines)
{
	memset(mc, 0, sizeof(*mc));
	mc->specs = test->metrics;
	mc->n_specs = test->n_metrics;
	mc->spec_seen = xcalloc(test->n_metrics ? test->n_metrics : 1, sizeof(bool));
	mc->json_lines = json_lines;
}

static void add_value(struct metric_collector *mc, const char *name, const char *unit,
		      bool higher, double value)
{
	mc->values = xrealloc(mc->values, (mc->n_values + 1) * sizeof(*mc->values));
	mc->values[mc->n_values++] = (struct collected_metric){
		xstrdup(name), xstrdup(unit ? unit : ""), higher, value };
}

int metrics_parse_json_line(const char *line, struct collected_metric *out)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line != '{')
		return -1;
	json_t *obj = json_loads(line, 0, NULL);
	int ret = -1;
	const char *name, *unit = "", *better = "higher";
	json_t *value;
	if (!obj || !json_is_object(obj))
		goto out;
	name = json_string_value(json_object_get(obj, "metric"));
	value = json_object_get(obj, "value");
	if (!name || !json_is_number(value))
		goto out;
	if (json_is_string(json_object_get(obj, "unit")))
		unit = json_string_value(json_object_get(obj, "unit"));
	if (json_is_string(json_object_get(obj, "better")))
		better = json_string_value(json_object_get(obj, "better"));
	out->name = xstrdup(name);
	out->unit = xstrdup(unit);
	out->higher_is_better = strcmp(better, "lower") != 0;
	out->value = json_number_value(value);
	ret = 0;
out:
	json_decref(obj);
	return ret;
}

int metric_collector_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct metric_collector *mc = ctx;
	if (stream == TRANSPORT_STDERR) {
		if (*line) {
			strncpy(mc->last_stderr, line, sizeof(mc->last_stderr) - 1);
			mc->last_stderr[sizeof(mc->last_stderr) - 1] = '\0';
		}
		return 0;
	}
	for (size_t i = 0; i < mc->n_specs; i++) {
		const struct metric_spec *spec = &mc->specs[i];
		char group[128];
		if (mc->spec_seen[i] || !orch_regex_match(&spec->regex, line, group, sizeof(group)))
			continue;
		char *end;
		double v = strtod(group, &end);
		if (end == group || !isfinite(v))
			continue;
		mc->spec_seen[i] = true;
		add_value(mc, spec->name, spec->unit, spec->better == BETTER_HIGHER, v);
	}
	if (mc->json_lines) {
		struct collected_metric cm;
		if (metrics_parse_json_line(line, &cm) == 0) {
			mc->values = xrealloc(mc->values, (mc->n_values + 1) * sizeof(*mc->values));
			mc->values[mc->n_values++] = cm;
		} else if (line[0] == '{') {
			mc->bad_json_lines++;
		}
	}
	return 0;
}

size_t metric_collector_commit(struct metric_collector *mc, struct test_result *tr,
			       const char **missing)
{
	for (size_t i = 0; i < mc->n_values; i++) {
		const struct collected_metric *cm = &mc->values[i];
		test_result_add_sample(tr, cm->name, cm->unit, cm->higher_is_better, cm->value);
	}
	size_t n_missing = 0;
	if (missing)
		*missing = NULL;
	for (size_t i = 0; i < mc->n_specs; i++) {
		if (mc->spec_seen[i])
			continue;
		if (missing && !n_missing)
			*missing = mc->specs[i].name;
		n_missing++;
	}
	return n_missing;
}

void metric_collector_release(struct metric_collector *mc)
{
	for (size_t i = 0; i < mc->n_values; i++) {
		free(mc->values[i].name);
		free(mc->values[i].unit);
	}
	free(mc->values);
	free(mc->spec_seen);
	memset(mc, 0, sizeof(*mc));
}

static const char *unit_or_blank(const char *unit)
{
	return unit && *unit ? unit : "";
}

size_t metrics_check_expectations(const struct test *test, struct test_result *tr)
{
	size_t missed = 0;
	for (size_t i = 0; i < test->n_expects; i++) {
		const struct expectation *ex = &test->expects[i];
		struct metric_result *m = test_result_find_metric(tr, ex->metric);
		char why[256] = "";
		if (!m || !m->n_samples) {
			snprintf(why, sizeof(why), "expected metric '%s' was not reported", ex->metric);
		} else {
			metric_result_summarize(m);
			double lo = ex->min, hi = ex->max;
			const char *from = ex->unit ? ex->unit : "";
			bool convertible = !*from ||
				((!ex->has_min || units_convert(ex->min, from, m->unit, &lo) == 0) &&
				 (!ex->has_max || units_convert(ex->max, from, m->unit, &hi) == 0));
			if (!convertible) {
				snprintf(why, sizeof(why), "cannot compare %s in %s with a bound in %s",
					 ex->metric, *m->unit ? m->unit : "no unit", from);
			} else if (ex->has_min && m->median < lo) {
				snprintf(why, sizeof(why), "%s = %g %s, expected at least %g %s",
					 ex->metric, m->median, unit_or_blank(m->unit), ex->min, from);
			} else if (ex->has_max && m->median > hi) {
				snprintf(why, sizeof(why), "%s = %g %s, expected at most %g %s",
					 ex->metric, m->median, unit_or_blank(m->unit), ex->max, from);
			}
		}
		if (!*why)
			continue;
		if (!missed)
			test_result_set_message(tr, "%s", why);
		missed++;
	}
	return missed;
}
