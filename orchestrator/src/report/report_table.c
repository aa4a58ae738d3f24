/* The full table, a line per board x test (orch report --full), and every
 * metric of each failed or regressed test below it. */
#include "report/report.h"
#include "report/report_text.h"
#include "compare/range.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A passing test's metrics: in full up to this many columns, else the
 * medians alone up to SUMMARY_COMPACT_WIDTH, else a tally of the changes. */
#define SUMMARY_METRICS_WIDTH 64
#define SUMMARY_COMPACT_WIDTH 110
#define SUMMARY_MAX_MESSAGE 160

enum { COL_BOARD, COL_TEST, COL_STATUS, COL_DURATION, COL_METRICS, COL_MESSAGE, N_COLS };

static const char *const col_titles[N_COLS] = {
	"BOARD", "TEST", "STATUS", "DURATION", "METRICS", "MESSAGE",
};

static const char *status_label(const struct test_result *tr)
{
	if (tr->regressed && tr->status == STATUS_PASS)
		return "regressed";
	return result_status_name(tr->status);
}

static const char *status_color(const struct test_result *tr)
{
	if (tr->regressed)
		return "\033[1;31m";
	switch (tr->status) {
	case STATUS_PASS: return "\033[32m";
	case STATUS_FAIL: return "\033[1;31m";
	case STATUS_ERROR: return "\033[1;33m";
	case STATUS_SKIP: return "\033[2m";
	}
	return "";
}

/* Whether summary.txt lists every metric of tr below the table. */
static bool summary_lists_all(const struct test_result *tr)
{
	return tr->n_metrics && (tr->status != STATUS_PASS || tr->regressed);
}

/* A passing test's metrics that do not fit in a cell: how many, how they
 * moved, and the ones that moved beyond noise ("37 metrics: 2 better
 * (mem.loop +7.5%, mem.copy +6.1%), 35 within noise"). */
static void summary_tally(struct strbuf *sb, const struct test_result *tr)
{
	static const char *const words[] = {
		[METRIC_CHANGE_REGRESSION] = "regression", [METRIC_CHANGE_WORSE] = "worse",
		[METRIC_CHANGE_BETTER] = "better", [METRIC_CHANGE_NOT_JUDGED] = "not judged",
		[METRIC_CHANGE_NOISE] = "within noise", [METRIC_CHANGE_SAME] = "no change",
	};
	static const enum metric_change order[] = {
		METRIC_CHANGE_REGRESSION, METRIC_CHANGE_WORSE, METRIC_CHANGE_BETTER,
		METRIC_CHANGE_NOT_JUDGED, METRIC_CHANGE_NOISE, METRIC_CHANGE_SAME,
	};
	strbuf_printf(sb, "%zu metrics", tr->n_metrics);
	const char *sep = ": ";
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		size_t n = 0;
		for (size_t i = 0; i < tr->n_metrics; i++)
			n += tr->metrics[i].change == order[o];
		if (!n)
			continue;
		strbuf_printf(sb, "%s%zu %s", sep, n, words[order[o]]);
		sep = ", ";
		if (order[o] != METRIC_CHANGE_BETTER && order[o] != METRIC_CHANGE_WORSE &&
		    order[o] != METRIC_CHANGE_REGRESSION)
			continue;
		const char *in = " (";
		for (size_t i = 0; i < tr->n_metrics; i++) {
			if (tr->metrics[i].change != order[o])
				continue;
			strbuf_printf(sb, "%s%s ", in, tr->metrics[i].name);
			valfmt_pct(sb, tr->metrics[i].change_pct);
			in = ", ";
		}
		strbuf_putc(sb, ')');
	}
	if (*sep == ':')
		strbuf_puts(sb, " (values in report.html and junit.xml)");
}

/* "mem.memcpy 107.7 MiB/s +1.5%, mem.loop 47.15 MiB/s": the medians and
 * their changes alone. */
static void summary_medians(struct strbuf *sb, const struct test_result *tr)
{
	for (size_t i = 0; i < tr->n_metrics; i++) {
		const struct metric_result *m = &tr->metrics[i];
		strbuf_printf(sb, "%s%s ", i ? ", " : "", m->name);
		valfmt_value(sb, m->median, m->unit);
		if (m->change != METRIC_CHANGE_NONE && isfinite(m->change_pct)) {
			strbuf_putc(sb, ' ');
			valfmt_pct(sb, m->change_pct);
		}
	}
}

static char *summary_metrics(const struct test_result *tr)
{
	struct strbuf sb = STRBUF_INIT;
	if (summary_lists_all(tr)) {
		strbuf_printf(&sb, "%zu metric%s, listed below", tr->n_metrics,
			      tr->n_metrics == 1 ? "" : "s");
	} else if (tr->n_metrics) {
		for (size_t i = 0; i < tr->n_metrics; i++) {
			if (i)
				strbuf_puts(&sb, ", ");
			report_fmt_named_metric(&sb, &tr->metrics[i]);
		}
		if (report_width(strbuf_str(&sb)) > SUMMARY_METRICS_WIDTH) {
			strbuf_reset(&sb);
			summary_medians(&sb, tr);
		}
		if (report_width(strbuf_str(&sb)) > SUMMARY_COMPACT_WIDTH) {
			strbuf_reset(&sb);
			summary_tally(&sb, tr);
		}
	}
	if (!tr->n_metrics && tr->n_phases) {
		const struct phase_result *last = NULL;
		size_t reached = 0;
		for (size_t i = 0; i < tr->n_phases; i++) {
			if (tr->phases[i].reached) {
				last = &tr->phases[i];
				reached++;
			}
		}
		if (last) {
			char d[32];
			report_fmt_duration(d, sizeof(d), last->offset_s);
			strbuf_printf(&sb, "%s at %s", last->name, d);
		}
		strbuf_printf(&sb, "%s%zu/%zu phases", last ? ", " : "", reached, tr->n_phases);
	}
	char *s = report_clean_line(strbuf_str(&sb), 200);
	strbuf_release(&sb);
	return s;
}

/* Every metric of each failed or regressed test, a line each, and the
 * range lines of the run against its baseline. */
static void summary_details(struct strbuf *sb, const struct run_result *run,
			    const struct test_result *const *order)
{
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = order[i];
		if (!summary_lists_all(tr))
			continue;
		char *b = report_clean_line(tr->board ? tr->board : "", 40);
		char *t = report_clean_line(tr->test ? tr->test : "", 40);
		strbuf_printf(sb, "\n%s %s (%s):\n", b, t, status_label(tr));
		free(b);
		free(t);
		for (size_t m = 0; m < tr->n_metrics; m++) {
			struct strbuf one = STRBUF_INIT;
			report_fmt_named_metric(&one, &tr->metrics[m]);
			range_metric_evidence(&one, &tr->metrics[m]);
			char *line = report_clean_line(strbuf_str(&one), 200);
			strbuf_printf(sb, "  %s\n", line);
			free(line);
			strbuf_release(&one);
		}
	}
	struct strbuf ranges = STRBUF_INIT;
	struct range_lines rl;
	range_lines_of_run(run, &rl);
	size_t n_lines = range_lines_put(&ranges, &rl, NULL, "  ");
	range_lines_release(&rl);
	if (n_lines) {
		char *name = report_clean_line(range_baseline_name(run), 80);
		strbuf_printf(sb, "\nagainst %s:\n", name);
		free(name);
		/* board and test names came from YAML: each line cleaned for a terminal */
		for (char *line = ranges.buf, *nl; line && *line; line = nl + 1) {
			nl = strchr(line, '\n');
			*nl = '\0';
			report_escape(sb, line, ESC_PLAIN);
			strbuf_putc(sb, '\n');
		}
	}
	strbuf_release(&ranges);
}

static char *summary_message(const struct test_result *tr)
{
	struct strbuf sb = STRBUF_INIT;
	if (tr->message)
		strbuf_puts(&sb, tr->message);
	if (tr->comparison)
		strbuf_printf(&sb, "%s%s", sb.len ? "; " : "", tr->comparison);
	char *rep = repeat_outcome_describe(tr);
	if (rep)
		strbuf_printf(&sb, "%s%s", sb.len ? "; " : "", rep);
	free(rep);
	char *s = report_clean_line(strbuf_str(&sb), SUMMARY_MAX_MESSAGE);
	strbuf_release(&sb);
	return s;
}

static void pad(struct strbuf *sb, size_t n)
{
	while (n--)
		strbuf_putc(sb, ' ');
}

/* The table's cells, N_COLS per result in order, and each column's width. */
static char **summary_cells(const struct run_result *run, const struct test_result *const *order,
			    size_t width[N_COLS])
{
	size_t n = run->n_results;
	char **cells = xcalloc(n * N_COLS + 1, sizeof(*cells));
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(col_titles[c]);
	for (size_t i = 0; i < n; i++) {
		const struct test_result *tr = order[i];
		char dur[32];
		report_fmt_duration(dur, sizeof(dur), tr->duration_s);
		char **row = &cells[i * N_COLS];
		row[COL_BOARD] = report_clean_line(tr->board ? tr->board : "", 40);
		row[COL_TEST] = report_clean_line(tr->test ? tr->test : "", 40);
		row[COL_STATUS] = xstrdup(status_label(tr));
		row[COL_DURATION] = xstrdup(tr->status == STATUS_SKIP && !tr->duration_s ? "-" : dur);
		row[COL_METRICS] = summary_metrics(tr);
		row[COL_MESSAGE] = summary_message(tr);
		for (int c = 0; c < N_COLS; c++) {
			size_t w = report_width(row[c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	return cells;
}

/* The table: a title line, then a line per result in order; the metrics
 * and message columns only when some result has one. */
static void summary_table(struct strbuf *sb, const struct run_result *run,
			  const struct test_result *const *order, bool color)
{
	size_t n = run->n_results;
	size_t width[N_COLS];
	char **cells = summary_cells(run, order, width);
	bool any_metrics = false, any_message = false;
	for (size_t i = 0; i < n; i++) {
		any_metrics |= *cells[i * N_COLS + COL_METRICS] != '\0';
		any_message |= *cells[i * N_COLS + COL_MESSAGE] != '\0';
	}
	for (size_t i = 0; i <= n; i++) {
		struct strbuf line = STRBUF_INIT;
		const struct test_result *tr = i ? order[i - 1] : NULL;
		for (int c = 0; c < N_COLS; c++) {
			if ((c == COL_METRICS && !any_metrics) || (c == COL_MESSAGE && !any_message))
				continue;
			const char *cell = i ? cells[(i - 1) * N_COLS + c] : col_titles[c];
			size_t w = report_width(cell);
			if (c)
				strbuf_puts(&line, "  ");
			if (c == COL_DURATION)
				pad(&line, width[c] - w);
			bool paint = color && (c == COL_STATUS ? tr != NULL : !tr);
			if (paint)
				strbuf_puts(&line, tr ? status_color(tr) : "\033[1m");
			strbuf_puts(&line, cell);
			if (paint)
				strbuf_puts(&line, "\033[0m");
			if (c != COL_DURATION)
				pad(&line, width[c] - w);
		}
		/* no trailing blanks */
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		strbuf_printf(sb, "%s\n", strbuf_str(&line));
		strbuf_release(&line);
	}
	for (size_t i = 0; i < n * N_COLS; i++)
		free(cells[i]);
	free(cells);
}

char *report_full(const struct run_result *run, bool color)
{
	struct strbuf sb = STRBUF_INIT;
	const struct test_result **order = run_result_natural(run);
	summary_table(&sb, run, order, color);
	summary_details(&sb, run, order);
	free(order);
	return strbuf_detach(&sb);
}
