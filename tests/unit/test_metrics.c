/*
 * execute/metrics: metrics as people write them -- PCRE2 regexes, values
 * from stdout, stderr or a fetched file, units from the output, values a
 * tool leaves out (+++++) recorded as missing, and a regex that backtracks
 * too much failing the test with a clear message instead of hanging it.
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "execute/metrics.h"

#include <stdlib.h>
#include <string.h>

#define SC_PATH "/lab/scenarios/m.yaml"

static struct scenario *load(const char *text)
{
	return ts_scenario_ok(SC_PATH, text);
}

/* Feeds lines ("1:" prefix = stderr) and commits into tr; returns commit's value. */
static int feed(const struct test *t, const char *const *lines, const char *dir,
		struct test_result *tr)
{
	struct metric_collector mc;
	metric_collector_init(&mc, t, false);
	for (int i = 0; lines[i]; i++) {
		bool err = strncmp(lines[i], "1:", 2) == 0;
		metric_collector_line(&mc, err ? TRANSPORT_STDERR : TRANSPORT_STDOUT,
				      err ? lines[i] + 2 : lines[i]);
	}
	if (dir)
		metric_collector_files(&mc, dir);
	int rc = metric_collector_commit(&mc, tr);
	metric_collector_release(&mc);
	return rc;
}

static void test_dd_units_from_output(void **state)
{
	struct scenario *sc = load(
		"tests:\n"
		"  - name: dd\n"
		"    run: dd if=/dev/zero of=/tmp/x bs=1M count=64\n"
		"    metrics:\n"
		"      - name: write\n"
		"        regex: '(?i)copied, [0-9.]+ s, (?<value>[0-9.]+) (?<unit>[kMGT]B/s)'\n"
		"        unit_group: unit\n"
		"        unit: MB/s\n"
		"        from: stderr\n"
		"      - { name: secs, regex: 'copied, ([0-9.]+) s', unit: s, from: stderr }\n"
		"    expect: { write: { min: 100 MB/s } }\n");
	const struct test *t = &sc->tests[0];
	assert_int_equal(t->metrics[0].unit_group, 2);
	assert_int_equal(t->metrics[0].value_group, 1);
	assert_int_equal(t->metrics[0].from, METRIC_FROM_STDERR);

	const char *gb[] = { "64+0 records in",
			     "1:67108864 bytes (67 MB, 64 MiB) copied, 0.05 s, 1.3 GB/s", NULL };
	struct test_result tr = { 0 };
	assert_int_equal(feed(t, gb, NULL, &tr), 0);
	struct metric_result *m = test_result_find_metric(&tr, "write");
	assert_non_null(m);
	assert_string_equal(m->unit, "MB/s");
	assert_true(m->samples[0] > 1299.9 && m->samples[0] < 1300.1);
	const char *kb[] = { "1:67108864 bytes copied, 700 s, 95.8 kB/s", NULL };
	assert_int_equal(feed(t, kb, NULL, &tr), 0);
	m = test_result_find_metric(&tr, "write");
	assert_int_equal(m->n_samples, 2);
	assert_true(m->samples[1] < 1.0);
	/* stdout is not where these metrics live */
	const char *out[] = { "67108864 bytes copied, 1 s, 64 MB/s", NULL };
	struct test_result tr2 = { 0 };
	assert_int_equal(feed(t, out, NULL, &tr2), -1);   /* a declared metric never printed */
	assert_null(test_result_find_metric(&tr2, "write"));
	assert_true(test_result_is_missing(&tr2, "write"));
	TS_ASSERT_HAS(tr2.message, "'write' is missing from the output");
	test_result_release(&tr);
	test_result_release(&tr2);
	scenario_free(sc);
}

/* bonnie++ prints +++++ for a figure too fast to measure: missing with
 * that reason, and the test fails only when an expectation needs that
 * figure; a metric never printed fails unless it is optional: true. */
static void test_bonnie_missing(void **state)
{
	struct scenario *sc = load(
		"tests:\n"
		"  - name: bonnie\n"
		"    run: bonnie++ -q\n"
		"    metrics:\n"
		"      - { name: seq_out, regex: '^(?:[^,]*,){9}([^,]+),', unit: KiB/s }\n"
		"      - { name: seq_in, regex: '^(?:[^,]*,){11}([^,]+),', unit: KiB/s }\n"
		"      - { name: absent, regex: 'never printed (\\d+)', optional: true }\n"
		"    expect: { seq_out: { min: 1 KiB/s } }\n"
		"  - name: bonnie-strict\n"
		"    run: bonnie++ -q\n"
		"    metrics:\n"
		"      - { name: seq_in, regex: '^(?:[^,]*,){11}([^,]+),', unit: KiB/s }\n"
		"    expect: { seq_in: { min: 1 KiB/s } }\n");
	const char *csv[] = { "1.98,1.98,rack1,1,1700000000,2G,,8192,5,81234,99,+++++,+++,"
			      "50000,60,+++++,+++", NULL };
	struct test_result tr = { 0 };
	tr.status = STATUS_PASS;
	assert_int_equal(feed(&sc->tests[0], csv, NULL, &tr), 0);
	assert_non_null(test_result_find_metric(&tr, "seq_out"));
	assert_true(test_result_is_missing(&tr, "seq_in"));
	assert_true(test_result_is_missing(&tr, "absent"));
	assert_false(test_result_is_missing(&tr, "seq_out"));
	assert_int_equal(tr.n_missing_metrics, 2);
	assert_string_equal(tr.missing_metrics[0].name, "seq_in");
	assert_string_equal(tr.missing_metrics[0].reason, "too fast to measure");
	assert_false(tr.missing_metrics[0].optional);
	assert_string_equal(tr.missing_metrics[1].name, "absent");
	assert_string_equal(tr.missing_metrics[1].reason, "absent");
	assert_true(tr.missing_metrics[1].optional);
	assert_int_equal(metrics_check_expectations(&sc->tests[0], &tr), 0);

	struct test_result tr2 = { 0 };
	assert_int_equal(feed(&sc->tests[1], csv, NULL, &tr2), 0);
	assert_int_equal(metrics_check_expectations(&sc->tests[1], &tr2), 1);
	TS_ASSERT_HAS(tr2.message, "'seq_in' is missing from the output");
	test_result_release(&tr);
	test_result_release(&tr2);
	scenario_free(sc);
}

static void test_from_file(void **state)
{
	char *dir = ts_mkdtemp_with("metrics-file", "bench.csv", "name,value\nlatency,12.5\n");
	struct scenario *sc = load(
		"tests:\n"
		"  - name: f\n"
		"    run: tool --csv bench.csv\n"
		"    metrics:\n"
		"      - { name: lat, regex: '^latency,([0-9.]+)', unit: ms, from: 'file:bench.csv', better: lower }\n"
		"      - { name: gone, regex: 'x(\\d)', from: 'file:nope.csv' }\n");
	const char *none[] = { "latency,99", NULL };
	struct test_result tr = { 0 };
	assert_int_equal(feed(&sc->tests[0], none, dir, &tr), -1);   /* gone: never printed */
	struct metric_result *m = test_result_find_metric(&tr, "lat");
	assert_non_null(m);
	assert_true(m->samples[0] == 12.5);
	assert_true(test_result_is_missing(&tr, "gone"));
	test_result_release(&tr);
	scenario_free(sc);
	ts_rmrf_free(&dir);
}

/* The metrics regex runs inside the output callback; one
 * that backtracks without end must end the test with a clear message. */
static void test_regex_limit_fails_clearly(void **state)
{
	struct scenario *sc = load(
		"tests:\n"
		"  - name: r\n"
		"    run: x\n"
		"    metrics:\n"
		"      - { name: echo, regex: '^(\\w+\\s?)*\\1$' }\n");
	char *line = malloc(8193);
	memset(line, 'a', 8192);
	line[8191] = '!';
	line[8192] = '\0';
	const char *lines[] = { line, line, line, NULL };
	struct test_result tr = { 0 };
	assert_int_equal(feed(&sc->tests[0], lines, NULL, &tr), -1);
	assert_non_null(tr.message);
	TS_ASSERT_HAS(tr.message, "metric 'echo'", "match limit");
	test_result_release(&tr);
	free(line);
	scenario_free(sc);
}

static void test_metric_config_errors(void **state)
{
	const char *text =
		"tests:\n"
		"  - name: t\n"
		"    run: x\n"
		"    metrics:\n"
		"      - { name: a, regex: '(\\d+) (\\w+)', unit_group: 5, unit: MB/s }\n"   /* 5 */
		"      - { name: b, regex: '(\\d+) (\\w+)', unit_group: 2 }\n"               /* 6 */
		"      - { name: c, regex: '(\\d+)', unit: MB/sec }\n"                       /* 7 */
		"      - { name: d, regex: '(\\d+)', from: socket }\n"                       /* 8 */
		"      - { name: e, regex: '(\\d+)', from: 'file:../etc/passwd' }\n"         /* 9 */
		"      - { name: f, regex: '(\\d+)', unit: BogoMIPS }\n";                    /* 10 */
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	assert_int_equal(scenario_load_buffer(SC_PATH, text, strlen(text), &sc, &dl), -1);
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);
	diag_print(&dl, f);
	fclose(f);
	TS_ASSERT_HAS(all, "m.yaml:5:54: error: 'unit_group' '5' names no group of the regex (it has 2)",
		"m.yaml:6:54: error: 'unit_group' needs 'unit:'",
		"m.yaml:7:42: error: unknown unit 'MB/sec' (did you mean 'MB/s'?)",
		"m.yaml:8:42: error: invalid value for 'from', found 'socket'",
		"m.yaml:9:42: error: invalid value for 'from'");
	TS_ASSERT_LACKS(all, "m.yaml:10:");
	assert_int_equal(dl.n, 5);
	free(all);
	diag_list_release(&dl);
}

TS_MAIN(NULL, NULL, test_dd_units_from_output, test_bonnie_missing, test_from_file,
	test_regex_limit_fails_clearly, test_metric_config_errors)
