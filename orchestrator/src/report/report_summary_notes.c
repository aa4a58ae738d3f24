/* The summary's notes (implementation measured, leftover processes,
 * missing metrics, long lines, flaky passes, offline boards): each distinct
 * line once, with the boards and tests it applies to as node sets
 * ("implementation: b[1-64] disk,net: remote-bench's own portable C ..."). */
#include "report/report_text.h"
#include "report/summary_int.h"
#include "util/fold.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define NOTE_MAX_LINE 400

/* A note is PREFIX BOARDS[ TESTS]TEXT; the key holds the three apart. */
#define SEP "\x1f"

static void note(struct fold *f, const char *prefix, const char *board, const char *test,
		 const char *text)
{
	char *key = xasprintf("%s" SEP "%s" SEP "%s", prefix, test ? test : "", text);
	fold_add(f, key, board, NULL);
	free(key);
}

/* Test runs whose leftover check did not answer (a loaded controller or
 * board): one line for them all, their boards and tests as node sets. */
struct unchecked {
	const char **boards, **tests;
	size_t n;
};

static bool leftover_unchecked(const char *text)
{
	return strstr(text, "not checked: ") != NULL;
}

static void unchecked_put(struct strbuf *sb, const struct unchecked *u)
{
	if (!u->n)
		return;
	char *b = summary_fold_names(u->boards, u->n), *t = summary_fold_names(u->tests, u->n);
	strbuf_printf(sb, "warning: %zu test run%s on %s (%s) could not be checked for processes "
		      "left running; each reason is in results.json\n", u->n, u->n == 1 ? "" : "s",
		      b, t);
	free(b);
	free(t);
}

static void test_notes(struct fold *f, struct unchecked *u, const struct test_result *tr)
{
	for (size_t k = 0; k < tr->n_leftovers; k++) {
		if (leftover_unchecked(tr->leftovers[k])) {
			u->boards[u->n] = tr->board;
			u->tests[u->n++] = tr->test;
			break;
		}
	}
	for (size_t k = 0; k < tr->n_leftovers; k++) {
		if (leftover_unchecked(tr->leftovers[k]))
			continue;
		char *t = xasprintf(" left processes running after it ended; orch stopped them: %s",
				    tr->leftovers[k]);
		note(f, "warning:", tr->board, tr->test, t);
		free(t);
	}
	if (tr->implementation) {
		char *t = xasprintf(": %s", tr->implementation);
		note(f, "implementation:", tr->board, tr->test, t);
		free(t);
	}
	for (size_t k = 0; k < tr->n_missing_metrics; k++) {
		const struct missing_metric *mm = &tr->missing_metrics[k];
		char *t = xasprintf(": metric %s (%s%s)", mm->name, mm->reason,
				    mm->optional ? ", optional" : "");
		note(f, "missing:", tr->board, tr->test, t);
		free(t);
	}
	if (tr->long_lines) {
		char *t = xasprintf(": %llu output line%s longer than the 1 MiB matching cap: too "
				    "long for matching, no regex saw %s",
				    (unsigned long long)tr->long_lines, tr->long_lines == 1 ? "" : "s",
				    tr->long_lines == 1 ? "it" : "them");
		note(f, "warning:", tr->board, tr->test, t);
		free(t);
	}
	if (tr->flaky && tr->n_infra_attempts) {
		const char *why = tr->infra_attempts[0].message;
		char *t = xasprintf(" passed on try %zu after an infrastructure error: %s",
				    tr->n_infra_attempts, why ? why : "?");
		note(f, "flaky:", tr->board, tr->test, t);
		free(t);
	}
	if (tr->repeat.is_auto) {
		char *rep = repeat_outcome_describe(tr);
		char *t = xasprintf(": %s", rep ? rep : "");
		note(f, "note:", tr->board, tr->test, t);
		free(t);
		free(rep);
	}
}

/* The notes of the same text on the same boards, their tests joined. */
static void notes_put(struct strbuf *sb, struct fold *by_test)
{
	fold_sort(by_test, FOLD_AS_ADDED);
	struct fold joined = FOLD_INIT;
	char **tests = xcalloc(by_test->n + 1, sizeof(*tests));
	for (size_t i = 0; i < by_test->n; i++) {
		const struct fold_group *g = &by_test->groups[i];
		const char *test = strstr(g->key, SEP) + 1;
		const char *text = strstr(test, SEP) + 1;
		char *set = summary_fold_names(g->members, g->n);
		char *key = xasprintf("%.*s" SEP "%s" SEP "%s", (int)(test - 1 - g->key), g->key, set,
				      text);
		tests[i] = xstrndup(test, (size_t)(text - 1 - test));
		fold_add(&joined, key, tests[i], NULL);
		free(key);
		free(set);
	}
	for (size_t i = 0; i < joined.n; i++) {
		const struct fold_group *g = &joined.groups[i];
		const char *boards = strstr(g->key, SEP) + 1;
		const char *text = strstr(boards, SEP) + 1;
		struct strbuf line = STRBUF_INIT;
		strbuf_printf(&line, "%.*s %.*s", (int)(boards - 1 - g->key), g->key,
			      (int)(text - 1 - boards), boards);
		if (*g->members[0]) {
			char *set = summary_fold_names(g->members, g->n);
			strbuf_printf(&line, " %s", set);
			free(set);
		}
		strbuf_puts(&line, text);
		char *c = report_clean_line(strbuf_str(&line), NOTE_MAX_LINE);
		strbuf_printf(sb, "%s\n", c);
		free(c);
		strbuf_release(&line);
	}
	fold_release(&joined);
	for (size_t i = 0; i < by_test->n; i++)
		free(tests[i]);
	free(tests);
}

void summary_notes(struct strbuf *sb, const struct summary_run *s, bool color)
{
	(void)color;
	const struct run_result *run = s->run;
	if (run->interrupted)
		strbuf_puts(sb, "interrupted: the results are partial\n");
	struct fold f = FOLD_INIT;
	for (size_t i = 0; i < run->n_offline; i++) {
		char *t = xasprintf(": %s", run->offline[i].reason ? run->offline[i].reason : "?");
		note(&f, "offline:", run->offline[i].board, NULL, t);
		free(t);
	}
	struct unchecked u = {
		xcalloc(run->n_results + 1, sizeof(*u.boards)),
		xcalloc(run->n_results + 1, sizeof(*u.tests)), 0,
	};
	for (size_t i = 0; i < run->n_results; i++)
		test_notes(&f, &u, &run->results[i]);
	notes_put(sb, &f);
	unchecked_put(sb, &u);
	free(u.boards);
	free(u.tests);
	fold_release(&f);
	if (run->rerun_of)
		strbuf_printf(sb, "rerun of %s (only %s)\n", run->rerun_of,
			      run->rerun_only ? run->rerun_only : "both");
}
