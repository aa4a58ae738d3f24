/*
 * compare_format_junit(): a comparison as JUnit, so that a CI view shows
 * regressions as failed tests. One testsuite per board, one testcase per
 * row (TEST for a status row, TEST: METRIC, TEST: phase NAME); a
 * regression is a <failure type="regression">; a row left unjudged or on
 * one side only is <skipped> with the reason; every other row passes with
 * its words in <system-out>. The structure is Jenkins xUnit's junit-10.
 */
#include "compare/compare.h"
#include "util/deadline.h"
#include "util/strbuf.h"
#include "util/xmltext.h"

#include <string.h>

static void attr(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_printf(sb, " %s=\"", name);
	xml_escape(sb, value ? value : "", true);
	strbuf_putc(sb, '"');
}

static char *row_name(const struct compare_row *r)
{
	if (r->kind == COMPARE_KIND_PHASE)
		return xasprintf("%s: phase %s", r->test, r->name);
	if (r->kind == COMPARE_KIND_METRIC)
		return xasprintf("%s: %s", r->test, r->name);
	return xstrdup(r->test);
}

static bool row_skipped(const struct compare_row *r)
{
	return r->verdict == COMPARE_NOT_JUDGED || r->verdict == COMPARE_ONLY_A ||
	       r->verdict == COMPARE_ONLY_B;
}

static void testcase(struct strbuf *sb, const struct compare_row *r)
{
	strbuf_puts(sb, "    <testcase");
	char *cls = xasprintf("orch.compare.%s", r->board);
	attr(sb, "classname", cls);
	free(cls);
	char *name = row_name(r);
	attr(sb, "name", name);
	free(name);
	strbuf_puts(sb, " time=\"0\">\n");
	if (r->verdict == COMPARE_REGRESSION) {
		strbuf_puts(sb, "      <failure");
		attr(sb, "message", r->words);
		attr(sb, "type", "regression");
		strbuf_puts(sb, ">");
		xml_escape(sb, r->words, false);
		strbuf_puts(sb, "</failure>\n");
	} else if (row_skipped(r)) {
		strbuf_puts(sb, "      <skipped");
		attr(sb, "message", r->words);
		strbuf_puts(sb, "/>\n");
	}
	strbuf_puts(sb, "      <system-out>");
	xml_escape(sb, compare_verdict_name(r->verdict), false);
	strbuf_puts(sb, ": ");
	xml_escape(sb, r->words, false);
	strbuf_puts(sb, "</system-out>\n    </testcase>\n");
}

void compare_junit_suites(struct strbuf *sb, const struct compare_result *cr, const char *suffix,
			  const char *stamp)
{
	bool *done = xcalloc(cr->n_rows + 1, sizeof(*done));
	for (size_t i = 0; i < cr->n_rows; i++) {
		if (done[i])
			continue;
		const char *board = cr->rows[i].board;
		size_t tests = 0, fails = 0, skipped = 0;
		for (size_t j = i; j < cr->n_rows; j++) {
			if (strcmp(cr->rows[j].board, board) != 0)
				continue;
			tests++;
			fails += cr->rows[j].verdict == COMPARE_REGRESSION;
			skipped += row_skipped(&cr->rows[j]);
		}
		strbuf_puts(sb, "  <testsuite");
		char *name = xasprintf("%s%s", board, suffix ? suffix : "");
		attr(sb, "name", name);
		free(name);
		strbuf_printf(sb, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
				   "time=\"0\" timestamp=\"%s\">\n", tests, fails, skipped, stamp);
		for (size_t j = i; j < cr->n_rows; j++) {
			if (strcmp(cr->rows[j].board, board) != 0)
				continue;
			done[j] = true;
			testcase(sb, &cr->rows[j]);
		}
		strbuf_puts(sb, "  </testsuite>\n");
	}
	free(done);
}

char *compare_format_junit(const struct compare_result *cr, const char *name_a,
			   const char *name_b, int64_t when_us)
{
	char stamp[32];
	clock_format_junit(when_us, stamp, sizeof(stamp));
	struct strbuf sb = STRBUF_INIT;
	size_t failures = 0;
	for (size_t i = 0; i < cr->n_rows; i++)
		failures += cr->rows[i].verdict == COMPARE_REGRESSION;
	strbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	char *title = xasprintf("orch compare %s vs %s", name_b, name_a);
	attr(&sb, "name", title);
	free(title);
	strbuf_printf(&sb, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"0\">\n", cr->n_rows,
		      failures);
	compare_junit_suites(&sb, cr, NULL, stamp);
	strbuf_puts(&sb, "</testsuites>\n");
	return strbuf_detach(&sb);
}
