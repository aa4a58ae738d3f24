#include "ui/progress.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct board_line {
	char *name;
	size_t n_items;
	size_t n_done;
	size_t counts[4];              /* by enum result_status */
	char *test;                    /* running now, or NULL */
	int64_t since_ms;
};

struct progress {
	FILE *out;
	bool live;
	bool color;
	struct board_line *boards;
	size_t n_boards;
	size_t name_width;
	size_t lines_drawn;
};

struct progress *progress_new(FILE *out, bool live, bool color)
{
	struct progress *p = xcalloc(1, sizeof(*p));
	p->out = out;
	p->live = live;
	p->color = color;
	return p;
}

void progress_add_board(struct progress *p, const char *board, size_t n_items)
{
	p->boards = xrealloc(p->boards, (p->n_boards + 1) * sizeof(*p->boards));
	p->boards[p->n_boards++] = (struct board_line){ .name = xstrdup(board), .n_items = n_items };
	if (strlen(board) > p->name_width)
		p->name_width = strlen(board);
}

static struct board_line *find_board(struct progress *p, const char *name)
{
	for (size_t i = 0; i < p->n_boards; i++)
		if (!strcmp(p->boards[i].name, name))
			return &p->boards[i];
	return NULL;
}

static const char *paint(const struct progress *p, enum result_status st)
{
	if (!p->color)
		return "";
	switch (st) {
	case STATUS_PASS: return "\033[32m";
	case STATUS_FAIL: return "\033[31m";
	case STATUS_ERROR: return "\033[35m";
	case STATUS_SKIP: return "\033[33m";
	}
	return "";
}

static void draw_board(struct progress *p, struct strbuf *sb, const struct board_line *b)
{
	static const char *const names[] = { "passed", "failed", "errors", "skipped" };
	strbuf_printf(sb, "\033[K%-*s %3zu/%-3zu ", (int)p->name_width, b->name, b->n_done,
		      b->n_items);
	if (b->test)
		strbuf_printf(sb, "%-20s running %5.1fs ", b->test,
			      (double)(clock_mono_ms() - b->since_ms) / 1000.0);
	else
		strbuf_printf(sb, "%-20s %-14s ", b->n_done == b->n_items ? "done" : "waiting", "");
	for (int st = 0; st < 4; st++)
		if (b->counts[st])
			strbuf_printf(sb, " %s%zu %s%s", paint(p, (enum result_status)st),
				      b->counts[st], names[st], p->color ? "\033[0m" : "");
	strbuf_putc(sb, '\n');
}

static void redraw(struct progress *p)
{
	struct strbuf sb = STRBUF_INIT;
	if (p->lines_drawn)
		strbuf_printf(&sb, "\033[%zuA", p->lines_drawn);
	for (size_t i = 0; i < p->n_boards; i++)
		draw_board(p, &sb, &p->boards[i]);
	p->lines_drawn = p->n_boards;
	fputs(strbuf_str(&sb), p->out);
	fflush(p->out);
	strbuf_release(&sb);
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
	struct board_line *b = find_board(p, board);
	if (b) {
		free(b->test);
		b->test = xstrdup(test);
		b->since_ms = clock_mono_ms();
	}
	if (p->live)
		redraw(p);
	else
		plain_line(p, "%s %s: started", board, test);
}

void progress_finished(struct progress *p, const struct test_result *tr)
{
	struct board_line *b = find_board(p, tr->board);
	if (b) {
		free(b->test);
		b->test = NULL;
		b->n_done++;
		b->counts[tr->status]++;
	}
	if (p->live) {
		redraw(p);
		return;
	}
	plain_line(p, "%s %s: %s (%.2fs)%s%s", tr->board, tr->test,
		   result_status_name(tr->status), tr->duration_s, tr->message ? " " : "",
		   tr->message ? tr->message : "");
}

void progress_tick(struct progress *p)
{
	if (p->live)
		redraw(p);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->live)
		redraw(p);
	for (size_t i = 0; i < p->n_boards; i++) {
		free(p->boards[i].name);
		free(p->boards[i].test);
	}
	free(p->boards);
	free(p);
}
