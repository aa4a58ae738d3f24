#include "report/report_text.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One code point from s (at most n bytes); invalid UTF-8 gives U+FFFD and 1 byte. */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *used)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp, min;
	if (c < 0x80) {
		*used = 1;
		return c;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2; cp = c & 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3; cp = c & 0x0F; min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4; cp = c & 0x07; min = 0x10000;
	} else {
		*used = 1;
		return 0xFFFD;
	}
	if (len > n) {
		*used = 1;
		return 0xFFFD;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*used = 1;
			return 0xFFFD;
		}
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
		*used = 1;
		return 0xFFFD;
	}
	*used = len;
	return cp;
}

static bool xml_char_ok(unsigned cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
	       (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

static void put_cp(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
	}
	strbuf_append(sb, b, n);
}

void report_escape(struct strbuf *sb, const char *s, enum report_esc mode)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t used;
		unsigned cp = utf8_next(p, n, &used);
		p += used;
		n -= used;
		if (mode == ESC_PLAIN) {
			if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
				strbuf_putc(sb, ' ');
			else if (xml_char_ok(cp))
				put_cp(sb, cp);
			continue;
		}
		if (!xml_char_ok(cp))
			continue;
		switch (cp) {
		case '&': strbuf_puts(sb, "&amp;"); break;
		case '<': strbuf_puts(sb, "&lt;"); break;
		case '>': strbuf_puts(sb, "&gt;"); break;
		case '"':
			strbuf_puts(sb, mode == ESC_TEXT ? "\"" : "&quot;");
			break;
		case '\'':
			strbuf_puts(sb, mode == ESC_TEXT ? "'" : "&#39;");
			break;
		case '\t':
		case '\n':
		case '\r':
			if (mode == ESC_ATTR || cp == '\r')
				strbuf_printf(sb, "&#%u;", cp);
			else
				strbuf_putc(sb, (char)cp);
			break;
		default:
			if (cp >= 0x7F && cp <= 0x9F)
				break;   /* C1 controls: allowed by XML 1.0 but "discouraged" */
			put_cp(sb, cp);
		}
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
		case STATUS_PASS: t->passed++; break;
		case STATUS_FAIL: t->failed++; break;
		case STATUS_ERROR: t->errors++; break;
		case STATUS_SKIP: t->skipped++; break;
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
