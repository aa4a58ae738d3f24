/* util/valfmt: the one formatter of a value with its unit, over the whole
 * unit table of util/units.c. */
#include "testsupport.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shows_value(double v, const char *unit, const char *want)
{
	char *got = valfmt_str(v, unit);
	if (strcmp(got, want) != 0)
		fail_msg("%.17g %s: got '%s', want '%s'", v, unit ? unit : "(null)", got, want);
	free(got);
}

static void shows_number(double v, const char *want)
{
	char buf[VALFMT_NUM_LEN];
	valfmt_number_buf(buf, sizeof(buf), v);
	if (strcmp(buf, want) != 0)
		fail_msg("%.17g: got '%s', want '%s'", v, buf, want);
}

static void test_numbers(void **state)
{
	shows_number(0, "0");
	shows_number(-0.0, "0");
	shows_number(1, "1");
	shows_number(12.5, "12.5");
	shows_number(1.953125, "1.953");
	shows_number(431.25, "431.2");     /* round-half-even of the binary value */
	shows_number(431.26, "431.3");
	shows_number(999.96, "1000");
	shows_number(2048000, "2048000");
	shows_number(23381200, "23381200");
	shows_number(0.000123456, "0.0001235");
	shows_number(1e-12, "0.000000000001");
	shows_number(-6.25, "-6.25");
	shows_number(1e20, "100000000000000000000");
	/* what orch compare printed before it called valfmt */
	shows_number(25.6, "25.6");
	shows_number(0.0123, "0.0123");
	shows_number(102.9, "102.9");
	shows_number(1234.6, "1235");
	shows_number(0.123456, "0.1235");
	shows_number(NAN, "n/a");
	shows_number(INFINITY, "inf");
	shows_number(-INFINITY, "-inf");
	/* the extremes of a double: no exponent, and it fits */
	char buf[VALFMT_NUM_LEN];
	valfmt_number_buf(buf, sizeof(buf), 1.7976931348623157e308);
	assert_int_equal(strlen(buf), 309);
	valfmt_number_buf(buf, sizeof(buf), 4.9406564584124654e-324);
	assert_null(strchr(buf, 'e'));
	TS_ASSERT_HAS(buf, "0.0000");
	/* a short buffer truncates, never overflows */
	char small[4];
	valfmt_number_buf(small, sizeof(small), 123456);
	assert_string_equal(small, "123");
}

static void test_units_shown(void **state)
{
	/* the cases reported */
	shows_value(2048000, "kB", "1.953 GiB");
	shows_value(452, "MB/s", "452 MB/s");
	shows_value(452000, "MB/s", "452 GB/s");
	shows_value(23381200, "B/s", "23.38 MB/s");
	shows_value(25980, "MiB/s", "25.37 GiB/s");
	shows_value(324, "MiB/s", "324 MiB/s");
	shows_value(941.3, "Mbit/s", "941.3 Mbit/s");
	shows_value(9413, "Mbits/s", "9.413 Gbits/s");
	shows_value(1500, "Mbps", "1.5 Gbps");
	shows_value(1023, "KiB", "1023 KiB");
	shows_value(1024, "KiB", "1 MiB");
	shows_value(999.96, "kB/s", "1 MB/s");    /* rounds to 1000: next rung */
	shows_value(1000, "MB", "1 GB");
	shows_value(0.5, "MB", "0.5 MB");        /* never below the declared unit */
	shows_value(2400, "MHz", "2.4 GHz");
	shows_value(12000, "ms", "12000 ms");    /* times keep their unit */
	shows_value(95.5, "%", "95.5 %");
	shows_value(2000000000, "ops/s", "2000000000 ops/s");
	shows_value(42, "", "42");
	shows_value(42, NULL, "42");
	shows_value(NAN, "MB/s", "n/a");
	shows_value(-2048, "KiB", "-2 MiB");

	struct strbuf sb = STRBUF_INIT;
	valfmt_spread(&sb, 452000, 113000, true, "MB/s");
	assert_string_equal(strbuf_str(&sb), "452 \u00b1 113 GB/s");
	strbuf_reset(&sb);
	valfmt_spread(&sb, 2.378 * 1024, 0.007686 * 1024, true, "MiB/s");
	assert_string_equal(strbuf_str(&sb), "2.378 \u00b1 0.0077 GiB/s");
	strbuf_reset(&sb);
	valfmt_spread(&sb, 431.2, 113.14, true, "MB/s");
	assert_string_equal(strbuf_str(&sb), "431.2 \u00b1 113 MB/s");
	strbuf_reset(&sb);
	valfmt_spread(&sb, 452000, 113000, false, "MB/s");
	assert_string_equal(strbuf_str(&sb), "452 GB/s");
	strbuf_reset(&sb);
	valfmt_pair(&sb, 25.6, 22.5, "MiB/s");
	strbuf_puts(&sb, "; ");
	valfmt_pair(&sb, 1023, 1025, "KiB");
	assert_string_equal(strbuf_str(&sb), "25.6 -> 22.5 MiB/s; 1023 KiB -> 1.001 MiB");
	strbuf_reset(&sb);
	valfmt_pct(&sb, 19.749);
	strbuf_puts(&sb, " ");
	valfmt_pct(&sb, -6.25);
	strbuf_puts(&sb, " ");
	valfmt_pct(&sb, -0.01);
	strbuf_puts(&sb, " ");
	valfmt_pct_abs(&sb, -17.04);
	strbuf_puts(&sb, " ");
	valfmt_pct(&sb, NAN);
	assert_string_equal(strbuf_str(&sb), "+19.7% -6.2% 0.0% 17.0% n/a");
	strbuf_release(&sb);
}

/* log_step(r) when r is a whole power of step (r = step^n, n >= 0). */
static bool power_of(double r, double step)
{
	double n = log(r) / log(step);
	return n > -1e-9 && fabs(n - round(n)) < 1e-9;
}

/* Every unit of the table, at every magnitude: no exponent, the text reads
 * back within 0.05% of the value, the unit shown is the declared one or a
 * bigger rung of the same family with the same base (1000 stays 1000,
 * 1024 stays 1024). */
static void check_one(const char *unit, double v)
{
	struct valfmt_scale sc;
	valfmt_scale_for(v, unit, &sc);
	char *text = valfmt_str(v, unit);
	size_t num_len = strcspn(text, " ");
	if (memchr(text, 'e', num_len) || memchr(text, 'E', num_len))
		fail_msg("%s: '%s' has an exponent", unit, text);
	double back = strtod(text, NULL);
	double shown_in_declared;
	if (units_convert(back, sc.unit, unit, &shown_in_declared) != 0)
		fail_msg("%s: shown as '%s', which does not convert back", unit, text);
	if (fabs(shown_in_declared - v) > 0.0005 * fabs(v) * 1.0000001)
		fail_msg("%s %.17g: '%s' is off by more than 0.05%%", unit, v, text);
	const char *ba = units_base(unit), *bb = units_base(sc.unit);
	if ((ba == NULL) != (bb == NULL) || (ba && strcmp(ba, bb) != 0))
		fail_msg("%s: shown as %s, another family", unit, sc.unit);
	double ratio;
	assert_int_equal(units_convert(1, sc.unit, unit, &ratio), 0);
	double declared_factor = 1;
	if (ba)
		assert_int_equal(units_convert(1, unit, ba, &declared_factor), 0);
	bool binary = declared_factor > 1 && power_of(declared_factor, 1024) &&
		!power_of(declared_factor, 1000);
	bool decimal = declared_factor > 1 && power_of(declared_factor, 1000);
	if (ratio != 1) {
		if (binary && !power_of(ratio, 1024))
			fail_msg("%s (binary) shown as %s", unit, sc.unit);
		if (decimal && !power_of(ratio, 1000))
			fail_msg("%s (decimal) shown as %s", unit, sc.unit);
		if (!power_of(ratio, 1000) && !power_of(ratio, 1024))
			fail_msg("%s shown as %s: ratio %g", unit, sc.unit, ratio);
		if (units_is_time(unit))
			fail_msg("%s: a time shown as %s", unit, sc.unit);
	}
	/* the same text for the same value, however it is asked for */
	struct strbuf sb = STRBUF_INIT;
	valfmt_value(&sb, v, unit);
	assert_string_equal(strbuf_str(&sb), text);
	strbuf_reset(&sb);
	valfmt_spread(&sb, v, 0, false, unit);
	assert_string_equal(strbuf_str(&sb), text);
	strbuf_release(&sb);
	free(text);
}

static void test_whole_table(void **state)
{
	size_t n_units = 0, n_scaled = 0;
	const char *unit;
	for (size_t i = 0; (unit = units_table_name(i)); i++) {
		n_units++;
		for (double v = 1.234567e-9; v < 1e18; v *= 3.7) {
			check_one(unit, v);
			check_one(unit, -v);
			struct valfmt_scale sc;
			valfmt_scale_for(v, unit, &sc);
			n_scaled += strcmp(sc.unit, unit) != 0;
		}
		check_one(unit, 0);
		check_one(unit, 1000);
		check_one(unit, 1024);
		check_one(unit, 999.95);
		check_one(unit, 1023.9);
	}
	assert_true(n_units > 60);
	assert_true(n_scaled > 100);
}

TS_MAIN(NULL, NULL, test_numbers, test_units_shown, test_whole_table)
