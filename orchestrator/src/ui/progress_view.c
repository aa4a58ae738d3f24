/* The live view on a terminal: at most rows - 1 lines, each shorter than
 * the terminal is wide, redrawn in place over the last frame, so nothing
 * scrolls and nothing is left twice in the scrollback. */
#include "ui/progress_int.h"
#include "report/report.h"
#include "util/deadline.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define VIEW_MIN_REDRAW_MS 100

struct frame {
	char **lines;
	size_t n;
};

static void frame_add(struct frame *f, char *line)
{
	f->lines = xrealloc(f->lines, (f->n + 1) * sizeof(*f->lines));
	f->lines[f->n++] = line;
}

static void frame_release(struct frame *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->lines[i]);
	free(f->lines);
}

static void term_size(const struct progress *p, unsigned *rows, unsigned *cols)
{
	struct winsize ws;
	*rows = 24;
	*cols = 80;
	if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* Appends s cut to max columns (code points), control characters as
 * spaces. */
static void put_cut(struct strbuf *sb, const char *s, size_t max)
{
	size_t n = utf8_prefix(s, max);
	for (const unsigned char *c = (const unsigned char *)s; c < (const unsigned char *)s + n; c++)
		strbuf_putc(sb, *c < 0x20 ? ' ' : (char)*c);
}

static int by_key(const void *x, const void *y)
{
	const struct fold_group *a = x, *b = y;
	return nodeset_cmp(a->key, b->key);
}

/* "running t26 on 16 boards b[17-32], 0.2s", a line per test running now. */
static void running_lines(const struct progress *p, int64_t now, struct frame *out)
{
	struct fold f = FOLD_INIT;
	for (size_t i = 0; i < p->n_boards; i++)
		if (p->boards[i].running)
			fold_add(&f, p->boards[i].running, p->boards[i].name, NULL);
	fold_sort(&f, FOLD_AS_ADDED);
	if (f.n > 1)
		qsort(f.groups, f.n, sizeof(*f.groups), by_key);
	for (size_t g = 0; g < f.n; g++) {
		int64_t since = now;
		for (size_t i = 0; i < p->n_boards; i++)
			if (p->boards[i].running && !strcmp(p->boards[i].running, f.groups[g].key) &&
			    p->boards[i].since_ms < since)
				since = p->boards[i].since_ms;
		char d[32];
		report_fmt_duration(d, sizeof(d), (double)(now - since) / 1000.0);
		char *set = fold_nodeset(&f.groups[g]);
		if (f.groups[g].n == 1)
			frame_add(out, xasprintf("running %s on %s, %s", f.groups[g].key, set, d));
		else
			frame_add(out, xasprintf("running %s on %zu boards %s, %s", f.groups[g].key,
						 f.groups[g].n, set, d));
		free(set);
	}
	fold_release(&f);
}

/* "b3   12/40 running t13 1.2s   11 passed 1 failed". */
static char *board_line(const struct progress *p, const struct pg_board *b, int64_t now)
{
	static const char *const names[] = { "passed", "failed", "errors", "skipped" };
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "%s %zu/%zu", b->name, b->n_done, b->n_items);
	if (b->running) {
		char d[32];
		report_fmt_duration(d, sizeof(d), (double)(now - b->since_ms) / 1000.0);
		strbuf_printf(&sb, " running %s %s", b->running, d);
	} else {
		strbuf_puts(&sb, b->n_done == b->n_items ? " done" : " waiting");
	}
	for (int st = 0; st < 4; st++)
		if (b->counts[st])
			strbuf_printf(&sb, " %zu %s", b->counts[st], names[st]);
	(void)p;
	return strbuf_detach(&sb);
}

/* The frame for rows x cols: the header, then as many running tests and
 * failures as fit (the newest failures, "N more" for the rest), then a row
 * per board when all of them fit. */
static void build(const struct progress *p, int64_t now, unsigned rows, struct frame *out)
{
	struct strbuf h = STRBUF_INIT;
	progress_header(&h, p, now);
	frame_add(out, strbuf_detach(&h));
	size_t avail = rows > 2 ? rows - 2 : 0;
	struct frame run = { 0 };
	running_lines(p, now, &run);
	size_t F = p->n_problems, R = run.n;
	/* failures may take half the room; the running tests the rest, then
	 * the failures what the running tests left */
	size_t f_cap = F < (avail + 1) / 2 ? F : (avail + 1) / 2;
	size_t r_show = R < avail - f_cap ? R : avail - f_cap;
	size_t f_show = F < avail - r_show ? F : avail - r_show;
	for (size_t i = 0; i < r_show; i++) {
		if (i + 1 == r_show && r_show < R) {
			frame_add(out, xasprintf("... %zu more tests running", R - i));
			break;
		}
		frame_add(out, run.lines[i]);
		run.lines[i] = NULL;
	}
	frame_release(&run);
	size_t first = F - f_show;
	if (f_show && f_show < F) {
		frame_add(out, xasprintf("... %zu earlier failures (in the summary at the end)",
					 F - f_show + 1));
		first++;
	}
	for (size_t i = first; i < F; i++)
		frame_add(out, xstrdup(p->problems[i]));
	if (p->n_boards <= avail - r_show - f_show)
		for (size_t i = 0; i < p->n_boards; i++)
			frame_add(out, board_line(p, &p->boards[i], now));
}

void progress_hold(void *ctx, const char *msg, size_t len)
{
	struct progress *p = ctx;
	pthread_mutex_lock(&p->held_lock);
	strbuf_append(&p->held, msg, len);
	pthread_mutex_unlock(&p->held_lock);
}

/* The messages held since the last draw, with the frame erased first. */
static bool put_held(struct progress *p, struct strbuf *sb)
{
	pthread_mutex_lock(&p->held_lock);
	bool any = p->held.len > 0;
	if (any) {
		if (p->lines_drawn)
			strbuf_printf(sb, "\r\033[%zuA\033[J", p->lines_drawn);
		strbuf_append(sb, p->held.buf, p->held.len);
		strbuf_reset(&p->held);
	}
	pthread_mutex_unlock(&p->held_lock);
	return any;
}

void progress_draw(struct progress *p, bool force)
{
	int64_t now = clock_mono_ms();
	if (!force && p->lines_drawn && now - p->drawn_ms < VIEW_MIN_REDRAW_MS)
		return;
	p->drawn_ms = now;
	unsigned rows, cols;
	term_size(p, &rows, &cols);
	struct frame f = { 0 };
	build(p, now, rows, &f);
	struct strbuf sb = STRBUF_INIT;
	if (put_held(p, &sb))
		p->lines_drawn = 0;   /* the frame starts below the messages */
	if (p->lines_drawn && (rows != p->rows || cols != p->cols))
		/* resized: the old frame may have wrapped; start again at the top */
		strbuf_puts(&sb, "\r\033[H\033[2J");
	else if (p->lines_drawn)
		strbuf_printf(&sb, "\r\033[%zuA", p->lines_drawn);
	for (size_t i = 0; i < f.n; i++) {
		bool problem = i && !strncmp(f.lines[i], "failed:", 7);
		bool error = i && !strncmp(f.lines[i], "error:", 6);
		strbuf_puts(&sb, "\033[K");
		if (p->color && (i == 0 || problem || error))
			strbuf_puts(&sb, i == 0 ? "\033[1m" : problem ? "\033[31m" : "\033[33m");
		put_cut(&sb, f.lines[i], cols > 1 ? cols - 1 : 1);
		if (p->color && (i == 0 || problem || error))
			strbuf_puts(&sb, "\033[0m");
		strbuf_putc(&sb, '\n');
	}
	strbuf_puts(&sb, "\033[J");
	p->lines_drawn = f.n;
	p->rows = rows;
	p->cols = cols;
	fputs(strbuf_str(&sb), p->out);
	fflush(p->out);
	strbuf_release(&sb);
	frame_release(&f);
}

void progress_erase(struct progress *p)
{
	struct strbuf sb = STRBUF_INIT;
	if (!put_held(p, &sb) && p->lines_drawn)
		strbuf_printf(&sb, "\r\033[%zuA\033[J", p->lines_drawn);
	p->lines_drawn = 0;
	fputs(strbuf_str(&sb), p->out);
	fflush(p->out);
	strbuf_release(&sb);
}
