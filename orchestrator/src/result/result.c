#include "result/result.h"
#include "util/nodeset.h"
#include "util/secret.h"
#include "util/stats.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[STATUS_PASS] = "pass",
	[STATUS_FAIL] = "fail",
	[STATUS_ERROR] = "error",
	[STATUS_SKIP] = "skip",
};

const char *result_status_name(enum result_status st)
{
	if ((unsigned)st < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[st];
	return "unknown";
}

int result_status_parse(const char *name, enum result_status *st)
{
	for (size_t i = 0; name && i < sizeof(status_names) / sizeof(status_names[0]); i++) {
		if (strcmp(name, status_names[i]) == 0) {
			*st = (enum result_status)i;
			return 0;
		}
	}
	return -1;
}

static struct test_result *run_result_grow(struct run_result *run)
{
	if (run->n_results == run->cap_results) {
		run->cap_results = run->cap_results ? run->cap_results * 2 : 16;
		run->results = xrealloc(run->results, run->cap_results * sizeof(*run->results));
	}
	struct test_result *tr = &run->results[run->n_results++];
	memset(tr, 0, sizeof(*tr));
	return tr;
}

struct test_result *run_result_add(struct run_result *run, const char *board, const char *test)
{
	struct test_result *tr = run_result_grow(run);
	tr->board = xstrdup(board);
	tr->test = xstrdup(test);
	tr->exit_code = -1;
	return tr;
}

void run_result_take(struct run_result *run, struct test_result *src)
{
	struct test_result *tr = run_result_grow(run);
	*tr = *src;
	memset(src, 0, sizeof(*src));
}

const struct test_result *run_result_find(const struct run_result *run,
					  const char *board, const char *test)
{
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (tr->board && tr->test && strcmp(tr->board, board) == 0 &&
		    strcmp(tr->test, test) == 0)
			return tr;
	}
	return NULL;
}

static int natural_cmp(const void *pa, const void *pb)
{
	const struct test_result *a = *(const struct test_result *const *)pa;
	const struct test_result *b = *(const struct test_result *const *)pb;
	int c = nodeset_cmp(a->board ? a->board : "", b->board ? b->board : "");
	if (!c)
		c = nodeset_cmp(a->test ? a->test : "", b->test ? b->test : "");
	return c ? c : (a > b) - (a < b);
}

const struct test_result **run_result_natural(const struct run_result *run)
{
	const struct test_result **v = xcalloc(run->n_results + 1, sizeof(*v));
	for (size_t i = 0; i < run->n_results; i++)
		v[i] = &run->results[i];
	qsort(v, run->n_results, sizeof(*v), natural_cmp);
	return v;
}

void run_result_release(struct run_result *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->n_results; i++)
		test_result_release(&run->results[i]);
	free(run->results);
	free(run->scenario);
	free(run->run_id);
	free(run->orch_version);
	free(run->host);
	free(run->baseline);
	free(run->baseline_name);
	free(run->label);
	free(run->rerun_of);
	free(run->rerun_only);
	for (size_t i = 0; i < run->n_offline; i++) {
		free(run->offline[i].board);
		free(run->offline[i].reason);
	}
	free(run->offline);
	for (size_t i = 0; i < run->n_facts; i++)
		board_facts_release(&run->facts[i]);
	free(run->facts);
	for (size_t i = 0; i < run->n_trends; i++) {
		struct metric_trend *t = &run->trends[i];
		for (size_t k = 0; k < t->n; k++) {
			free(t->points[k].run_id);
			free(t->points[k].label);
		}
		free(t->points);
		free(t->board);
		free(t->test);
		free(t->metric);
	}
	free(run->trends);
	memset(run, 0, sizeof(*run));
}

struct metric_result *test_result_find_metric(struct test_result *tr, const char *name)
{
	for (size_t i = 0; i < tr->n_metrics; i++)
		if (strcmp(tr->metrics[i].name, name) == 0)
			return &tr->metrics[i];
	return NULL;
}

struct metric_result *test_result_add_sample(struct test_result *tr, const char *name,
					     const char *unit, bool higher_is_better,
					     double value)
{
	struct metric_result *m = test_result_find_metric(tr, name);
	if (!m) {
		tr->metrics = xrealloc(tr->metrics, (tr->n_metrics + 1) * sizeof(*tr->metrics));
		m = &tr->metrics[tr->n_metrics++];
		memset(m, 0, sizeof(*m));
		m->name = xstrdup(name);
		m->unit = xstrdup(unit ? unit : "");
		m->higher_is_better = higher_is_better;
		metric_verdict_init(&m->verdict);
	}
	m->samples = xrealloc(m->samples, (m->n_samples + 1) * sizeof(*m->samples));
	m->samples[m->n_samples++] = value;
	metric_result_summarize(m);
	return m;
}

void test_result_set_message(struct test_result *tr, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	free(tr->message);
	tr->message = strbuf_detach(&sb);
	secret_redact(tr->message);   /* console text may show a password's answer */
}

void metric_verdict_init(struct metric_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->baseline = v->threshold_pct = v->p = NAN;
}

void metric_verdict_release(struct metric_verdict *v)
{
	free(v->method);
	free(v->reason);
	free(v->ack_run);
	free(v->ack_note);
	free(v->step_since);
	free(v->step_text);
	memset(v, 0, sizeof(*v));
}

void metric_verdict_copy(struct metric_verdict *dst, const struct metric_verdict *src)
{
	*dst = *src;
	dst->method = xstrdup(src->method);
	dst->reason = xstrdup(src->reason);
	dst->ack_run = xstrdup(src->ack_run);
	dst->ack_note = xstrdup(src->ack_note);
	dst->step_since = xstrdup(src->step_since);
	dst->step_text = xstrdup(src->step_text);
}

void metric_result_release(struct metric_result *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->unit);
	free(m->samples);
	metric_verdict_release(&m->verdict);
	memset(m, 0, sizeof(*m));
}

void phase_result_release(struct phase_result *ph)
{
	if (!ph)
		return;
	free(ph->name);
	free(ph->line);
	memset(ph, 0, sizeof(*ph));
}

static void strv_add_once(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

static char **strv_copy(char *const *v, size_t n)
{
	if (!n)
		return NULL;
	char **out = xcalloc(n, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void test_result_add_missing_why(struct test_result *tr, const char *name, const char *reason,
				 bool optional)
{
	if (test_result_is_missing(tr, name))
		return;
	tr->missing_metrics = xrealloc(tr->missing_metrics,
				       (tr->n_missing_metrics + 1) * sizeof(*tr->missing_metrics));
	tr->missing_metrics[tr->n_missing_metrics++] = (struct missing_metric){
		xstrdup(name), xstrdup(reason ? reason : MISSING_ABSENT), optional };
}

void test_result_add_missing(struct test_result *tr, const char *name)
{
	test_result_add_missing_why(tr, name, MISSING_ABSENT, false);
}

bool test_result_is_missing(const struct test_result *tr, const char *name)
{
	for (size_t i = 0; i < tr->n_missing_metrics; i++)
		if (strcmp(tr->missing_metrics[i].name, name) == 0)
			return true;
	return false;
}

static void missing_free(struct missing_metric *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].reason);
	}
	free(v);
}

static struct missing_metric *missing_copy(const struct missing_metric *v, size_t n)
{
	struct missing_metric *out = n ? xcalloc(n, sizeof(*out)) : NULL;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct missing_metric){ xstrdup(v[i].name), xstrdup(v[i].reason),
						  v[i].optional };
	return out;
}

void test_result_add_artifact(struct test_result *tr, const char *path)
{
	strv_add_once(&tr->artifacts, &tr->n_artifacts, path);
}

void test_result_add_leftover(struct test_result *tr, const char *what)
{
	strv_add_once(&tr->leftovers, &tr->n_leftovers, what);
}

void test_result_release(struct test_result *tr)
{
	if (!tr)
		return;
	missing_free(tr->missing_metrics, tr->n_missing_metrics);
	strv_free(tr->artifacts, tr->n_artifacts);
	strv_free(tr->leftovers, tr->n_leftovers);
	for (size_t i = 0; i < tr->n_metrics; i++)
		metric_result_release(&tr->metrics[i]);
	for (size_t i = 0; i < tr->n_phases; i++)
		phase_result_release(&tr->phases[i]);
	free(tr->metrics);
	free(tr->phases);
	free(tr->board);
	free(tr->test);
	free(tr->message);
	free(tr->last_line);
	free(tr->console_sched);
	free(tr->implementation);
	free(tr->log_dir);
	free(tr->comparison);
	free(tr->controller);
	free(tr->orphans);
	free(tr->repeat.spread_metric);
	for (size_t i = 0; i < tr->n_pushes; i++)
		free(tr->pushes[i].file);
	free(tr->pushes);
	for (size_t i = 0; i < tr->n_infra_attempts; i++) {
		free(tr->infra_attempts[i].message);
		free(tr->infra_attempts[i].log_dir);
	}
	free(tr->infra_attempts);
	memset(tr, 0, sizeof(*tr));
}

void test_result_copy(struct test_result *dst, const struct test_result *src)
{
	*dst = *src;
	dst->board = xstrdup(src->board);
	dst->test = xstrdup(src->test);
	dst->message = xstrdup(src->message);
	dst->last_line = xstrdup(src->last_line);
	dst->console_sched = xstrdup(src->console_sched);
	dst->implementation = xstrdup(src->implementation);
	dst->log_dir = xstrdup(src->log_dir);
	dst->comparison = xstrdup(src->comparison);
	dst->missing_metrics = missing_copy(src->missing_metrics, src->n_missing_metrics);
	dst->artifacts = strv_copy(src->artifacts, src->n_artifacts);
	dst->leftovers = strv_copy(src->leftovers, src->n_leftovers);
	dst->controller = xstrdup(src->controller);
	dst->orphans = xstrdup(src->orphans);
	dst->repeat.spread_metric = xstrdup(src->repeat.spread_metric);
	dst->pushes = NULL;
	dst->n_pushes = 0;
	for (size_t i = 0; i < src->n_pushes; i++)
		test_result_add_push(dst, src->pushes[i].file, src->pushes[i].bytes,
				     src->pushes[i].seconds);
	dst->infra_attempts = NULL;
	dst->n_infra_attempts = 0;
	for (size_t i = 0; i < src->n_infra_attempts; i++) {
		const struct infra_attempt *a = &src->infra_attempts[i];
		test_result_add_infra_attempt(dst, a->status, a->message, a->start_wall_us,
					      a->duration_s, a->power_cycled, a->log_dir);
	}
	dst->metrics = NULL;
	dst->phases = NULL;
	if (src->n_metrics) {
		dst->metrics = xcalloc(src->n_metrics, sizeof(*dst->metrics));
		for (size_t i = 0; i < src->n_metrics; i++) {
			const struct metric_result *s = &src->metrics[i];
			struct metric_result *d = &dst->metrics[i];
			*d = *s;
			d->name = xstrdup(s->name);
			d->unit = xstrdup(s->unit);
			d->samples = NULL;
			metric_verdict_copy(&d->verdict, &s->verdict);
			if (s->n_samples) {
				d->samples = xmalloc(s->n_samples * sizeof(*d->samples));
				memcpy(d->samples, s->samples, s->n_samples * sizeof(*d->samples));
			}
		}
	}
	if (src->n_phases) {
		dst->phases = xcalloc(src->n_phases, sizeof(*dst->phases));
		for (size_t i = 0; i < src->n_phases; i++) {
			dst->phases[i] = src->phases[i];
			dst->phases[i].name = xstrdup(src->phases[i].name);
			dst->phases[i].line = xstrdup(src->phases[i].line);
		}
	}
}

struct phase_result *test_result_add_phase(struct test_result *tr, const char *name)
{
	tr->phases = xrealloc(tr->phases, (tr->n_phases + 1) * sizeof(*tr->phases));
	struct phase_result *ph = &tr->phases[tr->n_phases++];
	memset(ph, 0, sizeof(*ph));
	ph->name = xstrdup(name);
	return ph;
}

void metric_result_summarize(struct metric_result *m)
{
	size_t n = m->n_samples;
	m->median = m->min = m->max = m->mean = m->stddev = 0;
	if (!n)
		return;
	stats_min_max(m->samples, n, &m->min, &m->max);
	m->median = stats_median(m->samples, n);
	double var;
	stats_mean_var(m->samples, n, &m->mean, &var);
	m->stddev = sqrt(var);
}

double metric_result_rsd_pct(const struct metric_result *m)
{
	if (m->mean == 0)
		return 0;
	return m->stddev / fabs(m->mean) * 100.0;
}

bool metric_is_orch_own(const char *name)
{
	static const char *const prefixes[] = { "ssh.", "link.", "orch.", "console.", NULL };
	for (size_t i = 0; name && prefixes[i]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static const char *const repeat_stop_names[] = {
	[REPEAT_STOP_NONE] = "none",
	[REPEAT_STOP_CONVERGED] = "converged",
	[REPEAT_STOP_CAP] = "cap reached",
	[REPEAT_STOP_FAILED] = "failed",
	[REPEAT_STOP_INTERRUPTED] = "interrupted",
	[REPEAT_STOP_NO_METRICS] = "no metrics",
};

const char *repeat_stop_name(enum repeat_stop s)
{
	return (size_t)s < sizeof(repeat_stop_names) / sizeof(repeat_stop_names[0])
		       ? repeat_stop_names[s] : "?";
}

int repeat_stop_parse(const char *name, enum repeat_stop *s)
{
	for (size_t i = 0; name && i < sizeof(repeat_stop_names) / sizeof(repeat_stop_names[0]); i++)
		if (strcmp(name, repeat_stop_names[i]) == 0) {
			*s = (enum repeat_stop)i;
			return 0;
		}
	return -1;
}

char *repeat_outcome_describe(const struct test_result *tr)
{
	const struct repeat_outcome *r = &tr->repeat;
	if (!r->is_auto)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "repeat auto: ");
	switch (r->stop) {
	case REPEAT_STOP_CONVERGED:
		strbuf_printf(&sb, "converged after %d run%s", tr->attempts,
			      tr->attempts == 1 ? "" : "s");
		break;
	case REPEAT_STOP_CAP:
		strbuf_printf(&sb, "not converged, cap of %d runs reached", r->max_runs);
		break;
	case REPEAT_STOP_FAILED:
	case REPEAT_STOP_INTERRUPTED:
		strbuf_printf(&sb, "not converged, stopped after %d run%s (%s)", tr->attempts,
			      tr->attempts == 1 ? "" : "s", repeat_stop_name(r->stop));
		break;
	case REPEAT_STOP_NO_METRICS:
	case REPEAT_STOP_NONE:
		strbuf_printf(&sb, "%d runs, no metrics to measure a spread on", tr->attempts);
		break;
	}
	if (r->spread_metric && !isnan(r->spread_pct)) {
		if (r->floored)
			strbuf_printf(&sb, " (%s near zero, within its absolute floor)",
				      r->spread_metric);
		else
			strbuf_printf(&sb, " (%s spread %.1f%% %s %g%%)", r->spread_metric,
				      r->spread_pct, r->converged ? "<=" : ">", r->target_pct);
	}
	return strbuf_detach(&sb);
}

void test_result_add_push(struct test_result *tr, const char *file, uint64_t bytes,
			  double seconds)
{
	tr->pushes = xrealloc(tr->pushes, (tr->n_pushes + 1) * sizeof(*tr->pushes));
	tr->pushes[tr->n_pushes++] = (struct push_record){ xstrdup(file), bytes, seconds };
}

static const char *const change_names[] = {
	[METRIC_CHANGE_SAME] = "same", [METRIC_CHANGE_NOISE] = "noise",
	[METRIC_CHANGE_BETTER] = "better", [METRIC_CHANGE_WORSE] = "worse",
	[METRIC_CHANGE_REGRESSION] = "regression", [METRIC_CHANGE_NOT_JUDGED] = "not judged",
};

static const char *const baseline_kind_names[] = {
	[BASELINE_RUN] = "run", [BASELINE_HISTORY] = "history",
};

const char *baseline_kind_name(enum baseline_kind k)
{
	if (k <= BASELINE_NONE || k > BASELINE_HISTORY)
		return NULL;
	return baseline_kind_names[k];
}

int baseline_kind_parse(const char *name, enum baseline_kind *k)
{
	for (int i = BASELINE_RUN; i <= BASELINE_HISTORY; i++)
		if (name && strcmp(name, baseline_kind_names[i]) == 0) {
			*k = (enum baseline_kind)i;
			return 0;
		}
	return -1;
}

const char *metric_change_name(enum metric_change c)
{
	if (c <= METRIC_CHANGE_NONE || c > METRIC_CHANGE_NOT_JUDGED)
		return NULL;
	return change_names[c];
}

int metric_change_parse(const char *name, enum metric_change *c)
{
	for (int i = METRIC_CHANGE_SAME; i <= METRIC_CHANGE_NOT_JUDGED; i++)
		if (name && strcmp(name, change_names[i]) == 0) {
			*c = (enum metric_change)i;
			return 0;
		}
	return -1;
}

void test_result_add_infra_attempt(struct test_result *tr, enum result_status status,
				   const char *message, int64_t start_wall_us, double duration_s,
				   bool power_cycled, const char *log_dir)
{
	tr->infra_attempts = xrealloc(tr->infra_attempts,
				      (tr->n_infra_attempts + 1) * sizeof(*tr->infra_attempts));
	struct infra_attempt *a = &tr->infra_attempts[tr->n_infra_attempts++];
	a->status = status;
	a->message = xstrdup(message);
	a->start_wall_us = start_wall_us;
	a->duration_s = duration_s;
	a->power_cycled = power_cycled;
	a->log_dir = xstrdup(log_dir);
}

void run_result_add_offline(struct run_result *run, const char *board, const char *reason,
			    int64_t since_wall_us)
{
	for (size_t i = 0; i < run->n_offline; i++)
		if (strcmp(run->offline[i].board, board) == 0)
			return;
	run->offline = xrealloc(run->offline, (run->n_offline + 1) * sizeof(*run->offline));
	struct offline_board *o = &run->offline[run->n_offline++];
	o->board = xstrdup(board);
	o->reason = xstrdup(reason);
	o->since_wall_us = since_wall_us;
}

void test_result_clear_outcome(struct test_result *tr)
{
	struct test_result keep = {
		.board = tr->board, .test = tr->test, .log_dir = tr->log_dir,
		.controller = tr->controller, .retried = tr->retried, .orphans = tr->orphans,
		.infra_attempts = tr->infra_attempts, .n_infra_attempts = tr->n_infra_attempts,
		.start_wall_us = tr->start_wall_us,
	};
	tr->board = tr->test = tr->log_dir = tr->controller = tr->orphans = NULL;
	tr->infra_attempts = NULL;
	tr->n_infra_attempts = 0;
	test_result_release(tr);
	*tr = keep;
	tr->exit_code = -1;
	tr->status = STATUS_PASS;
}
