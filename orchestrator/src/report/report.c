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

/* ---- summary table ---------------------------------------------------- */

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

static char *clean_line(const char *s, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	report_escape(&sb, s, ESC_PLAIN);
	char *out = strbuf_detach(&sb);
	if (report_width(out) > max) {
		/* cut at a code point boundary, then mark the cut */
		size_t w = 0, i = 0;
		for (; out[i]; i++) {
			if (((unsigned char)out[i] & 0xC0) != 0x80 && ++w > max - 3)
				break;
		}
		out[i] = '\0';
		char *cut = xasprintf("%s...", out);
		free(out);
		out = cut;
	}
	return out;
}

/* "mem.memcpy 25.65 ± 0.29 MiB/s -12.0% regression": a metric, and its
 * change against the baseline when the run had one. */
static void summary_one_metric(struct strbuf *sb, const struct metric_result *m)
{
	strbuf_printf(sb, "%s ", m->name);
	report_fmt_metric(sb, m);
	if (m->change != METRIC_CHANGE_NONE) {
		strbuf_putc(sb, ' ');
		range_metric_change(sb, m, NAN);
	}
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
			summary_one_metric(&sb, &tr->metrics[i]);
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
	char *s = clean_line(strbuf_str(&sb), 200);
	strbuf_release(&sb);
	return s;
}

/* Every metric of each failed or regressed test, a line each, and the
 * range lines of the run against its baseline. */
static void summary_details(struct strbuf *sb, const struct run_result *run)
{
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!summary_lists_all(tr))
			continue;
		char *b = clean_line(tr->board ? tr->board : "", 40);
		char *t = clean_line(tr->test ? tr->test : "", 40);
		strbuf_printf(sb, "\n%s %s (%s):\n", b, t, status_label(tr));
		free(b);
		free(t);
		for (size_t m = 0; m < tr->n_metrics; m++) {
			struct strbuf one = STRBUF_INIT;
			summary_one_metric(&one, &tr->metrics[m]);
			range_metric_evidence(&one, &tr->metrics[m]);
			char *line = clean_line(strbuf_str(&one), 200);
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
		char *name = clean_line(range_baseline_name(run), 80);
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
	char *s = clean_line(strbuf_str(&sb), SUMMARY_MAX_MESSAGE);
	strbuf_release(&sb);
	return s;
}

static void pad(struct strbuf *sb, size_t n)
{
	while (n--)
		strbuf_putc(sb, ' ');
}

char *report_summary(const struct run_result *run, bool color)
{
	size_t n = run->n_results;
	char **cells = xcalloc(n * N_COLS + 1, sizeof(*cells));
	size_t width[N_COLS];
	for (int c = 0; c < N_COLS; c++)
		width[c] = strlen(col_titles[c]);
	for (size_t i = 0; i < n; i++) {
		const struct test_result *tr = &run->results[i];
		char dur[32];
		report_fmt_duration(dur, sizeof(dur), tr->duration_s);
		char **row = &cells[i * N_COLS];
		row[COL_BOARD] = clean_line(tr->board ? tr->board : "", 40);
		row[COL_TEST] = clean_line(tr->test ? tr->test : "", 40);
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
	bool any_metrics = false, any_message = false;
	for (size_t i = 0; i < n; i++) {
		any_metrics |= *cells[i * N_COLS + COL_METRICS] != '\0';
		any_message |= *cells[i * N_COLS + COL_MESSAGE] != '\0';
	}

	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i <= n; i++) {
		struct strbuf line = STRBUF_INIT;
		const struct test_result *tr = i ? &run->results[i - 1] : NULL;
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
		strbuf_printf(&sb, "%s\n", strbuf_str(&line));
		strbuf_release(&line);
	}
	for (size_t i = 0; i < n * N_COLS; i++)
		free(cells[i]);
	free(cells);
	summary_details(&sb, run);

	struct report_totals t;
	report_count(run, &t);
	strbuf_printf(&sb, "\n%zu passed", t.passed);
	if (t.flaky)
		strbuf_printf(&sb, " (%zu flaky: after an infrastructure retry)", t.flaky);
	strbuf_printf(&sb, ", %zu failed, %zu error%s, %zu skipped", t.failed, t.errors,
		      t.errors == 1 ? "" : "s", t.skipped);
	if (t.offline)
		strbuf_printf(&sb, " (%zu: board offline)", t.offline);
	if (t.regressed)
		strbuf_printf(&sb, ", %zu regressed", t.regressed);
	if (run->start_wall_us && run->end_wall_us > run->start_wall_us) {
		char d[32];
		report_fmt_duration(d, sizeof(d), (double)(run->end_wall_us - run->start_wall_us) / 1e6);
		strbuf_printf(&sb, " in %s", d);
	}
	if (run->label)
		strbuf_printf(&sb, " (%s)", run->label);
	strbuf_putc(&sb, '\n');
	if (run->interrupted)
		strbuf_puts(&sb, "interrupted: the results are partial\n");
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (tr->flaky && tr->n_infra_attempts)
			strbuf_printf(&sb, "flaky: %s %s passed on try %zu after an infrastructure "
				      "error: %s\n", tr->board, tr->test, tr->n_infra_attempts,
				      tr->infra_attempts[0].message ? tr->infra_attempts[0].message
								    : "?");
	}
	for (size_t i = 0; i < run->n_offline; i++)
		strbuf_printf(&sb, "offline: %s: %s\n", run->offline[i].board,
			      run->offline[i].reason ? run->offline[i].reason : "?");
	if (run->rerun_of)
		strbuf_printf(&sb, "rerun of %s (only %s)\n", run->rerun_of,
			      run->rerun_only ? run->rerun_only : "both");
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t k = 0; k < tr->n_leftovers; k++)
			strbuf_printf(&sb, "warning: %s %s left processes running after it ended; "
				      "orch stopped them: %s\n", tr->board, tr->test,
				      tr->leftovers[k]);
		for (size_t k = 0; k < tr->n_missing_metrics; k++)
			strbuf_printf(&sb, "missing: %s %s: metric %s (%s%s)\n", tr->board, tr->test,
				      tr->missing_metrics[k].name, tr->missing_metrics[k].reason,
				      tr->missing_metrics[k].optional ? ", optional" : "");
		if (tr->long_lines)
			strbuf_printf(&sb, "warning: %s %s: %llu output line%s longer than the "
				      "1 MiB matching cap: too long for matching, no regex saw %s\n",
				      tr->board, tr->test, (unsigned long long)tr->long_lines,
				      tr->long_lines == 1 ? "" : "s",
				      tr->long_lines == 1 ? "it" : "them");
	}
	return strbuf_detach(&sb);
}

/* ---- JUnit XML -------------------------------------------------------- */

static void xml_attr(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_printf(sb, " %s=\"", name);
	report_escape(sb, value ? value : "", ESC_ATTR);
	strbuf_putc(sb, '"');
}

/* <property name="PREFIXNAME" value="VALUE"/>, one line of a testcase's properties. */
static void junit_property(struct strbuf *sb, const char *prefix, const char *name,
			   const char *value)
{
	char *full = xasprintf("%s%s", prefix, name);
	strbuf_puts(sb, "      <property");
	xml_attr(sb, "name", full);
	xml_attr(sb, "value", value);
	strbuf_puts(sb, "/>\n");
	free(full);
}

static void junit_timestamp(char *buf, size_t len, int64_t wall_us)
{
	/* Ant's form: no zone (we write UTC), no fraction */
	char *iso = result_time_iso(wall_us - wall_us % 1000000);
	snprintf(buf, len, "%.19s", iso);
	free(iso);
}

/* What a CI view shows of a test's output: the last JUNIT_TAIL_LINES lines
 * of each log in the failure text, and each log in <system-out> /
 * <system-err> up to JUNIT_LOG_CAP bytes (its end, where the failure is). */
#define JUNIT_TAIL_LINES 20
#define JUNIT_LOG_CAP (64 * 1024)

struct junit_log {
	char *text;          /* the kept end of the log; NULL: no such file */
	size_t cut;          /* bytes left out before it */
	char *path;          /* relative to the run folder */
};

/* The last JUNIT_LOG_CAP bytes of RUN_DIR/LOG_DIR/NAME, from a line start. */
static void junit_log_read(struct junit_log *lg, const char *run_dir, const char *log_dir,
			   const char *name)
{
	memset(lg, 0, sizeof(*lg));
	lg->path = xasprintf("%s/%s", log_dir, name);
	if (!run_dir)
		return;
	char *full = fs_path_join(run_dir, lg->path);
	FILE *f = fopen(full, "rb");
	free(full);
	if (!f)
		return;
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	long from = size > JUNIT_LOG_CAP ? size - JUNIT_LOG_CAP : 0;
	if (size >= 0 && fseek(f, from, SEEK_SET) == 0) {
		char *buf = xmalloc((size_t)(size - from) + 1);
		size_t n = fread(buf, 1, (size_t)(size - from), f);
		buf[n] = '\0';
		char *start = buf;
		if (from > 0) {
			char *nl = memchr(buf, '\n', n);
			start = nl ? nl + 1 : buf;
		}
		lg->cut = (size_t)from + (size_t)(start - buf);
		lg->text = xstrdup(start);
		free(buf);
	}
	fclose(f);
}

static void junit_log_release(struct junit_log *lg)
{
	free(lg->text);
	free(lg->path);
}

/* The start of the last N lines of TEXT (a trailing newline ends the last). */
static const char *tail_lines(const char *text, int n)
{
	const char *p = text + strlen(text);
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && --n == 0)
			break;
		p--;
	}
	return p;
}

static bool word_at(const char *line, size_t len, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= len; i++)
		if (strncasecmp(line + i, word, wl) == 0 &&
		    (i == 0 || !isalnum((unsigned char)line[i - 1])))
			return true;
	return false;
}

/* The first line of TEXT that says something failed (error, fail, assert,
 * fatal, panic, abort, traceback, FAILED ...), as a new string, or NULL. */
static char *first_failing_line(const char *text)
{
	static const char *const words[] = { "error", "fail", "assert", "fatal", "panic",
					     "abort", "traceback", "exception", "segmentation",
					     NULL };
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		for (size_t i = 0; words[i]; i++)
			if (word_at(line, len, words[i]))
				return xstrndup(line, len);
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

static void junit_metric_lines(struct strbuf *out, const struct range_lines *rl,
			       const struct test_result *tr)
{
	for (size_t i = 0; i < tr->n_metrics; i++) {
		const struct metric_result *m = &tr->metrics[i];
		strbuf_printf(out, "%s: ", m->name);
		report_fmt_metric(out, m);
		strbuf_printf(out, " (%zu sample%s, %s is better)", m->n_samples,
			      m->n_samples == 1 ? "" : "s", m->higher_is_better ? "higher" : "lower");
		if (m->change != METRIC_CHANGE_NONE) {
			strbuf_puts(out, " against the baseline: ");
			range_metric_change(out, m, NAN);
			range_metric_evidence(out, m);
		}
		strbuf_putc(out, '\n');
	}
	for (size_t i = 0; i < tr->n_phases; i++) {
		const struct phase_result *ph = &tr->phases[i];
		if (ph->reached) {
			strbuf_printf(out, "phase %s: at ", ph->name);
			valfmt_value(out, ph->offset_s, "s");
			strbuf_puts(out, " (+");
			valfmt_value(out, ph->duration_s, "s");
			strbuf_printf(out, ")%s\n", ph->over_budget ? " over budget" : "");
		} else
			strbuf_printf(out, "phase %s: not reached\n", ph->name);
	}
	if (tr->comparison)
		strbuf_printf(out, "baseline: %s\n", tr->comparison);
	struct strbuf ranges = STRBUF_INIT;
	if (tr->test && range_lines_put(&ranges, rl, tr->test, "  "))
		strbuf_printf(out, "across the boards:\n%s", strbuf_str(&ranges));
	strbuf_release(&ranges);
	char *rep = repeat_outcome_describe(tr);
	if (rep)
		strbuf_printf(out, "%s\n", rep);
	free(rep);
	for (size_t k = 0; k < tr->n_pushes; k++) {
		char *push = report_push_text(&tr->pushes[k]);
		strbuf_printf(out, "%s\n", push);
		free(push);
	}
}

/* <failure> or <error>: the message, the first line of the output that
 * says what failed, and the end of stderr and stdout. */
static void junit_problem(struct strbuf *sb, const struct test_result *tr,
			  const struct junit_log *out, const struct junit_log *err)
{
	const char *msg = tr->message ? tr->message : "";
	const char *el = tr->status == STATUS_FAIL ? "failure" : "error";
	char *first = err->text ? first_failing_line(err->text) : NULL;
	if (!first && out->text)
		first = first_failing_line(out->text);
	strbuf_printf(sb, "      <%s", el);
	/* the one line a CI list shows: orch's message and what the output blamed */
	char *summary = first && !strstr(msg, first)
		? xasprintf("%s%s%s", msg, *msg ? "; first failing line: " : "", first)
		: xstrdup(msg);
	xml_attr(sb, "message", summary);
	free(summary);
	xml_attr(sb, "type", tr->status == STATUS_FAIL ? "fail" : "infrastructure");
	strbuf_puts(sb, ">");
	struct strbuf text = STRBUF_INIT;
	strbuf_puts(&text, msg);
	if (first)
		strbuf_printf(&text, "\nfirst failing line: %s", first);
	if (tr->last_line)
		strbuf_printf(&text, "\nlast line: %s", tr->last_line);
	const struct junit_log *logs[] = { err, out };
	for (size_t i = 0; i < 2; i++) {
		if (!logs[i]->text || !*logs[i]->text)
			continue;
		strbuf_printf(&text, "\n--- last %d lines of %s ---\n", JUNIT_TAIL_LINES,
			      logs[i]->path);
		strbuf_puts(&text, tail_lines(logs[i]->text, JUNIT_TAIL_LINES));
	}
	report_escape(sb, strbuf_str(&text), ESC_TEXT);
	strbuf_printf(sb, "</%s>\n", el);
	strbuf_release(&text);
	free(first);
}

/* <system-out> / <system-err>: the log's end, a note when it was cut. */
static void junit_system(struct strbuf *sb, const char *el, const struct junit_log *lg,
			 const char *extra)
{
	if (!(lg->text && *lg->text) && !(extra && *extra))
		return;
	struct strbuf text = STRBUF_INIT;
	if (extra)
		strbuf_puts(&text, extra);
	if (lg->text) {
		if (lg->cut)
			strbuf_printf(&text, "[orch: the first %zu bytes are cut here; the whole "
					     "log is %s]\n", lg->cut, lg->path);
		strbuf_puts(&text, lg->text);
	}
	strbuf_printf(sb, "      <%s>", el);
	report_escape(sb, strbuf_str(&text), ESC_TEXT);
	strbuf_printf(sb, "</%s>\n", el);
	strbuf_release(&text);
}

static void junit_testcase(struct strbuf *sb, const struct range_lines *rl,
			   const struct test_result *tr, const char *run_dir)
{
	strbuf_puts(sb, "    <testcase");
	char *cls = xasprintf("orch.%s", tr->board ? tr->board : "");
	xml_attr(sb, "classname", cls);
	free(cls);
	xml_attr(sb, "name", tr->test);
	strbuf_printf(sb, " time=\"%.3f\">\n", isfinite(tr->duration_s) ? tr->duration_s : 0);

	char *dir = report_log_dir(tr);
	struct junit_log out, err;
	junit_log_read(&out, run_dir, dir, "stdout.log");
	junit_log_read(&err, run_dir, dir, "stderr.log");
	free(dir);

	const char *msg = tr->message ? tr->message : "";
	/* with --baseline a regression alone fails the test: it has no message
	 * of its own, and the <failure> below says what regressed */
	bool only_regressed = tr->regressed && tr->status == STATUS_FAIL && !tr->message;
	if ((tr->status == STATUS_FAIL || tr->status == STATUS_ERROR) && !only_regressed) {
		junit_problem(sb, tr, &out, &err);
	} else if (tr->status == STATUS_SKIP) {
		strbuf_puts(sb, "      <skipped");
		if (*msg)
			xml_attr(sb, "message", msg);
		strbuf_puts(sb, "/>\n");
	}
	if (tr->regressed && (tr->status != STATUS_FAIL || only_regressed)) {
		const char *cmp = tr->comparison ? tr->comparison : "regressed against the baseline";
		strbuf_puts(sb, "      <failure");
		xml_attr(sb, "message", cmp);
		xml_attr(sb, "type", "regression");
		strbuf_puts(sb, ">");
		report_escape(sb, cmp, ESC_TEXT);
		strbuf_puts(sb, "</failure>\n");
	}

	struct strbuf figures = STRBUF_INIT;
	char *tries = report_attempts_text(tr);
	if (tries)
		strbuf_puts(&figures, tries);
	free(tries);
	junit_metric_lines(&figures, rl, tr);
	if (figures.len && out.text)
		strbuf_puts(&figures, "--- stdout ---\n");
	junit_system(sb, "system-out", &out, strbuf_str(&figures));
	junit_system(sb, "system-err", &err, NULL);
	strbuf_release(&figures);
	junit_log_release(&out);
	junit_log_release(&err);
	strbuf_puts(sb, "    </testcase>\n");
}

/* A board's figures as <properties> of its testsuite (junit-10 has none in
 * a testcase): TEST.metric.NAME and TEST.phase.NAME. */
static void junit_suite_properties(struct strbuf *sb, const struct run_result *run,
				   const char *board)
{
	bool open = false;
	const struct board_facts *bf = run_result_facts(run, board);
	if (run->label || (bf && bf->n)) {
		strbuf_puts(sb, "    <properties>\n");
		open = true;
		if (run->label)
			junit_property(sb, "", "run.label", run->label);
		for (size_t i = 0; bf && i < bf->n; i++)
			junit_property(sb, "fact.", bf->items[i].name, bf->items[i].value);
	}
	for (size_t j = 0; j < run->n_results; j++) {
		const struct test_result *tr = &run->results[j];
		if (strcmp(tr->board ? tr->board : "", board) != 0)
			continue;
		char *prefix = xasprintf("%s.metric.", tr->test ? tr->test : "");
		for (size_t i = 0; i < tr->n_metrics; i++) {
			if (!open)
				strbuf_puts(sb, "    <properties>\n");
			open = true;
			char *value = xasprintf("%.10g", tr->metrics[i].median);
			junit_property(sb, prefix, tr->metrics[i].name, value);
			free(value);
		}
		free(prefix);
		/* a declared metric with no value is listed, with why */
		prefix = xasprintf("%s.missing.", tr->test ? tr->test : "");
		for (size_t i = 0; i < tr->n_missing_metrics; i++) {
			const struct missing_metric *mm = &tr->missing_metrics[i];
			if (!open)
				strbuf_puts(sb, "    <properties>\n");
			open = true;
			char *value = xasprintf("%s%s", mm->reason ? mm->reason : "absent",
						mm->optional ? " (optional)" : "");
			junit_property(sb, prefix, mm->name, value);
			free(value);
		}
		free(prefix);
		prefix = xasprintf("%s.phase.", tr->test ? tr->test : "");
		for (size_t i = 0; i < tr->n_phases; i++) {
			const struct phase_result *ph = &tr->phases[i];
			if (!ph->reached)
				continue;
			if (!open)
				strbuf_puts(sb, "    <properties>\n");
			open = true;
			char *value = xasprintf("%.6g", ph->offset_s);
			junit_property(sb, prefix, ph->name, value);
			free(value);
		}
		free(prefix);
	}
	if (open)
		strbuf_puts(sb, "    </properties>\n");
}

static bool counts_as_failure(const struct test_result *tr)
{
	return tr->status == STATUS_FAIL || (tr->regressed && tr->status != STATUS_ERROR);
}

char *report_junit(const struct run_result *run)
{
	return report_junit_in(run, NULL);
}

char *report_junit_in(const struct run_result *run, const char *run_dir)
{
	struct strbuf sb = STRBUF_INIT;
	struct report_totals all;
	report_count(run, &all);
	size_t all_failures = 0;
	for (size_t i = 0; i < run->n_results; i++)
		all_failures += counts_as_failure(&run->results[i]);

	strbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	char *name = run->label ? xasprintf("orch %s %s", run->scenario ? run->scenario : "", run->label)
				: xasprintf("orch %s", run->scenario ? run->scenario : "");
	xml_attr(&sb, "name", name);
	free(name);
	/* junit-10 (Jenkins xUnit) has no skipped count on <testsuites> */
	strbuf_printf(&sb, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
		      all.tests, all_failures, all.errors, all.time_s);

	struct range_lines rl;
	range_lines_of_run(run, &rl);
	bool *done = xcalloc(run->n_results + 1, sizeof(*done));
	for (size_t i = 0; i < run->n_results; i++) {
		if (done[i])
			continue;
		const char *board = run->results[i].board ? run->results[i].board : "";
		size_t tests = 0, failures = 0, errors = 0, skipped = 0;
		double time_s = 0;
		int64_t first = 0;
		for (size_t j = i; j < run->n_results; j++) {
			const struct test_result *tr = &run->results[j];
			if (strcmp(tr->board ? tr->board : "", board) != 0)
				continue;
			tests++;
			failures += counts_as_failure(tr);
			errors += tr->status == STATUS_ERROR;
			skipped += tr->status == STATUS_SKIP;
			time_s += isfinite(tr->duration_s) ? tr->duration_s : 0;
			if (tr->start_wall_us && (!first || tr->start_wall_us < first))
				first = tr->start_wall_us;
		}
		if (!first)
			first = run->start_wall_us;
		char stamp[32];
		junit_timestamp(stamp, sizeof(stamp), first);
		strbuf_puts(&sb, "  <testsuite");
		xml_attr(&sb, "name", board);
		strbuf_printf(&sb, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" timestamp=\"%s\"",
			      tests, failures, errors, skipped, time_s, stamp);
		if (run->host)
			xml_attr(&sb, "hostname", run->host);
		strbuf_puts(&sb, ">\n");
		junit_suite_properties(&sb, run, board);
		for (size_t j = i; j < run->n_results; j++) {
			const struct test_result *tr = &run->results[j];
			if (strcmp(tr->board ? tr->board : "", board) != 0)
				continue;
			done[j] = true;
			junit_testcase(&sb, &rl, tr, run_dir);
		}
		strbuf_puts(&sb, "  </testsuite>\n");
	}
	free(done);
	range_lines_release(&rl);
	strbuf_puts(&sb, "</testsuites>\n");
	return strbuf_detach(&sb);
}

/* ---- all files -------------------------------------------------------- */

int report_write_all(const struct run_result *run, const char *run_dir, char *err, size_t errlen)
{
	struct {
		const char *name;
		char *text;
	} files[] = {
		{ "summary.txt", report_summary(run, false) },
		{ "junit.xml", report_junit_in(run, run_dir) },
	};
	int ret = 0;
	char err2[512];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = fs_path_join(run_dir, files[i].name);
		/* one that cannot be written does not stop the others */
		if (fs_replace_file(path, files[i].text, strlen(files[i].text), err2,
				    sizeof(err2)) < 0 && ret++ == 0)
			snprintf(err, errlen, "%s", err2);
		free(path);
		free(files[i].text);
	}
	/* report.html, megabytes for a rack, a section at a time */
	if (report_html_write(run, run_dir, err2, sizeof(err2)) < 0 && ret++ == 0)
		snprintf(err, errlen, "%s", err2);
	return ret ? -1 : 0;
}

char *report_junit_invalid(const char *name, const char *why)
{
	struct strbuf sb = STRBUF_INIT;
	char *suite = xasprintf("orch %s", name ? name : "");
	strbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	xml_attr(&sb, "name", suite);
	strbuf_puts(&sb, " tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.000\">\n"
		    "  <testsuite");
	xml_attr(&sb, "name", suite);
	strbuf_puts(&sb, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
		    "    <testcase name=\"validate\"");
	xml_attr(&sb, "classname", suite);
	strbuf_puts(&sb, " time=\"0.000\">\n      <error");
	xml_attr(&sb, "message", why ? why : "invalid input");
	strbuf_puts(&sb, " type=\"invalid input\">");
	report_escape(&sb, why ? why : "invalid input", ESC_TEXT);
	strbuf_puts(&sb, "\nnothing was run (exit 2)</error>\n    </testcase>\n  </testsuite>\n"
		    "</testsuites>\n");
	free(suite);
	return strbuf_detach(&sb);
}
