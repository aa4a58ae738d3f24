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

/* ---- from JSON -------------------------------------------------------- */

/*
 * Readers are lenient about absent optional members (older or merged files)
 * and strict about wrong types; every error names the member's path.
 */
struct jctx {
	char *err;
	size_t errlen;
	const char *where;
};

static int jfail(struct jctx *c, const char *key, const char *what)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s%s%s: %s", c->where, *c->where ? "." : "",
			 key, what);
	return -1;
}

static int get_str(struct jctx *c, const json_t *o, const char *key, bool required, char **out)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v)) {
		if (required)
			return jfail(c, key, "missing");
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return jfail(c, key, "expected a string");
	char *k = xasprintf("%s_base64", key);
	json_t *raw = json_object_get(o, k);
	free(k);
	if (raw && !json_is_null(raw)) {
		*out = json_is_string(raw) ? utf8_bytes_from_base64(json_string_value(raw)) : NULL;
		return *out ? 0 : jfail(c, key, "its _base64 twin is not base64");
	}
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int num_value(const json_t *v, double *out)
{
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static int get_num(struct jctx *c, const json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		*out = 0;
		return 0;
	}
	if (num_value(v, out) < 0)
		return jfail(c, key, "expected a number");
	return 0;
}

static int get_int(struct jctx *c, const json_t *o, const char *key, int dflt, int *out)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v)) {
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v))
		return jfail(c, key, "expected an integer");
	*out = (int)json_integer_value(v);
	return 0;
}

static int get_bool(struct jctx *c, const json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v)) {
		*out = false;
		return 0;
	}
	if (!json_is_boolean(v))
		return jfail(c, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

static int get_time(struct jctx *c, const json_t *o, const char *key, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || result_time_parse(json_string_value(v), out) < 0)
		return jfail(c, key, "expected an ISO 8601 time like \"2026-12-02T16:50:00Z\"");
	return 0;
}

static int metric_from_json(struct jctx *c, const char *name, const json_t *o,
			    struct metric_result *m)
{
	m->name = xstrdup(name);
	metric_verdict_init(&m->verdict);
	if (!json_is_object(o))
		return jfail(c, name, "expected an object");
	json_t *unit = json_object_get(o, "unit");
	if (unit && !json_is_string(unit) && !json_is_null(unit))
		return jfail(c, name, "unit: expected a string");
	m->unit = xstrdup(json_is_string(unit) ? json_string_value(unit) : "");
	json_t *better = json_object_get(o, "better");
	if (better && !json_is_null(better)) {
		const char *b = json_string_value(better);
		if (!b || (strcmp(b, "higher") != 0 && strcmp(b, "lower") != 0))
			return jfail(c, name, "better: expected \"higher\" or \"lower\"");
		m->higher_is_better = strcmp(b, "higher") == 0;
	} else {
		/* not written: the unit or the name says (a latency in ms is lower) */
		m->higher_is_better = units_better_of(m->unit, name) != UNITS_BETTER_LOWER;
	}
	json_t *change = json_object_get(o, "change");
	if (change && !json_is_null(change)) {
		if (metric_change_parse(json_string_value(change), &m->change) < 0)
			return jfail(c, name, "change: expected same, noise, better, worse, "
				     "regression or \"not judged\"");
		json_t *pct = json_object_get(o, "change_pct");
		m->change_pct = NAN;
		if (pct && !json_is_null(pct) && num_value(pct, &m->change_pct) < 0)
			return jfail(c, name, "change_pct: expected a number");
		char verr[160];
		if (metric_verdict_from_json(json_object_get(o, "verdict"), &m->verdict, verr,
					     sizeof(verr)) < 0)
			return jfail(c, name, verr);
	}
	json_t *thr = json_object_get(o, "threshold_pct");
	if (thr && !json_is_null(thr)) {
		if (num_value(thr, &m->threshold_pct) < 0 || !(m->threshold_pct >= 0))
			return jfail(c, name, "threshold_pct: expected a percentage >= 0");
		m->has_threshold = true;
	}
	json_t *samples = json_object_get(o, "samples");
	if (samples && !json_is_null(samples)) {
		if (!json_is_array(samples))
			return jfail(c, name, "samples: expected an array");
		size_t n = json_array_size(samples);
		m->samples = n ? xmalloc(n * sizeof(double)) : NULL;
		for (size_t i = 0; i < n; i++) {
			if (num_value(json_array_get(samples, i), &m->samples[i]) < 0)
				return jfail(c, name, "samples: expected numbers");
			m->n_samples++;
		}
	}
	if (m->n_samples) {
		metric_result_summarize(m);
		return 0;
	}
	/* No samples (hand-written or foreign file): take the statistics as given. */
	const char *keys[] = { "median", "min", "max", "mean", "stddev" };
	double *vals[] = { &m->median, &m->min, &m->max, &m->mean, &m->stddev };
	for (size_t i = 0; i < 5; i++) {
		json_t *v = json_object_get(o, keys[i]);
		if (v && num_value(v, vals[i]) < 0)
			return jfail(c, name, "expected numbers for the statistics");
	}
	json_t *value = json_object_get(o, "value");
	if (!json_object_get(o, "median") && value && num_value(value, &m->median) < 0)
		return jfail(c, name, "value: expected a number");
	return 0;
}

static int phase_from_json(struct jctx *c, const json_t *o, struct phase_result *ph)
{
	if (!json_is_object(o))
		return jfail(c, "phases", "expected objects");
	if (get_str(c, o, "name", true, &ph->name) < 0 ||
	    get_bool(c, o, "reached", &ph->reached) < 0 ||
	    get_num(c, o, "offset_s", &ph->offset_s) < 0 ||
	    get_num(c, o, "duration_s", &ph->duration_s) < 0 ||
	    get_num(c, o, "max_s", &ph->max_s) < 0 ||
	    get_bool(c, o, "over_budget", &ph->over_budget) < 0 ||
	    get_str(c, o, "line", false, &ph->line) < 0)
		return -1;
	const json_t *clock = json_object_get(o, "clock");
	ph->kernel_clock = json_is_string(clock) && strcmp(json_string_value(clock), "printk") == 0;
	return 0;
}

/* An optional array of strings, each added with add(). */
static int get_strv(struct jctx *c, const json_t *o, const char *key, struct test_result *tr,
		    void (*add)(struct test_result *, const char *))
{
	const json_t *a = json_object_get(o, key);
	size_t i;
	const json_t *v;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, key, "expected an array of strings");
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return jfail(c, key, "expected an array of strings");
		add(tr, json_string_value(v));
	}
	return 0;
}

/* "missing_metrics": objects { name, reason, optional }, or names alone
 * (run folders of orch before reasons were recorded: "absent"). */
static int missing_from_json(struct jctx *c, const json_t *o, struct test_result *tr)
{
	const json_t *a = json_object_get(o, "missing_metrics");
	size_t i;
	const json_t *v;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, "missing_metrics", "expected an array");
	json_array_foreach(a, i, v) {
		if (json_is_string(v)) {
			test_result_add_missing(tr, json_string_value(v));
			continue;
		}
		const json_t *name = json_object_get(v, "name");
		const json_t *reason = json_object_get(v, "reason");
		if (!json_is_string(name) || (reason && !json_is_string(reason) && !json_is_null(reason)))
			return jfail(c, "missing_metrics", "expected { name, reason, optional }");
		test_result_add_missing_why(tr, json_string_value(name),
					    json_is_string(reason) ? json_string_value(reason) : NULL,
					    json_is_true(json_object_get(v, "optional")));
	}
	return 0;
}

static int repeat_from_json(struct jctx *c, const json_t *o, struct repeat_outcome *r)
{
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return jfail(c, "repeat", "expected an object");
	char *stop = NULL;
	struct jctx rc = { c->err, c->errlen, "repeat" };
	r->is_auto = true;
	int ret = get_bool(&rc, o, "converged", &r->converged) < 0 ||
		  get_str(&rc, o, "stopped", false, &stop) < 0 ||
		  get_int(&rc, o, "max_runs", 0, &r->max_runs) < 0 ||
		  get_num(&rc, o, "target_pct", &r->target_pct) < 0 ||
		  get_num(&rc, o, "spread_pct", &r->spread_pct) < 0 ||
		  get_str(&rc, o, "spread_metric", false, &r->spread_metric) < 0 ||
		  get_bool(&rc, o, "floored", &r->floored) < 0 ? -1 : 0;
	if (ret == 0 && stop && repeat_stop_parse(stop, &r->stop) < 0)
		ret = jfail(&rc, "stopped", "expected converged, cap reached, failed, interrupted "
			    "or no metrics");
	free(stop);
	return ret;
}

static int pushes_from_json(struct jctx *c, const json_t *a, struct test_result *tr)
{
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, "pushes", "expected an array");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *p = json_array_get(a, i);
		json_t *bytes = json_object_get(p, "bytes"), *secs = json_object_get(p, "seconds");
		const char *file = json_string_value(json_object_get(p, "file"));
		if (!json_is_object(p) || !json_is_integer(bytes) || json_integer_value(bytes) < 0 ||
		    (secs && !json_is_null(secs) && !json_is_number(secs)))
			return jfail(c, "pushes", "expected objects {file, bytes, seconds}");
		test_result_add_push(tr, file, (uint64_t)json_integer_value(bytes),
				     json_is_number(secs) ? json_number_value(secs) : NAN);
	}
	return 0;
}

static int infra_attempts_from_json(struct jctx *c, const json_t *a, struct test_result *tr)
{
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, "infra_attempts", "expected an array");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *o = json_array_get(a, i);
		if (!json_is_object(o))
			return jfail(c, "infra_attempts", "expected objects");
		char *status = NULL, *msg = NULL, *dir = NULL;
		int64_t start = 0;
		double dur = 0;
		bool pc = false;
		enum result_status st = STATUS_ERROR;
		int r = get_str(c, o, "status", true, &status) < 0 ||
			get_str(c, o, "error", false, &msg) < 0 ||
			get_str(c, o, "log_dir", false, &dir) < 0 ||
			get_time(c, o, "start", &start) < 0 ||
			get_num(c, o, "duration_s", &dur) < 0 ||
			get_bool(c, o, "power_cycled", &pc) < 0 ? -1 : 0;
		if (r == 0 && result_status_parse(status, &st) < 0)
			r = jfail(c, "infra_attempts", "status: expected pass, fail, error or skip");
		if (r == 0)
			test_result_add_infra_attempt(tr, st, msg, start, dur, pc, dir);
		free(status);
		free(msg);
		free(dir);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int offline_from_json(struct jctx *c, const json_t *a, struct run_result *run)
{
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, "offline_boards", "expected an array");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *o = json_array_get(a, i);
		char *board = NULL, *reason = NULL;
		int64_t since = 0;
		int r = !json_is_object(o) ? jfail(c, "offline_boards", "expected objects") :
			get_str(c, o, "board", true, &board) < 0 ||
			get_str(c, o, "reason", false, &reason) < 0 ||
			get_time(c, o, "since", &since) < 0 ? -1 : 0;
		if (r == 0)
			run_result_add_offline(run, board, reason, since);
		free(board);
		free(reason);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int test_from_json(struct jctx *c, const json_t *obj, struct test_result *tr)
{
	memset(tr, 0, sizeof(*tr));
	if (!json_is_object(obj)) {
		if (c->err && c->errlen)
			snprintf(c->err, c->errlen, "%s: expected an object", c->where);
		return -1;
	}
	char *status = NULL;
	int ret = -1;
	int long_lines = 0;
	if (get_str(c, obj, "board", true, &tr->board) < 0 ||
	    get_str(c, obj, "test", true, &tr->test) < 0 ||
	    get_str(c, obj, "status", true, &status) < 0)
		goto out;
	if (result_status_parse(status, &tr->status) < 0) {
		jfail(c, "status", "expected pass, fail, error or skip");
		goto out;
	}
	if (get_str(c, obj, "message", false, &tr->message) < 0 ||
	    get_int(c, obj, "exit_code", -1, &tr->exit_code) < 0 ||
	    get_time(c, obj, "start", &tr->start_wall_us) < 0 ||
	    get_time(c, obj, "end", &tr->end_wall_us) < 0 ||
	    get_num(c, obj, "duration_s", &tr->duration_s) < 0 ||
	    get_int(c, obj, "attempts", 0, &tr->attempts) < 0 ||
	    get_str(c, obj, "last_line", false, &tr->last_line) < 0 ||
	    get_str(c, obj, "console_sched", false, &tr->console_sched) < 0 ||
	    get_str(c, obj, "log_dir", false, &tr->log_dir) < 0 ||
	    get_bool(c, obj, "regressed", &tr->regressed) < 0 ||
	    get_str(c, obj, "comparison", false, &tr->comparison) < 0 ||
	    missing_from_json(c, obj, tr) < 0 ||
	    get_strv(c, obj, "artifacts", tr, test_result_add_artifact) < 0 ||
	    get_strv(c, obj, "leftovers", tr, test_result_add_leftover) < 0 ||
	    get_str(c, obj, "controller", false, &tr->controller) < 0 ||
	    get_bool(c, obj, "retried", &tr->retried) < 0 ||
	    get_bool(c, obj, "log_cut", &tr->log_cut) < 0 ||
	    get_int(c, obj, "long_lines", 0, &long_lines) < 0)
		goto out;
	tr->long_lines = long_lines > 0 ? (uint64_t)long_lines : 0;

	if (repeat_from_json(c, json_object_get(obj, "repeat"), &tr->repeat) < 0 ||
	    pushes_from_json(c, json_object_get(obj, "pushes"), tr) < 0 ||
	    infra_attempts_from_json(c, json_object_get(obj, "infra_attempts"), tr) < 0 ||
	    get_bool(c, obj, "flaky", &tr->flaky) < 0 ||
	    get_bool(c, obj, "board_offline", &tr->board_offline) < 0)
		goto out;

	json_t *metrics = json_object_get(obj, "metrics");
	if (metrics && !json_is_null(metrics)) {
		if (!json_is_object(metrics)) {
			jfail(c, "metrics", "expected an object");
			goto out;
		}
		size_t n = json_object_size(metrics);
		tr->metrics = n ? xcalloc(n, sizeof(*tr->metrics)) : NULL;
		const char *key;
		json_t *val;
		char *where = xasprintf("%s%smetrics", c->where, *c->where ? "." : "");
		struct jctx mc = { c->err, c->errlen, where };
		json_object_foreach(metrics, key, val) {
			int r = metric_from_json(&mc, key, val, &tr->metrics[tr->n_metrics++]);
			if (r < 0) {
				free(where);
				goto out;
			}
		}
		free(where);
	}
	json_t *phases = json_object_get(obj, "phases");
	if (phases && !json_is_null(phases)) {
		if (!json_is_array(phases)) {
			jfail(c, "phases", "expected an array");
			goto out;
		}
		size_t n = json_array_size(phases);
		tr->phases = n ? xcalloc(n, sizeof(*tr->phases)) : NULL;
		for (size_t i = 0; i < n; i++) {
			char *where = xasprintf("%s%sphases[%zu]", c->where, *c->where ? "." : "", i);
			struct jctx pc = { c->err, c->errlen, where };
			int r = phase_from_json(&pc, json_array_get(phases, i), &tr->phases[tr->n_phases++]);
			free(where);
			if (r < 0)
				goto out;
		}
	}
	ret = 0;
out:
	free(status);
	if (ret < 0)
		test_result_release(tr);
	return ret;
}

int test_result_from_json(const json_t *obj, struct test_result *tr, char *err, size_t errlen)
{
	struct jctx c = { err, errlen, "" };
	return test_from_json(&c, obj, tr);
}

/* "boards": { NAME: { "facts": { KEY: "value", ... } } }; other members
 * and non-string facts are ignored. */
static int facts_from_json(struct jctx *c, const json_t *obj, struct run_result *run)
{
	json_t *boards = json_object_get(obj, "boards");
	const char *name;
	json_t *b;
	if (!boards || json_is_null(boards))
		return 0;
	if (!json_is_object(boards))
		return jfail(c, "boards", "expected an object");
	json_object_foreach(boards, name, b) {
		json_t *facts = json_is_object(b) ? json_object_get(b, "facts") : NULL;
		const char *key;
		json_t *v;
		if (!json_is_object(facts))
			continue;
		struct board_facts bf = { .board = xstrdup(name) };
		json_object_foreach(facts, key, v)
			if (json_is_string(v))
				board_facts_set(&bf, key, json_string_value(v));
		run_result_put_facts(run, &bf);
	}
	return 0;
}

/* "trends": [ { board, test, metric, points: [ { run_id, label, value, current } ] } ];
 * entries without names are skipped. */
static int trends_from_json(struct jctx *c, const json_t *obj, struct run_result *run)
{
	json_t *a = json_object_get(obj, "trends");
	size_t i, k;
	json_t *t, *p;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return jfail(c, "trends", "expected an array");
	json_array_foreach(a, i, t) {
		const char *b = json_string_value(json_object_get(t, "board"));
		const char *te = json_string_value(json_object_get(t, "test"));
		const char *m = json_string_value(json_object_get(t, "metric"));
		json_t *pts = json_object_get(t, "points");
		if (!b || !te || !m || !json_is_array(pts))
			continue;
		struct metric_trend *mt = run_result_add_trend(run, b, te, m);
		json_array_foreach(pts, k, p) {
			const char *id = json_string_value(json_object_get(p, "run_id"));
			json_t *v = json_object_get(p, "value");
			if (!id || !json_is_number(v))
				continue;
			metric_trend_add_point(mt, id, json_string_value(json_object_get(p, "label")),
					       json_number_value(v),
					       json_is_true(json_object_get(p, "current")));
		}
	}
	return 0;
}

int run_result_from_json(const json_t *obj, struct run_result *run, char *err, size_t errlen)
{
	memset(run, 0, sizeof(*run));
	struct jctx c = { err, errlen, "" };
	int ret = -1;
	if (!json_is_object(obj)) {
		if (err && errlen)
			snprintf(err, errlen, "expected a JSON object at the top");
		return -1;
	}
	if (get_str(&c, obj, "orch_version", false, &run->orch_version) < 0 ||
	    get_str(&c, obj, "scenario", false, &run->scenario) < 0 ||
	    get_str(&c, obj, "run_id", false, &run->run_id) < 0 ||
	    get_str(&c, obj, "host", false, &run->host) < 0 ||
	    get_time(&c, obj, "start", &run->start_wall_us) < 0 ||
	    get_time(&c, obj, "end", &run->end_wall_us) < 0 ||
	    get_int(&c, obj, "exit_code", 0, &run->exit_code) < 0 ||
	    get_bool(&c, obj, "interrupted", &run->interrupted) < 0 ||
	    get_str(&c, obj, "baseline", false, &run->baseline) < 0 ||
	    get_str(&c, obj, "label", false, &run->label) < 0 ||
	    get_str(&c, obj, "rerun_of", false, &run->rerun_of) < 0 ||
	    get_str(&c, obj, "rerun_only", false, &run->rerun_only) < 0 ||
	    offline_from_json(&c, json_object_get(obj, "offline_boards"), run) < 0 ||
	    run_baseline_from_json(obj, run, err, errlen) < 0 ||
	    facts_from_json(&c, obj, run) < 0 ||
	    trends_from_json(&c, obj, run) < 0)
		goto out;
	json_t *results = json_object_get(obj, "results");
	if (!results || !json_is_array(results)) {
		jfail(&c, "results", results ? "expected an array" : "missing");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(results); i++) {
		char *where = xasprintf("results[%zu]", i);
		struct jctx rc = { err, errlen, where };
		struct test_result tr;
		int r = test_from_json(&rc, json_array_get(results, i), &tr);
		free(where);
		if (r < 0)
			goto out;
		run_result_take(run, &tr);
	}
	ret = 0;
out:
	if (ret < 0)
		run_result_release(run);
	return ret;
}

int run_result_load(const char *run_dir, struct run_result *run, char *err, size_t errlen)
{
	memset(run, 0, sizeof(*run));
	struct stat sb;
	if (stat(run_dir, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", run_dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", run_dir);
		return -1;
	}
	char *path = fs_path_join(run_dir, "results.json");
	int ret = -1;
	json_t *root = NULL;
	if (stat(path, &sb) < 0) {
		snprintf(err, errlen, "%s: no results.json: not a run folder", run_dir);
		goto out;
	}
	json_error_t jerr;
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		goto out;
	}
	char inner[512];
	if (run_result_from_json(root, run, inner, sizeof(inner)) < 0) {
		snprintf(err, errlen, "%s: %s", path, inner);
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	free(path);
	return ret;
}
