#include "report/report_text.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/valfmt.h"
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
	text_line_escape(sb, s);
}

size_t report_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xC0) != 0x80)
			w++;
	return w;
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

void report_fmt_metric(struct strbuf *sb, const struct metric_result *m)
{
	valfmt_spread(sb, m->median, m->stddev, m->n_samples > 1, m->unit);
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
