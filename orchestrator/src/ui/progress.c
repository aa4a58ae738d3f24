#include "ui/progress.h"
#include "ui/progress_int.h"
#include "report/report.h"
#include "util/deadline.h"
#include "util/fold.h"
#include "util/log.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The CI log's progress line, at most this often. */
#define PROGRESS_EVERY_MS 30000

struct progress *progress_new(FILE *out, bool live, bool color, bool verbose)
{
	struct progress *p = xcalloc(1, sizeof(*p));
	p->out = out;
	p->live = live;
	p->color = color;
	p->verbose = verbose && !live;
	p->start_ms = clock_mono_ms();
	p->last_line_ms = p->start_ms;
	pthread_mutex_init(&p->held_lock, NULL);
	if (p->live)
		log_set_sink(progress_hold, p);
	return p;
}

static struct pg_board *find_board(struct progress *p, const char *name)
{
	for (size_t i = 0; i < p->n_boards; i++)
		if (!strcmp(p->boards[i].name, name))
			return &p->boards[i];
	return NULL;
}

void progress_add_item(struct progress *p, const char *board, const char *test)
{
	struct pg_board *b = find_board(p, board);
	if (!b) {
		p->boards = xrealloc(p->boards, (p->n_boards + 1) * sizeof(*p->boards));
		b = &p->boards[p->n_boards++];
		*b = (struct pg_board){ .name = xstrdup(board) };
	}
	b->items = xrealloc(b->items, (b->n_items + 1) * sizeof(*b->items));
	b->items[b->n_items++] = (struct pg_item){ .test = xstrdup(test) };
	struct pg_test *t = progress_find_test(p, test);
	if (!t) {
		p->tests = xrealloc(p->tests, (p->n_tests + 1) * sizeof(*p->tests));
		t = &p->tests[p->n_tests++];
		*t = (struct pg_test){ .name = xstrdup(test) };
	}
	t->n_items++;
	p->n_items++;
}

static void plain_line(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void plain_line(struct progress *p, const char *fmt, ...)
{
	char ts[16];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	fprintf(p->out, "%s %s\n", ts, strbuf_str(&sb));
	fflush(p->out);
	strbuf_release(&sb);
}

void progress_started(struct progress *p, const char *board, const char *test)
{
	struct pg_board *b = find_board(p, board);
	if (b) {
		b->running = NULL;
		for (size_t i = 0; i < b->n_items && !b->running; i++)
			if (!b->items[i].done && !strcmp(b->items[i].test, test))
				b->running = b->items[i].test;
		b->since_ms = clock_mono_ms();
	}
	size_t running = 0;
	for (size_t i = 0; i < p->n_boards; i++)
		running += p->boards[i].running != NULL;
	if (running > p->max_running)
		p->max_running = running;
	if (p->live)
		progress_draw(p, false);
	else if (p->verbose)
		plain_line(p, "%s %s: started", board, test);
}

/* "failed: t07 on b10: exit status 1; logs b10/t07". Caller frees. */
static char *problem_line(const struct test_result *tr)
{
	char *where = tr->log_dir ? xstrdup(tr->log_dir) : xasprintf("%s/%s", tr->board, tr->test);
	char *line = xasprintf("%s: %s on %s: %s; logs %s",
			       tr->status == STATUS_FAIL ? "failed" : "error", tr->test, tr->board,
			       tr->message ? tr->message : "no message", where);
	free(where);
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
	return line;
}

/* Counts tr in its board and test; returns its test. */
static struct pg_test *count(struct progress *p, const struct test_result *tr)
{
	struct pg_board *b = find_board(p, tr->board);
	const char *board = NULL;
	if (b) {
		for (size_t i = 0; i < b->n_items; i++) {
			if (!b->items[i].done && !strcmp(b->items[i].test, tr->test)) {
				b->items[i].done = true;
				break;
			}
		}
		b->running = NULL;
		b->n_done++;
		b->counts[tr->status]++;
		board = b->name;
	}
	p->n_done++;
	p->counts[tr->status]++;
	struct pg_test *t = progress_find_test(p, tr->test);
	if (t) {
		t->n_done++;
		if (isfinite(tr->duration_s) && tr->duration_s >= 0) {
			t->sum_s += tr->duration_s;
			t->n_timed++;
			p->sum_s += tr->duration_s;
			p->n_timed++;
		}
		if (b)   /* the fold borrows the board's name */
			fold_add(&t->by, report_outcome_word(tr), board, NULL);
	}
	return t;
}

void progress_finished(struct progress *p, const struct test_result *tr)
{
	struct pg_test *t = count(p, tr);
	bool problem = tr->status == STATUS_FAIL || tr->status == STATUS_ERROR;
	if (problem) {
		p->problems = xrealloc(p->problems, (p->n_problems + 1) * sizeof(*p->problems));
		p->problems[p->n_problems++] = problem_line(tr);
	}
	if (p->live) {
		progress_draw(p, false);
		return;
	}
	if (p->verbose)
		plain_line(p, "%s %s: %s (%.2fs)%s%s", tr->board, tr->test,
			   result_status_name(tr->status), tr->duration_s, tr->message ? " " : "",
			   tr->message ? tr->message : "");
	else if (problem)
		plain_line(p, "%s", p->problems[p->n_problems - 1]);
	if (t && t->n_done == t->n_items && t->by.n) {
		struct strbuf sb = STRBUF_INIT;
		fold_sort(&t->by, FOLD_AS_ADDED);
		report_test_tally(&sb, t->name, &t->by);
		plain_line(p, "%s", strbuf_str(&sb));
		strbuf_release(&sb);
	}
}

void progress_tick(struct progress *p)
{
	if (p->live) {
		progress_draw(p, true);
		return;
	}
	int64_t now = clock_mono_ms();
	if (now - p->last_line_ms < PROGRESS_EVERY_MS)
		return;
	p->last_line_ms = now;
	struct strbuf sb = STRBUF_INIT;
	progress_header(&sb, p, now);
	plain_line(p, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->live) {
		log_set_sink(NULL, NULL);
		progress_erase(p);
	}
	pthread_mutex_destroy(&p->held_lock);
	strbuf_release(&p->held);
	for (size_t i = 0; i < p->n_boards; i++) {
		for (size_t k = 0; k < p->boards[i].n_items; k++)
			free(p->boards[i].items[k].test);
		free(p->boards[i].items);
		free(p->boards[i].name);
	}
	free(p->boards);
	for (size_t i = 0; i < p->n_tests; i++) {
		fold_release(&p->tests[i].by);
		free(p->tests[i].name);
	}
	free(p->tests);
	for (size_t i = 0; i < p->n_problems; i++)
		free(p->problems[i]);
	free(p->problems);
	free(p);
}
