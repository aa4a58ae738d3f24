/* util/units: durations, sizes, quantities, conversions, formatting. */
#include "testsupport.h"
#include "util/units.h"

#include <string.h>

static int64_t dur(const char *s)
{
	int64_t ms = -42;
	if (units_parse_duration_ms(s, &ms) < 0)
		return -1;
	return ms;
}

static void test_durations(void **state)
{
	assert_int_equal(dur("250ms"), 250);
	assert_int_equal(dur("30s"), 30000);
	assert_int_equal(dur("5m"), 300000);
	assert_int_equal(dur("1h"), 3600000);
	assert_int_equal(dur("1m30s"), 90000);
	assert_int_equal(dur("1h2m3s"), 3723000);
	assert_int_equal(dur("2s500ms"), 2500);
	assert_int_equal(dur("1.5s"), 1500);
	assert_int_equal(dur("2min"), 120000);
	assert_int_equal(dur("10"), 10000);
	assert_int_equal(dur("0.25"), 250);
	assert_int_equal(dur(" 30s "), 30000);
	assert_int_equal(dur("0"), 0);

	assert_int_equal(dur("5 minutes"), -1);
	assert_int_equal(dur(""), -1);
	assert_int_equal(dur("s"), -1);
	assert_int_equal(dur("-5s"), -1);
	assert_int_equal(dur("5x"), -1);
	assert_int_equal(dur("30s1m"), -1);   /* units must descend */
	assert_int_equal(dur("1s1s"), -1);
	assert_int_equal(dur("1e3"), -1);
	assert_int_equal(dur("99999999999999999h"), -1);
	assert_int_equal(units_parse_duration_ms(NULL, NULL), -1);
}

static int64_t size(const char *s)
{
	uint64_t b;
	if (units_parse_size(s, &b) < 0)
		return -1;
	return (int64_t)b;
}

static void test_sizes(void **state)
{
	assert_int_equal(size("100"), 100);
	assert_int_equal(size("100B"), 100);
	assert_int_equal(size("512K"), 512 * 1024);
	assert_int_equal(size("512k"), 512 * 1024);
	assert_int_equal(size("4M"), 4 * 1024 * 1024);
	assert_int_equal(size("4MiB"), 4 * 1024 * 1024);
	assert_int_equal(size("4MB"), 4000000);
	/* the kernel's kB (/proc/meminfo) is 1024 bytes, and so is KB */
	assert_int_equal(size("4kB"), 4096);
	assert_int_equal(size("4KB"), 4096);
	assert_int_equal(size("4KiB"), 4096);
	assert_int_equal(size("1G"), 1024LL * 1024 * 1024);
	assert_int_equal(size("1GB"), 1000000000LL);
	assert_int_equal(size("1.5K"), 1536);
	assert_int_equal(size("2 MiB"), 2 * 1024 * 1024);

	assert_int_equal(size("4X"), -1);
	assert_int_equal(size("4MiB/s"), -1);
	assert_int_equal(size("M"), -1);
	assert_int_equal(size("-1"), -1);
	assert_int_equal(size("4 Mbit/s"), -1);
}

static void test_quantities(void **state)
{
	struct quantity q;
	assert_int_equal(units_parse_quantity("20MiB/s", &q), 0);
	assert_true(q.value == 20.0);
	assert_string_equal(q.unit, "MiB/s");
	assert_int_equal(units_parse_quantity(" 1.5 Gbit/s ", &q), 0);
	assert_true(q.value == 1.5);
	assert_string_equal(q.unit, "Gbit/s");
	assert_int_equal(units_parse_quantity("42", &q), 0);
	assert_true(q.value == 42.0);
	assert_string_equal(q.unit, "");
	assert_int_equal(units_parse_quantity("-3.5e2ms", &q), 0);
	assert_true(q.value == -350.0);
	assert_string_equal(q.unit, "ms");
	assert_int_equal(units_parse_quantity("99%", &q), 0);
	assert_string_equal(q.unit, "%");

	assert_int_equal(units_parse_quantity("fast", &q), -1);
	assert_int_equal(units_parse_quantity("", &q), -1);
	assert_int_equal(units_parse_quantity("12 $$", &q), -1);
	assert_int_equal(units_parse_quantity("1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &q), -1);
	assert_int_equal(units_parse_quantity("nan", &q), -1);
	assert_int_equal(units_parse_quantity("1e999", &q), -1);
}

static void near(double got, double want)
{
	double d = got - want;
	if (d < 0)
		d = -d;
	if (d > 1e-9 * (want < 0 ? -want : want) + 1e-12)
		fail_msg("got %.12g, want %.12g", got, want);
}

static void test_convert(void **state)
{
	double v;
	assert_int_equal(units_convert(1, "MiB/s", "KiB/s", &v), 0);
	near(v, 1024);
	/* dd prints kB/s, MB/s and GB/s, all SI: one scale between them */
	assert_int_equal(units_convert(1, "MB/s", "kB/s", &v), 0);
	near(v, 1000);
	/* MemTotal: 2048 kB is 2 MiB: no phantom 2.4% */
	assert_int_equal(units_convert(2, "hours", "s", &v), 0);
	assert_true(v == 7200);
	assert_int_equal(units_convert(1, "day", "h", &v), 0);
	assert_true(v == 24);
	assert_int_equal(units_convert(2048, "kB", "MiB", &v), 0);
	near(v, 2);
	assert_int_equal(units_convert(1, "kB", "KiB", &v), 0);
	near(v, 1);
	assert_int_equal(units_convert(3, "\xc2\xb5s", "us", &v), 0);
	near(v, 3);
	assert_int_equal(units_convert(1, "MB/s", "Mbit/s", &v), 0);
	near(v, 8);
	assert_int_equal(units_convert(100, "Mbit/s", "MB/s", &v), 0);
	near(v, 12.5);
	assert_int_equal(units_convert(1, "Gbits/s", "bits/s", &v), 0);
	near(v, 1e9);
	assert_int_equal(units_convert(1, "MiB/s", "bit/s", &v), 0);
	near(v, 8.0 * 1024 * 1024);
	assert_int_equal(units_convert(1500, "ms", "s", &v), 0);
	near(v, 1.5);
	assert_int_equal(units_convert(1, "us", "ns", &v), 0);
	near(v, 1000);
	assert_int_equal(units_convert(2, "min", "s", &v), 0);
	near(v, 120);
	assert_int_equal(units_convert(1, "GHz", "MHz", &v), 0);
	near(v, 1000);
	assert_int_equal(units_convert(4, "MiB", "KiB", &v), 0);
	near(v, 4096);
	assert_int_equal(units_convert(7, "ops/s", "ops/s", &v), 0);
	near(v, 7);
	assert_int_equal(units_convert(7, "", "", &v), 0);
	near(v, 7);

	assert_int_equal(units_convert(1, "MiB/s", "ms", &v), -1);
	assert_int_equal(units_convert(1, "MiB", "MiB/s", &v), -1);
	assert_int_equal(units_convert(1, "Hz", "s", &v), -1);
	assert_int_equal(units_convert(1, "ops/s", "kops/s", &v), -1);
	assert_int_equal(units_convert(1, "", "s", &v), -1);
}

static void fmt(int64_t ms, const char *want)
{
	char buf[32];
	units_format_duration(ms, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_format(void **state)
{
	fmt(0, "0ms");
	fmt(250, "250ms");
	fmt(1000, "1s");
	fmt(2500, "2.5s");
	fmt(2345, "2.345s");
	fmt(30000, "30s");
	fmt(60000, "1m");
	fmt(90000, "1m30s");
	fmt(3600000, "1h");
	fmt(3723000, "1h2m3s");
	fmt(3603000, "1h3s");
	fmt(-1500, "-1.5s");
	/* what is formatted parses back */
	int64_t back;
	char buf[32];
	units_format_duration(3723000, buf, sizeof(buf));
	assert_int_equal(units_parse_duration_ms(buf, &back), 0);
	assert_int_equal(back, 3723000);
}

static void test_better(void **state)
{
	static const struct { const char *unit, *name; enum units_better want; } cases[] = {
		{ "ms", "rtt", UNITS_BETTER_LOWER }, { "s", NULL, UNITS_BETTER_LOWER },
		{ "us", "x", UNITS_BETTER_LOWER }, { "ns", "x", UNITS_BETTER_LOWER },
		{ "\xc2\xb5s", "x", UNITS_BETTER_LOWER }, { "min", "x", UNITS_BETTER_LOWER },
		/* as ping, cyclictest and sysbench print them */
		{ "msec", "x", UNITS_BETTER_LOWER }, { "usec", "x", UNITS_BETTER_LOWER },
		{ "nsec", "x", UNITS_BETTER_LOWER },
		/* spelt out, and costs per operation (read as better) */
		{ "seconds", "x", UNITS_BETTER_LOWER }, { "secs", "x", UNITS_BETTER_LOWER },
		{ "sec", "x", UNITS_BETTER_LOWER }, { "second", "x", UNITS_BETTER_LOWER },
		{ "hours", "x", UNITS_BETTER_LOWER }, { "hour", "x", UNITS_BETTER_LOWER },
		{ "h", "x", UNITS_BETTER_LOWER }, { "days", "x", UNITS_BETTER_LOWER },
		{ "day", "x", UNITS_BETTER_LOWER },
		{ "ns/op", "x", UNITS_BETTER_LOWER }, { "ms/op", "x", UNITS_BETTER_LOWER },
		{ "us/call", "x", UNITS_BETTER_LOWER }, { "ns/iter", "x", UNITS_BETTER_LOWER },
		{ "cycles/byte", "x", UNITS_BETTER_LOWER },
		{ "MiB/s", "latency", UNITS_BETTER_HIGHER }, { "ops/s", "x", UNITS_BETTER_HIGHER },
		{ "Mbps", "x", UNITS_BETTER_HIGHER }, { "Gbit/s", "x", UNITS_BETTER_HIGHER },
		{ "MHz", "x", UNITS_BETTER_HIGHER },
		{ "", "net.latency", UNITS_BETTER_LOWER }, { "", "udp_loss", UNITS_BETTER_LOWER },
		{ "%", "iperf3.lost_percent", UNITS_BETTER_LOWER },
		{ "", "jitter", UNITS_BETTER_LOWER }, { "", "Errors", UNITS_BETTER_LOWER },
		{ "", "bogomips", UNITS_BETTER_UNKNOWN }, { "%", "cpu", UNITS_BETTER_UNKNOWN },
		{ "kB", "MemFree", UNITS_BETTER_UNKNOWN }, { NULL, NULL, UNITS_BETTER_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (units_better_of(cases[i].unit, cases[i].name) != cases[i].want)
			fail_msg("%s %s: got %d", cases[i].unit ? cases[i].unit : "(null)",
				 cases[i].name ? cases[i].name : "(null)",
				 units_better_of(cases[i].unit, cases[i].name));
	assert_true(units_is_time("ms"));
	assert_false(units_is_time("m"));     /* metres? minutes? not a time here */
	double v;
	assert_int_equal(units_convert(1500, "usec", "ms", &v), 0);
	assert_true(v == 1.5);
	assert_true(units_is_rate("MiB/s"));
	assert_false(units_is_rate("MiB"));
}

TS_MAIN(NULL, NULL, test_durations, test_sizes, test_quantities, test_convert, test_better,
	test_format)
