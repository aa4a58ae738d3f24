#include "report/report_text.h"
#include "compare/range.h"
#include "util/fsutil.h"
#include "util/log_dir.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/utf8.h"
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
	return utf8_width(s);
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

void report_fmt_named_metric(struct strbuf *sb, const struct metric_result *m)
{
	strbuf_printf(sb, "%s ", m->name);
	report_fmt_metric(sb, m);
	if (m->change != METRIC_CHANGE_NONE) {
		strbuf_putc(sb, ' ');
		range_metric_change(sb, m, NAN);
	}
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
			 "see " LOG_DIR_PUSH_LOG ")", p->file ? p->file : "?", (double)p->bytes / 1024.0, secs);
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

char *report_clean_line(const char *s, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	report_escape(&sb, s ? s : "", ESC_PLAIN);
	char *out = strbuf_detach(&sb);
	if (report_width(out) > max) {
		/* cut at a code point boundary, then mark the cut */
		out[utf8_prefix(out, max - 3)] = '\0';
		char *cut = xasprintf("%s...", out);
		free(out);
		out = cut;
	}
	return out;
}

/* The last line of TEXT that is not blank, as a new string, or NULL. */
static char *last_text_line(const char *text, size_t len)
{
	const char *end = text + len;
	while (end > text) {
		const char *start = end;
		while (start > text && start[-1] != '\n')
			start--;
		const char *p = start;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p < end)
			return xstrndup(start, (size_t)(end - start));
		end = start > text ? start - 1 : text;
	}
	return NULL;
}

/* The last non-blank line of RUN_DIR/LOG_DIR/NAME (its last 4 KiB read). */
static char *log_last_line(const char *run_dir, const char *log_dir, const char *name)
{
	char *rel = xasprintf("%s/%s", log_dir, name);
	char *full = fs_path_join(run_dir, rel);
	free(rel);
	FILE *f = fopen(full, "rb");
	free(full);
	if (!f)
		return NULL;
	char buf[4096];
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	long from = size > (long)sizeof(buf) ? size - (long)sizeof(buf) : 0;
	size_t n = 0;
	if (size >= 0 && fseek(f, from, SEEK_SET) == 0)
		n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return last_text_line(buf, n);
}

char *report_last_line(const struct test_result *tr, const char *run_dir, const char **from)
{
	static const char *const logs[] = { LOG_DIR_STDERR, LOG_DIR_STDOUT };
	*from = "console";
	if (tr->last_line && *tr->last_line)
		return xstrdup(tr->last_line);
	if (!run_dir)
		return NULL;
	char *dir = report_log_dir(tr);
	char *line = NULL;
	for (size_t i = 0; !line && i < sizeof(logs) / sizeof(logs[0]); i++) {
		line = log_last_line(run_dir, dir, logs[i]);
		*from = logs[i];
	}
	free(dir);
	return line;
}
