/*
 * rate_of: metrics: the scenario keys and their errors at file:line:col,
 * the board clock's line (parsed, and taken out of a stream however it is
 * cut), which clock wins, the arithmetic into each rate unit, and a timed
 * command through the local transport's /bin/sh: its logs and exit status
 * untouched, its time from the board's date.
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "execute/command.h"
#include "execute/timing.h"
#include "transport/transport_local.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SC_PATH "/lab/scenarios/rate.yaml"
#define TAG "orch-time-0123456789abcdef"

static const char head[] = "name: rate\nboards: [all]\ntests:\n";

static struct diag_list sc_bad(const char *tests)
{
	char *text = xasprintf("%s%s", head, tests);
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	assert_int_equal(scenario_load_buffer(SC_PATH, text, strlen(text), &sc, &dl), -1);
	assert_null(sc);
	free(text);
	return dl;
}

static void test_scenario_rate_of(void **state)
{
	char *text = xasprintf("%s  - name: dd\n    run: dd if=/dev/zero of=f bs=1M count=100\n"
			       "    metrics:\n      - { name: dd.disk, rate_of: 100MiB }\n"
			       "      - { name: dd.bits, rate_of: 100MB, unit: Mbit/s, threshold: 8%% }\n",
			       head);
	struct scenario *sc = ts_scenario_ok(SC_PATH, text);
	const struct metric_spec *m = sc->tests[0].metrics;
	assert_int_equal(sc->tests[0].n_metrics, 2);
	assert_true(m[0].rate_bytes == 100ull << 20);
	assert_string_equal(m[0].unit, "MB/s");
	assert_int_equal(m[0].better, BETTER_HIGHER);
	assert_false(m[0].better_guessed);
	assert_true(m[1].rate_bytes == 100000000ull);
	assert_string_equal(m[1].unit, "Mbit/s");
	assert_true(m[1].has_threshold);
	scenario_free(sc);
	free(text);
}

static void test_scenario_rate_of_errors(void **state)
{
	struct diag_list dl = sc_bad(
		"  - name: dd\n    run: dd\n    metrics:\n"
		"      - { name: a, rate_of: 100MiX }\n"                     /* line 7 */
		"      - { name: b, rate_of: 0 }\n"
		"      - { name: c, rate_of: 1MiB, unit: ms }\n"
		"      - { name: d, rate_of: 1MiB, regex: 'x (.*)' }\n"       /* line 10 */
		"      - { name: e, rate_of: 1MiB, unit: MB/sec }\n"
		"  - name: b\n    bench: mem\n    metrics: [{ name: r, rate_of: 1MiB }]\n");
	ts_diag_exact(&dl, 7, 29, "invalid size for 'rate_of', found '100MiX' (use 64MiB, 1GiB, "
		      "500kB)");
	ts_diag_exact(&dl, 8, 29, "invalid size for 'rate_of', found '0' (use 64MiB, 1GiB, 500kB)");
	ts_diag_exact(&dl, 9, 41, "a rate_of metric's unit is a byte or bit rate (MB/s, MiB/s, "
		      "Mbit/s, ...), found 'ms'");
	ts_diag_exact(&dl, 11, 41, "a rate_of metric's unit is a byte or bit rate (MB/s, MiB/s, "
		      "Mbit/s, ...), found 'MB/sec' (did you mean 'MB/s'?)");
	bool regex = false, bench = false;
	for (size_t i = 0; i < dl.n; i++) {
		regex = regex || (dl.items[i].line == 10 && strstr(dl.items[i].message, "'regex'"));
		bench = bench || (dl.items[i].line == 14 &&
				  strstr(dl.items[i].message, "'rate_of' goes with a 'run:' test"));
	}
	if (!regex || !bench)
		diag_print(&dl, stderr);
	assert_true(regex);
	assert_true(bench);
	diag_list_release(&dl);
}

static void test_parse_line(void **state)
{
	struct timing_marks m;
	const char *l = TAG " 1796676607.071084183 812.50 814.52 1796676609.091084183";
	assert_true(timing_parse_line(l, strlen(l), TAG, &m));
	assert_true(m.seen);
	assert_string_equal(m.date0, "1796676607.071084183");
	assert_string_equal(m.up0, "812.50");
	assert_string_equal(m.up1, "814.52");
	assert_string_equal(m.date1, "1796676609.091084183");
	/* busybox without nanoseconds, no /proc: empty fields */
	l = TAG " 1796676607.%N   1796676609.%N";
	assert_true(timing_parse_line(l, strlen(l), TAG, &m));
	assert_string_equal(m.up0, "");
	assert_string_equal(m.date1, "1796676609.%N");
	memset(&m, 0, sizeof(m));
	l = TAG " only two";
	assert_false(timing_parse_line(l, strlen(l), TAG, &m));
	l = "orch-time-0123456789abcdee 1 2 3 4";
	assert_false(timing_parse_line(l, strlen(l), TAG, &m));
	assert_false(m.seen);
}

static int collect(void *ctx, const char *data, size_t len)
{
	strbuf_append(ctx, data, len);
	return 0;
}

/* text fed in pieces of n bytes: what passes, and the marks */
static char *filtered(const char *text, size_t n, struct timing_marks *m)
{
	struct strbuf out = STRBUF_INIT;
	struct timing_filter f;
	memset(m, 0, sizeof(*m));
	timing_filter_init(&f, TAG, m);
	for (size_t i = 0, len = strlen(text); i < len; i += n)
		assert_int_equal(timing_filter_feed(&f, text + i, len - i < n ? len - i : n, collect,
						    &out), 0);
	assert_int_equal(timing_filter_finish(&f, collect, &out), 0);
	return strbuf_detach(&out);
}

static void test_filter(void **state)
{
	struct timing_marks m;
	static const char *const cases[][2] = {
		{ "err 1\norch-time-01 looks like it\n" TAG " 1.000000001 5.00 6.00 3.000000001\n",
		  "err 1\norch-time-01 looks like it\n" },
		{ "no newline" TAG " 1.000000001 5.00 6.00 3.000000001\n", "no newline" },
		{ "x\n" TAG " 1.000000001 5.00 6.00 3.000000001", "x\n" },       /* cut at the end */
		{ "a\n" TAG " 1.000000001 5.00 6.00 3.000000001\nlater\n", "a\nlater\n" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t n = 1; n <= strlen(cases[c][0]); n += (n < 8 ? 1 : 13)) {
			char *got = filtered(cases[c][0], n, &m);
			assert_string_equal(got, cases[c][1]);
			assert_true(m.seen);
			assert_string_equal(m.up1, "6.00");
			free(got);
		}
	/* the tag in a line too long for the clocks: not ours, passed whole */
	char *longline = xasprintf(TAG " %0200d\nend", 7);
	char *got = filtered(longline, 5, &m);
	assert_string_equal(got, longline);
	assert_false(m.seen);
	TS_FREE(got, longline);
	/* a tag's start held back at a read's end goes on when it is not one */
	got = filtered("ends with orch-ti", 3, &m);
	assert_string_equal(got, "ends with orch-ti");
	free(got);
}

static void test_which_clock(void **state)
{
	struct timing_marks m = { .seen = true };
	enum timing_source src;
	strcpy(m.date0, "1796676607.071084183");
	strcpy(m.date1, "1796676609.571084184");
	strcpy(m.up0, "812.50");
	strcpy(m.up1, "815.01");
	assert_true(fabs(timing_seconds(&m, 2600000, &src) - 2.500000001) < 1e-9);
	assert_int_equal(src, TIMING_BOARD_DATE);
	strcpy(m.date0, "1796676607.%N");        /* busybox's date: no %N */
	strcpy(m.date1, "1796676609.%N");
	assert_true(fabs(timing_seconds(&m, 2600000, &src) - 2.51) < 1e-9);
	assert_int_equal(src, TIMING_BOARD_UPTIME);
	strcpy(m.up1, "812.50");                 /* shorter than uptime's step */
	assert_true(fabs(timing_seconds(&m, 2600000, &src) - 2.6) < 1e-9);
	assert_int_equal(src, TIMING_ORCH);
	m.seen = false;                          /* no line at all */
	strcpy(m.date0, "1796676607.071084183");
	strcpy(m.date1, "1796676609.571084184");
	assert_true(fabs(timing_seconds(&m, 2600000, &src) - 2.6) < 1e-9);
	assert_int_equal(src, TIMING_ORCH);
	assert_string_equal(timing_source_name(TIMING_BOARD_DATE), "the board's date +%s.%N");
}

static void test_rate_arithmetic(void **state)
{
	double v;
	assert_int_equal(timing_rate(100ull << 20, 2.0, "MiB/s", &v), 0);
	assert_true(fabs(v - 50.0) < 1e-9);
	assert_int_equal(timing_rate(100ull << 20, 2.0, "MB/s", &v), 0);
	assert_true(fabs(v - 52.4288) < 1e-9);
	assert_int_equal(timing_rate(100ull << 20, 2.0, "Mbit/s", &v), 0);
	assert_true(fabs(v - 419.4304) < 1e-9);
	assert_int_equal(timing_rate(16ull << 20, 4.0, "KiB/s", &v), 0);
	assert_true(fabs(v - 4096.0) < 1e-9);
	assert_int_equal(timing_rate(1000, 0.5, "B/s", &v), 0);
	assert_true(fabs(v - 2000.0) < 1e-9);
	assert_int_equal(timing_rate(1000, 0.0, "MB/s", &v), -1);
	assert_int_equal(timing_rate(1000, -1.0, "MB/s", &v), -1);
	assert_int_equal(timing_rate(1000, 1.0, "ms", &v), -1);
}

/* A timed command through /bin/sh: the clocks' line is not in its logs,
 * its exit status and output are its own, and the board's date timed it. */
static void test_timed_command(void **state)
{
	char *dir = ts_mkdtemp("timing");
	struct transport *t = transport_local_new();
	struct command_spec spec = {
		.command = "sleep 0.3; echo out; printf 'no newline' >&2; (exit 3)",
		.timeout_ms = 10000, .stdin_fd = -1, .dir = dir,
		.stdout_name = "stdout.log", .stderr_name = "stderr.log", .timed = true,
	};
	struct command_outcome out;
	assert_int_equal(command_run(t, &spec, &out), 0);
	transport_free(t);
	assert_int_equal(out.st.exit_code, 3);
	assert_true(out.marks.seen);
	enum timing_source src;
	double s = timing_seconds(&out.marks, out.st.duration_us, &src);
	assert_int_equal(src, TIMING_BOARD_DATE);
	assert_true(s >= 0.3);
	assert_true(s <= (double)out.st.duration_us / 1e6);
	char *p = xasprintf("%s/stdout.log", dir), *o = ts_read_file(p);
	assert_string_equal(o, "out\n");
	TS_FREE(p, o);
	p = xasprintf("%s/stderr.log", dir);
	o = ts_read_file(p);
	assert_string_equal(o, "no newline");
	TS_FREE(p, o);
	/* a command that ends the shell itself: orch's clock */
	spec.command = "echo bye; exit 4";
	t = transport_local_new();
	assert_int_equal(command_run(t, &spec, &out), 0);
	transport_free(t);
	assert_int_equal(out.st.exit_code, 4);
	assert_false(out.marks.seen);
	timing_seconds(&out.marks, out.st.duration_us, &src);
	assert_int_equal(src, TIMING_ORCH);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_scenario_rate_of, test_scenario_rate_of_errors, test_parse_line,
	test_filter, test_which_clock, test_rate_arithmetic, test_timed_command)
