#include "compare/compare.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/valfmt.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* Statistics from the samples themselves, so a results.json that carries
 * samples but no summary still compares right. */
static void side_from_metric(const struct metric_result *m, struct compare_side *s)
{
	memset(s, 0, sizeof(*s));
	s->present = true;
	if (m->n_samples == 0) {
		s->median = m->median;
		s->min = m->min;
		s->max = m->max;
		s->stddev = m->stddev;
		s->n = 1;
		s->samples = xmalloc(sizeof(*s->samples));
		s->samples[0] = m->median;
		return;
	}
	size_t n = m->n_samples;
	double *v = xmalloc(n * sizeof(*v));
	memcpy(v, m->samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double mean = sum / (double)n, sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
	s->samples = v;
}

static void side_from_phase(const struct phase_result *p, struct compare_side *s)
{
	memset(s, 0, sizeof(*s));
	if (!p || !p->reached)
		return;
	s->present = true;
	s->median = s->min = s->max = p->duration_s;
	s->n = 1;
	s->samples = xmalloc(sizeof(*s->samples));
	s->samples[0] = p->duration_s;
}

/* B's side in A's unit (a scaling: MiB/s <-> Mbit/s, ms <-> s, kB <-> KiB);
 * 0 or -1. */
static int side_convert(struct compare_side *s, const char *from, const char *to)
{
	double *v[] = { &s->median, &s->min, &s->max, &s->stddev };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (units_convert(*v[i], from, to, v[i]) < 0)
			return -1;
	for (size_t i = 0; i < s->n; i++)
		if (units_convert(s->samples[i], from, to, &s->samples[i]) < 0)
			return -1;
	return 0;
}

bool compare_unit_is_speed(const char *unit, bool higher_is_better)
{
	enum units_better d = units_better_of(unit, NULL);
	return (d == UNITS_BETTER_HIGHER && higher_is_better && units_is_rate(unit)) ||
	       (d == UNITS_BETTER_LOWER && !higher_is_better);
}

static enum compare_verdict verdict_of(enum judge_outcome o)
{
	switch (o) {
	case JUDGE_SAME: return COMPARE_SAME;
	case JUDGE_NOT_JUDGED: return COMPARE_NOT_JUDGED;
	case JUDGE_NOISE: return COMPARE_NOISE;
	case JUDGE_BETTER: return COMPARE_BETTER;
	case JUDGE_WORSE: return COMPARE_WORSE;
	case JUDGE_REGRESSION: return COMPARE_REGRESSION;
	}
	return COMPARE_NOISE;
}

/* Why a row is not judged, for its words. */
static const char *single_side(const struct compare_row *row)
{
	if (row->a.n < 2 && row->b.n < 2)
		return "one sample a side";
	return row->a.n < 2 ? "one sample in A" : "one sample in B";
}

void compare_put_pct(struct strbuf *sb, double pct, bool beyond, double threshold_pct)
{
	valfmt_change_pct(sb, pct, beyond, threshold_pct);
}

/* Fills verdict, change_pct, judged and words of a row whose both sides
 * are present. */
static void classify(struct compare_row *row, const struct judge_rule *rule)
{
	judge_samples(row->a.samples, row->a.n, row->b.samples, row->b.n, row->higher_is_better,
		      rule, &row->judged);
	row->change_pct = row->judged.change_pct;
	row->verdict = verdict_of(row->judged.outcome);
	struct strbuf w = STRBUF_INIT;
	if (row->verdict == COMPARE_SAME) {
		strbuf_puts(&w, "no change");
	} else {
		double delta = row->b.median - row->a.median;
		bool improved = !row->judged.worse;
		if (!isnan(row->change_pct)) {
			compare_put_pct(&w, row->change_pct, row->judged.beyond_threshold,
					rule->threshold_pct);
			strbuf_putc(&w, ' ');
		}
		if (compare_unit_is_speed(row->unit, row->higher_is_better))
			strbuf_puts(&w, improved ? "faster" : "slower");
		else
			strbuf_printf(&w, "%s (%s)", delta > 0 ? "higher" : "lower",
				      improved ? "better" : "worse");
		if (row->verdict == COMPARE_NOISE)
			strbuf_puts(&w, ", within noise");
		else if (row->verdict == COMPARE_NOT_JUDGED)
			strbuf_printf(&w, ", not judged (%s)", single_side(row));
	}
	if (row->unit_b)
		strbuf_printf(&w, " (B in %s, converted)", row->unit_b);
	row->words = strbuf_detach(&w);
}

static struct compare_row *add_row(struct compare_result *cr, enum compare_kind kind,
				   const char *board, const char *test, const char *name)
{
	if (cr->n_rows == cr->cap_rows) {
		cr->cap_rows = cr->cap_rows ? cr->cap_rows * 2 : 16;
		cr->rows = xrealloc(cr->rows, cr->cap_rows * sizeof(*cr->rows));
	}
	struct compare_row *row = &cr->rows[cr->n_rows++];
	memset(row, 0, sizeof(*row));
	row->kind = kind;
	row->board = xstrdup(board ? board : "");
	row->test = xstrdup(test ? test : "");
	row->name = xstrdup(name);
	row->change_pct = NAN;
	return row;
}

static void finish_one_sided(struct compare_row *row, bool in_a, const char *what)
{
	row->verdict = in_a ? COMPARE_ONLY_A : COMPARE_ONLY_B;
	row->words = xasprintf("%s %s", what, in_a ? "only in A" : "only in B");
}

static void add_metric_row(struct compare_result *cr, const struct test_result *ta,
			   const struct test_result *tb, const struct metric_result *ma,
			   const struct metric_result *mb)
{
	const struct metric_result *any = ma ? ma : mb;
	struct compare_row *row = add_row(cr, COMPARE_KIND_METRIC, ta ? ta->board : tb->board,
					  ta ? ta->test : tb->test, any->name);
	row->unit = xstrdup(any->unit ? any->unit : "");
	row->higher_is_better = (mb ? mb : ma)->higher_is_better;
	if (ma)
		side_from_metric(ma, &row->a);
	if (mb)
		side_from_metric(mb, &row->b);
	if (!ma || !mb) {
		finish_one_sided(row, ma != NULL, "metric");
		return;
	}
	const char *ua = ma->unit ? ma->unit : "", *ub = mb->unit ? mb->unit : "";
	if (strcmp(ua, ub) != 0) {
		row->unit_b = xstrdup(ub);
		if (side_convert(&row->b, ub, ua) < 0) {
			row->verdict = COMPARE_UNIT_CHANGED;
			row->words = xasprintf("unit changed (%s -> %s)", *ua ? ua : "none",
					       *ub ? ub : "none");
			return;
		}
	}
	/* the metric's own threshold (scenario `threshold:`), the newer run's first */
	struct judge_rule rule = cr->rule;
	if (mb->has_threshold)
		rule.threshold_pct = mb->threshold_pct;
	else if (ma->has_threshold)
		rule.threshold_pct = ma->threshold_pct;
	classify(row, &rule);
}

static const struct phase_result *find_phase(const struct test_result *tr, const char *name)
{
	for (size_t i = 0; tr && i < tr->n_phases; i++)
		if (tr->phases[i].name && strcmp(tr->phases[i].name, name) == 0)
			return &tr->phases[i];
	return NULL;
}

static const struct metric_result *find_metric(const struct test_result *tr, const char *name)
{
	for (size_t i = 0; tr && i < tr->n_metrics; i++)
		if (tr->metrics[i].name && strcmp(tr->metrics[i].name, name) == 0)
			return &tr->metrics[i];
	return NULL;
}

/* orch's own figures (ssh.push of older runs, link.*): not the board's,
 * never compared (result.h). */
static bool is_push_metric(const struct metric_result *m)
{
	return metric_is_orch_own(m->name);
}

static void add_phase_row(struct compare_result *cr, const struct test_result *ta,
			  const struct test_result *tb, const char *name)
{
	const struct phase_result *pa = find_phase(ta, name), *pb = find_phase(tb, name);
	struct compare_row *row = add_row(cr, COMPARE_KIND_PHASE, ta ? ta->board : tb->board,
					  ta ? ta->test : tb->test, name);
	row->unit = xstrdup("s");
	row->higher_is_better = false;
	side_from_phase(pa, &row->a);
	side_from_phase(pb, &row->b);
	if (row->a.present && row->b.present) {
		classify(row, &cr->rule);
	} else if (row->a.present || row->b.present) {
		row->verdict = row->a.present ? COMPARE_ONLY_A : COMPARE_ONLY_B;
		if (row->a.present)
			row->words = xstrdup(pb ? "not reached in B" : "phase only in A");
		else
			row->words = xstrdup(pa ? "not reached in A" : "phase only in B");
	} else {
		row->verdict = COMPARE_SAME;
		row->words = xstrdup("not reached in A or B");
	}
}

/* The test's own status: a pass that only its baseline turned into a fail
 * (regressed, no message of its own) is a pass here, so that comparing
 * such a run does not count its metric regressions twice. */
static enum result_status own_status(const struct test_result *tr)
{
	if (tr->status == STATUS_FAIL && tr->regressed && !tr->message)
		return STATUS_PASS;
	return tr->status;
}

static void add_status_row(struct compare_result *cr, const struct test_result *ta,
			   const struct test_result *tb)
{
	struct compare_row *row = add_row(cr, COMPARE_KIND_STATUS, ta->board, ta->test, NULL);
	row->unit = xstrdup("");
	row->status_a = own_status(ta);
	row->status_b = own_status(tb);
	if (row->status_a == STATUS_PASS && row->status_b == STATUS_FAIL)
		row->verdict = COMPARE_REGRESSION;
	else if (row->status_b == STATUS_PASS &&
		 (row->status_a == STATUS_FAIL || row->status_a == STATUS_ERROR))
		row->verdict = COMPARE_BETTER;
	else
		row->verdict = COMPARE_CHANGED;
	row->words = xasprintf("%s -> %s", result_status_name(row->status_a),
			       result_status_name(row->status_b));
}

static void add_test_rows(struct compare_result *cr, const struct test_result *ta,
			  const struct test_result *tb)
{
	if (ta && tb && own_status(ta) != own_status(tb))
		add_status_row(cr, ta, tb);
	for (size_t i = 0; ta && i < ta->n_metrics; i++)
		if (!is_push_metric(&ta->metrics[i]))
			add_metric_row(cr, ta, tb, &ta->metrics[i],
				       find_metric(tb, ta->metrics[i].name));
	for (size_t i = 0; tb && i < tb->n_metrics; i++)
		if (!is_push_metric(&tb->metrics[i]) && !find_metric(ta, tb->metrics[i].name))
			add_metric_row(cr, ta, tb, NULL, &tb->metrics[i]);
	for (size_t i = 0; ta && i < ta->n_phases; i++)
		if (ta->phases[i].name)
			add_phase_row(cr, ta, tb, ta->phases[i].name);
	for (size_t i = 0; tb && i < tb->n_phases; i++)
		if (tb->phases[i].name && !find_phase(ta, tb->phases[i].name))
			add_phase_row(cr, ta, tb, tb->phases[i].name);
}

static void add_one_sided_test(struct compare_result *cr, const struct test_result *tr, bool in_a)
{
	struct compare_row *row = add_row(cr, COMPARE_KIND_TEST, tr->board, tr->test, NULL);
	row->unit = xstrdup("");
	row->status_a = row->status_b = tr->status;
	finish_one_sided(row, in_a, "test");
}

static void tally(struct compare_result *cr)
{
	for (size_t i = 0; i < cr->n_rows; i++) {
		switch (cr->rows[i].verdict) {
		case COMPARE_SAME: cr->n_same++; break;
		case COMPARE_NOISE: cr->n_noise++; break;
		case COMPARE_BETTER: cr->n_better++; break;
		case COMPARE_WORSE: cr->n_worse++; break;
		case COMPARE_REGRESSION: cr->n_regressions++; break;
		case COMPARE_CHANGED: cr->n_changed++; break;
		case COMPARE_ONLY_A: cr->n_only_a++; break;
		case COMPARE_ONLY_B: cr->n_only_b++; break;
		case COMPARE_NOT_JUDGED: cr->n_not_judged++; break;
		case COMPARE_UNIT_CHANGED: cr->n_unit_changed++; break;
		}
	}
}

static void result_init(struct compare_result *cr, const struct judge_rule *rule)
{
	memset(cr, 0, sizeof(*cr));
	cr->rule = *rule;
	if (!(cr->rule.alpha > 0 && cr->rule.alpha < 1))
		cr->rule.alpha = JUDGE_DEFAULT_ALPHA;
	cr->threshold_pct = rule->threshold_pct;
}

/* A row and where it was made, so that sorting keeps each board x test's
 * rows (status, metrics, phases) in the order they were added. */
struct ranked_row {
	struct compare_row row;
	size_t i;
};

static int ranked_row_cmp(const void *pa, const void *pb)
{
	const struct ranked_row *a = pa, *b = pb;
	int c = nodeset_cmp(a->row.board, b->row.board);
	if (!c)
		c = nodeset_cmp(a->row.test, b->row.test);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The rows as people read them: boards, then tests, in natural order (b2
 * before b10), whichever run had them. */
static void sort_rows(struct compare_result *cr)
{
	struct ranked_row *r = xcalloc(cr->n_rows + 1, sizeof(*r));
	for (size_t i = 0; i < cr->n_rows; i++)
		r[i] = (struct ranked_row){ cr->rows[i], i };
	qsort(r, cr->n_rows, sizeof(*r), ranked_row_cmp);
	for (size_t i = 0; i < cr->n_rows; i++)
		cr->rows[i] = r[i].row;
	free(r);
}

size_t compare_runs(const struct run_result *a, const struct run_result *b,
		    const struct judge_rule *rule, struct compare_result *out)
{
	result_init(out, rule);
	for (size_t i = 0; i < a->n_results; i++) {
		const struct test_result *ta = &a->results[i];
		const struct test_result *tb = run_result_find(b, ta->board, ta->test);
		if (tb)
			add_test_rows(out, ta, tb);
		else
			add_one_sided_test(out, ta, true);
	}
	for (size_t i = 0; i < b->n_results; i++) {
		const struct test_result *tb = &b->results[i];
		if (!run_result_find(a, tb->board, tb->test))
			add_one_sided_test(out, tb, false);
	}
	sort_rows(out);
	tally(out);
	return out->n_regressions;
}

void compare_result_release(struct compare_result *cr)
{
	if (!cr)
		return;
	for (size_t i = 0; i < cr->n_rows; i++) {
		struct compare_row *row = &cr->rows[i];
		free(row->board);
		free(row->test);
		free(row->name);
		free(row->unit);
		free(row->unit_b);
		free(row->words);
		free(row->a.samples);
		free(row->b.samples);
	}
	free(cr->rows);
	memset(cr, 0, sizeof(*cr));
}

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME: return "same";
	case COMPARE_NOISE: return "noise";
	case COMPARE_BETTER: return "better";
	case COMPARE_WORSE: return "worse";
	case COMPARE_REGRESSION: return "regression";
	case COMPARE_CHANGED: return "changed";
	case COMPARE_ONLY_A: return "only in A";
	case COMPARE_ONLY_B: return "only in B";
	case COMPARE_NOT_JUDGED: return "not judged";
	case COMPARE_UNIT_CHANGED: return "unit changed";
	}
	return "?";
}

bool compare_row_is_change(const struct compare_row *row)
{
	return row->verdict != COMPARE_SAME && row->verdict != COMPARE_NOISE;
}

/* The A or B cell of a row. */
static char *side_cell(const struct compare_row *row, bool side_a)
{
	const struct compare_side *s = side_a ? &row->a : &row->b;
	switch (row->kind) {
	case COMPARE_KIND_STATUS:
		return xstrdup(result_status_name(side_a ? row->status_a : row->status_b));
	case COMPARE_KIND_TEST:
		if ((row->verdict == COMPARE_ONLY_A) == side_a)
			return xstrdup(result_status_name(row->status_a));
		return xstrdup("-");
	case COMPARE_KIND_METRIC:
	case COMPARE_KIND_PHASE:
		break;
	}
	if (!s->present)
		return xstrdup("-");
	/* B in its own unit when it does not convert into A's */
	const char *unit = !side_a && row->verdict == COMPARE_UNIT_CHANGED && row->unit_b
		? row->unit_b : row->unit;
	return valfmt_str(s->median, unit);
}

static char *name_cell(const struct compare_row *row)
{
	switch (row->kind) {
	case COMPARE_KIND_TEST: return xstrdup("(test)");
	case COMPARE_KIND_STATUS: return xstrdup("(status)");
	case COMPARE_KIND_PHASE: return xasprintf("phase:%s", row->name);
	case COMPARE_KIND_METRIC: break;
	}
	return xstrdup(row->name);
}

enum { COL_BOARD, COL_TEST, COL_NAME, COL_A, COL_B, COL_CHANGE, COL_VERDICT, N_COLS };

static const char *verdict_color(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_REGRESSION: return "\033[1;31m";
	case COMPARE_WORSE: return "\033[33m";
	case COMPARE_BETTER: return "\033[32m";
	case COMPARE_ONLY_A:
	case COMPARE_ONLY_B:
	case COMPARE_UNIT_CHANGED:
	case COMPARE_CHANGED: return "\033[36m";
	case COMPARE_NOT_JUDGED: return "\033[2m";
	case COMPARE_SAME:
	case COMPARE_NOISE: break;
	}
	return NULL;
}

char *compare_format_table(const struct compare_result *cr, bool only_changes, bool color)
{
	static const char *const heads[N_COLS] = { "BOARD", "TEST", "METRIC", "A", "B",
						   "CHANGE", "VERDICT" };
	size_t shown = 0;
	char *(*cells)[N_COLS] = xcalloc(cr->n_rows ? cr->n_rows : 1, sizeof(*cells));
	size_t width[N_COLS];
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(heads[c]);
	const struct compare_row **rows = xcalloc(cr->n_rows ? cr->n_rows : 1, sizeof(*rows));
	for (size_t i = 0; i < cr->n_rows; i++) {
		const struct compare_row *row = &cr->rows[i];
		if (only_changes && !compare_row_is_change(row))
			continue;
		char **cell = cells[shown];
		rows[shown++] = row;
		cell[COL_BOARD] = xstrdup(row->board);
		cell[COL_TEST] = xstrdup(row->test);
		cell[COL_NAME] = name_cell(row);
		cell[COL_A] = side_cell(row, true);
		cell[COL_B] = side_cell(row, false);
		cell[COL_CHANGE] = xstrdup(row->words ? row->words : "");
		cell[COL_VERDICT] = xstrdup(row->verdict == COMPARE_SAME ? "" :
					    compare_verdict_name(row->verdict));
		for (int c = 0; c < N_COLS; c++)
			if (strlen(cell[c]) > width[c])
				width[c] = strlen(cell[c]);
	}

	struct strbuf sb = STRBUF_INIT;
	if (shown) {
		for (int c = 0; c < N_COLS - 1; c++)
			strbuf_printf(&sb, "%-*s  ", (int)width[c], heads[c]);
		strbuf_printf(&sb, "%s\n", heads[N_COLS - 1]);
		for (size_t r = 0; r < shown; r++) {
			for (int c = 0; c < N_COLS - 1; c++) {
				bool right = c == COL_A || c == COL_B;
				strbuf_printf(&sb, right ? "%*s  " : "%-*s  ", (int)width[c], cells[r][c]);
			}
			const char *col = color ? verdict_color(rows[r]->verdict) : NULL;
			if (*cells[r][COL_VERDICT])
				strbuf_printf(&sb, "%s%s%s", col ? col : "", cells[r][COL_VERDICT],
					      col ? "\033[0m" : "");
			while (sb.len && sb.buf[sb.len - 1] == ' ')
				sb.buf[--sb.len] = '\0';
			strbuf_putc(&sb, '\n');
		}
	} else {
		strbuf_puts(&sb, only_changes ? "no changes\n" : "nothing to compare\n");
	}
	strbuf_printf(&sb, "%zu regression%s, %zu worse, %zu better, %zu within noise, "
		      "%zu unchanged, %zu not judged, %zu status changed, %zu unit changed, "
		      "%zu only in A, %zu only in B (threshold %g%%, alpha %g%%)\n",
		      cr->n_regressions, cr->n_regressions == 1 ? "" : "s", cr->n_worse,
		      cr->n_better, cr->n_noise, cr->n_same, cr->n_not_judged, cr->n_changed,
		      cr->n_unit_changed, cr->n_only_a, cr->n_only_b, cr->threshold_pct,
		      cr->rule.alpha * 100.0);
	if (cr->n_not_judged)
		strbuf_printf(&sb, "%zu not judged: one sample on a side gives no spread to "
			      "judge a change against (repeat the test, or --judge-single)\n",
			      cr->n_not_judged);

	for (size_t r = 0; r < shown; r++)
		for (int c = 0; c < N_COLS; c++)
			free(cells[r][c]);
	free(cells);
	free(rows);
	return strbuf_detach(&sb);
}

static json_t *json_number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_to_json(const struct compare_side *s)
{
	if (!s->present)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:I}",
			 "median", json_number_or_null(s->median),
			 "min", json_number_or_null(s->min),
			 "max", json_number_or_null(s->max),
			 "stddev", json_number_or_null(s->stddev),
			 "n", (json_int_t)s->n);
}

/* The evidence behind a row's verdict (docs/compare.md). */
static json_t *judgement_to_json(const struct judgement *j)
{
	bool tested = j->method == JUDGE_METHOD_WELCH || j->method == JUDGE_METHOD_PREDICTION;
	json_t *o = json_pack("{s:b, s:s, s:o, s:b, s:b}",
			      "judged", j->outcome != JUDGE_NOT_JUDGED && j->outcome != JUDGE_SAME,
			      "method", judge_method_name(j->method),
			      "p", json_number_or_null(j->p),
			      "worse", j->worse, "beyond_threshold", j->beyond_threshold);
	if (tested) {
		json_object_set_new(o, "ci", json_pack("{s:s, s:f, s:o, s:o}",
			"of", j->log_scale ? "ratio" : "difference", "level", 1.0 - j->alpha,
			"low", json_number_or_null(j->ci_lo), "high", json_number_or_null(j->ci_hi)));
		json_object_set_new(o, "outliers_dropped", json_pack("{s:I, s:I}",
			"a", (json_int_t)j->dropped_a, "b", (json_int_t)j->dropped_b));
	}
	return o;
}

static const char *kind_name(enum compare_kind k)
{
	switch (k) {
	case COMPARE_KIND_TEST: return "test";
	case COMPARE_KIND_STATUS: return "status";
	case COMPARE_KIND_METRIC: return "metric";
	case COMPARE_KIND_PHASE: return "phase";
	}
	return "?";
}

json_t *compare_to_json(const struct compare_result *cr, bool only_changes)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < cr->n_rows; i++) {
		const struct compare_row *row = &cr->rows[i];
		if (only_changes && !compare_row_is_change(row))
			continue;
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b}",
				      "board", row->board, "test", row->test,
				      "kind", kind_name(row->kind),
				      "verdict", compare_verdict_name(row->verdict),
				      "regression", row->verdict == COMPARE_REGRESSION);
		json_object_set_new(o, "name", row->name ? json_string(row->name) : json_null());
		json_object_set_new(o, "words", json_string(row->words ? row->words : ""));
		if (row->kind == COMPARE_KIND_METRIC || row->kind == COMPARE_KIND_PHASE) {
			json_object_set_new(o, "unit", json_string(row->unit ? row->unit : ""));
			json_object_set_new(o, "better", json_string(row->higher_is_better ?
								     "higher" : "lower"));
			json_object_set_new(o, "a", side_to_json(&row->a));
			json_object_set_new(o, "b", side_to_json(&row->b));
			json_object_set_new(o, "change_pct", json_number_or_null(row->change_pct));
			if (row->unit_b)
				json_object_set_new(o, "unit_b", json_string(row->unit_b));
			if (row->a.present && row->b.present)
				json_object_set_new(o, "judgement", judgement_to_json(&row->judged));
		} else if (row->kind == COMPARE_KIND_STATUS) {
			json_object_set_new(o, "a", json_string(result_status_name(row->status_a)));
			json_object_set_new(o, "b", json_string(result_status_name(row->status_b)));
		} else {
			bool in_a = row->verdict == COMPARE_ONLY_A;
			json_t *st = json_string(result_status_name(row->status_a));
			json_object_set_new(o, "a", in_a ? st : json_null());
			json_object_set_new(o, "b", in_a ? json_null() : st);
		}
		json_array_append_new(rows, o);
	}
	json_t *counts = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				   "regression", (json_int_t)cr->n_regressions,
				   "worse", (json_int_t)cr->n_worse,
				   "better", (json_int_t)cr->n_better,
				   "noise", (json_int_t)cr->n_noise,
				   "same", (json_int_t)cr->n_same,
				   "changed", (json_int_t)cr->n_changed,
				   "only_a", (json_int_t)cr->n_only_a,
				   "only_b", (json_int_t)cr->n_only_b,
				   "not_judged", (json_int_t)cr->n_not_judged,
				   "unit_changed", (json_int_t)cr->n_unit_changed);
	return json_pack("{s:f, s:f, s:b, s:o, s:o}",
			 "threshold_pct", cr->threshold_pct,
			 "alpha", cr->rule.alpha,
			 "judge_single", cr->rule.judge_single,
			 "counts", counts,
			 "rows", rows);
}

/* "mem.memcpy 12.0% slower than baseline (25.6 -> 22.5 MiB/s)" */
static void regression_text(struct strbuf *text, const struct compare_row *row)
{
	strbuf_printf(text, "%s%s%s %s than baseline (", text->len ? "; " : "",
		      row->kind == COMPARE_KIND_PHASE ? "phase " : "", row->name, row->words);
	valfmt_pair(text, row->a.median, row->b.median, row->unit);
	strbuf_putc(text, ')');
}

/* The row's verdict on the run's own metric, for reports to colour by. */
static void mark_metric_change(struct test_result *tr, const struct compare_row *row)
{
	static const enum metric_change of[] = {
		[COMPARE_SAME] = METRIC_CHANGE_SAME, [COMPARE_NOISE] = METRIC_CHANGE_NOISE,
		[COMPARE_BETTER] = METRIC_CHANGE_BETTER, [COMPARE_WORSE] = METRIC_CHANGE_WORSE,
		[COMPARE_REGRESSION] = METRIC_CHANGE_REGRESSION,
		[COMPARE_NOT_JUDGED] = METRIC_CHANGE_NOT_JUDGED,
	};
	if (row->kind != COMPARE_KIND_METRIC || !row->a.present || !row->b.present ||
	    (size_t)row->verdict >= sizeof(of) / sizeof(of[0]) || !of[row->verdict])
		return;
	for (size_t m = 0; m < tr->n_metrics; m++)
		if (strcmp(tr->metrics[m].name, row->name) == 0) {
			struct metric_result *mr = &tr->metrics[m];
			mr->change = of[row->verdict];
			mr->change_pct = row->change_pct;
			compare_set_verdict(&mr->verdict, &row->judged, row->unit, mr->unit);
		}
}

void compare_set_verdict(struct metric_verdict *v, const struct judgement *j,
			 const char *baseline_unit, const char *unit)
{
	metric_verdict_release(v);
	metric_verdict_init(v);
	v->baseline = j->median_a;
	if (baseline_unit && unit && strcmp(baseline_unit, unit) != 0 &&
	    units_convert(j->median_a, baseline_unit, unit, &v->baseline) < 0)
		v->baseline = NAN;
	v->threshold_pct = j->threshold_pct;
	v->p = j->p;
	v->n_baseline = j->n_a;
	if (j->method != JUDGE_METHOD_NONE)
		v->method = xstrdup(judge_method_name(j->method));
	if (j->outcome == JUDGE_NOT_JUDGED)
		v->reason = xstrdup(j->reason ? j->reason : "not judged");
}

int compare_apply_baseline(struct run_result *run, const struct run_result *baseline,
			   const struct judge_rule *rule)
{
	int marked = 0;
	run->baseline_kind = BASELINE_RUN;
	free(run->baseline_name);
	run->baseline_name = xstrdup(run_result_name(baseline));
	for (size_t i = 0; i < run->n_results; i++) {
		struct test_result *tr = &run->results[i];
		if (tr->status != STATUS_PASS && tr->status != STATUS_FAIL)
			continue;
		const struct test_result *base = run_result_find(baseline, tr->board, tr->test);
		if (!base)
			continue;
		struct compare_result cr;
		result_init(&cr, rule);
		add_test_rows(&cr, base, tr);
		struct strbuf text = STRBUF_INIT, unjudged = STRBUF_INIT;
		bool regressed = false;
		for (size_t r = 0; r < cr.n_rows; r++) {
			const struct compare_row *row = &cr.rows[r];
			if (row->kind == COMPARE_KIND_STATUS)
				continue;
			mark_metric_change(tr, row);
			if (row->verdict == COMPARE_REGRESSION) {
				regression_text(&text, row);
				regressed = true;
			} else if (row->verdict == COMPARE_NOT_JUDGED) {
				strbuf_printf(&unjudged, "%s%s%s", unjudged.len ? ", " : "",
					      row->kind == COMPARE_KIND_PHASE ? "phase " : "", row->name);
			}
		}
		compare_result_release(&cr);
		if (unjudged.len)
			strbuf_printf(&text, "%snot judged (one sample on a side, no spread to judge "
				      "against): %s", text.len ? "; " : "", strbuf_str(&unjudged));
		strbuf_release(&unjudged);
		if (!text.len)
			continue;
		free(tr->comparison);
		tr->comparison = strbuf_detach(&text);
		if (!regressed)
			continue;
		tr->regressed = true;
		if (tr->status == STATUS_PASS)
			tr->status = STATUS_FAIL;
		marked++;
	}
	return marked;
}
