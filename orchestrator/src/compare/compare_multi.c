/*
 * N runs side by side (compare/compare_multi.h): every later run judged
 * against the first by compare_runs(), the rows joined by board x test x
 * name, one column per run.
 */
#include "compare/compare_multi.h"

#include "util/deadline.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/valfmt.h"
#include "util/xmltext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const struct compare_row *row;
	size_t k;                 /* which comparison */
	size_t order;
};

static const char *nz(const char *s)
{
	return s ? s : "";
}

static int key_cmp(const struct compare_row *a, const struct compare_row *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int c = strcmp(nz(a->board), nz(b->board));
	if (!c)
		c = strcmp(nz(a->test), nz(b->test));
	if (!c)
		c = strcmp(nz(a->name), nz(b->name));
	return c;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = key_cmp(a->row, b->row);
	if (!c)
		c = a->order < b->order ? -1 : a->order > b->order;
	return c;
}

static int row_order_cmp(const void *x, const void *y)
{
	const struct compare_multi_row *a = x, *b = y;
	return a->order < b->order ? -1 : a->order > b->order;
}

void compare_multi_run(const struct run_result *runs, size_t n, const struct judge_rule *rule,
		       struct compare_multi *m)
{
	memset(m, 0, sizeof(*m));
	m->n_runs = n;
	m->runs = runs;
	m->crs = xcalloc(n, sizeof(*m->crs));
	size_t total = 0, longest = 0;
	for (size_t k = 1; k < n; k++) {
		m->n_regressions += compare_runs(&runs[0], &runs[k], rule, &m->crs[k - 1]);
		total += m->crs[k - 1].n_rows;
		if (m->crs[k - 1].n_rows > longest)
			longest = m->crs[k - 1].n_rows;
	}
	struct entry *e = xcalloc(total + 1, sizeof(*e));
	size_t ne = 0;
	for (size_t k = 0; k + 1 < n; k++)
		for (size_t i = 0; i < m->crs[k].n_rows; i++)
			e[ne++] = (struct entry){ &m->crs[k].rows[i], k, k * (longest + 1) + i };
	if (ne)
		qsort(e, ne, sizeof(*e), entry_cmp);
	m->rows = xcalloc(ne + 1, sizeof(*m->rows));
	for (size_t i = 0; i < ne;) {
		struct compare_multi_row *r = &m->rows[m->n_rows++];
		const struct compare_row *first = e[i].row;
		r->kind = first->kind;
		r->board = first->board;
		r->test = first->test;
		r->name = first->name;
		r->unit = first->unit;
		r->order = e[i].order;
		r->cells = xcalloc(n, sizeof(*r->cells));
		for (; i < ne && key_cmp(e[i].row, first) == 0; i++)
			r->cells[e[i].k] = e[i].row;
	}
	if (m->n_rows)
		qsort(m->rows, m->n_rows, sizeof(*m->rows), row_order_cmp);
	free(e);
}

void compare_multi_release(struct compare_multi *m)
{
	for (size_t i = 0; i < m->n_rows; i++)
		free(m->rows[i].cells);
	free(m->rows);
	for (size_t k = 0; k + 1 < m->n_runs; k++)
		compare_result_release(&m->crs[k]);
	free(m->crs);
	memset(m, 0, sizeof(*m));
}

static bool row_changed(const struct compare_multi *m, const struct compare_multi_row *r)
{
	for (size_t k = 0; k + 1 < m->n_runs; k++)
		if (r->cells[k] && compare_row_is_change(r->cells[k]))
			return true;
	return false;
}

static char *name_cell(const struct compare_multi_row *r)
{
	switch (r->kind) {
	case COMPARE_KIND_TEST: return xstrdup("(test)");
	case COMPARE_KIND_STATUS: return xstrdup("(status)");
	case COMPARE_KIND_PHASE: return xasprintf("phase:%s", nz(r->name));
	case COMPARE_KIND_METRIC: break;
	}
	return xstrdup(nz(r->name));
}

/* The first run's value of a row: from any comparison's A side. */
static char *first_cell(const struct compare_multi *m, const struct compare_multi_row *r)
{
	for (size_t k = 0; k + 1 < m->n_runs; k++) {
		const struct compare_row *c = r->cells[k];
		if (!c)
			continue;
		switch (c->kind) {
		case COMPARE_KIND_STATUS: return xstrdup(result_status_name(c->status_a));
		case COMPARE_KIND_TEST:
			return xstrdup(c->verdict == COMPARE_ONLY_A ? result_status_name(c->status_a) : "-");
		case COMPARE_KIND_METRIC:
		case COMPARE_KIND_PHASE:
			if (c->a.present)
				return valfmt_str(c->a.median, c->unit);
			break;
		}
	}
	return xstrdup("-");
}

/* Run k + 1's cell: its value, its change against the first and the verdict. */
static char *later_cell(const struct compare_row *c)
{
	if (!c)
		return xstrdup("-");
	switch (c->kind) {
	case COMPARE_KIND_STATUS:
		return xasprintf("%s (%s)", result_status_name(c->status_b),
				 compare_verdict_name(c->verdict));
	case COMPARE_KIND_TEST:
		return xstrdup(c->verdict == COMPARE_ONLY_B ? result_status_name(c->status_b) : "-");
	case COMPARE_KIND_METRIC:
	case COMPARE_KIND_PHASE:
		break;
	}
	if (!c->b.present)
		return xstrdup("-");
	struct strbuf sb = STRBUF_INIT;
	const char *unit = c->verdict == COMPARE_UNIT_CHANGED && c->unit_b ? c->unit_b : c->unit;
	valfmt_value(&sb, c->b.median, unit);
	if (c->a.present && isfinite(c->change_pct) && c->verdict != COMPARE_UNIT_CHANGED) {
		strbuf_putc(&sb, ' ');
		valfmt_pct(&sb, c->change_pct);
	}
	if (c->a.present)
		strbuf_printf(&sb, " %s", compare_verdict_name(c->verdict));
	return strbuf_detach(&sb);
}

static const char *verdict_color(const struct compare_row *c)
{
	if (!c)
		return NULL;
	switch (c->verdict) {
	case COMPARE_REGRESSION: return "\033[1;31m";
	case COMPARE_WORSE: return "\033[33m";
	case COMPARE_BETTER: return "\033[32m";
	case COMPARE_NOT_JUDGED: return "\033[2m";
	default: return NULL;
	}
}

/* The cells of the table, row-major, 3 + n_runs columns; row 0 the header;
 * *refs the comparison row each cell shows (NULL for the first four). */
static char **table_cells(const struct compare_multi *m, bool only_changes, size_t *rows,
			  const struct compare_row ***refs)
{
	size_t cols = 3 + m->n_runs;
	char **cells = xcalloc((m->n_rows + 1) * cols + 1, sizeof(*cells));
	*refs = xcalloc((m->n_rows + 1) * cols + 1, sizeof(**refs));
	cells[0] = xstrdup("BOARD");
	cells[1] = xstrdup("TEST");
	cells[2] = xstrdup("METRIC");
	for (size_t k = 0; k < m->n_runs; k++)
		cells[3 + k] = xstrdup(run_result_name(&m->runs[k]));
	size_t n = 1;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct compare_multi_row *r = &m->rows[i];
		if (only_changes && !row_changed(m, r))
			continue;
		char **row = &cells[n * cols];
		row[0] = xstrdup(nz(r->board));
		row[1] = xstrdup(nz(r->test));
		row[2] = name_cell(r);
		row[3] = first_cell(m, r);
		for (size_t k = 0; k + 1 < m->n_runs; k++) {
			row[4 + k] = later_cell(r->cells[k]);
			(*refs)[n * cols + 4 + k] = r->cells[k];
		}
		n++;
	}
	*rows = n;
	return cells;
}

char *compare_multi_table(const struct compare_multi *m, bool only_changes, bool color)
{
	size_t cols = 3 + m->n_runs, rows;
	const struct compare_row **refs;
	char **cells = table_cells(m, only_changes, &rows, &refs);
	size_t *width = xcalloc(cols, sizeof(*width));
	for (size_t i = 0; i < rows * cols; i++)
		if (utf8_width(cells[i]) > width[i % cols])
			width[i % cols] = utf8_width(cells[i]);
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = 1; k < m->n_runs; k++) {
		char *summary = compare_format_summary(&m->crs[k - 1], &m->runs[0], &m->runs[k],
						       only_changes);
		strbuf_puts(&sb, summary);
		free(summary);
	}
	for (size_t r = 0; r < rows; r++) {
		struct strbuf line = STRBUF_INIT;
		for (size_t c = 0; c < cols; c++) {
			const char *cell = cells[r * cols + c];
			const char *col = color ? verdict_color(refs[r * cols + c]) : NULL;
			if (c)
				strbuf_puts(&line, "  ");
			if (col)
				strbuf_puts(&line, col);
			strbuf_puts(&line, cell);
			if (col)
				strbuf_puts(&line, "\033[0m");
			if (c + 1 < cols)
				for (size_t w = utf8_width(cell); w < width[c]; w++)
					strbuf_putc(&line, ' ');
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		strbuf_printf(&sb, "%s\n", strbuf_str(&line));
		strbuf_release(&line);
	}
	strbuf_printf(&sb, "\n%zu run%s against %s: %zu regression%s\n", m->n_runs - 1,
		      m->n_runs == 2 ? "" : "s", run_result_name(&m->runs[0]), m->n_regressions,
		      m->n_regressions == 1 ? "" : "s");
	for (size_t i = 0; i < rows * cols; i++)
		free(cells[i]);
	free(cells);
	free(refs);
	free(width);
	return strbuf_detach(&sb);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *compare_multi_json(const struct compare_multi *m, const char *const *paths,
			   bool only_changes)
{
	json_t *runs = json_array();
	for (size_t k = 0; k < m->n_runs; k++) {
		const struct run_result *r = &m->runs[k];
		json_array_append_new(runs, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b}", "path",
						      paths[k], "name", run_result_name(r), "scenario",
						      r->scenario, "run_id", r->run_id, "label", r->label,
						      "interrupted", r->interrupted));
	}
	json_t *rows = json_array();
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct compare_multi_row *r = &m->rows[i];
		if (only_changes && !row_changed(m, r))
			continue;
		json_t *cells = json_array();
		char *first = first_cell(m, r);
		json_t *c0 = json_pack("{s:s}", "text", first);
		free(first);
		for (size_t k = 0; k + 1 < m->n_runs; k++)
			if (r->cells[k] && r->cells[k]->a.present &&
			    (r->kind == COMPARE_KIND_METRIC || r->kind == COMPARE_KIND_PHASE)) {
				json_object_set_new(c0, "median", json_real(r->cells[k]->a.median));
				break;
			}
		json_array_append_new(cells, c0);
		for (size_t k = 0; k + 1 < m->n_runs; k++) {
			const struct compare_row *c = r->cells[k];
			char *text = later_cell(c);
			json_t *o = json_pack("{s:s}", "text", text);
			free(text);
			if (c) {
				json_object_set_new(o, "verdict", json_string(compare_verdict_name(c->verdict)));
				json_object_set_new(o, "change_pct", num_or_null(c->change_pct));
				if (c->b.present && (c->kind == COMPARE_KIND_METRIC ||
						     c->kind == COMPARE_KIND_PHASE))
					json_object_set_new(o, "median", json_real(c->b.median));
			}
			json_array_append_new(cells, o);
		}
		static const char *const kinds[] = { "test", "status", "metric", "phase" };
		json_t *row = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:o}", "board", nz(r->board),
					"test", nz(r->test), "kind", kinds[r->kind], "name", r->name,
					"unit", r->unit, "cells", cells);
		json_array_append_new(rows, row);
	}
	json_t *cmps = json_array();
	for (size_t k = 1; k < m->n_runs; k++) {
		json_t *o = compare_to_json(&m->crs[k - 1], only_changes);
		char *summary = compare_format_summary(&m->crs[k - 1], &m->runs[0], &m->runs[k],
						       only_changes);
		json_object_set_new(o, "a", json_integer(0));
		json_object_set_new(o, "b", json_integer((json_int_t)k));
		json_object_set_new(o, "summary", json_string(summary));
		free(summary);
		json_array_append_new(cmps, o);
	}
	return json_pack("{s:o, s:I, s:o, s:o}", "runs", runs, "regressions",
			 (json_int_t)m->n_regressions, "rows", rows, "comparisons", cmps);
}

char *compare_multi_junit(const struct compare_multi *m)
{
	struct strbuf sb = STRBUF_INIT;
	size_t tests = 0;
	for (size_t k = 0; k + 1 < m->n_runs; k++)
		tests += m->crs[k].n_rows;
	strbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
	char *title = xasprintf("orch compare against %s", run_result_name(&m->runs[0]));
	xml_escape(&sb, title, true);
	free(title);
	strbuf_printf(&sb, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"0\">\n", tests,
		      m->n_regressions);
	for (size_t k = 1; k < m->n_runs; k++) {
		char stamp[32];
		clock_format_junit(m->runs[k].start_wall_us, stamp, sizeof(stamp));
		char *suffix = xasprintf(" (%s vs %s)", run_result_name(&m->runs[k]),
					 run_result_name(&m->runs[0]));
		compare_junit_suites(&sb, &m->crs[k - 1], suffix, stamp);
		free(suffix);
	}
	strbuf_puts(&sb, "</testsuites>\n");
	return strbuf_detach(&sb);
}

static const char *html_class(const struct compare_row *c)
{
	if (!c)
		return "";
	switch (c->verdict) {
	case COMPARE_REGRESSION: return "reg";
	case COMPARE_WORSE: return "worse";
	case COMPARE_BETTER: return "better";
	case COMPARE_NOT_JUDGED: return "nj";
	case COMPARE_NOISE:
	case COMPARE_SAME: return "same";
	default: return "other";
	}
}

static void html_text(struct strbuf *sb, const char *s)
{
	xml_escape(sb, s, false);
}

char *compare_multi_html(const struct compare_multi *m, const char *const *paths,
			 bool only_changes)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		    "<title>orch compare</title>\n<style>\n"
		    "body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1f2328}\n"
		    "table{border-collapse:collapse}th,td{padding:3px 8px;border-bottom:1px solid #d0d7de;"
		    "text-align:left;white-space:nowrap}th{position:sticky;top:0;background:#f6f8fa}\n"
		    "td.v{font-variant-numeric:tabular-nums}td.reg{background:#ffebe9;color:#a40e26;"
		    "font-weight:600}td.worse{color:#bc4c00}td.better{color:#1a7f37}td.nj{color:#6e7781}"
		    "td.other{color:#0969da}\npre{background:#f6f8fa;padding:8px;white-space:pre-wrap}\n"
		    "</style>\n</head>\n<body>\n<h1>orch compare</h1>\n<ol>\n");
	for (size_t k = 0; k < m->n_runs; k++) {
		strbuf_puts(&sb, "<li><b>");
		html_text(&sb, run_result_name(&m->runs[k]));
		strbuf_puts(&sb, "</b> ");
		html_text(&sb, paths[k]);
		strbuf_puts(&sb, k ? "</li>\n" : " (the reference)</li>\n");
	}
	strbuf_puts(&sb, "</ol>\n");
	for (size_t k = 1; k < m->n_runs; k++) {
		char *summary = compare_format_summary(&m->crs[k - 1], &m->runs[0], &m->runs[k],
						       only_changes);
		strbuf_puts(&sb, "<pre>");
		html_text(&sb, summary);
		strbuf_puts(&sb, "</pre>\n");
		free(summary);
	}
	size_t cols = 3 + m->n_runs, rows;
	const struct compare_row **refs;
	char **cells = table_cells(m, only_changes, &rows, &refs);
	strbuf_puts(&sb, "<table>\n");
	for (size_t r = 0; r < rows; r++) {
		strbuf_puts(&sb, "<tr>");
		for (size_t c = 0; c < cols; c++) {
			if (!r) {
				strbuf_puts(&sb, "<th>");
			} else if (c >= 3) {
				const char *cls = c >= 4 ? html_class(refs[r * cols + c]) : "";
				strbuf_printf(&sb, "<td class=\"v %s\">", cls);
			} else {
				strbuf_puts(&sb, "<td>");
			}
			html_text(&sb, cells[r * cols + c]);
			strbuf_puts(&sb, r ? "</td>" : "</th>");
		}
		strbuf_puts(&sb, "</tr>\n");
	}
	strbuf_printf(&sb, "</table>\n<p>%zu regression%s</p>\n</body>\n</html>\n",
		      m->n_regressions, m->n_regressions == 1 ? "" : "s");
	for (size_t i = 0; i < rows * cols; i++)
		free(cells[i]);
	free(cells);
	free(refs);
	return strbuf_detach(&sb);
}
