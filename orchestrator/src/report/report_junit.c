/* JUnit XML: one testsuite per board, metrics as its properties. */
#include "report/report.h"
#include "report/report_text.h"
#include "compare/range.h"
#include "result/result_json.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/log_dir.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	if (tr->implementation)
		strbuf_printf(out, "implementation: %s\n", tr->implementation);
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
	junit_log_read(&out, run_dir, dir, LOG_DIR_STDOUT);
	junit_log_read(&err, run_dir, dir, LOG_DIR_STDERR);
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
	/* suites and their testcases in natural order (b2 before b10) */
	const struct test_result **r = run_result_natural(run);
	bool *done = xcalloc(run->n_results + 1, sizeof(*done));
	for (size_t i = 0; i < run->n_results; i++) {
		if (done[i])
			continue;
		const char *board = r[i]->board ? r[i]->board : "";
		size_t tests = 0, failures = 0, errors = 0, skipped = 0;
		double time_s = 0;
		int64_t first = 0;
		for (size_t j = i; j < run->n_results; j++) {
			const struct test_result *tr = r[j];
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
		clock_format_junit(first, stamp, sizeof(stamp));
		strbuf_puts(&sb, "  <testsuite");
		xml_attr(&sb, "name", board);
		strbuf_printf(&sb, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" timestamp=\"%s\"",
			      tests, failures, errors, skipped, time_s, stamp);
		if (run->host)
			xml_attr(&sb, "hostname", run->host);
		strbuf_puts(&sb, ">\n");
		junit_suite_properties(&sb, run, board);
		for (size_t j = i; j < run->n_results; j++) {
			const struct test_result *tr = r[j];
			if (strcmp(tr->board ? tr->board : "", board) != 0)
				continue;
			done[j] = true;
			junit_testcase(&sb, &rl, tr, run_dir);
		}
		strbuf_puts(&sb, "  </testsuite>\n");
	}
	free(done);
	free(r);
	range_lines_release(&rl);
	strbuf_puts(&sb, "</testsuites>\n");
	return strbuf_detach(&sb);
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
