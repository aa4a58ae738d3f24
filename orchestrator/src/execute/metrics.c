#include "execute/metrics.h"
#include "execute/output.h"
#include "execute/timing.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/valfmt.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metric_collector_init(struct metric_collector *mc, const struct test *test, bool json_lines)
{
	memset(mc, 0, sizeof(*mc));
	mc->specs = test->metrics;
	mc->n_specs = test->n_metrics;
	mc->spec_seen = xcalloc(test->n_metrics ? test->n_metrics : 1, sizeof(bool));
	mc->spec_placeholder = xcalloc(test->n_metrics ? test->n_metrics : 1, sizeof(bool));
	mc->spec_too_fast = xcalloc(test->n_metrics ? test->n_metrics : 1, sizeof(bool));
	/* an override reads nothing: seen from the start, never missing */
	for (size_t i = 0; i < test->n_metrics; i++)
		mc->spec_seen[i] = test->metrics[i].bench_override;
	mc->json_lines = json_lines;
	mc->has_checks = output_expect_any(&test->output);
	if (mc->has_checks)
		output_checker_init(&mc->checks, &test->output);
}

static void add_value(struct metric_collector *mc, const char *name, const char *unit,
		      bool higher, double value)
{
	mc->values = xrealloc(mc->values, (mc->n_values + 1) * sizeof(*mc->values));
	mc->values[mc->n_values++] = (struct collected_metric){
		xstrdup(name), xstrdup(unit ? unit : ""), higher, value, false };
}

int metrics_parse_json_line(const char *line, struct collected_metric *out)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line != '{')
		return -1;
	json_t *obj = json_loads(line, 0, NULL);
	int ret = -1;
	const char *name, *unit = "", *better = NULL;
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
	if (better)
		out->higher_is_better = strcmp(better, "lower") != 0;
	else
		out->higher_is_better = units_better_of(unit, name) != UNITS_BETTER_LOWER;
	out->better_guessed = !better && units_better_of(unit, name) == UNITS_BETTER_UNKNOWN;
	out->value = json_number_value(value);
	ret = 0;
out:
	json_decref(obj);
	return ret;
}

static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char **warned;
static size_t n_warned;

void metrics_warn_guessed(const char *name, const char *unit)
{
	pthread_mutex_lock(&warned_lock);
	bool seen = false;
	for (size_t i = 0; i < n_warned && !seen; i++)
		seen = strcmp(warned[i], name) == 0;
	if (!seen) {
		warned = xrealloc(warned, (n_warned + 1) * sizeof(*warned));
		warned[n_warned++] = xstrdup(name);
		fprintf(stderr, "orch: warning: metric '%s' (remote-bench line): neither its unit "
			"('%s') nor its name says which way is better, and there is no 'better'; "
			"taking higher (print \"better\": \"higher\" or \"lower\")\n", name, unit);
	}
	pthread_mutex_unlock(&warned_lock);
}

/* A value printed as "+++++" (bonnie++: too fast to measure) or "-": the
 * tool says it has no number. */
static bool is_placeholder(const char *s)
{
	while (*s == ' ')
		s++;
	if (*s != '+' && *s != '-')
		return false;
	char c = *s;
	while (*s == c)
		s++;
	while (*s == ' ')
		s++;
	return *s == '\0';
}

static void set_error(struct metric_collector *mc, const char *name, const char *why,
		      const char *unit)
{
	if (mc->error[0])
		return;
	if (unit)
		snprintf(mc->error, sizeof(mc->error),
			 "metric '%s': unit '%s' from the output does not convert to %s", name, unit,
			 why);
	else
		snprintf(mc->error, sizeof(mc->error), "metric '%s': %s; make the regex more specific",
			 name, why);
}

/* Tries spec i on one line; records its value (or that it is missing). */
static void match_spec(struct metric_collector *mc, size_t i, const char *line)
{
	const struct metric_spec *spec = &mc->specs[i];
	struct orch_regex_span sp[ORCH_REGEX_MAX_GROUPS];
	size_t len = strlen(line);
	int rc = orch_regex_exec(&spec->regex, line, len, sp, ORCH_REGEX_MAX_GROUPS);
	if (rc == ORCH_REGEX_ELIMIT) {
		mc->spec_seen[i] = true;
		set_error(mc, spec->name, orch_regex_strerror(rc), NULL);
		return;
	}
	if (rc != ORCH_REGEX_MATCHED)
		return;
	char text[128], unit[32];
	int vg = spec->value_group < ORCH_REGEX_MAX_GROUPS ? spec->value_group : 0;
	orch_regex_copy(line, &sp[vg], text, sizeof(text));
	if (is_placeholder(text)) {
		mc->spec_seen[i] = true;
		mc->spec_placeholder[i] = true;
		mc->spec_too_fast[i] = strchr(text, '+') != NULL;
		return;
	}
	char *end;
	double v = strtod(text, &end);
	if (end == text || !isfinite(v))
		return;
	const char *u = spec->unit;
	if (spec->unit_group > 0 && spec->unit_group < ORCH_REGEX_MAX_GROUPS) {
		orch_regex_copy(line, &sp[spec->unit_group], unit, sizeof(unit));
		char *t = unit;
		while (*t == ' ')
			t++;
		if (units_convert(v, t, spec->unit, &v) < 0) {
			mc->spec_seen[i] = true;
			set_error(mc, spec->name, spec->unit, t);
			return;
		}
	}
	mc->spec_seen[i] = true;
	add_value(mc, spec->name, u, spec->better == BETTER_HIGHER, v);
}

static bool spec_reads(const struct metric_spec *spec, enum transport_stream stream)
{
	if (spec->rate_bytes)
		return false;   /* timed, not read */
	return stream == TRANSPORT_STDERR ? spec->from == METRIC_FROM_STDERR
					  : spec->from == METRIC_FROM_STDOUT;
}

/* "remote-bench-NAME: implementation: TEXT" -> TEXT, else NULL. */
static const char *implementation_note(const char *line)
{
	static const char prefix[] = "remote-bench-", tag[] = ": implementation: ";
	if (strncmp(line, prefix, sizeof(prefix) - 1) != 0)
		return NULL;
	const char *p = line + sizeof(prefix) - 1;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return strncmp(p, tag, sizeof(tag) - 1) == 0 && p[sizeof(tag) - 1]
	       ? p + sizeof(tag) - 1 : NULL;
}

int metric_collector_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct metric_collector *mc = ctx;
	if (stream == TRANSPORT_STDERR && *line) {
		strncpy(mc->last_stderr, line, sizeof(mc->last_stderr) - 1);
		mc->last_stderr[sizeof(mc->last_stderr) - 1] = '\0';
		const char *impl = mc->json_lines && !mc->implementation ? implementation_note(line)
									 : NULL;
		if (impl)
			mc->implementation = xstrdup(impl);
	}
	if (mc->has_checks)
		output_checker_line(&mc->checks, stream, line);
	for (size_t i = 0; i < mc->n_specs; i++)
		if (!mc->spec_seen[i] && spec_reads(&mc->specs[i], stream))
			match_spec(mc, i, line);
	if (mc->json_lines && stream != TRANSPORT_STDERR) {
		struct collected_metric cm;
		if (metrics_parse_json_line(line, &cm) == 0) {
			if (cm.better_guessed)
				metrics_warn_guessed(cm.name, cm.unit);
			mc->values = xrealloc(mc->values, (mc->n_values + 1) * sizeof(*mc->values));
			mc->values[mc->n_values++] = cm;
		} else if (line[0] == '{') {
			mc->bad_json_lines++;
		}
	}
	return 0;
}

void metric_collector_long(void *ctx, enum transport_stream stream, const char *head,
			   uint64_t len)
{
	struct metric_collector *mc = ctx;
	if (mc->has_checks)
		output_checker_long(&mc->checks, stream, head, len);
}

struct file_pass {
	struct metric_collector *mc;
	const char *file;
};

static int file_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct file_pass *fp = ctx;
	(void)stream;
	for (size_t i = 0; i < fp->mc->n_specs; i++) {
		const struct metric_spec *spec = &fp->mc->specs[i];
		if (!fp->mc->spec_seen[i] && spec->from == METRIC_FROM_FILE &&
		    strcmp(spec->from_file, fp->file) == 0)
			match_spec(fp->mc, i, line);
	}
	return 0;
}

void metric_collector_files(struct metric_collector *mc, const char *dir)
{
	for (size_t i = 0; i < mc->n_specs; i++) {
		const struct metric_spec *spec = &mc->specs[i];
		bool first = true;
		if (spec->from != METRIC_FROM_FILE || mc->spec_seen[i])
			continue;
		for (size_t j = 0; j < i; j++)
			if (mc->specs[j].from == METRIC_FROM_FILE &&
			    strcmp(mc->specs[j].from_file, spec->from_file) == 0)
				first = false;
		if (!first)
			continue;
		char *path = xasprintf("%s/%s", dir, spec->from_file);
		struct file_pass fp = { mc, spec->from_file };
		(void)output_each_line(path, file_line, &fp, &mc->long_lines);
		free(path);
	}
}

bool metric_collector_timed(const struct metric_collector *mc)
{
	for (size_t i = 0; i < mc->n_specs; i++)
		if (mc->specs[i].rate_bytes)
			return true;
	return false;
}

void metric_collector_rates(struct metric_collector *mc, double seconds, const char *clock)
{
	for (size_t i = 0; i < mc->n_specs; i++) {
		const struct metric_spec *spec = &mc->specs[i];
		double v;
		if (!spec->rate_bytes)
			continue;
		mc->spec_seen[i] = true;
		if (timing_rate(spec->rate_bytes, seconds, spec->unit, &v) == 0)
			add_value(mc, spec->name, spec->unit, true, v);
		else if (!mc->error[0])
			snprintf(mc->error, sizeof(mc->error), "metric '%s': the command took no "
				 "measurable time by %s (%.9f s)", spec->name, clock, seconds);
	}
}

int metric_collector_commit(struct metric_collector *mc, struct test_result *tr)
{
	tr->long_lines += mc->long_lines;
	mc->long_lines = 0;
	if (mc->implementation && !tr->implementation) {
		tr->implementation = mc->implementation;
		mc->implementation = NULL;
	}
	for (size_t i = 0; i < mc->n_values; i++) {
		const struct collected_metric *cm = &mc->values[i];
		test_result_add_sample(tr, cm->name, cm->unit, cm->higher_is_better, cm->value);
	}
	/* a metric's own threshold: (scenario, or an override of a program's
	 * metric) travels with its result to the judge */
	for (size_t i = 0; i < mc->n_specs; i++) {
		const struct metric_spec *spec = &mc->specs[i];
		struct metric_result *m = (spec->has_threshold || spec->settle) && spec->name
					  ? test_result_find_metric(tr, spec->name) : NULL;
		if (m && spec->has_threshold) {
			m->has_threshold = true;
			m->threshold_pct = spec->threshold_pct;
		}
		if (m)
			m->settle = (size_t)spec->settle;
	}
	for (size_t i = 0; i < mc->n_specs; i++) {
		const struct metric_spec *spec = &mc->specs[i];
		if (mc->spec_seen[i] && !mc->spec_placeholder[i])
			continue;
		const char *why = !mc->spec_placeholder[i] ? MISSING_ABSENT
				  : mc->spec_too_fast[i] ? MISSING_TOO_FAST : "no value printed (-)";
		test_result_add_missing_why(tr, spec->name, why, spec->optional);
		/* the output saying it has no number is not a failure; silence is */
		if (!mc->spec_placeholder[i] && !spec->optional && !mc->error[0])
			snprintf(mc->error, sizeof(mc->error),
				 "metric '%s' is missing from the output: no line matched its regex "
				 "(a metric that may be absent says optional: true)", spec->name);
	}
	if (mc->error[0]) {
		test_result_set_message(tr, "%s", mc->error);
		return -1;
	}
	return 0;
}

void metric_collector_release(struct metric_collector *mc)
{
	for (size_t i = 0; i < mc->n_values; i++) {
		free(mc->values[i].name);
		free(mc->values[i].unit);
	}
	free(mc->values);
	free(mc->spec_seen);
	free(mc->spec_placeholder);
	free(mc->spec_too_fast);
	free(mc->implementation);
	if (mc->has_checks)
		output_checker_release(&mc->checks);
	memset(mc, 0, sizeof(*mc));
}

size_t metrics_check_expectations(const struct test *test, struct test_result *tr)
{
	size_t missed = 0;
	for (size_t i = 0; i < test->n_expects; i++) {
		const struct expectation *ex = &test->expects[i];
		struct metric_result *m = test_result_find_metric(tr, ex->metric);
		char why[256] = "";
		if ((!m || !m->n_samples) && test_result_is_missing(tr, ex->metric)) {
			char longs[128] = "";
			if (tr->long_lines) {
				output_long_lines_text(tr->long_lines, longs + 2, sizeof(longs) - 2);
				longs[0] = ';';
				longs[1] = ' ';
			}
			snprintf(why, sizeof(why),
				 "expected metric '%s' is missing from the output (no matching line, "
				 "or no number in it)%s", ex->metric, longs);
		} else if (!m || !m->n_samples) {
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
			} else if ((ex->has_min && m->median < lo) || (ex->has_max && m->median > hi)) {
				bool low = ex->has_min && m->median < lo;
				char *got = valfmt_str(m->median, m->unit);
				char *bound = valfmt_str(low ? ex->min : ex->max, from);
				snprintf(why, sizeof(why), "%s = %s, expected at %s %s", ex->metric, got,
					 low ? "least" : "most", bound);
				free(got);
				free(bound);
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
