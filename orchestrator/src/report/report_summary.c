/* The bounded summary: summary.txt, and what orch prints at the end of a
 * run. It grows with the tests and the distinct outcomes, not with boards x
 * tests: boards that share an outcome are one node set (util/fold.h). */
#include "report/report.h"
#include "report/report_text.h"
#include "report/summary_int.h"
#include "compare/range.h"
#include "util/fold.h"
#include "util/nodeset.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_MAX_MESSAGE 160
#define SUMMARY_MAX_LINE 300
/* a group of failures names each board's last line up to this many */
#define SUMMARY_MAX_EACH 8

/* The run's distinct test names and boards, in natural order (borrowed). */
static const char **distinct(const struct run_result *run, bool boards, size_t *n)
{
	const char **v = xcalloc(run->n_results + 1, sizeof(*v));
	for (size_t i = 0; i < run->n_results; i++)
		v[i] = boards ? run->results[i].board : run->results[i].test;
	nodeset_sort(v, run->n_results);
	size_t k = 0;
	for (size_t i = 0; i < run->n_results; i++)
		if (v[i] && (!k || strcmp(v[k - 1], v[i])))
			v[k++] = v[i];
	*n = k;
	return v;
}

void summary_run_init(struct summary_run *s, const struct run_result *run, const char *run_dir)
{
	s->run = run;
	s->run_dir = run_dir;
	s->tests = distinct(run, false, &s->n_tests);
	s->boards = distinct(run, true, &s->n_boards);
}

void summary_run_release(struct summary_run *s)
{
	free(s->tests);
	free(s->boards);
}

char *summary_fold_names(const char *const *names, size_t n)
{
	char *f = nodeset_fold_str(names, n);
	char *c = report_clean_line(f, 120);
	free(f);
	return c;
}

static char *summary_message(const struct test_result *tr)
{
	struct strbuf sb = STRBUF_INIT;
	if (tr->message)
		strbuf_puts(&sb, tr->message);
	if (tr->comparison)
		strbuf_printf(&sb, "%s%s", sb.len ? "; " : "", tr->comparison);
	if (!sb.len)
		strbuf_puts(&sb, tr->status == STATUS_FAIL ? "failed" : "error");
	char *s = report_clean_line(strbuf_str(&sb), SUMMARY_MAX_MESSAGE);
	strbuf_release(&sb);
	return s;
}

/* "  b[10-13]: last line (stderr.log): boom; logs b[10-13]/t07": the boards
 * of one failure folded by the line they ended on. */
static void problem_boards(struct strbuf *sb, const struct summary_run *s,
			   const struct fold_group *g, const char *test)
{
	struct fold lines = FOLD_INIT;
	char **keep = xcalloc(g->n + 1, sizeof(*keep));
	for (size_t i = 0; i < g->n; i++) {
		const struct test_result *tr = run_result_find(s->run, g->members[i], test);
		const char *from = "";
		char *last = tr ? report_last_line(tr, s->run_dir, &from) : NULL;
		char *clean = last ? report_clean_line(last, SUMMARY_MAX_MESSAGE) : NULL;
		char *dir = tr ? report_log_dir(tr) : xstrdup("?");
		char *safe_b = fs_safe_name(g->members[i]);
		/* a board's logs in BOARD/TEST fold with the others' */
		bool plain = !strncmp(dir, safe_b, strlen(safe_b)) && dir[strlen(safe_b)] == '/';
		keep[i] = clean ? xasprintf("last line (%s): %s%s%s", from, clean,
					    plain ? "" : "; logs ", plain ? "" : dir)
				: xasprintf("no output%s%s", plain ? "" : "; logs ", plain ? "" : dir);
		/* data: the logs' path after the board, for a group that folds them */
		bool is_new = !fold_find(&lines, keep[i]);
		fold_add(&lines, keep[i], g->members[i],
			 plain && is_new ? xstrdup(dir + strlen(safe_b)) : NULL);
		free(safe_b);
		free(dir);
		free(clean);
		free(last);
	}
	fold_sort(&lines, FOLD_BY_MEMBER);
	for (size_t i = 0; i < lines.n; i++) {
		const struct fold_group *l = &lines.groups[i];
		char *set = summary_fold_names(l->members, l->n);
		strbuf_printf(sb, "  %s: %s", set, l->key);
		if (l->data)
			strbuf_printf(sb, "; logs %s%s", l->n > 1 ? set : l->members[0],
				      (const char *)l->data);
		strbuf_putc(sb, '\n');
		free(set);
		if (i + 1 == SUMMARY_MAX_EACH && lines.n > SUMMARY_MAX_EACH) {
			strbuf_printf(sb, "  (%zu more last lines: orch report RUN --full)\n",
				      lines.n - SUMMARY_MAX_EACH);
			break;
		}
	}
	for (size_t i = 0; i < lines.n; i++)
		free(lines.groups[i].data);
	fold_release(&lines);
	for (size_t i = 0; i < g->n; i++)
		free(keep[i]);
	free(keep);
}

/* "failed: t07 on b[10-13]: exit status 1", then the boards' last lines:
 * one group per test, outcome and message. */
static void summary_problems(struct strbuf *sb, const struct summary_run *s, bool color)
{
	for (size_t t = 0; t < s->n_tests; t++) {
		struct fold groups = FOLD_INIT;
		for (size_t i = 0; i < s->run->n_results; i++) {
			const struct test_result *tr = &s->run->results[i];
			if ((tr->status != STATUS_FAIL && tr->status != STATUS_ERROR) ||
			    strcmp(tr->test, s->tests[t]))
				continue;
			char *msg = summary_message(tr);
			char *key = xasprintf("%s\n%s", tr->status == STATUS_FAIL ? "failed" : "error",
					      msg);
			fold_add(&groups, key, tr->board, NULL);
			free(key);
			free(msg);
		}
		fold_sort(&groups, FOLD_BY_MEMBER);
		for (size_t i = 0; i < groups.n; i++) {
			const struct fold_group *g = &groups.groups[i];
			const char *nl = strchr(g->key, '\n');
			char *set = summary_fold_names(g->members, g->n);
			char *test = report_clean_line(s->tests[t], 60);
			bool failed = !strncmp(g->key, "failed", 6);
			strbuf_printf(sb, "%s%.*s%s: %s on %s: %s\n",
				      color ? (failed ? "\033[1;31m" : "\033[1;33m") : "",
				      (int)(nl - g->key), g->key, color ? "\033[0m" : "", test, set,
				      nl + 1);
			problem_boards(sb, s, g, s->tests[t]);
			free(test);
			free(set);
		}
		fold_release(&groups);
	}
}

/* "regressed: memory on b3: mem.memcpy 25.65 ± 0.29 MiB/s -12.0% regression
 * (baseline ...)", a line per board x metric that regressed, boards in
 * natural order. */
static void summary_regressions(struct strbuf *sb, const struct summary_run *s, bool color)
{
	const struct test_result **order = run_result_natural(s->run);
	for (size_t t = 0; t < s->n_tests; t++) {
		size_t shown = 0, more = 0;
		for (size_t i = 0; i < s->run->n_results; i++) {
			const struct test_result *tr = order[i];
			if (!tr->regressed || strcmp(tr->test, s->tests[t]))
				continue;
			for (size_t m = 0; m < tr->n_metrics; m++) {
				const struct metric_result *mr = &tr->metrics[m];
				if (mr->change != METRIC_CHANGE_REGRESSION)
					continue;
				if (shown == SUMMARY_MAX_EACH) {
					more++;
					continue;
				}
				struct strbuf one = STRBUF_INIT;
				strbuf_printf(&one, "%s on %s: ", tr->test, tr->board);
				report_fmt_named_metric(&one, mr);
				range_metric_evidence(&one, mr);
				char *dir = report_log_dir(tr);
				strbuf_printf(&one, "; logs %s", dir);
				free(dir);
				char *line = report_clean_line(strbuf_str(&one), SUMMARY_MAX_LINE);
				strbuf_printf(sb, "%sregressed%s: %s\n", color ? "\033[1;31m" : "",
					      color ? "\033[0m" : "", line);
				free(line);
				strbuf_release(&one);
				shown++;
			}
		}
		if (more)
			strbuf_printf(sb, "  (%zu more regressed metrics of %s: orch report RUN "
				      "--full)\n", more, s->tests[t]);
	}
	free(order);
}

const char *report_outcome_word(const struct test_result *tr)
{
	if (tr->regressed && tr->status == STATUS_PASS)
		return "regressed";
	static const char *const words[] = { "passed", "failed", "errors", "skipped" };
	return words[tr->status];
}

void report_test_tally(struct strbuf *sb, const char *test, const struct fold *by)
{
	static const char *const order[] = { "passed", "regressed", "failed", "errors", "skipped" };
	char *name = report_clean_line(test, 60);
	strbuf_printf(sb, "%s:", name);
	free(name);
	const char *sep = " ";
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		const struct fold_group *g = fold_find(by, order[o]);
		if (!g)
			continue;
		strbuf_printf(sb, "%s%zu %s", sep, g->n,
			      g->n == 1 && !strcmp(order[o], "errors") ? "error" : order[o]);
		sep = ", ";
		if (o == 0)
			continue;
		char *set = summary_fold_names(g->members, g->n);
		strbuf_printf(sb, " on %s", set);
		free(set);
	}
}

/* "t07: 60 passed, 4 failed on b[10-13]" for each test that did not pass on
 * all its boards; the others folded by their boards ("36 tests passed on
 * all 64 boards: t[01-06,08-40]"). */
static void summary_tests_c(struct strbuf *sb, const struct summary_run *s, bool color)
{
	(void)color;
	struct fold passes = FOLD_INIT;
	char **keys = xcalloc(s->n_tests + 1, sizeof(*keys));
	for (size_t t = 0; t < s->n_tests; t++) {
		struct fold by = FOLD_INIT;
		for (size_t i = 0; i < s->run->n_results; i++) {
			const struct test_result *tr = &s->run->results[i];
			if (!strcmp(tr->test, s->tests[t]))
				fold_add(&by, report_outcome_word(tr), tr->board, NULL);
		}
		const struct fold_group *pass = fold_find(&by, "passed");
		if (pass && by.n == 1) {
			keys[t] = summary_fold_names(pass->members, pass->n);
			fold_add(&passes, keys[t], s->tests[t], (void *)(uintptr_t)pass->n);
			fold_release(&by);
			continue;
		}
		report_test_tally(sb, s->tests[t], &by);
		strbuf_putc(sb, '\n');
		fold_release(&by);
	}
	fold_sort(&passes, FOLD_LARGEST_FIRST);
	for (size_t i = 0; i < passes.n; i++) {
		const struct fold_group *g = &passes.groups[i];
		size_t n_boards = (size_t)(uintptr_t)g->data;
		char *tests = summary_fold_names(g->members, g->n);
		if (g->n == 1)
			strbuf_printf(sb, "%s passed on ", tests);
		else
			strbuf_printf(sb, "%zu tests passed on ", g->n);
		if (n_boards == s->n_boards && n_boards > 1)
			strbuf_printf(sb, "all %zu boards", n_boards);
		else
			strbuf_printf(sb, "%s", g->key);
		if (g->n > 1)
			strbuf_printf(sb, ": %s", tests);
		strbuf_putc(sb, '\n');
		free(tests);
	}
	fold_release(&passes);
	for (size_t t = 0; t < s->n_tests; t++)
		free(keys[t]);
	free(keys);
}

/* "2556 passed, 4 failed, 0 errors, 0 skipped, 1 regressed in 2m03s (LABEL)". */
static void summary_totals(struct strbuf *sb, const struct run_result *run)
{
	struct report_totals t;
	report_count(run, &t);
	strbuf_printf(sb, "%zu passed", t.passed);
	if (t.flaky)
		strbuf_printf(sb, " (%zu flaky: after an infrastructure retry)", t.flaky);
	strbuf_printf(sb, ", %zu failed, %zu error%s, %zu skipped", t.failed, t.errors,
		      t.errors == 1 ? "" : "s", t.skipped);
	if (t.offline)
		strbuf_printf(sb, " (%zu: board offline)", t.offline);
	if (t.regressed)
		strbuf_printf(sb, ", %zu regressed", t.regressed);
	if (run->start_wall_us && run->end_wall_us > run->start_wall_us) {
		char d[32];
		report_fmt_duration(d, sizeof(d), (double)(run->end_wall_us - run->start_wall_us) / 1e6);
		strbuf_printf(sb, " in %s", d);
	}
	if (run->label)
		strbuf_printf(sb, " (%s)", run->label);
	strbuf_putc(sb, '\n');
}

char *report_summary_in(const struct run_result *run, const char *run_dir, bool color)
{
	struct summary_run s;
	summary_run_init(&s, run, run_dir);
	struct strbuf sb = STRBUF_INIT;
	struct strbuf part = STRBUF_INIT;
	void (*const parts[])(struct strbuf *, const struct summary_run *, bool) = {
		summary_problems, summary_regressions, summary_tests_c, summary_metrics,
		summary_notes,
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		strbuf_reset(&part);
		parts[i](&part, &s, color);
		if (!part.len)
			continue;
		if (sb.len)
			strbuf_putc(&sb, '\n');
		strbuf_append(&sb, part.buf, part.len);
	}
	if (sb.len)
		strbuf_putc(&sb, '\n');
	summary_totals(&sb, run);
	strbuf_release(&part);
	summary_run_release(&s);
	return strbuf_detach(&sb);
}

char *report_summary(const struct run_result *run, bool color)
{
	return report_summary_in(run, NULL, color);
}
