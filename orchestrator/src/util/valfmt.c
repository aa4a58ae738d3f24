/*
 * The one formatter of a value with its unit (util/valfmt.h has the rules).
 * The ladders below are the only place where orch decides how a unit is
 * shown bigger; every rung is a unit of util/units.c's table, so that the
 * text reads back (the unit test converts every rung with units_convert()).
 */
#include "util/valfmt.h"

#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DECIMALS 330

/* v with sig significant digits (every digit of the integer part kept). */
static char *number_sig(char *buf, size_t len, double v, int sig)
{
	if (!buf || len == 0)
		return buf;
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return buf;
	}
	double mag = fabs(v);
	int decimals = 0;
	if (mag > 0 && mag < pow(10, sig - 1)) {
		decimals = sig - 1 - (int)floor(log10(mag));
		if (decimals > MAX_DECIMALS)
			decimals = MAX_DECIMALS;
		if (decimals < 0)
			decimals = 0;
	}
	char tmp[VALFMT_NUM_LEN];
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	if (strchr(tmp, '.')) {
		char *end = tmp + strlen(tmp) - 1;
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	if (strcmp(tmp, "-0") == 0)
		snprintf(tmp, sizeof(tmp), "0");
	snprintf(buf, len, "%s", tmp);
	return buf;
}

char *valfmt_number_buf(char *buf, size_t len, double v)
{
	return number_sig(buf, len, v, 4);
}

void valfmt_number(struct strbuf *sb, double v)
{
	char buf[VALFMT_NUM_LEN];
	strbuf_puts(sb, valfmt_number_buf(buf, sizeof(buf), v));
}

/* |v| as valfmt_number() rounds it (9999.6 -> 10000). */
static double shown_magnitude(double v)
{
	char buf[VALFMT_NUM_LEN];
	valfmt_number_buf(buf, sizeof(buf), fabs(v));
	double r;
	if (sscanf(buf, "%lf", &r) != 1)
		return fabs(v);
	return r;
}

struct ladder {
	double step;
	const char *const rungs[7];   /* NULL-terminated, smallest first */
};

static const struct ladder ladders[] = {
	{ 1000, { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", NULL } },
	{ 1000, { "MB", "GB", "TB", NULL } },
	{ 1024, { "B", "KiB", "MiB", "GiB", "TiB", NULL } },
	{ 1024, { "KiB/s", "MiB/s", "GiB/s", "TiB/s", NULL } },
	{ 1000, { "bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", NULL } },
	{ 1000, { "bits/s", "Kbits/s", "Mbits/s", "Gbits/s", NULL } },
	{ 1000, { "bps", "Kbps", "Mbps", "Gbps", NULL } },
	{ 1000, { "b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s", NULL } },
	{ 1000, { "Hz", "kHz", "MHz", "GHz", NULL } },
	{ 1000, { "pps", "Kpps", "Mpps", NULL } },
};

/* Other spellings of a rung: util/units.h's equal units. */
static const struct {
	const char *alias, *rung;
} aliases[] = {
	{ "KB/s", "kB/s" }, { "bytes", "B" }, { "K", "KiB" }, { "kB", "KiB" },
	{ "KB", "KiB" }, { "M", "MiB" }, { "G", "GiB" }, { "T", "TiB" },
	{ "kbit/s", "Kbit/s" }, { "kbits/s", "Kbits/s" }, { "kbps", "Kbps" },
	{ "kb/s", "Kb/s" }, { "KHz", "kHz" }, { "kpps", "Kpps" },
};

static bool find_rung(const char *unit, const struct ladder **lad, size_t *pos)
{
	for (size_t a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
		if (strcmp(unit, aliases[a].alias) == 0) {
			unit = aliases[a].rung;
			break;
		}
	for (size_t i = 0; i < sizeof(ladders) / sizeof(ladders[0]); i++)
		for (size_t k = 0; ladders[i].rungs[k]; k++)
			if (strcmp(ladders[i].rungs[k], unit) == 0) {
				*lad = &ladders[i];
				*pos = k;
				return true;
			}
	return false;
}

void valfmt_scale_for(double v, const char *unit, struct valfmt_scale *sc)
{
	unit = unit ? unit : "";
	sc->factor = 1;
	snprintf(sc->unit, sizeof(sc->unit), "%s", unit);
	const struct ladder *lad;
	size_t k;
	if (!isfinite(v) || !find_rung(unit, &lad, &k))
		return;
	double factor = 1;
	size_t top = k;
	while (lad->rungs[top + 1] &&
	       shown_magnitude(v * factor) >= lad->step) {
		factor /= lad->step;
		top++;
	}
	if (top == k)
		return;
	sc->factor = factor;
	snprintf(sc->unit, sizeof(sc->unit), "%s", lad->rungs[top]);
}

void valfmt_scaled(struct strbuf *sb, double v, const struct valfmt_scale *sc)
{
	valfmt_number(sb, sc->factor == 1 ? v : v * sc->factor);
}

void valfmt_value(struct strbuf *sb, double v, const char *unit)
{
	struct valfmt_scale sc;
	valfmt_scale_for(v, unit, &sc);
	valfmt_scaled(sb, v, &sc);
	if (*sc.unit && isfinite(v))
		strbuf_printf(sb, " %s", sc.unit);
}

char *valfmt_str(double v, const char *unit)
{
	struct strbuf sb = STRBUF_INIT;
	valfmt_value(&sb, v, unit);
	return strbuf_detach(&sb);
}

void valfmt_spread(struct strbuf *sb, double median, double sd, bool show_spread,
		   const char *unit)
{
	struct valfmt_scale sc;
	valfmt_scale_for(median, unit, &sc);
	valfmt_scaled(sb, median, &sc);
	if (show_spread && isfinite(sd)) {
		char buf[VALFMT_NUM_LEN];
		strbuf_puts(sb, " \u00b1 ");
		strbuf_puts(sb, number_sig(buf, sizeof(buf), sd * sc.factor, 2));
	}
	if (*sc.unit && isfinite(median))
		strbuf_printf(sb, " %s", sc.unit);
}

void valfmt_pair(struct strbuf *sb, double a, double b, const char *unit)
{
	struct valfmt_scale sa, sb_;
	valfmt_scale_for(a, unit, &sa);
	valfmt_scale_for(b, unit, &sb_);
	if (strcmp(sa.unit, sb_.unit) == 0 && isfinite(a)) {
		valfmt_scaled(sb, a, &sa);
		strbuf_puts(sb, " -> ");
		valfmt_value(sb, b, unit);
		return;
	}
	valfmt_value(sb, a, unit);
	strbuf_puts(sb, " -> ");
	valfmt_value(sb, b, unit);
}

static void pct(struct strbuf *sb, double p, bool sign)
{
	if (!isfinite(p)) {
		strbuf_puts(sb, isnan(p) ? "n/a" : (p > 0 ? "+inf%" : "-inf%"));
		return;
	}
	char buf[VALFMT_NUM_LEN];
	snprintf(buf, sizeof(buf), sign ? "%+.1f" : "%.1f", sign ? p : fabs(p));
	if (strcmp(buf, "-0.0") == 0 || strcmp(buf, "+0.0") == 0)
		snprintf(buf, sizeof(buf), "0.0");
	strbuf_printf(sb, "%s%%", buf);
}

void valfmt_pct(struct strbuf *sb, double p)
{
	pct(sb, p, true);
}

void valfmt_pct_abs(struct strbuf *sb, double p)
{
	pct(sb, p, false);
}

void valfmt_change_pct(struct strbuf *sb, double p, bool beyond, double threshold_pct)
{
	if (!isfinite(p)) {
		pct(sb, p, false);
		return;
	}
	double a = fabs(p);
	int digits = 1;
	char text[VALFMT_NUM_LEN];
	snprintf(text, sizeof(text), "%.*f", digits, a);
	while (beyond && digits < 6 && a > threshold_pct && strtod(text, NULL) <= threshold_pct)
		snprintf(text, sizeof(text), "%.*f", ++digits, a);
	strbuf_printf(sb, "%s%%", text);
}
