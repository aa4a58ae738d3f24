/*
 * rate_of: metrics through `orch run` on an OpenSSH board on loopback
 * (127.10.5.1): a command of known duration (sleep 1) with a known size
 * gives that size per second within the fork of the board's date, timed
 * by the board's clock (timing.log says so), with the clocks' line in no
 * log; a busybox dd of 16 MiB gets a rate that agrees with the time the
 * board measured; the metric is judged by expect: (a bound missed fails
 * the test) and shown like any other in summary.txt, junit.xml and
 * report.html.
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static struct lab *L;
static char *tmp;

static int group_setup(void **state)
{
	if (lab_group_up(&L, "127.10.5", 1, 0, false) < 0)
		return -1;
	tmp = ts_orch_dir("rate-of");
	free(lab_write_inventory(L, tmp, "inv.yaml", LAB_PORT_KEY,
				 "boards:\n  rate1: { ssh: { host: %s.1 } }\n", L->base));
	return 0;
}

static int group_teardown(void **state)
{
	lab_down(L);
	return ts_rmrf_free(&tmp);
}

static double metric_value(json_t *r, const char *name, const char *unit)
{
	json_t *m = json_object_get(json_object_get(r, "metrics"), name);
	if (!m)
		fail_msg("no metric %s in %s: %s", name, ts_json_str(r, "test"),
			 ts_json_str(r, "message"));
	assert_string_equal(ts_json_str(m, "unit"), unit);
	assert_string_equal(ts_json_str(m, "better"), "higher");
	return json_number_value(json_object_get(m, "median"));
}

static char *test_file(const char *test, const char *name)
{
	char *p = xasprintf("%s/runs/rate/latest/rate1/%s/%s", tmp, test, name);
	char *text = ts_read_file(p);
	if (!text)
		fail_msg("no %s", p);
	free(p);
	return text;
}

static void test_known_duration_and_dd(void **state)
{
	const char *tests =
		"  - name: sleep\n"
		"    run: \"echo before; sleep 1; echo after >&2\"\n"
		"    repeat: 2\n"
		"    metrics:\n"
		"      - { name: sleep.rate, rate_of: 100MB }\n"
		"      - { name: sleep.bits, rate_of: 100MB, unit: Mbit/s }\n"
		"  - name: dd\n"
		"    run: \"busybox dd if=/dev/zero of=/tmp/orch-rate.$$ bs=64k count=256 && "
		"rm -f /tmp/orch-rate.$$\"\n"
		"    metrics: [{ name: dd.disk, rate_of: 16MiB, unit: MiB/s }]\n"
		"    expect: { dd.disk: { min: 1MiB/s } }\n"
		"  - name: slow\n"
		"    run: sleep 0.2\n"
		"    metrics: [{ name: slow.rate, rate_of: 1MB }]\n"
		"    expect: { slow.rate: { min: 100MB/s } }\n";
	char *out = NULL;
	json_t *res = ts_orch_run_tests(tmp, "rate", "rate1", tests, "", 1, &out);
	json_t *r = ts_json_result_or_fail(res, "rate1", "sleep");
	assert_string_equal(ts_json_str(r, "status"), "pass");
	/* 100 MB over 1 s and a fork or two of date: under 100, not by much */
	double v = metric_value(r, "sleep.rate", "MB/s");
	print_message("sleep 1 with rate_of 100MB: %.3f MB/s\n", v);
	if (v > 100.0 || v < 90.0)
		fail_msg("sleep.rate %.3f MB/s, expected 90-100", v);
	v = metric_value(r, "sleep.bits", "Mbit/s");
	assert_true(v <= 800.0 && v >= 720.0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(r,
		"metrics"), "sleep.rate"), "samples")), 2);
	char *log = test_file("sleep", "timing.log");
	TS_ASSERT_HAS(log, "by the board's date +%s.%N; orch's clock around the exec");
	free(log);
	char *so = test_file("sleep", "stdout.log"), *se = test_file("sleep", "stderr.log");
	assert_string_equal(so, "before\nbefore\n");
	assert_string_equal(se, "after\nafter\n");
	TS_FREE(so, se);

	r = ts_json_result_or_fail(res, "rate1", "dd");
	if (strcmp(ts_json_str(r, "status"), "pass") != 0)
		fail_msg("dd: %s", ts_json_str(r, "message"));
	v = metric_value(r, "dd.disk", "MiB/s");
	log = test_file("dd", "timing.log");
	double secs = strtod(log, NULL);
	assert_true(secs > 0);
	print_message("busybox dd 16 MiB: %.3f MiB/s; timing.log: %s", v, log);
	if (v < 16.0 / secs * 0.999 || v > 16.0 / secs * 1.001)
		fail_msg("dd.disk %.3f MiB/s, 16 MiB in %.6f s is %.3f", v, secs, 16.0 / secs);
	free(log);

	r = ts_json_result_or_fail(res, "rate1", "slow");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	assert_non_null(strstr(ts_json_str(r, "message"), "slow.rate = "));
	assert_non_null(strstr(ts_json_str(r, "message"), "expected at least 100 MB/s"));
	v = metric_value(r, "slow.rate", "MB/s");
	assert_true(v > 0 && v <= 5.0);

	char *summary = xasprintf("%s/runs/rate/latest", tmp);
	char *text = ts_read_in(summary, "summary.txt");
	TS_ASSERT_HAS(text, "sleep.rate", "dd.disk");
	free(text);
	text = ts_read_in(summary, "junit.xml");
	TS_ASSERT_HAS(text, "name=\"dd.metric.dd.disk\"");
	free(text);
	text = ts_read_in(summary, "report.html");
	TS_ASSERT_HAS(text, "dd.disk");
	TS_FREE(text, summary, out);
	json_decref(res);
}

TS_MAIN(group_setup, group_teardown, test_known_duration_and_dd)
