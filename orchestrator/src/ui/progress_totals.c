/* The figures of a run's progress that the CI log's progress line and the
 * live view's header share: the totals so far, the elapsed time, the ETA. */
#include "ui/progress_int.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct pg_test *progress_find_test(const struct progress *p, const char *name)
{
	for (size_t i = 0; i < p->n_tests; i++)
		if (!strcmp(p->tests[i].name, name))
			return &p->tests[i];
	return NULL;
}

double progress_eta_s(const struct progress *p, int64_t now_ms)
{
	if (!p->n_timed)
		return NAN;
	double mean_all = p->sum_s / (double)p->n_timed, longest = 0, total = 0;
	for (size_t i = 0; i < p->n_boards; i++) {
		const struct pg_board *b = &p->boards[i];
		double left = 0;
		for (size_t k = 0; k < b->n_items; k++) {
			if (b->items[k].done)
				continue;
			const struct pg_test *t = progress_find_test(p, b->items[k].test);
			left += t && t->n_timed ? t->sum_s / (double)t->n_timed : mean_all;
		}
		if (b->running)
			left -= (double)(now_ms - b->since_ms) / 1000.0;
		if (left < 0)
			left = 0;
		total += left;
		if (left > longest)
			longest = left;
	}
	/* boards run side by side, as many at once as were seen running */
	double shared = p->max_running ? total / (double)p->max_running : total;
	return shared > longest ? shared : longest;
}

void progress_header(struct strbuf *sb, const struct progress *p, int64_t now_ms)
{
	char el[32], eta[32];
	report_fmt_duration(el, sizeof(el), (double)(now_ms - p->start_ms) / 1000.0);
	double e = progress_eta_s(p, now_ms);
	if (isnan(e))
		snprintf(eta, sizeof(eta), "?");
	else
		report_fmt_duration(eta, sizeof(eta), e);
	strbuf_printf(sb, "%zu/%zu done, %zu passed, %zu failed, %zu error%s", p->n_done,
		      p->n_items, p->counts[STATUS_PASS], p->counts[STATUS_FAIL],
		      p->counts[STATUS_ERROR], p->counts[STATUS_ERROR] == 1 ? "" : "s");
	if (p->counts[STATUS_SKIP])
		strbuf_printf(sb, ", %zu skipped", p->counts[STATUS_SKIP]);
	strbuf_printf(sb, ", %s elapsed, ETA %s", el, eta);
}
