/* results.json and result.json read back into the result model. */
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/utf8.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	    get_str(c, obj, "implementation", false, &tr->implementation) < 0 ||
	    get_str(c, obj, "log_dir", false, &tr->log_dir) < 0 ||
	    get_bool(c, obj, "regressed", &tr->regressed) < 0 ||
	    get_str(c, obj, "comparison", false, &tr->comparison) < 0 ||
	    missing_from_json(c, obj, tr) < 0 ||
	    get_strv(c, obj, "artifacts", tr, test_result_add_artifact) < 0 ||
	    get_strv(c, obj, "leftovers", tr, test_result_add_leftover) < 0 ||
	    get_str(c, obj, "controller", false, &tr->controller) < 0 ||
	    get_str(c, obj, "orphans", false, &tr->orphans) < 0 ||
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
