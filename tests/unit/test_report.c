/* Renderings: summary table, JUnit (validated against tests/report/junit.xsd
 * with xmllint), HTML (self-contained, escaped). */
#include "testsupport.h"
#include "ts_run_folder.h"
#include "finish/finish.h"
#include "report/report.h"
#include "store/store.h"
#include "report/report_text.h"
#include "result/result.h"
#include "sample_run.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef ORCH_JUNIT_XSD
#define ORCH_JUNIT_XSD ORCH_SOURCE_DIR "/tests/report/junit.xsd"
#endif

static const char *const nasty_board = "<b>&\"";
static const char *const nasty_message =
	"exit 3: \x01\x02\x1b[31mred\x1b[0m\x7f \xc2\x85tab\there\r\nline two \xff\xfe bad utf-8 "
	"]]> <!-- --> 'quoted' \xef\xbf\xbe";

static void add_nasty(struct run_result *run)
{
	struct test_result *tr = run_result_add(run, nasty_board, "t<1>");
	tr->status = STATUS_FAIL;
	tr->duration_s = 1.5;
	test_result_set_message(tr, "%s", nasty_message);
	tr->last_line = xstrdup("login: \x07\x08");
	test_result_add_sample(tr, "m&<x>", "\"u\"", true, 1);
	tr->log_dir = xstrdup("../../etc/<b>&\"/t 1");
}

static bool have_xmllint(void)
{
	return ts_run(NULL, "command -v xmllint") == 0;
}

/* xmllint --schema on text; returns the exit status, output in *out. */
static int xmllint(const char *text, const char *args, char **out)
{
	char *dir = ts_mkdtemp_with("report-xml", "doc.xml", text);
	int st = ts_run(out, "xmllint --noout %s '%s/doc.xml'", args, dir);
	ts_rmrf_free(&dir);
	return st;
}

static void test_summary(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	/* the full table: a line per board x test (orch report --full) */
	char *s = report_full(&run, false);
	assert_null(strchr(s, '\033'));
	TS_ASSERT_HAS(s, "BOARD", "MESSAGE", "mem.memcpy 25.65 \u00b1 0.29 MiB/s",
		"mem.memcpy 107.7 MiB/s, mem.loop 47.15 MiB/s, mem.tmpfs_write 35.9 MiB/s",
		"3 metrics, listed below");
	assert_non_null(strstr(s, "\nbifferboard memory (regressed):\n"
				  "  mem.memcpy 25.65 \u00b1 0.29 MiB/s -12.0% regression\n"
				  "  mem.loop 11.22 \u00b1 0.15 MiB/s +7.5% better\n"));
	TS_ASSERT_HAS(s, "login at 21.6s, 4/4 phases");
	/* columns line up: every row has STATUS at the same column */
	const char *hdr_status = strstr(s, "STATUS");
	size_t col = (size_t)(hdr_status - s);
	const char *row = strstr(s, "\nrpi1 ");
	assert_non_null(row);
	assert_true(!memcmp(row + 1 + col, "pass", 4) || !memcmp(row + 1 + col, "fail", 4));
	/* boards, then their tests, in natural order */
	assert_true(strstr(s, "\napu2 ") < strstr(s, "\nbifferboard "));
	assert_true(strstr(s, "\nbifferboard ") < row);
	free(s);
	s = report_full(&run, true);
	TS_ASSERT_HAS(s, "\033[32mpass\033[0m", "\033[1;31mfail\033[0m");
	free(s);

	/* the summary: failures with their last line and logs, a line per
	 * test that did not pass everywhere, the passes folded, a line per
	 * test x metric across the boards, the tally */
	s = report_summary(&run, false);
	assert_null(strchr(s, '\033'));
	TS_ASSERT_LACKS(s, "BOARD");
	TS_ASSERT_HAS(s, "\n10 passed, 1 failed, 1 error, 1 skipped, 1 regressed in 4m23s\n");
	assert_non_null(strstr(s, "failed: boot on rpi1: phase login not reached within 3m\n"
				  "  rpi1: last line (console): INIT: Entering runlevel: 2; logs rpi1/boot\n"));
	assert_non_null(strstr(s, "error: kernel on apu2: ssh 192.168.1.52:22: connection timed out "
				  "after 10s\n"));
	assert_non_null(strstr(s, "regressed: memory on bifferboard: mem.memcpy 25.65 \u00b1 0.29 MiB/s "
				  "-12.0% regression"));
	TS_ASSERT_HAS(s, "\nboot: 2 passed, 1 failed on rpi1\n",
		"\nkernel: 2 passed, 1 error on apu2\n", "\ncpuinfo passed on all 3 boards\n");
	/* every figure, across the boards, with the change as compare words it */
	TS_ASSERT_HAS(s, "\nfigures (against 20261201-165000):\n",
		"  cpuinfo mem.total: 23.54 GiB on rpi1\n");
	assert_non_null(strstr(s, "  memory mem.memcpy: median 107.7 MiB/s, 25.65 to 2435 MiB/s over 3 "
				  "boards; high apu2 2435 MiB/s; 20261202-165000 is 12.0% slower than "
				  "20261201-165000 on bifferboard; regression on 1 board\n"));
	assert_non_null(strstr(s, "  boot phase login: median 17.38 s, 13.1 to 21.65 s over "
				  "apu2,bifferboard\n"));
	free(s);
	s = report_summary(&run, true);
	TS_ASSERT_HAS(s, "\033[1;31mfailed\033[0m: boot on rpi1");
	free(s);

	run.interrupted = true;
	s = report_summary(&run, false);
	TS_ASSERT_HAS(s, "interrupted");
	free(s);
	run_result_release(&run);
}

static void test_summary_escaping(void **state)
{
	struct run_result run = { 0 };
	add_nasty(&run);
	char *s = report_summary(&run, false);
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 && c != '\n')
			fail_msg("control character 0x%02x in the summary", c);
	}
	assert_non_null(strstr(s, "<b>&\""));   /* plain text is not escaped, only cleaned */
	TS_ASSERT_HAS(s, "0 passed, 1 failed, 0 errors, 0 skipped");
	free(s);
	run_result_release(&run);
}

static void test_junit_structure(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	char *x = report_junit(&run);
	assert_non_null(strstr(x, "<testsuites name=\"orch nightly\" tests=\"13\" failures=\"2\" "
				  "errors=\"1\" time="));
	assert_non_null(strstr(x, "<testsuite name=\"bifferboard\" tests=\"4\" failures=\"1\" "
				  "errors=\"0\" skipped=\"0\""));
	TS_ASSERT_HAS(x, "timestamp=\"2026-12-02T16:50:00\"");
	assert_non_null(strstr(x, "<testsuite name=\"apu2\" tests=\"5\" failures=\"0\" errors=\"1\" "
				  "skipped=\"1\""));
	TS_ASSERT_HAS(x, "<testcase classname=\"orch.rpi1\" name=\"boot\" time=\"180.000\">",
		"<failure message=\"phase login not reached within 3m\" type=\"fail\">",
		"<error message=\"ssh 192.168.1.52:22: connection timed out",
		"<skipped message=\"skipped: server vm is not in this shard\"/>");
	assert_non_null(strstr(x, "<failure message=\"mem.memcpy 12.0% slower than baseline (29.1 MiB/s)\" "
				  "type=\"regression\">"));
	TS_ASSERT_HAS(x, "<property name=\"memory.metric.mem.memcpy\" value=\"25.65\"/>",
		"<property name=\"boot.phase.login\" value=\"21.65\"/>");
	/* without a run folder no log is named: none is known to exist */
	TS_ASSERT_LACKS(x, "stdout.log");
	free(x);
	run_result_release(&run);
}

/* Suites and testcases in natural order, whatever order the run ended in:
 * b2 before b10, t2 before t10. */
static void test_junit_natural_order(void **state)
{
	struct run_result run = { 0 };
	const char *order[][2] = { { "b10", "t10" }, { "b2", "t10" }, { "b10", "t2" }, { "b2", "t2" } };
	for (size_t i = 0; i < 4; i++)
		run_result_add(&run, order[i][0], order[i][1])->status = STATUS_PASS;
	char *x = report_junit(&run);
	const char *b2 = strstr(x, "<testsuite name=\"b2\""), *b10 = strstr(x, "<testsuite name=\"b10\"");
	assert_non_null(b2);
	assert_non_null(b10);
	assert_true(b2 < b10);
	const char *t2 = strstr(b2, "name=\"t2\""), *t10 = strstr(b2, "name=\"t10\"");
	assert_non_null(t2);
	assert_non_null(t10);
	assert_true(t2 < t10 && t10 < b10);
	free(x);
	run_result_release(&run);
}

/* With --baseline a regression fails its test (status fail, no message of
 * its own): JUnit says so as <failure type="regression"> with orch's words,
 * not as an empty failure; a test that failed by itself keeps its own. */
static void test_junit_baseline_regression(void **state)
{
	struct run_result run = { 0 };
	struct test_result *tr = run_result_add(&run, "host1", "drop");
	tr->status = STATUS_FAIL;
	tr->regressed = true;
	tr->comparison = xstrdup("rate 9.5% slower than baseline (100 -> 90.5 ops/s)");
	tr = run_result_add(&run, "host1", "broken");
	tr->status = STATUS_FAIL;
	tr->regressed = true;
	test_result_set_message(tr, "command exited with status 2");
	tr->comparison = xstrdup("rate 20.0% slower than baseline (100 -> 80 ops/s)");
	char *x = report_junit(&run);
	assert_non_null(strstr(x, "<failure message=\"rate 9.5% slower than baseline (100 -&gt; "
				  "90.5 ops/s)\" type=\"regression\">"));
	TS_ASSERT_LACKS(x, "<failure message=\"\"");
	TS_ASSERT_HAS(x, "<failure message=\"command exited with status 2\" type=\"fail\">");
	/* one failure element per testcase */
	size_t n = 0;
	for (const char *p = x; (p = strstr(p, "<failure")); p++)
		n++;
	assert_int_equal(n, 2);
	free(x);
	run_result_release(&run);
}

/* report.html is written a section at a time (a rack's page is megabytes):
 * the file holds exactly the page report_html_in() makes. */
static void test_html_written_in_sections(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	/* and a rack's worth of results with trends, so that the long sections
	 * (trends, details) are handed over in several pieces */
	for (int b = 0; b < 30; b++)
		for (int t = 0; t < 50; t++) {
			char board[16], test[16], id[32];
			snprintf(board, sizeof(board), "rack%d", b);
			snprintf(test, sizeof(test), "t%d", t);
			struct test_result *tr = run_result_add(&run, board, test);
			tr->status = STATUS_PASS;
			test_result_add_sample(tr, "v", "ops/s", true, t);
			struct metric_trend *tt = run_result_add_trend(&run, board, test, "v");
			for (int k = 0; k < 10; k++) {
				snprintf(id, sizeof(id), "2026120%d-000000", k);
				metric_trend_add_point(tt, id, NULL, t + k, k == 9);
			}
		}
	char *dir = ts_mkdtemp("report-html");
	char err[256];
	assert_int_equal(ts_run_folder_reports(&run, dir, err, sizeof(err)), 0);
	char *path = xasprintf("%s/report.html", dir);
	char *file = ts_read_file(path);
	char *page = report_html_in(&run, dir);
	assert_non_null(file);
	assert_true(strlen(page) > 1024 * 1024);
	assert_string_equal(file, page);
	TS_ASSERT_HAS(file, "</html>\n");
	TS_FREE(page, file, path);
	ts_rmrf_free(&dir);
	run_result_release(&run);
}

/* Trends people can size: two boards of one metric on one y
 * scale with ticks in the metric's unit, run labels on the x axis, the
 * baseline window and the step marked, the current point coloured by its
 * verdict, hover titles with units, the other points linked to their runs'
 * reports. */
static void test_html_trends_scaled(void **state)
{
	struct run_result run = { 0 };
	run.run_id = xstrdup("20261210-010000");
	run.baseline_kind = BASELINE_HISTORY;
	run.baseline_name = xstrdup("last 4 runs");
	static const char *const boards[] = { "b1", "b2" };
	static const double level[] = { 100, 400 };
	for (size_t b = 0; b < 2; b++) {
		struct test_result *tr = run_result_add(&run, boards[b], "mem");
		tr->status = STATUS_PASS;
		struct metric_result *m = test_result_add_sample(tr, "copy", "MiB/s", true,
								 b ? level[b] : 80);
		metric_result_summarize(m);
		m->change = b ? METRIC_CHANGE_NOISE : METRIC_CHANGE_REGRESSION;
		m->change_pct = b ? 0.2 : -20;
		m->verdict.n_baseline = 4;
		struct metric_trend *t = run_result_add_trend(&run, boards[b], "mem", "copy");
		for (size_t k = 0; k < 5; k++) {
			char id[32], label[32];
			snprintf(id, sizeof(id), "2026120%zu-010000", k + 1);
			snprintf(label, sizeof(label), "v1.%zu", k);
			bool cur = k == 4;
			metric_trend_add_point(t, cur ? "20261210-010000" : id, label,
					       cur && !b ? 80 : level[b] * (1 + 0.001 * (double)k), cur);
		}
	}
	char *h = report_html(&run);
	const char *sec = strstr(h, "<h2 id=\"trends\">");
	assert_non_null(sec);

	TS_ASSERT_HAS(sec, "<h3 class=\"trendmetric\">mem \u00b7 copy<small>80 MiB/s to 401.6 MiB/s");
	const char *s1 = strstr(sec, "<svg class=\"trend\"");
	assert_non_null(s1);
	const char *s2 = strstr(s1 + 1, "<svg class=\"trend\"");
	assert_non_null(s2);
	/* one scale: the same y ticks in both charts (unit named, no exponent) */
	const char *e1 = strstr(s1, "</svg>"), *e2 = strstr(s2, "</svg>");
	char *c1 = xstrndup(s1, (size_t)(e1 - s1)), *c2 = xstrndup(s2, (size_t)(e2 - s2));
	TS_ASSERT_HAS(c1, ">MiB/s</text>", "dominant-baseline=\"middle\">400</text>");
	TS_ASSERT_HAS(c2, "dominant-baseline=\"middle\">400</text>");
	TS_ASSERT_HAS(c1, "dominant-baseline=\"middle\">100</text>");
	TS_ASSERT_HAS(c2, "dominant-baseline=\"middle\">100</text>");
	/* x labels, the window of 4 runs, the step before the current run */
	TS_ASSERT_HAS(c1, ">v1.0</text>", ">v1.4</text>", "<title>baseline: 4 runs</title>",
		"class=\"step\"");
	/* colour by verdict: b1's current point red, b2's grey */
	TS_ASSERT_HAS(c1, "fill=\"#cf222e\" class=\"current\"");
	TS_ASSERT_HAS(c2, "fill=\"#afb8c1\" class=\"current\"");
	/* hover titles with units; earlier points link to their runs */
	TS_ASSERT_HAS(c1, "<title>v1.4 (20261210-010000) (this run): 80 MiB/s</title>");
	TS_ASSERT_HAS(c2, "<title>v1.0 (20261201-010000): 400 MiB/s</title>");
	TS_ASSERT_HAS(c1, "<a href=\"../20261201-010000/report.html\">");
	TS_ASSERT_LACKS(c1, "href=\"../20261210-010000/");
	/* the verdict beside the board's name */
	TS_ASSERT_HAS(sec, "b1 <span class=\"chg worse\">-20.0% regression</span>");
	TS_FREE(c1, c2, h);
	run_result_release(&run);
}

static void test_junit_validates(void **state)
{
	if (!have_xmllint()) {
		ts_skip("needs xmllint (apt-get install libxml2-utils)");
	}
	struct run_result run = { 0 };
	sample_run_fill(&run);
	add_nasty(&run);
	char *x = report_junit(&run);
	char *out = NULL;
	int st = xmllint(x, "--schema '" ORCH_JUNIT_XSD "'", &out);
	if (st != 0)
		fail_msg("junit.xml does not validate:\n%s\n%s", out, x);
	free(out);

	/* the escaping happened, and the checker can fail */
	TS_ASSERT_LACKS(x, "<b>");
	TS_ASSERT_HAS(x, "name=\"&lt;b&gt;&amp;&quot;\"",
		"classname=\"orch.&lt;b&gt;&amp;&quot;\"");
	assert_null(strchr(x, '\x01'));
	assert_null(strchr(x, '\x1b'));
	TS_ASSERT_LACKS(x, "\xff");
	struct strbuf broken = STRBUF_INIT;
	strbuf_puts(&broken, x);
	char *p = strstr(broken.buf, "<testcase ");
	memcpy(p, "<testcaze ", 10);
	st = xmllint(strbuf_str(&broken), "--schema '" ORCH_JUNIT_XSD "'", &out);
	assert_int_not_equal(st, 0);
	free(out);
	strbuf_release(&broken);
	free(x);

	/* an empty run is a valid document too */
	struct run_result empty = { 0 };
	x = report_junit(&empty);
	assert_int_equal(xmllint(x, "--schema '" ORCH_JUNIT_XSD "'", &out), 0);
	TS_FREE(out, x);
	run_result_release(&run);
}

static void test_html(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	add_nasty(&run);
	char *h = report_html(&run);
	assert_true(strncmp(h, "<!DOCTYPE html>", 15) == 0);
	/* self-contained: no URL at all, no script, no external resource */
	TS_ASSERT_LACKS(h, "http://", "https://", "//", "<script", "src=", "<link", "@import");
	/* the parts */
	TS_ASSERT_HAS(h, "<h1>nightly</h1>");
	assert_non_null(strstr(h, "exit 3"));   /* apu2 errored */
	TS_ASSERT_HAS(h, "20261202-165000", "ci-lab-1", "2026-12-02 16:50:00 UTC", "4m23s",
		"id=\"boot\"", "id=\"metrics\"", "id=\"regressions\"", "vs baseline", "<svg",
		"href=\"rpi1/boot/boot.log\"", "href=\"bifferboard/memory/stdout.log\"",
		"login not reached");
	/* the grid first, then regressions and improvements, timeline, charts */
	const char *grid = strstr(h, "id=\"grid\""), *reg = strstr(h, "id=\"regressions\"");
	assert_true(grid && reg && grid < reg && reg < strstr(h, "id=\"boot\"") &&
		    strstr(h, "id=\"boot\"") < strstr(h, "id=\"metrics\""));
	TS_ASSERT_HAS(h, "<h2 id=\"regressions\">Against 20261201-165000");
	assert_non_null(strstr(h, "<li>memory.mem.memcpy: 20261202-165000 is 12.0% slower than "
				  "20261201-165000 on bifferboard; regression on 1 board</li>"));
	TS_ASSERT_HAS(h, "mem.memcpy <span class=\"chg worse\">-12.0% regression</span>",
		"mem.loop <span class=\"chg better\">+7.5% better</span>");
	/* and per metric in the details, within noise too */
	assert_non_null(strstr(h, "<span>mem.tmpfs_write</span> 8.55 \u00b1 0.29 MiB/s "
				  "<span class=\"chg noise\">+0.8% within noise</span>"));
	assert_null(strstr(h, "mem.tmpfs_write <span class=\"chg"));   /* within noise */
	/* bars coloured by the metric's change; sizes scaled, and judged as
	 * compare and --baseline judge them (no "for information" caption) */
	TS_ASSERT_HAS(h, "fill=\"#1a7f37\"", "fill=\"#afb8c1\"",
		"<b>mem.total</b><span>KiB \u00b7 higher is better");
	TS_ASSERT_LACKS(h, "for information");
	TS_ASSERT_HAS(h, "23.54 GiB");
	/* escaping */
	TS_ASSERT_LACKS(h, "<b>&");
	TS_ASSERT_HAS(h, "&lt;b&gt;&amp;&quot;");
	assert_null(strchr(h, '\x01'));
	assert_null(strchr(h, '\x1b'));
	TS_ASSERT_LACKS(h, "\xff");
	/* a stored log_dir cannot climb out or become absolute: percent-encoded */
	TS_ASSERT_HAS(h, "href=\"../../etc/%3Cb%3E%26%22/t%201/");
	/* well-formed enough for an XML parser (every tag closed, entities right) */
	if (have_xmllint()) {
		char *out = NULL;
		const char *body = strstr(h, "<html");
		if (xmllint(body, "", &out) != 0)
			fail_msg("report.html is not well-formed:\n%s", out);
		free(out);
	}
	free(h);
	run_result_release(&run);
}

static void test_write_all(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	char *dir = ts_mkdtemp("report-all");
	ts_run(NULL, "mkdir -p '%s/rpi1/boot' && touch '%s/rpi1/boot/boot.log' "
		     "'%s/rpi1/boot/console-2.log'", dir, dir, dir);
	char err[512] = "";
	assert_int_equal(ts_run_folder_reports(&run, dir, err, sizeof(err)), 0);
	char *path = xasprintf("%s/summary.txt", dir);
	char *s = ts_read_file(path);
	assert_non_null(s);
	assert_null(strchr(s, '\033'));
	TS_ASSERT_HAS(s, "10 passed");
	TS_FREE(s, path);
	path = xasprintf("%s/junit.xml", dir);
	assert_true(ts_file_exists(path));
	free(path);
	path = xasprintf("%s/report.html", dir);
	s = ts_read_file(path);
	/* with the folder at hand, the links are the files that are there */
	TS_ASSERT_HAS(s, "href=\"rpi1/boot/console-2.log\"");
	TS_ASSERT_LACKS(s, "href=\"rpi1/boot/stdout.log\"");
	TS_FREE(s, path);
	assert_int_equal(ts_run_folder_reports(&run, "/nonexistent/dir", err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "/nonexistent/dir");
	ts_rmrf_free(&dir);
	run_result_release(&run);
}

/* A failed test's JUnit with its logs at hand: the failure text names the
 * first line that says what failed (not the last stderr line) and holds
 * the end of both logs; <system-out>/<system-err> carry the output, cut
 * with a note past 64 KiB; valid against the junit-10 structure and read
 * back by python3-junitparser when it is installed. */
static void test_junit_with_logs(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("logs");
	struct test_result *tr = run_result_add(&run, "b1", "unit");
	tr->status = STATUS_FAIL;
	tr->log_dir = xstrdup("b1/unit");
	test_result_set_message(tr, "exited with status 3: cleanup done");
	test_result_add_sample(tr, "t.ms", "ms", false, 12);
	struct test_result *ok = run_result_add(&run, "b1", "quiet");
	ok->status = STATUS_PASS;
	ok->log_dir = xstrdup("b1/quiet");

	char *dir = ts_mkdtemp("junit-logs");
	ts_run(NULL, "mkdir -p '%s/b1/unit' '%s/b1/quiet' && cd '%s/b1/unit' && "
		     "{ echo 'running 3 checks'; echo 'check_sum: Assertion `a == b` failed.'; "
		     "for i in $(seq 30); do echo \"err line $i\"; done; echo 'cleanup done'; } >stderr.log && "
		     "{ for i in $(seq 40); do echo \"out line $i\"; done; } >stdout.log && "
		     "head -c 100000 /dev/zero | tr '\\0' x | fold -w 100 >'%s/b1/quiet/stdout.log'",
	       dir, dir, dir, dir);
	char *x = report_junit_in(&run, dir);
	char *failure = xstrndup(strstr(x, "<failure"), (size_t)(strstr(x, "</failure>") -
								 strstr(x, "<failure")));
	TS_ASSERT_HAS(failure, "first failing line: check_sum: Assertion `a == b` failed.",
		"--- last 20 lines of b1/unit/stderr.log ---\nerr line 12\n");
	TS_ASSERT_LACKS(failure, "err line 11\n");
	TS_ASSERT_HAS(failure, "--- last 20 lines of b1/unit/stdout.log ---\nout line 21\n");
	free(failure);
	TS_ASSERT_HAS(x, "<system-err>running 3 checks", "<system-out>t.ms: 12",
		"[orch: the first ", "the whole log is b1/quiet/stdout.log]");
	assert_null(strstr(x, "b1/quiet/stderr.log"));   /* it does not exist */
	assert_true(strlen(x) < 200 * 1024);
	assert_null(strstr(x, "<properties>\n        <property"));  /* none inside a testcase */
	TS_ASSERT_HAS(x, "<property name=\"unit.metric.t.ms\" value=\"12\"/>");

	if (have_xmllint()) {
		char *out = NULL;
		if (xmllint(x, "--schema '" ORCH_JUNIT_XSD "'", &out) != 0)
			fail_msg("junit.xml does not validate:\n%s", out);
		free(out);
	}
	/* Debian's python3 (python3-junitparser), not another one first in PATH */
	if (ts_run(NULL, "/usr/bin/python3 -c 'import junitparser' 2>/dev/null") == 0) {
		free(ts_write_file(dir, "junit.xml", x));
		char *out = NULL;
		int st = ts_run(&out, "/usr/bin/python3 -c '"
				      "import junitparser, sys\n"
				      "x = junitparser.JUnitXml.fromfile(sys.argv[1])\n"
				      "for s in x:\n"
				      "  for c in s:\n"
				      "    print(s.name, c.name, [r._tag for r in c.result], len(c.system_out or \"\"))\n"
				      "    for r in c.result: print(\"MSG\", r.message)\n"
				      "' '%s/junit.xml'", dir);
		if (st != 0)
			fail_msg("junitparser could not read junit.xml: %s", out);
		TS_ASSERT_HAS(out, "b1 unit ['failure']", "b1 quiet []");
		assert_non_null(strstr(out, "MSG exited with status 3: cleanup done; first failing line: "
					    "check_sum: Assertion `a == b` failed."));
		free(out);
	} else {
		fprintf(stderr, "note: python3-junitparser not installed; its reading is not checked\n");
	}
	free(x);
	ts_rmrf_free(&dir);
	run_result_release(&run);
}

static void expect_metric(double v, const char *unit, const char *want)
{
	struct metric_result m = { .unit = (char *)(uintptr_t)unit, .median = v };
	struct strbuf sb = STRBUF_INIT;
	report_fmt_metric(&sb, &m);
	if (strcmp(strbuf_str(&sb), want) != 0)
		fail_msg("%g %s shown as '%s', not '%s'", v, unit, strbuf_str(&sb), want);
	strbuf_release(&sb);
}

/* Numbers people read (util/valfmt.h): binary stays binary, decimal
 * decimal, 4 significant digits, counts in the unit they were declared. */
static void test_scaled_values(void **state)
{
	expect_metric(24683568, "KiB", "23.54 GiB");
	expect_metric(2000000000, "ops/s", "2000000000 ops/s");
	expect_metric(2000000000, "", "2000000000");
	expect_metric(950, "Mbit/s", "950 Mbit/s");
	expect_metric(1500, "Mbit/s", "1.5 Gbit/s");
	expect_metric(25.65, "MiB/s", "25.65 MiB/s");
	expect_metric(3000, "MiB/s", "2.93 GiB/s");
	expect_metric(2048000, "kB", "1.953 GiB");
	expect_metric(452, "MB/s", "452 MB/s");
	expect_metric(12, "ms", "12 ms");
	expect_metric(45000, "ms", "45000 ms");
	expect_metric(7020.9, "BogoMIPS", "7021 BogoMIPS");
	expect_metric(55.5, "%", "55.5 %");
}

static void test_empty_run(void **state)
{
	struct run_result run = { 0 };
	char *s = report_summary(&run, true);
	TS_ASSERT_HAS(s, "0 passed, 0 failed, 0 errors, 0 skipped");
	free(s);
	s = report_html(&run);
	TS_ASSERT_HAS(s, "</html>");
	TS_ASSERT_LACKS(s, "<svg");
	free(s);
}

/* The verdict across the boards in every output of the run:
 * six boards against a baseline, one of them measured once. */
static void test_verdict_everywhere(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("wg");
	run.label = xstrdup("v2");
	run.run_id = xstrdup("20261203-010000");
	run.baseline = xstrdup("runs/wg/v1");
	static const struct {
		const char *board;
		double pct;
		enum metric_change change;
		size_t n;
	} boards[] = {
		{ "client1", 2.0, METRIC_CHANGE_NOISE, 5 },
		{ "client2", 31.1, METRIC_CHANGE_BETTER, 5 },
		{ "client3", -17.04, METRIC_CHANGE_REGRESSION, 5 },
		{ "client4", 0.0, METRIC_CHANGE_SAME, 5 },
		{ "client5", -3.0, METRIC_CHANGE_WORSE, 5 },
		{ "client6", 4.2, METRIC_CHANGE_NOT_JUDGED, 1 },
	};
	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		struct test_result *tr = run_result_add(&run, boards[i].board, "iperf");
		tr->status = boards[i].change == METRIC_CHANGE_REGRESSION ? STATUS_FAIL : STATUS_PASS;
		tr->regressed = boards[i].change == METRIC_CHANGE_REGRESSION;
		struct metric_result *m = test_result_add_sample(tr, "tput", "Mbit/s", true, 900);
		for (size_t k = 1; k < boards[i].n; k++)
			m = test_result_add_sample(tr, "tput", "Mbit/s", true, 900 + (double)k);
		assert_non_null(m);
		metric_result_summarize(m);
		m->change = boards[i].change;
		m->change_pct = boards[i].pct;
		if (boards[i].change == METRIC_CHANGE_REGRESSION) {
			m->verdict.baseline = 1087.5;
			m->verdict.threshold_pct = 5;
			m->verdict.p = 0.00123;
		}
		if (boards[i].change == METRIC_CHANGE_NOT_JUDGED)
			m->verdict.reason = xstrdup("one sample");
	}
	const char *line = "iperf.tput: v2 ranges from 17.0% slower (client3) to 31.1% faster "
			   "(client2) than v1 over 6 boards; regression on 1 board; not judged: one "
			   "sample on 1 board";
	char *s = report_summary(&run, false);
	/* on the test x metric's own line, after its figures */
	if (!strstr(s, line + strlen("iperf.tput: ")))
		fail_msg("summary.txt has no range line:\n%s", s);
	TS_ASSERT_HAS(s, "\nfigures (against v1):\n",
		"  iperf tput: median 902 Mbit/s, 900 to 902 Mbit/s over 6 boards; ");
	/* the regression with its evidence */
	assert_non_null(strstr(s, "regressed: iperf on client3: tput 902 \u00b1 1.6 Mbit/s -17.0% "
				  "regression (baseline 1.088 Gbit/s, threshold 5%, p 0.00123)"));
	free(s);
	char *x = report_junit(&run);
	assert_non_null(strstr(x, line));
	assert_non_null(strstr(x, "tput: 900 Mbit/s (1 sample, higher is better) against the baseline: "
				  "+4.2% not judged: one sample"));
	free(x);
	char *h = report_html(&run);
	assert_non_null(strstr(h, line));
	/* the bars coloured by each board's verdict */
	assert_non_null(strstr(h, "fill=\"#cf222e\""));   /* regression */
	assert_non_null(strstr(h, "fill=\"#1a7f37\""));   /* better */
	assert_non_null(strstr(h, "fill=\"#e8868b\""));   /* worse, within threshold */
	assert_non_null(strstr(h, "fill=\"#d4a72c\""));   /* not judged */
	TS_ASSERT_HAS(h, "<span class=\"chg noise\">+4.2% not judged: one sample</span>");
	free(h);
	run_result_release(&run);
}

/* Against the history a range line names the runs the judge compared
 * with: "the last 10 runs", or after an acknowledged change "the 4 runs
 * since the acknowledged change of RUN"; a change of 0 that was not judged
 * (too few runs) reads "shows no change against", never "is no change
 * than". The same words in summary.txt, junit.xml and report.html. */
static void test_history_words(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("nightly");
	run.label = xstrdup("n7");
	run.run_id = xstrdup("20261204-070000");
	run.baseline_kind = BASELINE_HISTORY;
	run.baseline_name = xstrdup("the last 10 runs");
	static const struct {
		const char *test, *metric, *ack;
		double pct;
		enum metric_change change;
		size_t n_runs;
	} cases[] = {
		{ "idle", "ops", NULL, 0.0, METRIC_CHANGE_NOT_JUDGED, 10 },
		{ "mem", "copy", "20261204-060000", 1.5, METRIC_CHANGE_NOISE, 4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_result *tr = run_result_add(&run, "here", cases[i].test);
		tr->status = STATUS_PASS;
		struct metric_result *m = NULL;
		for (int k = 0; k < 3; k++)
			m = test_result_add_sample(tr, cases[i].metric, "MiB/s", true, 100 + k);
		metric_result_summarize(m);
		m->change = cases[i].change;
		m->change_pct = cases[i].pct;
		m->verdict.n_baseline = cases[i].n_runs;
		m->verdict.ack_run = cases[i].ack ? xstrdup(cases[i].ack) : NULL;
	}
	const char *lines[] = {
		"idle.ops: n7 shows no change against the last 10 runs on here",
		"mem.copy: n7 is 1.5% faster than the 4 runs since the acknowledged change of "
		"20261204-060000 on here, within noise",
	};
	char *out[] = { report_summary(&run, false), report_junit(&run), report_html(&run) };
	for (size_t o = 0; o < 3; o++) {
		for (size_t i = 0; i < 2; i++)
			if (!strstr(out[o], lines[i]))
				fail_msg("output %zu lacks '%s':\n%s", o, lines[i], out[o]);
		assert_null(strstr(out[o], "no change than"));
		free(out[o]);
	}
	char *s = report_summary(&run, false);
	TS_ASSERT_HAS(s, "\nfigures (against the last 10 runs):\n");
	free(s);
	run_result_release(&run);
}

/* A test on one board whose first figure does not fit on the line that
 * names the test starts the figures on the next line, and the line that
 * names it ends with its colon, not with a comma after it; a later
 * figure that does not fit ends its line with the comma. */
static void test_summary_wraps_first_figure(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("nightly");
	run.run_id = xstrdup("20261204-070000");
	struct test_result *tr = run_result_add(&run, "here", "thru");
	tr->status = STATUS_PASS;
	char name[96];
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	metric_result_summarize(test_result_add_sample(tr, name, "MiB/s", true, 100));
	name[0] = 'y';
	metric_result_summarize(test_result_add_sample(tr, name, "MiB/s", true, 200));
	char *s = report_summary(&run, false);
	TS_ASSERT_HAS(s, "\n  thru on here:\n    xxx", "100 MiB/s,\n    yxx");
	TS_ASSERT_LACKS(s, "here:,");
	free(s);
	run_result_release(&run);
}

TS_MAIN(NULL, NULL, test_summary, test_history_words, test_summary_wraps_first_figure,
	test_summary_escaping, test_junit_structure, test_junit_natural_order, test_junit_baseline_regression,
	test_html_written_in_sections, test_html_trends_scaled,
	test_junit_validates, test_html, test_write_all, test_junit_with_logs, test_scaled_values,
	test_empty_run, test_verdict_everywhere)
