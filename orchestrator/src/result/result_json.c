/* The result model as JSON (results.json, result.json), and ISO 8601 times. */
#include "result/result_json.h"
#include "util/deadline.h"
#include "util/utf8.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- ISO 8601 UTC times ---------------------------------------------- */

char *result_time_iso(int64_t wall_us)
{
	char buf[64];
	clock_format_iso8601_digits(wall_us, -1, buf, sizeof(buf));
	return xstrdup(buf);
}

int result_time_parse(const char *s, int64_t *wall_us)
{
	int y, mo, d, h, mi, sec, used = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
	    used != 19)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    h < 0 || mi < 0 || sec < 0)
		return -1;
	const char *p = s + used;
	int64_t us = 0;
	if (*p == '.') {
		int digits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 6)
				us = us * 10 + (*p - '0');
		if (!digits)
			return -1;
		for (; digits < 6; digits++)
			us *= 10;
	}
	int64_t offset_s = 0;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om, n = 0;
		/* exactly HH:MM, so that p += 6 stays inside the string */
		if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5 || oh < 0 || oh > 23 ||
		    om < 0 || om > 59)
			return -1;
		offset_s = (oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = sec };
	int64_t t = (int64_t)timegm(&tm) - offset_s;
	*wall_us = t * 1000000 + us;
	return 0;
}

/* ---- to JSON ---------------------------------------------------------- */

/* A string member; text that is not UTF-8 in its readable form (never
 * NULL, so nothing is dropped: set_text adds the exact bytes). */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (!j) {
		char *text = utf8_lossy(s);
		j = json_string(text);
		free(text);
	}
	return j;
}

/* Sets o.key (a key that is not UTF-8 in its readable form); counts a
 * failure (out of memory) in *bad. */
static void jset(json_t *o, const char *key, json_t *v, int *bad)
{
	if (!v) {
		(*bad)++;
		return;
	}
	char *fixed = utf8_valid(key) ? NULL : utf8_lossy(key);
	if (json_object_set_new(o, fixed ? fixed : key, v) < 0)
		(*bad)++;
	free(fixed);
}

/* o.key = s, plus o.key_base64 with its exact bytes when s is not UTF-8
 * (docs/results-json.md "Bytes as they came"). */
static void set_text(json_t *o, const char *key, const char *s, int *bad)
{
	jset(o, key, jstr(s), bad);
	if (!s || utf8_valid(s))
		return;
	char *k = xasprintf("%s_base64", key);
	char *b = utf8_bytes_base64(s);
	jset(o, k, json_string(b), bad);
	free(b);
	free(k);
}

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A derived statistic, rounded for people (readers recompute it from samples). */
static json_t *jstat(double v)
{
	if (!isfinite(v))
		return json_null();
	char buf[32];
	snprintf(buf, sizeof(buf), "%.8g", v);
	return json_real(strtod(buf, NULL));
}

static json_t *jtime(int64_t wall_us)
{
	if (!wall_us)
		return json_null();
	char *s = result_time_iso(wall_us);
	json_t *j = json_string(s);
	free(s);
	return j;
}

static json_t *strv_to_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

/* [ { name, reason, optional } ] */
static json_t *missing_to_json(const struct test_result *tr)
{
	json_t *a = json_array();
	for (size_t i = 0; i < tr->n_missing_metrics; i++) {
		const struct missing_metric *mm = &tr->missing_metrics[i];
		json_array_append_new(a, json_pack("{s:o, s:o, s:b}", "name", jstr(mm->name),
						   "reason", jstr(mm->reason), "optional",
						   mm->optional));
	}
	return a;
}

static json_t *metric_to_json(const struct metric_result *m)
{
	json_t *samples = json_array();
	for (size_t i = 0; i < m->n_samples; i++)
		json_array_append_new(samples, jreal(m->samples[i]));
	json_t *o = json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "value", jstat(m->median),
			 "unit", m->unit ? m->unit : "",
			 "better", m->higher_is_better ? "higher" : "lower",
			 "samples", samples,
			 "median", jstat(m->median),
			 "min", jstat(m->min),
			 "max", jstat(m->max),
			 "mean", jstat(m->mean),
			 "stddev", jstat(m->stddev));
	if (m->change != METRIC_CHANGE_NONE) {
		json_object_set_new(o, "change", json_string(metric_change_name(m->change)));
		json_object_set_new(o, "change_pct", jreal(m->change_pct));
		json_object_set_new(o, "verdict", metric_verdict_to_json(&m->verdict));
	}
	if (m->has_threshold)
		json_object_set_new(o, "threshold_pct", jreal(m->threshold_pct));
	return o;
}

static json_t *phase_to_json(const struct phase_result *ph)
{
	json_t *o = json_pack("{s:o, s:b, s:o, s:o, s:o, s:b, s:o}",
			 "name", jstr(ph->name),
			 "reached", ph->reached,
			 "offset_s", jreal(ph->offset_s),
			 "duration_s", jreal(ph->duration_s),
			 "max_s", jreal(ph->max_s),
			 "over_budget", ph->over_budget,
			 "line", jstr(ph->line));
	int bad = 0;
	if (o)
		set_text(o, "line", ph->line, &bad);
	if (o && ph->reached)
		jset(o, "clock", json_string(ph->kernel_clock ? "printk" : "console"), &bad);
	if (!o || bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* What repeat: auto did (docs/results-json.md). */
static json_t *repeat_to_json(const struct repeat_outcome *r)
{
	return json_pack("{s:s, s:b, s:s, s:i, s:o, s:o, s:o, s:b}",
			 "mode", "auto", "converged", r->converged,
			 "stopped", repeat_stop_name(r->stop), "max_runs", r->max_runs,
			 "target_pct", jreal(r->target_pct), "spread_pct", jreal(r->spread_pct),
			 "spread_metric", jstr(r->spread_metric), "floored", r->floored);
}

/* Every try of a test whose infrastructure errors are retried. */
static json_t *infra_attempts_to_json(const struct test_result *tr, int *bad)
{
	json_t *a = json_array();
	for (size_t i = 0; i < tr->n_infra_attempts; i++) {
		const struct infra_attempt *t = &tr->infra_attempts[i];
		json_t *o = json_object();
		jset(o, "attempt", json_integer((json_int_t)i + 1), bad);
		jset(o, "status", json_string(result_status_name(t->status)), bad);
		set_text(o, "error", t->message, bad);
		jset(o, "start", jtime(t->start_wall_us), bad);
		jset(o, "duration_s", jreal(t->duration_s), bad);
		jset(o, "power_cycled", json_boolean(t->power_cycled), bad);
		set_text(o, "log_dir", t->log_dir, bad);
		if (json_array_append_new(a, o) < 0)
			(*bad)++;
	}
	return a;
}

json_t *test_result_to_json(const struct test_result *tr)
{
	int bad = 0;
	json_t *metrics = json_object();
	for (size_t i = 0; i < tr->n_metrics; i++)
		jset(metrics, tr->metrics[i].name, metric_to_json(&tr->metrics[i]), &bad);
	json_t *phases = json_array();
	for (size_t i = 0; i < tr->n_phases; i++)
		if (json_array_append_new(phases, phase_to_json(&tr->phases[i])) < 0)
			bad++;

	json_t *o = json_object();
	set_text(o, "board", tr->board, &bad);
	set_text(o, "test", tr->test, &bad);
	jset(o, "status", json_string(result_status_name(tr->status)), &bad);
	set_text(o, "message", tr->message, &bad);
	jset(o, "exit_code", json_integer(tr->exit_code), &bad);
	jset(o, "start", jtime(tr->start_wall_us), &bad);
	jset(o, "end", jtime(tr->end_wall_us), &bad);
	jset(o, "duration_s", jreal(tr->duration_s), &bad);
	jset(o, "attempts", json_integer(tr->attempts), &bad);
	jset(o, "metrics", metrics, &bad);
	jset(o, "phases", phases, &bad);
	set_text(o, "last_line", tr->last_line, &bad);
	if (tr->console_sched)
		set_text(o, "console_sched", tr->console_sched, &bad);
	if (tr->implementation)
		set_text(o, "implementation", tr->implementation, &bad);
	set_text(o, "log_dir", tr->log_dir, &bad);
	jset(o, "regressed", json_boolean(tr->regressed), &bad);
	set_text(o, "comparison", tr->comparison, &bad);
	jset(o, "missing_metrics", missing_to_json(tr), &bad);
	jset(o, "artifacts", strv_to_json(tr->artifacts, tr->n_artifacts), &bad);
	if (tr->controller)
		set_text(o, "controller", tr->controller, &bad);
	if (tr->retried)
		jset(o, "retried", json_true(), &bad);
	if (tr->log_cut)
		jset(o, "log_cut", json_true(), &bad);
	if (tr->long_lines)
		jset(o, "long_lines", json_integer((json_int_t)tr->long_lines), &bad);
	if (tr->n_leftovers)
		jset(o, "leftovers", strv_to_json(tr->leftovers, tr->n_leftovers), &bad);
	if (tr->orphans)
		set_text(o, "orphans", tr->orphans, &bad);
	if (tr->repeat.is_auto)
		jset(o, "repeat", repeat_to_json(&tr->repeat), &bad);
	if (tr->n_pushes) {
		json_t *pushes = json_array();
		for (size_t i = 0; i < tr->n_pushes; i++)
			json_array_append_new(pushes, json_pack("{s:o, s:I, s:o}",
				"file", jstr(tr->pushes[i].file), "bytes", (json_int_t)tr->pushes[i].bytes,
				"seconds", jreal(tr->pushes[i].seconds)));
		jset(o, "pushes", pushes, &bad);
	}
	if (tr->n_infra_attempts)
		jset(o, "infra_attempts", infra_attempts_to_json(tr, &bad), &bad);
	if (tr->flaky)
		jset(o, "flaky", json_true(), &bad);
	if (tr->board_offline)
		jset(o, "board_offline", json_true(), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *facts_to_json(const struct run_result *run, int *bad)
{
	json_t *boards = json_object();
	for (size_t i = 0; i < run->n_facts; i++) {
		const struct board_facts *bf = &run->facts[i];
		json_t *facts = json_object();
		for (size_t k = 0; k < bf->n; k++)
			set_text(facts, bf->items[k].name, bf->items[k].value, bad);
		json_t *b = json_object();
		jset(b, "facts", facts, bad);
		jset(boards, bf->board, b, bad);
	}
	return boards;
}

json_t *metric_trend_to_json(const struct metric_trend *t)
{
	json_t *pts = json_array();
	for (size_t k = 0; k < t->n; k++) {
		json_t *p = json_object();
		json_object_set_new(p, "run_id", jstr(t->points[k].run_id));
		json_object_set_new(p, "label", jstr(t->points[k].label));
		json_object_set_new(p, "value", jreal(t->points[k].value));
		json_object_set_new(p, "current", json_boolean(t->points[k].current));
		json_array_append_new(pts, p);
	}
	json_t *o = json_object();
	json_object_set_new(o, "board", jstr(t->board));
	json_object_set_new(o, "test", jstr(t->test));
	json_object_set_new(o, "metric", jstr(t->metric));
	json_object_set_new(o, "points", pts);
	return o;
}

/* A string as jansson writes it (jstr's lossy text when not UTF-8). */
static void text_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_puts(sb, "null");
		return;
	}
	char *lossy = utf8_valid(s) ? NULL : utf8_lossy(s);
	const char *p = lossy ? lossy : s, *run = p;
	strbuf_putc(sb, '"');
	for (;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		strbuf_append(sb, run, (size_t)(p - run));
		run = p + 1;
		if (!c)
			break;
		switch (c) {
		case '"': strbuf_puts(sb, "\\\""); break;
		case '\\': strbuf_puts(sb, "\\\\"); break;
		case '\b': strbuf_puts(sb, "\\b"); break;
		case '\f': strbuf_puts(sb, "\\f"); break;
		case '\n': strbuf_puts(sb, "\\n"); break;
		case '\r': strbuf_puts(sb, "\\r"); break;
		case '\t': strbuf_puts(sb, "\\t"); break;
		default: strbuf_printf(sb, "\\u%04X", c); break;
		}
	}
	strbuf_putc(sb, '"');
	free(lossy);
}

/* A real as jansson writes it with JSON_REAL_PRECISION(15) (jreal: null
 * when not finite): "%.15g", ".0" when that reads as an integer, and the
 * exponent without its "+" and leading zeros. */
static void text_real(struct strbuf *sb, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		strbuf_puts(sb, "null");
		return;
	}
	int n = snprintf(buf, sizeof(buf) - 2, "%.15g", v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 2) {
		strbuf_puts(sb, "null");
		return;
	}
	char *e = strchr(buf, 'e');
	if (!e && !strchr(buf, '.'))
		memcpy(buf + n, ".0", 3);
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		memmove(start, end, strlen(end) + 1);
	}
	strbuf_puts(sb, buf);
}

void metric_trend_json_text(const struct metric_trend *t, struct strbuf *out)
{
	strbuf_puts(out, "{\n  \"board\": ");
	text_str(out, t->board);
	strbuf_puts(out, ",\n  \"test\": ");
	text_str(out, t->test);
	strbuf_puts(out, ",\n  \"metric\": ");
	text_str(out, t->metric);
	strbuf_puts(out, ",\n  \"points\": [");
	for (size_t k = 0; k < t->n; k++) {
		const struct trend_point *p = &t->points[k];
		strbuf_puts(out, k ? ",\n    {\n      \"run_id\": " : "\n    {\n      \"run_id\": ");
		text_str(out, p->run_id);
		strbuf_puts(out, ",\n      \"label\": ");
		text_str(out, p->label);
		strbuf_puts(out, ",\n      \"value\": ");
		text_real(out, p->value);
		strbuf_puts(out, p->current ? ",\n      \"current\": true\n    }"
					    : ",\n      \"current\": false\n    }");
	}
	strbuf_puts(out, t->n ? "\n  ]\n}" : "]\n}");
}

static json_t *trends_to_json(const struct run_result *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->n_trends; i++)
		json_array_append_new(a, metric_trend_to_json(&run->trends[i]));
	return a;
}

json_t *run_result_to_json(const struct run_result *run)
{
	int bad = 0;
	json_t *results = json_array();
	for (size_t i = 0; i < run->n_results; i++)
		if (json_array_append_new(results, test_result_to_json(&run->results[i])) < 0)
			bad++;
	json_t *o = json_object();
	set_text(o, "orch_version", run->orch_version, &bad);
	set_text(o, "scenario", run->scenario, &bad);
	set_text(o, "run_id", run->run_id, &bad);
	set_text(o, "label", run->label, &bad);
	set_text(o, "host", run->host, &bad);
	jset(o, "start", jtime(run->start_wall_us), &bad);
	jset(o, "end", jtime(run->end_wall_us), &bad);
	jset(o, "exit_code", json_integer(run->exit_code), &bad);
	jset(o, "interrupted", json_boolean(run->interrupted), &bad);
	set_text(o, "baseline", run->baseline, &bad);
	if (run->rerun_of) {
		set_text(o, "rerun_of", run->rerun_of, &bad);
		set_text(o, "rerun_only", run->rerun_only, &bad);
	}
	if (run->n_offline) {
		json_t *off = json_array();
		for (size_t i = 0; i < run->n_offline; i++) {
			json_t *b = json_object();
			set_text(b, "board", run->offline[i].board, &bad);
			set_text(b, "reason", run->offline[i].reason, &bad);
			jset(b, "since", jtime(run->offline[i].since_wall_us), &bad);
			json_array_append_new(off, b);
		}
		jset(o, "offline_boards", off, &bad);
	}
	run_baseline_to_json(run, o);
	jset(o, "boards", facts_to_json(run, &bad), &bad);
	if (run->n_trends)
		jset(o, "trends", trends_to_json(run), &bad);
	jset(o, "results", results, &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *result_json_dump(const json_t *j)
{
	char *s = json_dumps(j, RESULT_JSON_FLAGS);
	if (!s)
		return NULL;
	char *out = xasprintf("%s\n", s);
	free(s);
	return out;
}
