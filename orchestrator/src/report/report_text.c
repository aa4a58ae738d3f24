#include "report/report_text.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/xmltext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_escape(struct strbuf *sb, const char *s, enum report_esc mode)
{
	if (mode != ESC_PLAIN) {
		xml_escape(sb, s, mode == ESC_ATTR);
		return;
	}
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t used;
		unsigned cp = utf8_decode(p, n, &used);
		p += used;
		n -= used;
		if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			strbuf_putc(sb, ' ');
		else if (xml_char_ok(cp))
			utf8_put(sb, cp);
	}
}

size_t report_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xC0) != 0x80)
			w++;
	return w;
}

void report_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 10000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1 || a == 0)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
	/* "12.50" -> "12.5", "3.00" -> "3" */
	if (strchr(buf, '.') && !strchr(buf, 'e')) {
		size_t n = strlen(buf);
		while (n && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
}

void report_fmt_duration(char *buf, size_t len, double s)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, len, "-");
	else if (s < 10)
		snprintf(buf, len, "%.2fs", s);
	else if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
}

struct prefix_ladder {
	const char *base;          /* the family's unit the ladder starts from */
	double step;
	const char *const names[6];
};

static const struct prefix_ladder ladders[] = {
	{ "B", 1024, { "B", "KiB", "MiB", "GiB", "TiB", "PiB" } },
	{ "B/s", 1024, { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s" } },
	{ "bit/s", 1000, { "bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", "Pbit/s" } },
};


void report_scale_pick(double max_abs, const char *unit, struct report_scale *sc)
{
	unit = unit ? unit : "";
	sc->factor = 1;
	snprintf(sc->unit, sizeof(sc->unit), "%s", unit);
	if (!isfinite(max_abs))
		return;
	max_abs = fabs(max_abs);
	const char *base = units_base(unit);
	for (size_t i = 0; base && i < sizeof(ladders) / sizeof(ladders[0]); i++) {
		double to_base;
		if (strcmp(base, ladders[i].base) != 0 ||
		    units_convert(1, unit, ladders[i].base, &to_base) != 0)
			continue;
		double v = max_abs * to_base, step = 1;
		size_t k = 0;
		while (k < 5 && v >= step * ladders[i].step)
			step *= ladders[i].step, k++;
		sc->factor = to_base / step;
		snprintf(sc->unit, sizeof(sc->unit), "%s", ladders[i].names[k]);
		return;
	}
	/* time and Hz keep their unit, and so does % */
	if (base || strchr(unit, '%') || max_abs < 10000)
		return;
	static const char *const si[] = { "k", "M", "G", "T", "P" };
	double step = 1000;
	size_t k = 0;
	while (k < 4 && max_abs >= step * 1000)
		step *= 1000, k++;
	sc->factor = 1 / step;
	snprintf(sc->unit, sizeof(sc->unit), "%s%s%s", si[k], *unit ? " " : "", unit);
}

void report_fmt_scaled(char *buf, size_t len, double v, const struct report_scale *sc)
{
	if (sc->factor == 1) {
		report_fmt_num(buf, len, v);
		return;
	}
	double x = v * sc->factor;
	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (fabs(x) >= 100)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.1f", x);
}

void report_fmt_metric(struct strbuf *sb, const struct metric_result *m)
{
	struct report_scale sc;
	report_scale_pick(m->median, m->unit, &sc);
	char v[32], d[32];
	report_fmt_scaled(v, sizeof(v), m->median, &sc);
	strbuf_puts(sb, v);
	if (m->n_samples > 1) {
		report_fmt_scaled(d, sizeof(d), m->stddev, &sc);
		strbuf_printf(sb, " \u00b1 %s", d);
	}
	if (*sc.unit)
		strbuf_printf(sb, " %s", sc.unit);
}

char *report_log_dir(const struct test_result *tr)
{
	if (tr->log_dir && *tr->log_dir)
		return xstrdup(tr->log_dir);
	char *b = fs_safe_name(tr->board ? tr->board : "");
	char *t = fs_safe_name(tr->test ? tr->test : "");
	char *rel = xasprintf("%s/%s", b, t);
	free(b);
	free(t);
	return rel;
}

void report_count(const struct run_result *run, struct report_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		t->tests++;
		t->time_s += isfinite(tr->duration_s) ? tr->duration_s : 0;
		switch (tr->status) {
		case STATUS_PASS: t->passed++; t->flaky += tr->flaky; break;
		case STATUS_FAIL: t->failed++; break;
		case STATUS_ERROR: t->errors++; break;
		case STATUS_SKIP: t->skipped++; t->offline += tr->board_offline; break;
		}
		if (tr->regressed)
			t->regressed++;
	}
}

char *report_push_text(const struct push_record *p)
{
	char secs[32];
	if (isfinite(p->seconds))
		snprintf(secs, sizeof(secs), "%.3f s", p->seconds);
	else
		snprintf(secs, sizeof(secs), "? s");
	return xasprintf("pushed %s: %.1f KiB in %s (a transfer, not a board figure; "
			 "see push.log)", p->file ? p->file : "?", (double)p->bytes / 1024.0, secs);
}

char *report_attempts_text(const struct test_result *tr)
{
	if (tr->n_infra_attempts < 2)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t n = tr->n_infra_attempts;
	if (tr->flaky)
		strbuf_printf(&sb, "flaky: passed on try %zu of %zu, after an infrastructure "
			      "error\n", n, n);
	for (size_t i = 0; i < n; i++) {
		const struct infra_attempt *a = &tr->infra_attempts[i];
		strbuf_printf(&sb, "try %zu of %zu: %s", i + 1, n, result_status_name(a->status));
		if (a->message)
			strbuf_printf(&sb, ": %s", a->message);
		if (a->power_cycled)
			strbuf_puts(&sb, " (after a power cycle)");
		if (a->log_dir)
			strbuf_printf(&sb, " (logs: %s)", a->log_dir);
		strbuf_putc(&sb, '\n');
	}
	return strbuf_detach(&sb);
}
