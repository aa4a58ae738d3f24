#ifndef ORCH_REPORT_REPORT_TEXT_H
#define ORCH_REPORT_REPORT_TEXT_H
/*
 * Pieces the renderings share (internal to the report module): escaping
 * text that came from boards (any bytes at all) for XML, HTML or a
 * terminal, number and duration formatting, totals.
 */
#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "result/result.h"

struct strbuf;

enum report_esc {
	ESC_TEXT,    /* XML/HTML element content: & < > escaped */
	ESC_ATTR,    /* attribute values: also quotes, tab, newline */
	ESC_PLAIN,   /* one terminal line: control characters become spaces */
};

/* Appends s to sb escaped for mode. Invalid UTF-8 becomes U+FFFD; characters
 * XML 1.0 forbids (most C0 controls, C1 controls, U+FFFE/FFFF) are dropped. */
void report_escape(struct strbuf *sb, const char *s, enum report_esc mode);
/* s cleaned for one terminal line (report_escape ESC_PLAIN), cut to max
 * columns with "..." marking the cut; NULL reads as "". Caller frees. */
char *report_clean_line(const char *s, size_t max);
/* The last line a test printed: a boot test's last console line, else the
 * last non-blank line of its stderr.log or stdout.log in RUN_DIR (NULL:
 * none read); *from names where it came from. NULL when there is none.
 * Caller frees. */
char *report_last_line(const struct test_result *tr, const char *run_dir, const char **from);
/* Columns s takes on a terminal (one per code point). */
size_t report_width(const char *s);

/* "25.6 ± 0.3 MiB/s" (the spread only when there are several samples):
 * util/valfmt.h's valfmt_spread(). */
void report_fmt_metric(struct strbuf *sb, const struct metric_result *m);
/* "mem.memcpy 25.65 ± 0.29 MiB/s -12.0% regression": a metric, and its
 * change against the baseline (compare/range.h's words) when it has one. */
void report_fmt_named_metric(struct strbuf *sb, const struct metric_result *m);
/* tr->log_dir, or "BOARD/TEST" made path-safe as the store names it (caller frees). */
char *report_log_dir(const struct test_result *tr);
/* "pushed remote-bench-mem: 44.2 KiB in 0.214 s (a transfer, ...)"; caller frees. */
char *report_push_text(const struct push_record *p);

struct report_totals {
	size_t tests, passed, failed, errors, skipped, regressed;
	size_t flaky;             /* of passed: passed only after an infrastructure retry */
	size_t offline;           /* of skipped: their board was offline */
	double time_s;
};
void report_count(const struct run_result *run, struct report_totals *t);

/* The tries of a test whose infrastructure errors were retried, one line
 * each ("try 1 of 2: error: connect: Connection refused (logs:
 * b/t/attempt-1)"), after a first line saying it was flaky when it was;
 * NULL when it was tried once. Caller frees. */
char *report_attempts_text(const struct test_result *tr);

/* report_html(); with run_dir (may be NULL) the log links list the files
 * actually present in each BOARD/TEST folder. */
char *report_html_in(const struct run_result *run, const char *run_dir);
#endif
