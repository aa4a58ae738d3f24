/* report.html's board x test grid: a row per board (failures first), a
 * column per test, each cell one result linked to its details row. */
#include "report/report_html_int.h"
#include "report/report_text.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* Names in order of first appearance; *n set. Borrowed from the results. */
static const char **distinct(const struct run_result *run, bool boards, size_t *n)
{
	const char **names = NULL;
	*n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const char *name = boards ? run->results[i].board : run->results[i].test;
		name = name ? name : "";
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(names[k], name) == 0;
		if (!seen) {
			names = xrealloc(names, (*n + 1) * sizeof(*names));
			names[(*n)++] = name;
		}
	}
	return names;
}

/* How bad a result is, for ordering: failures first, then errors. */
static int badness(const struct test_result *tr)
{
	if (tr->status == STATUS_FAIL || tr->regressed)
		return 2;
	return tr->status == STATUS_ERROR;
}

static size_t name_index(const char *const *names, size_t n, const char *name)
{
	size_t i = 0;
	while (i < n && strcmp(names[i], name ? name : ""))
		i++;
	return i;
}

/* The first result of each board x test, cells[board * nt + test]: one pass
 * over the results, not one per cell (caller frees). */
static const struct test_result **grid_cells(const struct run_result *run, const char **boards,
					     size_t nb, const char **tests, size_t nt)
{
	const struct test_result **cells = xcalloc(nb * nt + 1, sizeof(*cells));
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		size_t b = name_index(boards, nb, tr->board), t = name_index(tests, nt, tr->test);
		if (b < nb && t < nt && !cells[b * nt + t])
			cells[b * nt + t] = tr;
	}
	return cells;
}

struct ranked {
	const char *name;
	int bad;
	size_t order;              /* in natural order of the names */
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->bad != y->bad)
		return y->bad - x->bad;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The grid's geometry: a rack's 40 tests fit the page's 1200 pixels, one
 * narrow column each under its name written upwards; a few tests keep
 * wide cells with the status written out. */
#define GRID_PAGE_W 1200
#define GRID_WIDE_TESTS 10
struct grid_geom {
	bool compact;
	int board_w, cell_w, row_h;
};

static struct grid_geom grid_geom(const char *const *boards, size_t nb, size_t nt)
{
	struct grid_geom g = { nt > GRID_WIDE_TESTS, 60, 100, 17 };
	size_t longest = 0;
	for (size_t b = 0; b < nb; b++)
		if (report_width(boards[b]) > longest)
			longest = report_width(boards[b]);
	g.board_w = (int)longest * 7 + 10;
	g.board_w = g.board_w < 40 ? 40 : g.board_w > 150 ? 150 : g.board_w;
	if (g.compact) {
		int w = (GRID_PAGE_W - g.board_w - 4) / (int)nt - 2;
		g.cell_w = w > 40 ? 40 : w < 10 ? 10 : w;
		g.row_h = nb > 32 ? 13 : 17;
	}
	return g;
}

/* What a cell says: the status written out, or a letter in a narrow cell
 * (nothing for a pass, the colour says it). */
static const char *cell_text(const char *cls, bool compact)
{
	if (!compact)
		return cls;
	return !strcmp(cls, "fail") ? "F" : !strcmp(cls, "error") ? "E" :
	       !strcmp(cls, "regressed") ? "R" : !strcmp(cls, "skip") ? "s" : "";
}

static void grid_head(struct strbuf *sb, const char **tests, size_t nt, const bool *bad_test,
		      const struct grid_geom *g)
{
	strbuf_printf(sb, "<h2 class=\"first\" id=\"grid\">Boards \u00d7 tests<small>failures "
		      "first; hover a cell for its result, click it for its details and logs"
		      "</small></h2>\n<div class=\"gridwrap\"><table class=\"grid%s\" "
		      "style=\"--bw:%dpx;--cw:%dpx;--rh:%dpx\">\n<thead><tr><th class=\"b\"></th>",
		      g->compact ? " compact" : "", g->board_w, g->cell_w, g->row_h);
	for (size_t t = 0; t < nt; t++) {
		strbuf_printf(sb, "<th class=\"t%s\" title=\"", bad_test[t] ? " bad" : "");
		report_escape(sb, tests[t], ESC_ATTR);
		strbuf_puts(sb, g->compact ? "\"><div>" : "\">");
		esc(sb, tests[t]);
		strbuf_puts(sb, g->compact ? "</div></th>" : "</th>");
	}
	strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
}

/* One cell: the status, its words on hover, a link to the details row
 * that holds the message and the logs. */
static void grid_cell(struct strbuf *sb, const struct run_result *run,
		      const struct test_result *tr, bool compact)
{
	if (!tr) {
		strbuf_puts(sb, "<td></td>");
		return;
	}
	const char *cls = html_status_class(tr);
	char dur[32];
	report_fmt_duration(dur, sizeof(dur), tr->duration_s);
	strbuf_printf(sb, "<td><a class=\"%s\" href=\"#r%zu\" title=\"", cls,
		      (size_t)(tr - run->results));
	report_escape(sb, tr->board, ESC_ATTR);
	strbuf_puts(sb, " / ");
	report_escape(sb, tr->test, ESC_ATTR);
	strbuf_printf(sb, ": %s, %s", cls, dur);
	if (tr->message) {
		strbuf_puts(sb, " \u2014 ");
		report_escape(sb, tr->message, ESC_ATTR);
	}
	strbuf_printf(sb, "\">%s</a></td>", cell_text(cls, compact));
}

/* Rows (boards) with failures first, then errors, else in natural order;
 * columns (tests) in natural order, a failing test's name marked; each
 * cell one test's status, linked to its row in the details table. */
void html_grid(struct strbuf *sb, const struct run_result *run)
{
	size_t nb, nt;
	const char **boards = distinct(run, true, &nb);
	const char **tests = distinct(run, false, &nt);
	nodeset_sort(boards, nb);
	nodeset_sort(tests, nt);
	struct ranked *rows = xcalloc(nb + 1, sizeof(*rows));
	bool *bad_test = xcalloc(nt + 1, sizeof(*bad_test));
	for (size_t b = 0; b < nb; b++)
		rows[b] = (struct ranked){ boards[b], 0, b };
	const struct test_result **cells = grid_cells(run, boards, nb, tests, nt);
	for (size_t i = 0; i < nb * nt; i++) {
		if (cells[i] && badness(cells[i]) > rows[i / nt].bad)
			rows[i / nt].bad = badness(cells[i]);
		if (cells[i] && badness(cells[i]))
			bad_test[i % nt] = true;
	}
	qsort(rows, nb, sizeof(*rows), cmp_ranked);
	struct grid_geom g = grid_geom(boards, nb, nt);
	if (nb)
		grid_head(sb, tests, nt, bad_test, &g);
	for (size_t b = 0; b < nb; b++) {
		strbuf_puts(sb, "<tr><th class=\"b\" title=\"");
		report_escape(sb, rows[b].name, ESC_ATTR);
		strbuf_puts(sb, "\">");
		esc(sb, rows[b].name);
		strbuf_puts(sb, "</th>");
		for (size_t t = 0; t < nt; t++)
			grid_cell(sb, run, cells[rows[b].order * nt + t], g.compact);
		strbuf_puts(sb, "</tr>\n");
	}
	if (nb)
		strbuf_puts(sb, "</tbody>\n</table></div>\n");
	free(cells);
	free(rows);
	free(bad_test);
	free(boards);
	free(tests);
}
