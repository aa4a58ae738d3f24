/* parse: iperf3-json, on output saved from real iperf3 3.12 runs on loopback
 * (tests/data/iperf3/). */
#include "testsupport.h"
#include "execute/parse_iperf3.h"

#include <stdlib.h>
#include <string.h>

#define DATA ORCH_SOURCE_DIR "/tests/data/iperf3/"

static double metric(struct test_result *tr, const char *name)
{
	struct metric_result *m = test_result_find_metric(tr, name);
	assert_non_null(m);
	assert_int_equal(m->n_samples, 1);
	return m->samples[0];
}

static void test_tcp_client(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "tcp-client.json", &tr, err, sizeof(err)), 0);
	/* values from the file: 19465499007.78 and 19452955401.39 bit/s, 4 retransmits */
	assert_true(metric(&tr, "iperf3.sender_bps") > 19465.49);
	assert_true(metric(&tr, "iperf3.sender_bps") < 19465.51);
	assert_true(metric(&tr, "iperf3.receiver_bps") > 19452.95);
	assert_true(metric(&tr, "iperf3.receiver_bps") < 19452.96);
	assert_true(metric(&tr, "iperf3.retransmits") == 4.0);
	struct metric_result *m = test_result_find_metric(&tr, "iperf3.sender_bps");
	assert_string_equal(m->unit, "Mbit/s");
	assert_true(m->higher_is_better);
	assert_false(test_result_find_metric(&tr, "iperf3.retransmits")->higher_is_better);
	assert_null(test_result_find_metric(&tr, "iperf3.jitter_ms"));
	test_result_release(&tr);
}

static void test_repeats_add_samples(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "tcp-reverse.json", &tr, err, sizeof(err)), 0);
	assert_int_equal(parse_iperf3_file(DATA "tcp-parallel.json", &tr, err, sizeof(err)), 0);
	struct metric_result *m = test_result_find_metric(&tr, "iperf3.sender_bps");
	assert_non_null(m);
	assert_int_equal(m->n_samples, 2);
	assert_true(m->samples[0] > 16887.0 && m->samples[0] < 16887.1);
	assert_true(m->samples[1] > 17363.8 && m->samples[1] < 17363.9);
	test_result_release(&tr);
}

static void test_udp_client(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "udp-client.json", &tr, err, sizeof(err)), 0);
	assert_true(metric(&tr, "iperf3.sender_bps") > 100.12 &&
		    metric(&tr, "iperf3.sender_bps") < 100.13);
	assert_true(metric(&tr, "iperf3.jitter_ms") > 0.0211 &&
		    metric(&tr, "iperf3.jitter_ms") < 0.0212);
	assert_true(metric(&tr, "iperf3.lost_percent") == 0.0);
	assert_null(test_result_find_metric(&tr, "iperf3.retransmits"));
	test_result_release(&tr);
}

static void test_json_error_member(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "connect-refused.json", &tr, err, sizeof(err)), -1);
	assert_string_equal(err, "iperf3: unable to connect to server: Connection refused");
	assert_int_equal(tr.n_metrics, 0);
	test_result_release(&tr);
}

static void test_plain_error_text(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "connect-refused.txt", &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "not iperf3 JSON", "iperf3: error - unable to connect to server");
	assert_int_equal(tr.n_metrics, 0);
}

static void test_text_output_without_json(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_file(DATA "tcp-client.txt", &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "was -J given?", "Connecting to host");
}

static void test_bad_inputs(void **state)
{
	struct test_result tr = { 0 };
	char err[256] = "";
	assert_int_equal(parse_iperf3_text("", 0, &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "empty");
	const char *truncated = "{\n\t\"start\": {\n";
	assert_int_equal(parse_iperf3_text(truncated, strlen(truncated), &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "not iperf3 JSON output: line");
	const char *other = "{\"end\": {}}";
	assert_int_equal(parse_iperf3_text(other, strlen(other), &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "no end summary");
	assert_int_equal(parse_iperf3_file(DATA "no-such-file.json", &tr, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "cannot open");
	assert_int_equal(tr.n_metrics, 0);
}

TS_MAIN(NULL, NULL, test_tcp_client, test_repeats_add_samples, test_udp_client,
	test_json_error_member, test_plain_error_text, test_text_output_without_json,
	test_bad_inputs)
