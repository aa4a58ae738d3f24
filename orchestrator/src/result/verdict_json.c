/* A metric's verdict evidence and a run's baseline in results.json
 * (docs/results-json.md, "The verdict's evidence"). */
#include "result/result_json.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *text_or_null(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (!j) {
		char *t = utf8_lossy(s);
		j = json_string(t);
		free(t);
	}
	return j ? j : json_null();
}

json_t *metric_verdict_to_json(const struct metric_verdict *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "baseline", num_or_null(v->baseline));
	json_object_set_new(o, "threshold_pct", num_or_null(v->threshold_pct));
	json_object_set_new(o, "p", num_or_null(v->p));
	json_object_set_new(o, "method", text_or_null(v->method));
	json_object_set_new(o, "reason", text_or_null(v->reason));
	json_object_set_new(o, "n_baseline", json_integer((json_int_t)v->n_baseline));
	if (v->ack_run || v->ack_note) {
		json_object_set_new(o, "ack_run", text_or_null(v->ack_run));
		json_object_set_new(o, "ack_note", text_or_null(v->ack_note));
	}
	if (v->step_since)
		json_object_set_new(o, "step", json_pack("{s:o, s:I, s:b, s:o}",
							 "since", text_or_null(v->step_since),
							 "runs", (json_int_t)v->step_runs,
							 "settled", v->step_settled,
							 "text", text_or_null(v->step_text)));
	return o;
}

static int fail(char *err, size_t errlen, const char *key, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "verdict.%s: %s", key, what);
	return -1;
}

static int opt_num(const json_t *o, const char *key, double *out, char *err, size_t errlen)
{
	const json_t *j = json_object_get(o, key);
	*out = NAN;
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_number(j))
		return fail(err, errlen, key, "expected a number");
	*out = json_number_value(j);
	return 0;
}

static int opt_text(const json_t *o, const char *key, char **out, char *err, size_t errlen)
{
	const json_t *j = json_object_get(o, key);
	*out = NULL;
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_string(j))
		return fail(err, errlen, key, "expected a string");
	*out = xstrdup(json_string_value(j));
	return 0;
}

/* "step": {"since", "runs", "settled", "text"}, when there is one. */
static int step_from_json(const json_t *o, struct metric_verdict *v, char *err, size_t errlen)
{
	const json_t *st = json_object_get(o, "step");
	if (!st || json_is_null(st))
		return 0;
	const json_t *runs = json_object_get(st, "runs"), *settled = json_object_get(st, "settled");
	if (!json_is_object(st) || !json_is_integer(runs) || json_integer_value(runs) < 0 ||
	    (settled && !json_is_boolean(settled)))
		return fail(err, errlen, "step", "expected {since, runs, settled, text}");
	v->step_runs = (size_t)json_integer_value(runs);
	v->step_settled = settled && json_is_true(settled);
	if (opt_text(st, "since", &v->step_since, err, errlen) < 0 ||
	    opt_text(st, "text", &v->step_text, err, errlen) < 0)
		return -1;
	return 0;
}

int metric_verdict_from_json(const json_t *o, struct metric_verdict *v, char *err, size_t errlen)
{
	metric_verdict_init(v);
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return fail(err, errlen, "", "expected an object");
	const json_t *n = json_object_get(o, "n_baseline");
	if (n && !json_is_null(n)) {
		if (!json_is_integer(n) || json_integer_value(n) < 0)
			return fail(err, errlen, "n_baseline", "expected a count");
		v->n_baseline = (size_t)json_integer_value(n);
	}
	if (opt_num(o, "baseline", &v->baseline, err, errlen) < 0 ||
	    opt_num(o, "threshold_pct", &v->threshold_pct, err, errlen) < 0 ||
	    opt_num(o, "p", &v->p, err, errlen) < 0 ||
	    opt_text(o, "method", &v->method, err, errlen) < 0 ||
	    opt_text(o, "reason", &v->reason, err, errlen) < 0 ||
	    opt_text(o, "ack_run", &v->ack_run, err, errlen) < 0 ||
	    opt_text(o, "ack_note", &v->ack_note, err, errlen) < 0 ||
	    step_from_json(o, v, err, errlen) < 0) {
		metric_verdict_release(v);
		metric_verdict_init(v);
		return -1;
	}
	return 0;
}

void run_baseline_to_json(const struct run_result *run, json_t *o)
{
	const char *kind = baseline_kind_name(run->baseline_kind);
	json_object_set_new(o, "baseline_kind", kind ? json_string(kind) : json_null());
	json_object_set_new(o, "baseline_name", text_or_null(run->baseline_name));
}

int run_baseline_from_json(const json_t *o, struct run_result *run, char *err, size_t errlen)
{
	const json_t *k = json_object_get(o, "baseline_kind");
	run->baseline_kind = BASELINE_NONE;
	if (k && !json_is_null(k) &&
	    (!json_is_string(k) || baseline_kind_parse(json_string_value(k), &run->baseline_kind) < 0)) {
		if (err && errlen)
			snprintf(err, errlen, "baseline_kind: expected \"run\" or \"history\"");
		return -1;
	}
	const json_t *nm = json_object_get(o, "baseline_name");
	if (nm && !json_is_null(nm) && !json_is_string(nm)) {
		if (err && errlen)
			snprintf(err, errlen, "baseline_name: expected a string");
		return -1;
	}
	run->baseline_name = nm && json_is_string(nm) ? xstrdup(json_string_value(nm)) : NULL;
	/* a file written before baseline_kind existed, with a baseline folder */
	if (!k && run->baseline)
		run->baseline_kind = strncmp(run->baseline, "history", 7) == 0 ? BASELINE_HISTORY
									   : BASELINE_RUN;
	return 0;
}
