/*
 * A declared metric with no value is loud: listed as missing,
 * with its reason, in results.json, summary.txt, report.html and junit.xml;
 * it fails its test unless the metric says optional: true or the output
 * said it was too fast to measure (bonnie++'s +++++). Local boards only:
 * busybox dd's silence is played by a command that prints no rate.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static int setup(void **state)
{
	dir = ts_mkdtemp_with("missing", "rack.yaml", "boards:\n  l1: { local: true }\n");
	free(ts_write_file(dir, "s-missing.yaml",
		"name: missing\ninventory: rack.yaml\nboards: [l1]\ntests:\n"
		"  - name: dd\n    run: \"echo '1+0 records in'\"\n"
		"    metrics: [{ name: dd.disk, regex: 'copied, .* ([0-9.]+) MB/s', unit: MB/s }]\n"
		"  - name: soft\n    run: \"echo '1+0 records in'\"\n"
		"    metrics: [{ name: dd.disk, regex: 'copied, .* ([0-9.]+) MB/s', unit: MB/s,"
		" optional: true }]\n"
		"  - name: bonnie\n    run: \"echo 'seq 81234 rewrite +++++'\"\n"
		"    metrics:\n"
		"      - { name: seq, regex: 'seq ([^ ]+)', unit: KiB/s }\n"
		"      - { name: rewrite, regex: 'rewrite ([^ ]+)', unit: KiB/s }\n"));
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

static void test_missing_metric_fails_and_is_listed(void **state)
{
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && %s run s-missing.yaml -q -o runs 2>&1", dir, ORCH_BIN);
	assert_int_equal(code, 1);   /* dd's silence fails dd, nothing else */
	char *run = xasprintf("%s/runs/missing/latest", dir);
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	json_t *dd = ts_json_result_or_fail(res, "l1", "dd");
	assert_string_equal(ts_json_str(dd, "status"), "fail");
	assert_non_null(strstr(ts_json_str(dd, "message"), "'dd.disk' is missing from the output"));
	json_t *mm = json_array_get(json_object_get(dd, "missing_metrics"), 0);
	assert_string_equal(ts_json_str(mm, "name"), "dd.disk");
	assert_string_equal(ts_json_str(mm, "reason"), "absent");
	assert_true(json_is_false(json_object_get(mm, "optional")));

	json_t *soft = ts_json_result_or_fail(res, "l1", "soft");
	assert_string_equal(ts_json_str(soft, "status"), "pass");
	mm = json_array_get(json_object_get(soft, "missing_metrics"), 0);
	assert_true(json_is_true(json_object_get(mm, "optional")));

	json_t *bonnie = ts_json_result_or_fail(res, "l1", "bonnie");
	assert_string_equal(ts_json_str(bonnie, "status"), "pass");
	mm = json_array_get(json_object_get(bonnie, "missing_metrics"), 0);
	assert_string_equal(ts_json_str(mm, "name"), "rewrite");
	assert_string_equal(ts_json_str(mm, "reason"), "too fast to measure");
	json_decref(res);

	char *summary = ts_read_in(run, "summary.txt");
	TS_ASSERT_HAS(summary, "missing: l1 dd: metric dd.disk (absent)",
		"missing: l1 soft: metric dd.disk (absent, optional)",
		"missing: l1 bonnie: metric rewrite (too fast to measure)");
	assert_non_null(strstr(out, "missing: l1 dd: metric dd.disk (absent)"));   /* stderr too */
	char *html = ts_read_in(run, "report.html");
	TS_ASSERT_HAS(html, "Missing metric: l1 dd: dd.disk (absent)",
		"Missing metric: l1 bonnie: rewrite (too fast to measure)");
	char *junit = ts_read_in(run, "junit.xml");
	TS_ASSERT_HAS(junit, "name=\"dd.missing.dd.disk\" value=\"absent\"",
		"name=\"soft.missing.dd.disk\" value=\"absent (optional)\"",
		"name=\"bonnie.missing.rewrite\" value=\"too fast to measure\"");
	TS_FREE(summary, html, junit, run, out);
}

TS_MAIN(setup, teardown, test_missing_metric_fails_and_is_listed)
