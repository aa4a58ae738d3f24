#ifndef ORCH_UI_PROGRESS_INT_H
#define ORCH_UI_PROGRESS_INT_H
/* The progress display's state, shared by its counting (progress.c) and
 * its live view (progress_view.c); both read the totals through
 * progress_totals.c, which uses neither. */
#include "ui/progress.h"
#include "util/fold.h"
#include "util/strbuf.h"

#include <pthread.h>

#include <stdint.h>

struct pg_item {
	char *test;
	bool done;
};

struct pg_board {
	char *name;
	struct pg_item *items;       /* its tests, as planned */
	size_t n_items;
	size_t n_done;
	size_t counts[4];            /* by enum result_status */
	const char *running;         /* the item's test running now, or NULL */
	int64_t since_ms;
};

struct pg_test {
	char *name;
	size_t n_items, n_done;
	double sum_s;                /* durations seen */
	size_t n_timed;
	struct fold by;              /* boards by outcome word (report_outcome_word) */
};

struct progress {
	FILE *out;
	bool live, color, verbose;
	int64_t start_ms;
	int64_t last_line_ms;        /* the CI log's last progress line */
	struct pg_board *boards;
	size_t n_boards;
	struct pg_test *tests;
	size_t n_tests;
	size_t n_items, n_done;
	size_t counts[4];
	double sum_s;
	size_t n_timed;
	size_t max_running;          /* the most items seen running at once */
	char **problems;             /* "failed: t07 on b10: ...", as they came */
	size_t n_problems;
	/* the live view */
	size_t lines_drawn;
	int64_t drawn_ms;
	unsigned rows, cols;         /* the terminal's size at the last draw */
	/* messages logged while the view is up, printed above it at the next
	 * draw (any thread adds to them) */
	pthread_mutex_t held_lock;
	struct strbuf held;
};

/* The test named NAME, or NULL (progress_totals.c, as the two below). */
struct pg_test *progress_find_test(const struct progress *p, const char *name);
/* Seconds until the run ends, from the mean duration of each test seen so
 * far (of all tests when a test has none yet), over the boards side by
 * side; NAN before any test ended. */
double progress_eta_s(const struct progress *p, int64_t now_ms);
/* "1234/2560 done, 1230 passed, 4 failed, 0 errors, 12.3s elapsed, ETA 40s". */
void progress_header(struct strbuf *sb, const struct progress *p, int64_t now_ms);

/* progress_view.c: */
/* Redraws the live view in place (an event's redraw is skipped when the
 * last was less than 100 ms ago, unless forced). */
void progress_draw(struct progress *p, bool force);
/* log_set_sink's sink while the view is up: holds msg for the next draw. */
void progress_hold(void *ctx, const char *msg, size_t len);
/* Removes the live view from the terminal (the messages held printed). */
void progress_erase(struct progress *p);

#endif
