#include "compare/compare.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <math.h>
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
	free(v);
}

static void side_from_phase(const struct phase_result *p, struct compare_side *s)
{
	memset(s, 0, sizeof(*s));
	if (!p || !p->reached)
		return;
	s->present = true;
	s->median = s->min = s->max = p->duration_s;
	s->n = 1;
}

/* B's side in A's unit (a scaling: MiB/s <-> Mbit/s, ms <-> s); 0 or -1. */
static int side_convert(struct compare_side *s, const char *from, const char *to)
{
	double *v[] = { &s->median, &s->min, &s->max, &s->stddev };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (units_convert(*v[i], from, to, v[i]) < 0)
			return -1;
	return 0;
}

static bool unit_is_rate(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;
	return n > 2 && strcmp(unit + n - 2, "/s") == 0;
}

static bool unit_is_duration(const char *unit)
{
	static const char *const units[] = { "s", "ms", "us", "\xc2\xb5s", "ns", "min", "h", "sec" };
	if (!unit)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i]) == 0)
			return true;
	return false;
}

static bool unit_is_speed(const char *unit, bool higher_is_better)
{
	return (unit_is_rate(unit) && higher_is_better) ||
	       (unit_is_duration(unit) && !higher_is_better);
}

static bool within_noise(const struct compare_side *a, const struct compare_side *b)
{
	if (a->n < 2 && b->n < 2)
		return false;
	double band = 2.0 * sqrt(a->stddev * a->stddev + b->stddev * b->stddev);
	if (fabs(b->median - a->median) <= band)
		return true;
	return a->min <= b->max && b->min <= a->max;
}

/* Fills verdict, change_pct and words of a row whose both sides are present. */
static void classify(struct compare_row *row, double threshold_pct)
{
	double a = row->a.median, b = row->b.median, delta = b - a;
	row->change_pct = a != 0.0 ? delta / fabs(a) * 100.0 : NAN;
	if (delta == 0.0) {
		row->change_pct = 0.0;
		row->verdict = COMPARE_SAME;
		row->words = xstrdup("no change");
		return;
	}
	bool improved = row->higher_is_better ? delta > 0 : delta < 0;
	struct strbuf w = STRBUF_INIT;
	if (!isnan(row->change_pct))
		strbuf_printf(&w, "%.1f%% ", fabs(row->change_pct));
	if (unit_is_speed(row->unit, row->higher_is_better))
		strbuf_puts(&w, improved ? "faster" : "slower");
	else
		strbuf_printf(&w, "%s (%s)", delta > 0 ? "higher" : "lower",
			      improved ? "better" : "worse");
	if (within_noise(&row->a, &row->b)) {
		row->verdict = COMPARE_NOISE;
		strbuf_puts(&w, ", within noise");
	} else if (improved) {
		row->verdict = COMPARE_BETTER;
	} else if (isnan(row->change_pct) || fabs(row->change_pct) > threshold_pct) {
		row->verdict = COMPARE_REGRESSION;
	} else {
		row->verdict = COMPARE_WORSE;
	}
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
	row->higher_is_better = any->higher_is_better;
	if (ma)
		side_from_metric(ma, &row->a);
	if (mb)
		side_from_metric(mb, &row->b);
	if (!ma || !mb) {
		finish_one_sided(row, ma != NULL, "metric");
		return;
	}
	const char *ua = ma->unit ? ma->unit : "", *ub = mb->unit ? mb->unit : "";
	if (strcmp(ua, ub) != 0 && side_convert(&row->b, ub, ua) < 0) {
		row->verdict = COMPARE_CHANGED;
		row->words = xasprintf("unit changed (%s -> %s)", *ua ? ua : "none", *ub ? ub : "none");
		return;
	}
	classify(row, cr->threshold_pct);
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
		classify(row, cr->threshold_pct);
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

static void add_status_row(struct compare_result *cr, const struct test_result *ta,
			   const struct test_result *tb)
{
	struct compare_row *row = add_row(cr, COMPARE_KIND_STATUS, ta->board, ta->test, NULL);
	row->unit = xstrdup("");
	row->status_a = ta->status;
	row->status_b = tb->status;
	if (ta->status == STATUS_PASS && tb->status == STATUS_FAIL)
		row->verdict = COMPARE_REGRESSION;
	else if (tb->status == STATUS_PASS && (ta->status == STATUS_FAIL || ta->status == STATUS_ERROR))
		row->verdict = COMPARE_BETTER;
	else
		row->verdict = COMPARE_CHANGED;
	row->words = xasprintf("%s -> %s", result_status_name(ta->status),
			       result_status_name(tb->status));
}

static void add_test_rows(struct compare_result *cr, const struct test_result *ta,
			  const struct test_result *tb)
{
	if (ta && tb && ta->status != tb->status)
		add_status_row(cr, ta, tb);
	for (size_t i = 0; ta && i < ta->n_metrics; i++)
		add_metric_row(cr, ta, tb, &ta->metrics[i], find_metric(tb, ta->metrics[i].name));
	for (size_t i = 0; tb && i < tb->n_metrics; i++)
		if (!find_metric(ta, tb->metrics[i].name))
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
		}
	}
}

size_t compare_runs(const struct run_result *a, const struct run_result *b,
		    double threshold_pct, struct compare_result *out)
{
	memset(out, 0, sizeof(*out));
	out->threshold_pct = threshold_pct;
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
		free(row->words);
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
	}
	return "?";
}

bool compare_row_is_change(const struct compare_row *row)
{
	return row->verdict != COMPARE_SAME && row->verdict != COMPARE_NOISE;
}

void compare_format_number(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf"));
		return;
	}
	double mag = fabs(v);
	int decimals = 0;
	if (mag > 0 && mag < 1000) {
		decimals = 3 - (int)floor(log10(mag));
		if (decimals > 9)
			decimals = 9;
	}
	snprintf(buf, len, "%.*f", decimals, v);
	if (strchr(buf, '.')) {
		char *end = buf + strlen(buf) - 1;
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
}

/* The A or B cell of a row. */
static char *side_cell(const struct compare_row *row, bool side_a)
{
	const struct compare_side *s = side_a ? &row->a : &row->b;
	char num[32];
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
	compare_format_number(s->median, num, sizeof(num));
	if (row->unit && *row->unit)
		return xasprintf("%s %s", num, row->unit);
	return xstrdup(num);
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
	case COMPARE_CHANGED: return "\033[36m";
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
		      "%zu unchanged, %zu status changed, %zu only in A, %zu only in B "
		      "(threshold %g%%)\n",
		      cr->n_regressions, cr->n_regressions == 1 ? "" : "s", cr->n_worse,
		      cr->n_better, cr->n_noise, cr->n_same, cr->n_changed, cr->n_only_a,
		      cr->n_only_b, cr->threshold_pct);

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
	return json_pack("{s:f, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o}",
			 "threshold_pct", cr->threshold_pct,
			 "counts",
			 "regression", (json_int_t)cr->n_regressions,
			 "worse", (json_int_t)cr->n_worse,
			 "better", (json_int_t)cr->n_better,
			 "noise", (json_int_t)cr->n_noise,
			 "same", (json_int_t)cr->n_same,
			 "changed", (json_int_t)cr->n_changed,
			 "only_a", (json_int_t)cr->n_only_a,
			 "only_b", (json_int_t)cr->n_only_b,
			 "rows", rows);
}

int compare_apply_baseline(struct run_result *run, const struct run_result *baseline,
			   double threshold_pct)
{
	int marked = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		struct test_result *tr = &run->results[i];
		if (tr->status != STATUS_PASS && tr->status != STATUS_FAIL)
			continue;
		const struct test_result *base = run_result_find(baseline, tr->board, tr->test);
		if (!base)
			continue;
		struct compare_result cr;
		memset(&cr, 0, sizeof(cr));
		cr.threshold_pct = threshold_pct;
		add_test_rows(&cr, base, tr);
		struct strbuf text = STRBUF_INIT;
		for (size_t r = 0; r < cr.n_rows; r++) {
			const struct compare_row *row = &cr.rows[r];
			if (row->verdict != COMPARE_REGRESSION || row->kind == COMPARE_KIND_STATUS)
				continue;
			char na[32], nb[32];
			compare_format_number(row->a.median, na, sizeof(na));
			compare_format_number(row->b.median, nb, sizeof(nb));
			strbuf_printf(&text, "%s%s%s %s than baseline (%s -> %s%s%s)",
				      text.len ? "; " : "",
				      row->kind == COMPARE_KIND_PHASE ? "phase " : "", row->name,
				      row->words, na, nb, *row->unit ? " " : "", row->unit);
		}
		compare_result_release(&cr);
		if (!text.len)
			continue;
		tr->regressed = true;
		free(tr->comparison);
		tr->comparison = strbuf_detach(&text);
		if (tr->status == STATUS_PASS)
			tr->status = STATUS_FAIL;
		marked++;
	}
	return marked;
}
