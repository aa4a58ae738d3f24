#include "ui/progress.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct busy {
	char *board;
	char *test;
	int64_t since_ms;
};

struct progress {
	FILE *out;
	bool live;
	bool color;
	size_t n_items;
	size_t n_done;
	size_t n_failed;
	struct busy *busy;
	size_t n_busy;
};

struct progress *progress_new(FILE *out, bool live, bool color, size_t n_items)
{
	struct progress *p = xcalloc(1, sizeof(*p));
	p->out = out;
	p->live = live;
	p->color = color;
	p->n_items = n_items;
	return p;
}

static void timestamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

static const char *status_color(enum result_status st)
{
	switch (st) {
	case STATUS_PASS: return "\033[32m";
	case STATUS_FAIL: return "\033[31m";
	case STATUS_ERROR: return "\033[35m";
	case STATUS_SKIP: return "\033[33m";
	}
	return "";
}

static void draw_status(struct progress *p)
{
	if (!p->live)
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "\r\033[K[%zu/%zu]", p->n_done, p->n_items);
	for (size_t i = 0; i < p->n_busy && sb.len < 200; i++)
		strbuf_printf(&sb, " %s:%s", p->busy[i].board, p->busy[i].test);
	fputs(strbuf_str(&sb), p->out);
	fflush(p->out);
	strbuf_release(&sb);
}

void progress_started(struct progress *p, const char *board, const char *test)
{
	p->busy = xrealloc(p->busy, (p->n_busy + 1) * sizeof(*p->busy));
	p->busy[p->n_busy++] = (struct busy){ xstrdup(board), xstrdup(test), clock_mono_ms() };
	if (p->live) {
		draw_status(p);
		return;
	}
	char ts[16];
	timestamp(ts, sizeof(ts));
	fprintf(p->out, "%s %s %s: started\n", ts, board, test);
	fflush(p->out);
}

void progress_finished(struct progress *p, const struct test_result *tr)
{
	for (size_t i = 0; i < p->n_busy; i++) {
		if (strcmp(p->busy[i].board, tr->board) || strcmp(p->busy[i].test, tr->test))
			continue;
		free(p->busy[i].board);
		free(p->busy[i].test);
		p->busy[i] = p->busy[--p->n_busy];
		break;
	}
	p->n_done++;
	char ts[16];
	timestamp(ts, sizeof(ts));
	const char *st = result_status_name(tr->status);
	if (p->live)
		fputs("\r\033[K", p->out);
	fprintf(p->out, "%s %s %s: %s%s%s (%.2fs)%s%s\n", ts, tr->board, tr->test,
		p->color ? status_color(tr->status) : "", st, p->color ? "\033[0m" : "",
		tr->duration_s, tr->message ? " " : "", tr->message ? tr->message : "");
	draw_status(p);
	fflush(p->out);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->live)
		fputs("\r\033[K", p->out);
	for (size_t i = 0; i < p->n_busy; i++) {
		free(p->busy[i].board);
		free(p->busy[i].test);
	}
	free(p->busy);
	free(p);
}
