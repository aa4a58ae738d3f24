/*
 * threshold: on a metric a program prints (a bench: program's, or a
 * parse: remote-bench JSON line's): a metrics: entry with the metric's
 * name and no regex gives it its own regression threshold. Through the
 * binary on a local board: an 8% drop over five repeats is a regression
 * at the run's 5% and not at the metric's 12%, and results.json's verdict
 * says 12; orch validate refuses a name the program does not print (with
 * the closest one), a key an override does not take, and an override with
 * nothing to say, each at its file:line:col.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static int setup(void **state)
{
	dir = ts_mkdtemp_with("bench-threshold", "rack.yaml", "boards:\n  here: { local: true }\n");
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

/* A scenario `name` whose test prints the JSON line of mem.copy five
 * times, the values read in turn from the file `values`; extra: more
 * lines of the test (metrics:). */
static void write_scenario(const char *name, const char *extra)
{
	char *yaml = xasprintf(
		"name: %s\ninventory: rack.yaml\nboards: [here]\ntests:\n"
		"  - name: probe\n    repeat: 5\n    parse: remote-bench\n    run: |\n"
		"      n=$(( $(cat '%s/count') + 1 )); echo $n > '%s/count'\n"
		"      v=$(sed -n \"${n}p\" '%s/values')\n"
		"      echo \"{\\\"metric\\\":\\\"mem.copy\\\",\\\"value\\\":$v,\\\"unit\\\":\\\"MiB/s\\\","
		"\\\"better\\\":\\\"higher\\\"}\"\n%s",
		name, dir, dir, dir, extra);
	char *file = xasprintf("%s.yaml", name);
	free(ts_write_file(dir, file, yaml));
	TS_FREE(file, yaml);
}

/* Runs scenario name with values; returns the exit code. */
static int run(const char *name, const char *values, const char *opts)
{
	free(ts_write_file(dir, "values", values));
	free(ts_write_file(dir, "count", "0\n"));
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && NO_COLOR=1 %s run %s.yaml -q -o runs %s 2>&1", dir,
			  ORCH_BIN, name, opts);
	if (code != 0 && code != 1)
		fprintf(stderr, "%s: exit %d\n%s\n", name, code, out);
	free(out);
	return code;
}

/* Writes DIR/NAME with TEXT and runs orch validate on it there; its exit
 * status, what it wrote in *OUT (freed by the caller). */
static int validate(const char *name, const char *text, char **out)
{
	free(ts_write_file(dir, name, text));
	return ts_run(out, "cd '%s' && %s validate %s 2>&1", dir, ORCH_BIN, name);
}

static const char before[] = "100\n101\n99\n100.5\n99.5\n";
static const char after[] = "92\n93\n91\n92.5\n91.5\n";

static void test_override_threshold(void **state)
{
	write_scenario("plain", "");
	write_scenario("own", "    metrics:\n      - { name: mem.copy, threshold: 12% }\n");
	assert_int_equal(run("plain", before, ""), 0);
	assert_int_equal(run("plain", after, "--baseline latest"), 1);
	assert_int_equal(run("own", before, ""), 0);
	assert_int_equal(run("own", after, "--baseline latest"), 0);
	char *latest = xasprintf("%s/runs/own/latest", dir);
	char real[PATH_MAX];
	assert_non_null(realpath(latest, real));
	free(latest);
	json_t *res = ts_json_load_in(real, "results.json");
	json_t *probe = ts_json_result_or_fail(res, "here", "probe");
	json_t *m = json_object_get(json_object_get(probe, "metrics"), "mem.copy");
	assert_non_null(m);
	assert_string_equal(ts_json_str(m, "change"), "worse");
	json_t *thr = json_object_get(json_object_get(m, "verdict"), "threshold_pct");
	if (!json_is_number(thr) || json_number_value(thr) != 12.0)
		fail_msg("verdict threshold_pct is not 12");
	json_decref(res);
	/* the override reads nothing of its own: nothing is missing */
	char *summary = ts_read_file(strcat(real, "/summary.txt"));
	assert_non_null(summary);
	TS_ASSERT_LACKS(summary, "missing");
	free(summary);
}

static void test_validate_refuses(void **state)
{
	const char *yaml = "name: bad\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			   "  - name: mem\n    bench: mem\n    metrics:\n"
			   "      - { name: mem.memcyp, threshold: 12% }\n"
			   "      - { name: mem.memcpy, unit: MB/s, threshold: 12% }\n"
			   "      - { name: mem.memcpy, threshold: 12 percent }\n";
	char *out = NULL;
	assert_int_equal(validate("bad.yaml", yaml, &out), 2);
	const char *want[] = {
		"bad.yaml:8:17: error: metric 'mem.memcyp', which remote-bench mem does not print "
		"(did you mean 'mem.memcpy'?)",
		"bad.yaml:9:29: error: unknown key 'unit' in a metric of a bench: program",
		"bad.yaml:10:40: error: invalid percentage for 'threshold'",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(out, want[i]))
			fail_msg("no \"%s\" in:\n%s", want[i], out);
	free(out);
	const char *none = "name: none\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			   "  - name: probe\n    run: echo\n    parse: remote-bench\n    metrics:\n"
			   "      - { name: mem.copy }\n";
	assert_int_equal(validate("none.yaml", none, &out), 2);
	if (!strstr(out, "none.yaml:9:9: error: metric 'mem.copy' has neither 'regex'"))
		fail_msg("%s", out);
	free(out);
	const char *good = "name: good\ninventory: rack.yaml\nboards: [here]\ntests:\n"
			   "  - name: mem\n    bench: mem\n    metrics:\n"
			   "      - { name: mem.memcpy, threshold: 12% }\n";
	assert_int_equal(validate("good.yaml", good, &out), 0);
	free(out);
}

TS_MAIN(setup, teardown, test_override_threshold, test_validate_refuses)
