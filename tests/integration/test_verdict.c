/*
 * Verdicts through the real binary: pairs of runs with known samples, made
 * by `orch run` on the controller itself (a local board: nothing else is
 * started), then judged by `orch compare` and by `orch run --baseline`.
 *   identical reruns at n=1 and at n=5: no regression, exit 0
 *   a 10% drop at n=5 with an outlier: a regression, exit 1
 *   a latency in ms (no better:) that worsens: a regression, exit 1
 *   kB figures as /proc/meminfo writes them: no phantom change
 *   repeat: auto says whether it converged, the spread and why it stopped
 * Each repeat prints the next line of a values file.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char *dir;   /* scratch: inventory, scenarios, values, runs */

static int setup(void **state)
{
	dir = ts_mkdtemp_with("verdict", "rack.yaml", "boards:\n  here: { local: true }\n");
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

#define METRICS \
	"    metrics:\n" \
	"      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n" \
	"      - { name: net.latency, regex: 'lat=([0-9.]+)', unit: ms }\n" \
	"      - { name: MemFree, regex: 'MemFree: *([0-9.]+) kB', unit: kB }\n"

/*
 * Runs scenario NAME once per line of values (repeat = number of lines),
 * with extra options; returns the exit code, the output in *out (may be
 * NULL) and the run folder in *run (caller frees; may be NULL).
 */
static int run_repeat(const char *name, const char *repeat, const char *values,
		      const char *metrics, const char *extra, char **out, char **run);

static int run_values(const char *name, const char *values, const char *metrics,
		      const char *extra, char **out, char **run)
{
	int lines = 0;
	for (const char *p = values; *p; p++)
		lines += *p == '\n';
	char repeat[16];
	snprintf(repeat, sizeof(repeat), "%d", lines);
	return run_repeat(name, repeat, values, metrics, extra, out, run);
}

/* As run_values, with the test's repeat: written as given. */
static int run_repeat(const char *name, const char *repeat, const char *values,
		      const char *metrics, const char *extra, char **out, char **run)
{
	free(ts_write_file(dir, "values", values));
	free(ts_write_file(dir, "count", "0\n"));
	char *yaml = xasprintf(
		"name: %s\ninventory: rack.yaml\nboards: [here]\ntests:\n"
		"  - name: probe\n    repeat: %s\n    run: |\n"
		"      n=$(( $(cat '%s/count') + 1 )); echo $n > '%s/count'; sed -n \"${n}p\" '%s/values'\n"
		"%s",
		name, repeat, dir, dir, dir, metrics ? metrics : METRICS);
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(dir, file, yaml);
	char *output = NULL;
	int code = ts_run(&output, "cd '%s' && NO_COLOR=1 %s run %s -q -o runs %s", dir, ORCH_BIN,
			  path, extra ? extra : "");
	if (run) {
		char *link = xasprintf("%s/runs/%s/latest", dir, name);
		char real[PATH_MAX];
		*run = xstrdup(realpath(link, real) ? real : "(no run folder)");
		free(link);
	}
	if (out)
		*out = output;
	else
		free(output);
	TS_FREE(path, file, yaml);
	return code;
}

static int compare(const char *a, const char *b, const char *extra, char **out)
{
	return ts_run(out, "NO_COLOR=1 %s compare %s %s %s 2>&1", ORCH_BIN, extra ? extra : "", a, b);
}

/* The verdict compare --format json gives metric name. */
static char *verdict_of(const char *a, const char *b, const char *name)
{
	char *out = NULL;
	ts_run(&out, "%s compare --format json %s %s 2>/dev/null", ORCH_BIN, a, b);
	json_t *j = json_loads(out, 0, NULL);
	if (!j)
		fail_msg("not JSON: %s", out);
	char *v = NULL;
	json_t *rows = json_object_get(j, "rows");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		const char *n = json_string_value(json_object_get(row, "name"));
		if (n && strcmp(n, name) == 0)
			v = xstrdup(json_string_value(json_object_get(row, "verdict")));
	}
	json_decref(j);
	free(out);
	assert_non_null(v);
	return v;
}

#define ASSERT_VERDICT(a, b, name, want) do { \
	char *v_ = verdict_of(a, b, name); \
	if (strcmp(v_, want) != 0) \
		fail_msg("%s: %s, want %s", name, v_, want); \
	free(v_); \
} while (0)

/* Identical reruns at n=1: a 7% wobble is not judged (one sample a side),
 * and said so in compare, the summary, JUnit and the HTML report. */
static void test_identical_reruns_n1(void **state)
{
	char *a, *b, *out;
	assert_int_equal(run_values("n1", "rate=100 lat=10.0 MemFree: 2048000 kB\n", NULL, NULL,
				    NULL, &a), 0);
	assert_int_equal(run_values("n1", "rate=93 lat=10.8 MemFree: 2047000 kB\n", NULL,
				    "--baseline latest", &out, &b), 0);
	TS_ASSERT_HAS(out, "not judged");
	free(out);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	TS_ASSERT_HAS(out, "7.0% slower, not judged (one sample a side)", "0 regressions",
		"--judge-single");
	free(out);
	static const char *const files[] = { "summary.txt", "junit.xml", "report.html" };
	for (size_t i = 0; i < 3; i++) {
		char *text = ts_read_in(b, files[i]);
		if (!strstr(text, "not judged"))
			fail_msg("%s does not say 'not judged'", files[i]);
		free(text);
	}
	/* opted in, the threshold alone judges one against one */
	assert_int_equal(compare(a, b, "--judge-single", &out), 1);
	TS_FREE(out, a, b);
}

/* Identical reruns at n=5: samples wobbling by 2% are no regression. */
static void test_identical_reruns_n5(void **state)
{
	char *a, *b, *out;
	const char *va = "rate=100.0 lat=10.0 MemFree: 2048000 kB\n"
			 "rate=102.0 lat=10.2 MemFree: 2048100 kB\n"
			 "rate=98.5 lat=9.9 MemFree: 2047900 kB\n"
			 "rate=101.0 lat=10.1 MemFree: 2048000 kB\n"
			 "rate=99.0 lat=9.8 MemFree: 2048050 kB\n";
	const char *vb = "rate=98.0 lat=10.2 MemFree: 2047950 kB\n"
			 "rate=101.5 lat=9.9 MemFree: 2048000 kB\n"
			 "rate=99.5 lat=10.1 MemFree: 2048100 kB\n"
			 "rate=100.5 lat=10.0 MemFree: 2047900 kB\n"
			 "rate=97.5 lat=10.3 MemFree: 2048000 kB\n";
	assert_int_equal(run_values("n5", va, NULL, NULL, NULL, &a), 0);
	assert_int_equal(run_values("n5", vb, NULL, "--baseline latest", &out, &b), 0);
	free(out);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	TS_ASSERT_HAS(out, "0 regressions", " 0 not judged,");
	free(out);
	/* the same samples again: no change at all */
	char *c;
	assert_int_equal(run_values("n5", vb, NULL, "--baseline latest", NULL, &c), 0);
	assert_int_equal(compare(b, c, "--only-changes", &out), 0);
	TS_ASSERT_HAS(out, "no changes");
	TS_FREE(out, a, b, c);
}

/* A 10% drop at n=5, one sample back at A's level: still a regression. */
static void test_drop_with_outlier(void **state)
{
	char *a, *b, *out;
	const char *va = "rate=100 lat=10.0\nrate=101 lat=10.1\nrate=99 lat=9.9\n"
			 "rate=100.5 lat=10.0\nrate=99.5 lat=10.0\n";
	const char *vb = "rate=90 lat=10.0\nrate=91 lat=10.1\nrate=89 lat=9.9\n"
			 "rate=90.5 lat=10.0\nrate=101 lat=10.0\n";
	const char *metrics = "    metrics:\n"
			      "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n"
			      "      - { name: net.latency, regex: 'lat=([0-9.]+)', unit: ms }\n";
	assert_int_equal(run_values("outlier", va, metrics, NULL, NULL, &a), 0);
	assert_int_equal(run_values("outlier", vb, metrics, "--baseline latest", &out, &b), 1);
	TS_ASSERT_HAS(out, "net.rate 9.5% slower than baseline");
	free(out);
	/* JUnit names it a regression, in orch's words (it was an empty failure) */
	char *junit = ts_read_in(b, "junit.xml");
	TS_ASSERT_HAS(junit, "<failure message=\"net.rate 9.5% slower than baseline",
		"type=\"regression\">");
	free(junit);
	assert_int_equal(compare(a, b, NULL, &out), 1);
	TS_ASSERT_HAS(out, "1 regression,");
	free(out);
	ASSERT_VERDICT(a, b, "net.rate", "regression");
	char *json = NULL;
	ts_run(&json, "%s compare --format json %s %s 2>/dev/null", ORCH_BIN, a, b);
	TS_ASSERT_HAS(json, "\"outliers_dropped\"");
	free(json);
	/* the wild sample far above: the same */
	char *c;
	const char *vc = "rate=90 lat=10.0\nrate=91 lat=10.1\nrate=89 lat=9.9\n"
			 "rate=90.5 lat=10.0\nrate=150 lat=10.0\n";
	assert_int_equal(run_values("outlier", vc, metrics, NULL, NULL, &c), 0);
	ASSERT_VERDICT(a, c, "net.rate", "regression");
	TS_FREE(a, b, c);
}

/* A latency in ms with no better: is lower-is-better: 10 -> 12 ms is 20%
 * slower, a regression; validate warns only where nothing says. */
static void test_latency_worsens(void **state)
{
	char *a, *b, *out;
	const char *va = "rate=100 lat=10.0\nrate=100 lat=10.1\nrate=100 lat=9.9\n"
			 "rate=100 lat=10.05\nrate=100 lat=9.95\n";
	const char *vb = "rate=100 lat=12.0\nrate=100 lat=12.1\nrate=100 lat=11.9\n"
			 "rate=100 lat=12.05\nrate=100 lat=11.95\n";
	const char *metrics = "    metrics:\n"
			      "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n"
			      "      - { name: net.latency, regex: 'lat=([0-9.]+)', unit: ms }\n"
			      "      - { name: rtt, regex: 'lat=([0-9.]+)' }\n"
			      "      - { name: wake, regex: 'lat=([0-9.]+)', unit: usec }\n";
	assert_int_equal(run_values("latency", va, metrics, NULL, NULL, &a), 0);
	assert_int_equal(run_values("latency", vb, metrics, "--baseline latest", &out, &b), 1);
	TS_ASSERT_HAS(out, "net.latency 20.0% slower than baseline (10 -> 12 ms)");
	free(out);
	assert_int_equal(compare(a, b, NULL, &out), 1);
	/* net.latency, rtt (by name) and wake (usec, as cyclictest prints it) */
	TS_ASSERT_HAS(out, "3 regressions,");
	const char *wake = strstr(out, "probe.wake: ");
	assert_non_null(wake);
	const char *slower = strstr(wake, " is 20.0% slower than ");
	assert_true(slower && slower < strchr(wake, '\n'));
	free(out);
	ASSERT_VERDICT(a, b, "net.latency", "regression");
	ASSERT_VERDICT(a, b, "rtt", "regression");
	ASSERT_VERDICT(a, b, "net.rate", "same");
	/* the other way round it is faster */
	ASSERT_VERDICT(b, a, "net.latency", "better");

	/* validate: a metric nothing gives a direction for is warned about */
	free(ts_write_file(dir, "dir.yaml",
			   "name: dir\ninventory: rack.yaml\ntests:\n  - name: t\n    run: echo\n"
			   "    metrics:\n"
			   "      - { name: widgets, regex: 'w=([0-9]+)' }\n"
			   "      - { name: net.latency, regex: 'l=([0-9]+)', unit: ms }\n"
			   "      - { name: score, regex: 's=([0-9]+)', better: higher }\n"));
	assert_int_equal(ts_run(&out, "cd '%s' && %s validate dir.yaml", dir, ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "dir.yaml:7:9: warning: metric 'widgets'");
	TS_ASSERT_LACKS(out, "'net.latency'", "'score'");
	TS_FREE(out, a, b);
}

/* /proc/meminfo's kB is 1024 bytes: 2048000 kB is 2000 MiB exactly, in an
 * expectation and against a run that gave the figure in MiB. */
static void test_kb_from_meminfo(void **state)
{
	char *a, *b, *out;
	const char *va = "MemFree:        2048000 kB\nMemFree:        2048000 kB\n"
			 "MemFree:        2048000 kB\n";
	const char *ma = "    expect: { MemFree: { min: 2000MiB, max: 2000MiB } }\n"
			 "    metrics:\n"
			 "      - { name: MemFree, regex: 'MemFree: *([0-9.]+) kB', unit: kB }\n";
	const char *vb = "MemFree: 2000 MiB\nMemFree: 2000 MiB\nMemFree: 2000 MiB\n";
	const char *mb = "    metrics:\n"
			 "      - { name: MemFree, regex: 'MemFree: *([0-9.]+) MiB', unit: MiB }\n";
	assert_int_equal(run_values("meminfo", va, ma, NULL, &out, &a), 0);
	free(out);
	assert_int_equal(run_values("meminfo", vb, mb, "--baseline latest", &out, &b), 0);
	free(out);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	TS_ASSERT_HAS(out, "no change (B in MiB, converted)");
	/* the line above the table says it in English ("is no change than" before) */
	TS_ASSERT_LACKS(out, "is no change than");
	TS_ASSERT_HAS(out, " is the same as ");
	free(out);
	ASSERT_VERDICT(a, b, "MemFree", "same");

	/* the controller's own /proc/meminfo, read twice: MemTotal does not move */
	const char *real = "    metrics:\n"
			   "      - { name: MemTotal, regex: 'MemTotal: *([0-9]+) kB', unit: kB }\n";
	char *c, *d;
	char *yaml = xasprintf("name: real2\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			       "  - name: mem\n    repeat: 3\n    run: cat /proc/meminfo\n%s", real);
	free(ts_write_file(dir, "real2.yaml", yaml));
	free(yaml);
	assert_int_equal(ts_run(NULL, "cd '%s' && %s run real2.yaml -q -o runs", dir, ORCH_BIN), 0);
	char *link = xasprintf("%s/runs/real2/latest", dir);
	char real1[PATH_MAX];
	c = xstrdup(realpath(link, real1));
	assert_int_equal(ts_run(NULL, "cd '%s' && %s run real2.yaml -q -o runs --baseline latest",
				dir, ORCH_BIN), 0);
	d = xstrdup(realpath(link, real1));
	ASSERT_VERDICT(c, d, "MemTotal", "same");
	TS_FREE(link, c, d, a, b);
}

/* A unit that does not convert (kB -> ops/s) is "unit changed", not "the
 * same": B is shown in its own unit, and the line above the table says it
 * was not compared (it read "B is the same as A" with B's 2000 in kB). */
static void test_unit_changed(void **state)
{
	char *a, *b, *out;
	const char *va = "MemFree: 2048000 kB\nMemFree: 2048000 kB\nMemFree: 2048100 kB\n";
	const char *ma = "    metrics:\n"
			 "      - { name: MemFree, regex: 'MemFree: *([0-9.]+)', unit: kB }\n";
	const char *vb = "MemFree: 2000\nMemFree: 2000\nMemFree: 2001\n";
	const char *mb = "    metrics:\n"
			 "      - { name: MemFree, regex: 'MemFree: *([0-9.]+)', unit: ops/s }\n";
	assert_int_equal(run_values("unitch", va, ma, NULL, NULL, &a), 0);
	assert_int_equal(run_values("unitch", vb, mb, NULL, NULL, &b), 0);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	TS_ASSERT_HAS(out, "unit changed (kB -> ops/s)", " 2000 ops/s ",
		"MemFree: unit changed on 1 board, not compared");
	TS_ASSERT_LACKS(out, "is the same as");
	TS_ASSERT_HAS(out, "1 unit changed,");
	TS_FREE(out, a, b);
}

/* A run stopped before its end (Ctrl-C, or killed and rebuilt by orch
 * report) has only some tests: compare says so above the table and in
 * --format json, instead of a silent "N only in A". */
static void test_compare_interrupted(void **state)
{
	char *a, *b, *out;
	const char *m = "    metrics:\n"
			"      - { name: ops, regex: 'ops=([0-9.]+)', unit: ops/s }\n";
	assert_int_equal(run_values("partial", "ops=10\nops=11\n", m, NULL, NULL, &a), 0);
	assert_int_equal(run_values("partial", "ops=10\nops=11\n", m, NULL, NULL, &b), 0);
	assert_int_equal(ts_run(NULL, "sed -i 's/\"interrupted\": false/\"interrupted\": true/' "
				"'%s/results.json'", b), 0);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	const char *line_b = strstr(out, "\nB: ");
	assert_non_null(line_b);
	TS_ASSERT_HAS(line_b, ", interrupted: its results are partial\n");
	assert_true(strstr(out, "interrupted") > line_b);
	free(out);
	ts_run(&out, "%s compare --format json %s %s 2>/dev/null", ORCH_BIN, a, b);
	json_t *j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(json_object_get(j, "a"), "interrupted")));
	assert_true(json_is_true(json_object_get(json_object_get(j, "b"), "interrupted")));
	json_decref(j);
	free(out);
	/* history import leaves the interrupted run out, as orch run does (it
	 * indexed both) */
	assert_int_equal(ts_run(&out, "cd '%s' && %s history import runs/partial 2>&1", dir,
				ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "1 run indexed", "interrupted");
	TS_FREE(out, a, b);
}

/* 0.3 -> 0.285 is exactly 5%: worse, not beyond a 5% threshold. */
static void test_threshold_boundary(void **state)
{
	char *a, *b, *c, *out;
	const char *metrics = "    metrics:\n"
			      "      - { name: ratio, regex: 'r=([0-9.]+)', better: higher }\n";
	assert_int_equal(run_values("edge", "r=0.3\nr=0.3\nr=0.3\n", metrics, NULL, NULL, &a), 0);
	assert_int_equal(run_values("edge", "r=0.285\nr=0.285\nr=0.285\n", metrics, NULL, NULL, &b),
			 0);
	assert_int_equal(compare(a, b, NULL, &out), 0);
	TS_ASSERT_HAS(out, "5.0% lower (worse)", "1 worse,");
	free(out);
	assert_int_equal(run_values("edge", "r=0.2849\nr=0.2849\nr=0.2849\n", metrics, NULL, NULL,
				    &c), 0);
	assert_int_equal(compare(a, c, NULL, &out), 1);
	/* its words tell it from 0.285's: "5.0%" for both hid which one crossed */
	TS_ASSERT_HAS(out, "5.03% lower (worse)", " is 5.03% worse than ");
	TS_FREE(out, a, b, c);
}

/* --baseline history judges the threshold as compare does (1000 -> 950 at
 * 5% is no step: it was a regression) and a regression fails its test
 * there too (status fail, as with --baseline RUN; it stayed pass). */
static void test_history_baseline(void **state)
{
	char *run, *out;
	const char *m = "    metrics:\n"
			"      - { name: ops, regex: 'ops=([0-9.]+)', unit: ops/s }\n";
	const char *base = "ops=1000\nops=1001\nops=999\n";
	for (int i = 0; i < 3; i++)
		assert_int_equal(run_values("hist", base, m, NULL, NULL, NULL), 0);
	assert_int_equal(run_values("hist", "ops=950\nops=951\nops=949\n", m,
				    "--baseline history", &out, &run), 0);
	TS_ASSERT_LACKS(out, "regressed");
	TS_FREE(out, run);
	assert_int_equal(run_values("hist", "ops=900\nops=901\nops=899\n", m,
				    "--baseline history", &out, &run), 1);
	TS_ASSERT_HAS(out, "ops 10.0% slower than the last 4 runs (1000 -> 900");
	free(out);
	json_t *j = ts_json_load_in(run, "results.json");
	json_t *r = ts_json_result(j, "here", "probe");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "fail");
	assert_true(json_is_true(json_object_get(r, "regressed")));
	json_decref(j);
	char *junit = ts_read_in(run, "junit.xml");
	TS_ASSERT_HAS(junit, "type=\"regression\">");
	TS_FREE(junit, run);
}

static json_t *repeat_of(const char *run)
{
	json_t *j = ts_json_load_in(run, "results.json");
	assert_non_null(j);
	json_t *r = json_incref(json_object_get(ts_json_result(j, "here", "probe"), "repeat"));
	json_decref(j);
	assert_non_null(r);
	return r;
}

/* repeat: auto records whether it converged, the spread it reached and why
 * it stopped, in results.json, the summary and the HTML report; a metric
 * near zero settles by its absolute floor. */
static void test_repeat_auto(void **state)
{
	char *run, *out;
	const char *metrics = "    metrics:\n"
			      "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n"
			      "      - { name: net.udp_loss, regex: 'loss=([0-9.]+)', unit: '%' }\n";
	/* tight, and a loss near zero: converged at the third run */
	assert_int_equal(run_repeat("auto1", "auto", "rate=100 loss=0\nrate=101 loss=0.2\n"
				    "rate=99.5 loss=0\nrate=100 loss=0\n", metrics, NULL, &out, &run),
			 0);
	TS_ASSERT_HAS(out, "repeat auto: converged after 3 runs");
	free(out);
	json_t *r = repeat_of(run);
	assert_true(json_is_true(json_object_get(r, "converged")));
	assert_string_equal(json_string_value(json_object_get(r, "stopped")), "converged");
	assert_int_equal(json_integer_value(json_object_get(r, "max_runs")), 10);
	assert_string_equal(json_string_value(json_object_get(r, "spread_metric")), "net.rate");
	assert_true(json_real_value(json_object_get(r, "spread_pct")) < 3.5);
	json_decref(r);
	free(run);

	/* a count of 0-1 retransmits (no unit) settles by its floor too; its SD
	 * of about 0.55 forced every such test to the cap */
	const char *retr = "    metrics:\n"
			   "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n"
			   "      - { name: net.retransmits, regex: 'retr=([0-9]+)' }\n";
	assert_int_equal(run_repeat("auto3", "auto", "rate=100 retr=0\nrate=101 retr=1\n"
				    "rate=99.5 retr=0\nrate=100 retr=1\nrate=100 retr=0\n"
				    "rate=100 retr=1\nrate=100 retr=0\nrate=100 retr=1\n"
				    "rate=100 retr=0\nrate=100 retr=1\n", retr, NULL, &out, &run), 0);
	TS_ASSERT_HAS(out, "repeat auto: converged after 3 runs");
	free(out);
	r = repeat_of(run);
	assert_true(json_is_true(json_object_get(r, "converged")));
	json_decref(r);
	free(run);

	/* an early outlier: the cap (4 here) is reached, and said */
	assert_int_equal(run_repeat("auto2", "auto\n    repeat_max: 4",
				    "rate=150 loss=0\nrate=100 loss=0\nrate=101 loss=0\n"
				    "rate=99 loss=0\nrate=100 loss=0\n", metrics, NULL, &out, &run), 0);
	assert_non_null(strstr(out, "repeat auto: not converged, cap of 4 runs reached "
			       "(net.rate spread"));
	free(out);
	r = repeat_of(run);
	assert_true(json_is_false(json_object_get(r, "converged")));
	assert_string_equal(json_string_value(json_object_get(r, "stopped")), "cap reached");
	assert_true(json_real_value(json_object_get(r, "spread_pct")) > 3.5);
	json_decref(r);
	char *html = ts_read_in(run, "report.html");
	TS_ASSERT_HAS(html, "not converged, cap of 4 runs reached");
	free(html);
	char *junit = ts_read_in(run, "junit.xml");
	TS_ASSERT_HAS(junit, "repeat auto: not converged");
	free(junit);
	/* orch report re-renders it from results.json */
	assert_int_equal(ts_run(&out, "rm -f '%s/summary.txt' && %s report '%s'", run, ORCH_BIN, run),
			 0);
	free(out);
	char *summary = ts_read_in(run, "summary.txt");
	TS_ASSERT_HAS(summary, "not converged");
	TS_FREE(summary, run);

	/* a fixed repeat records nothing of the kind */
	assert_int_equal(run_values("fixed", "rate=1 loss=0\nrate=2 loss=0\n", metrics, NULL, NULL, &run), 0);
	json_t *j = ts_json_load_in(run, "results.json");
	assert_null(json_object_get(ts_json_result(j, "here", "probe"), "repeat"));
	json_decref(j);
	free(run);
}

/* A bench on the controller: the push is recorded apart (pushes, push.log),
 * never as an ssh.push metric, and the kernel's BogoMIPS sits next to
 * cpu.bogomips. */
static void test_push_and_kernel_bogomips(void **state)
{
	char *work = xasprintf("%s/work", dir);
	char *yaml = xasprintf("name: bench\ninventory: rack2.yaml\nboards: [here]\ntests:\n"
			       "  - name: cpu\n    bench: cpu\n    args: [--time, 20ms, --repeats, '1']\n");
	char *inv = xasprintf("boards:\n  here: { local: true, workdir: %s }\n", work);
	free(ts_write_file(dir, "rack2.yaml", inv));
	free(ts_write_file(dir, "bench.yaml", yaml));
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd '%s' && %s run bench.yaml -q -o runs --bench-dir %s/remote-bench/bin",
				dir, ORCH_BIN, ORCH_BINARY_DIR), 0);
	free(out);
	char *run = xasprintf("%s/runs/bench/latest", dir);
	json_t *j = ts_json_load_in(run, "results.json");
	json_t *r = ts_json_result(j, "here", "cpu");
	json_t *metrics = json_object_get(r, "metrics");
	assert_null(json_object_get(metrics, "ssh.push"));
	json_t *push = json_array_get(json_object_get(r, "pushes"), 0);
	assert_string_equal(json_string_value(json_object_get(push, "file")), "remote-bench-cpu");
	assert_true(json_integer_value(json_object_get(push, "bytes")) > 1000);
	char *log = ts_read_in(run, "here/cpu/push.log");
	TS_ASSERT_HAS(log, "\"push\":\"remote-bench-cpu\"");
	free(log);
	char *html = ts_read_in(run, "report.html");
	TS_ASSERT_HAS(html, "pushed remote-bench-cpu: ");
	free(html);
	char *cpuinfo = NULL;
	ts_run(&cpuinfo, "sed -n '/^[Bb][Oo][Gg][Oo][Mm][Ii][Pp][Ss]/{p;q;}' /proc/cpuinfo");
	if (cpuinfo && strchr(cpuinfo, ':')) {
		double want = strtod(strchr(cpuinfo, ':') + 1, NULL);
		json_t *k = json_object_get(metrics, "cpu.bogomips_kernel");
		assert_non_null(k);
		assert_true(json_number_value(json_object_get(k, "value")) == want);
		assert_non_null(json_object_get(metrics, "cpu.bogomips"));
	}
	free(cpuinfo);
	json_decref(j);
	TS_FREE(run, inv, yaml, work);
}

/* A metric's own threshold: an 8% drop at n=5 is a regression
 * at the run's 5%, not at the metric's 12%, and results.json's verdict says
 * which threshold it used; a bad value is refused with file:line:col. */
static void test_metric_threshold(void **state)
{
	char *a, *b, *out;
	const char *va = "rate=100\nrate=101\nrate=99\nrate=100.5\nrate=99.5\n";
	const char *vb = "rate=92\nrate=93\nrate=91\nrate=92.5\nrate=91.5\n";
	const char *plain = "    metrics:\n"
			    "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n";
	const char *own = "    metrics:\n"
			  "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s,"
			  " threshold: 12% }\n";
	assert_int_equal(run_values("thr5", va, plain, NULL, NULL, &a), 0);
	free(a);
	assert_int_equal(run_values("thr5", vb, plain, "--baseline latest", &out, &b), 1);
	TS_ASSERT_HAS(out, "net.rate 8.");
	TS_FREE(out, b);

	assert_int_equal(run_values("thr12", va, own, NULL, NULL, &a), 0);
	assert_int_equal(run_values("thr12", vb, own, "--baseline latest", &out, &b), 0);
	free(out);
	json_t *res = ts_json_load_in(b, "results.json");
	assert_non_null(res);
	json_t *probe = ts_json_result_or_fail(res, "here", "probe");
	json_t *m = json_object_get(json_object_get(probe, "metrics"), "net.rate");
	assert_non_null(m);
	assert_true(json_real_value(json_object_get(m, "threshold_pct")) == 12.0);
	json_t *thr = json_object_get(json_object_get(m, "verdict"), "threshold_pct");
	if (!json_is_number(thr) || json_number_value(thr) != 12.0)
		fail_msg("verdict threshold_pct is not 12");
	json_decref(res);
	ASSERT_VERDICT(a, b, "net.rate", "worse");
	TS_FREE(a, b);

	const char *bad = "name: badthr\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			  "  - name: probe\n    run: echo rate=1\n    metrics:\n"
			  "      - { name: r, regex: 'rate=([0-9.]+)', threshold: 12 percent }\n";
	char *path = ts_write_file(dir, "badthr.yaml", bad);
	assert_int_equal(ts_run(&out, "cd '%s' && %s validate badthr.yaml 2>&1", dir, ORCH_BIN), 2);
	TS_ASSERT_HAS(out, "badthr.yaml:8:56: error: invalid percentage for 'threshold'");
	TS_FREE(out, path);
}

/* A remote-bench JSON line with no direction (no better, and neither unit
 * nor name says) warns as a scenario metric does, once per metric per run. */
static void test_json_metric_direction_warning(void **state)
{
	char *out;
	const char *yaml = "name: jdir\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			   "  - name: probe\n    repeat: 3\n    parse: remote-bench\n"
			   "    run: |\n"
			   "      echo '{\"metric\":\"frobs\",\"value\":3}'\n"
			   "      echo '{\"metric\":\"rtt\",\"value\":3,\"unit\":\"ms\"}'\n"
			   "      echo '{\"metric\":\"knobs\",\"value\":3,\"better\":\"lower\"}'\n";
	char *path = ts_write_file(dir, "jdir.yaml", yaml);
	assert_int_equal(ts_run(&out, "cd '%s' && %s run jdir.yaml -q -o runs 2>&1", dir,
				ORCH_BIN), 0);
	const char *w = "warning: metric 'frobs' (remote-bench line): neither its unit ('') nor "
			"its name says which way is better";
	char *first = strstr(out, w);
	if (!first)
		fail_msg("no warning: %s", out);
	assert_null(strstr(first + 1, w));   /* once, not once per repeat */
	TS_ASSERT_LACKS(out, "metric 'rtt'", "metric 'knobs'");
	TS_FREE(out, path);
}

int main(void)
{
	if (!ts_file_exists(ORCH_BIN)) {
		fprintf(stderr, "%s is not built\n", ORCH_BIN);
		return 1;
	}
	return TS_RUN_TESTS(setup, teardown, test_identical_reruns_n1, test_identical_reruns_n5,
		   test_drop_with_outlier, test_latency_worsens, test_kb_from_meminfo,
		   test_unit_changed, test_compare_interrupted, test_threshold_boundary,
		   test_history_baseline, test_repeat_auto, test_push_and_kernel_bogomips,
		   test_metric_threshold, test_json_metric_direction_warning);
}
