/* The ad-hoc verbs' shared floor (cli/adhoc.h): selecting, taking each
 * board (offline state, lock, link) on up to -j workers, the exit code. */
#include "cli/adhoc.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "config/selector.h"
#include "health/health.h"
#include "lock/board_lock.h"
#include "util/board_token.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *adhoc_state_word(enum adhoc_state s, bool failed)
{
	switch (s) {
	case ADHOC_RAN: return failed ? "failed" : "ok";
	case ADHOC_TIMED_OUT: return "timed out";
	case ADHOC_UNREACHABLE: return "unreachable";
	case ADHOC_HELD: return "held";
	case ADHOC_OFFLINE: return "offline";
	case ADHOC_INTERRUPTED: return "interrupted";
	case ADHOC_PENDING: break;
	}
	return "not started";
}

int adhoc_select(const char *verb, const char *inv_path, const char *const *sels, size_t n_sels,
		 int64_t bound_ms, struct inventory **inv, struct adhoc_board **boards, size_t *n)
{
	*boards = NULL;
	*n = 0;
	if (!inv_path)
		inv_path = getenv("ORCH_INVENTORY");
	if (!inv_path || !*inv_path)
		return cmd_usage_error(verb, "give the boards file (-i INVENTORY or ORCH_INVENTORY)");
	int ret = cmd_load_inventory(inv_path, inv);
	if (ret != EXIT_OK)
		return ret;
	/* the verb's --timeout bounds connecting too: a board that accepts and
	 * never answers must not take the inventory's 10 s past it */
	for (size_t b = 0; b < (*inv)->n_boards; b++)
		if ((*inv)->boards[b].ssh.connect_timeout_ms > bound_ms)
			(*inv)->boards[b].ssh.connect_timeout_ms = bound_ms;
	bool *sel = xcalloc((*inv)->n_boards + 1, sizeof(bool));
	char err[512];
	if (selector_resolve(*inv, sels, n_sels, NULL, 0, sel, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch %s: %s: %s\n", verb, (*inv)->path, err);
		ret = EXIT_USAGE;
	}
	for (size_t b = 0; ret == EXIT_OK && b < (*inv)->n_boards; b++)
		if (sel[b])
			(*n)++;
	free(sel);
	if (ret == EXIT_OK && !*n) {
		fprintf(stderr, "orch %s: the selectors select no board of %s\n", verb,
			(*inv)->path);
		ret = EXIT_USAGE;
	}
	if (ret != EXIT_OK) {
		*n = 0;
		return ret;
	}
	const char **names = xcalloc(*n + 1, sizeof(*names));
	sel = xcalloc((*inv)->n_boards + 1, sizeof(bool));
	selector_resolve(*inv, sels, n_sels, NULL, 0, sel, err, sizeof(err));
	size_t k = 0;
	for (size_t b = 0; b < (*inv)->n_boards; b++)
		if (sel[b])
			names[k++] = (*inv)->boards[b].name;
	free(sel);
	nodeset_sort(names, k);
	*boards = xcalloc(k + 1, sizeof(**boards));
	for (size_t i = 0; i < k; i++)
		(*boards)[i].board = inventory_find(*inv, names[i]);
	free(names);
	return EXIT_OK;
}

/* The workers' shared state. */
struct adhoc_pool {
	const struct adhoc_request *rq;
	const struct inventory *inv;
	struct adhoc_board *boards;
	size_t n, next, done;
	struct health_state hs;
	bool health;               /* hs is open */
	char *lock_dir;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Whether the board is offline: then ab says so. */
static bool board_offline(struct adhoc_pool *p, struct adhoc_board *ab)
{
	struct board_offline_rec rec;
	char err[256];
	if (!p->health || health_get(&p->hs, ab->board->name, &rec, err, sizeof(err)) != 1)
		return false;
	ab->state = ADHOC_OFFLINE;
	snprintf(ab->error, sizeof(ab->error), "offline (by %s): %s", rec.by, rec.reason);
	return true;
}

/* The board's lock: 0 with *fd (-1 when forced past a holder) and
 * *previous (a holder that died with it), else -1 with ab's state set. */
static int board_take_lock(struct adhoc_pool *p, struct adhoc_board *ab, int *fd,
			   struct board_holder *previous)
{
	char err[512], desc[512], token[BOARD_TOKEN_LEN + 1];
	struct board_holder who;
	board_token(ab->board->name, token, sizeof(token));
	memset(previous, 0, sizeof(*previous));
	int rc = board_lock_try(p->lock_dir, ab->board->name, p->rq->note, token, fd, &who,
				previous, err, sizeof(err));
	if (rc == 0)
		return 0;
	*fd = -1;
	if (rc != BOARD_LOCK_HELD) {
		ab->state = ADHOC_UNREACHABLE;
		snprintf(ab->error, sizeof(ab->error), "its lock: %s", err);
		return -1;
	}
	board_holder_describe(&who, desc, sizeof(desc));
	if (p->rq->force) {
		log_warn("%s is held by %s; going on (--force)", ab->board->name, desc);
		return 0;
	}
	ab->state = ADHOC_HELD;
	snprintf(ab->error, sizeof(ab->error), "held by %s", desc);
	return -1;
}

/* One board's turn: offline state, lock, link, the verb's work. */
static void take_board(struct adhoc_pool *p, struct adhoc_board *ab)
{
	int64_t t0 = clock_mono_us();
	if (interrupt_requested()) {
		ab->state = ADHOC_INTERRUPTED;
		snprintf(ab->error, sizeof(ab->error), "not started");
		return;
	}
	int fd = -1;
	struct board_holder previous;
	if (board_offline(p, ab) || board_take_lock(p, ab, &fd, &previous) < 0)
		goto out;
	struct board_link bl;
	board_link_init(&bl, ab->board, p->inv->dir);
	if (previous.token[0]) {
		char from[512];
		board_holder_describe(&previous, from, sizeof(from));
		board_link_set_orphans(&bl, previous.token, from);
	}
	struct transport *t;
	char err[768];
	if (board_link_get(&bl, 0, &t, err, sizeof(err)) < 0) {
		ab->state = interrupt_requested() ? ADHOC_INTERRUPTED : ADHOC_UNREACHABLE;
		snprintf(ab->error, sizeof(ab->error), "%s", err);
	} else {
		p->rq->work(ab, t, p->rq->ctx);
	}
	board_link_release(&bl);
	board_lock_release(fd);
out:
	ab->duration_us = clock_mono_us() - t0;
}

static void *worker(void *arg)
{
	struct adhoc_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	while (p->next < p->n) {
		struct adhoc_board *ab = &p->boards[p->next++];
		pthread_mutex_unlock(&p->mu);
		take_board(p, ab);
		pthread_mutex_lock(&p->mu);
		p->done++;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Waits for every board's turn; -1 at a second Ctrl-C. */
static int wait_all(struct adhoc_pool *p)
{
	int ret = 0;
	pthread_mutex_lock(&p->mu);
	while (p->done < p->n) {
		if (interrupt_hurry()) {
			ret = -1;
			break;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += DEADLINE_TICK_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	pthread_mutex_unlock(&p->mu);
	return ret;
}

int adhoc_run(const struct adhoc_request *rq, const struct inventory *inv,
	      struct adhoc_board *boards, size_t n)
{
	/* the pool outlives a second Ctrl-C's early return (workers may still
	 * use it while the process leaves) */
	struct adhoc_pool *p = xcalloc(1, sizeof(*p));
	*p = (struct adhoc_pool){ .rq = rq, .inv = inv, .boards = boards, .n = n };
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	char err[512];
	p->lock_dir = board_lock_dir(err, sizeof(err));
	if (!p->lock_dir) {
		for (size_t i = 0; i < n; i++) {
			boards[i].state = ADHOC_UNREACHABLE;
			snprintf(boards[i].error, sizeof(boards[i].error), "no lock folder: %s", err);
		}
		free(p);
		return 0;
	}
	p->health = health_state_open(&p->hs, getenv("ORCH_DB"), err, sizeof(err)) == 0;
	if (!p->health)
		log_warn("the boards' offline state is not known (%s); every board is tried", err);
	size_t jobs = rq->jobs > 0 && (size_t)rq->jobs < n ? (size_t)rq->jobs : n;
	pthread_t *th = xcalloc(jobs + 1, sizeof(*th));
	size_t started = 0;
	for (size_t i = 0; i < jobs; i++)
		if (pthread_create(&th[i], NULL, worker, p) == 0)
			started++;
	if (!started)
		worker(p);
	if (wait_all(p) < 0)
		return -1;   /* leaving at once: nothing is freed under the workers */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	if (p->health)
		health_state_close(&p->hs);
	free(p->lock_dir);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
	return 0;
}

int adhoc_exit_code(const struct adhoc_board *boards, size_t n)
{
	bool failed = false, infra = false;
	if (interrupt_requested())
		return EXIT_INTERRUPTED;
	for (size_t i = 0; i < n; i++) {
		if (boards[i].state == ADHOC_RAN)
			failed |= boards[i].failed;
		else
			infra = true;
	}
	if (failed && infra)
		return EXIT_NOTHING_RAN;   /* 4: both, for the ad-hoc verbs */
	return failed ? EXIT_TEST_FAILED : infra ? EXIT_INFRA : EXIT_OK;
}

/* Replaces every "word" (and "word:PORT", "[word]:PORT") in sb with by. */
static void replace_word(struct strbuf *sb, const char *word, const char *by)
{
	size_t wl = word ? strlen(word) : 0;
	if (!wl)
		return;
	char *hit;
	size_t from = 0;
	while (sb->len > from && (hit = strstr(sb->buf + from, word))) {
		size_t at = (size_t)(hit - sb->buf), end = at + wl;
		if (at > 0 && sb->buf[at - 1] == '[' && sb->buf[end] == ']') {
			at--;
			end++;
		}
		if (sb->buf[end] == ':' && sb->buf[end + 1] >= '0' && sb->buf[end + 1] <= '9')
			for (end++; sb->buf[end] >= '0' && sb->buf[end] <= '9'; end++)
				;
		struct strbuf rest = STRBUF_INIT;
		strbuf_puts(&rest, sb->buf + end);
		sb->len = at;
		sb->buf[at] = '\0';
		strbuf_puts(sb, by);
		from = sb->len;
		strbuf_puts(sb, strbuf_str(&rest));
		strbuf_release(&rest);
	}
}

char *adhoc_problem_text(const struct adhoc_board *ab)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, ab->error);
	const struct board *b = ab->board;
	if (b->ssh.host && strcmp(b->ssh.host, b->name))
		replace_word(&sb, b->ssh.host, "");
	replace_word(&sb, b->name, "the board");
	/* what taking the address out left: "board (): x", "a  b" */
	static const char *const leftovers[] = { " ()", "()", "  ", " :", NULL };
	for (size_t i = 0; leftovers[i]; i++)
		replace_word(&sb, leftovers[i], leftovers[i][1] == ':' ? ":" : i == 2 ? " " : "");
	struct strbuf out = STRBUF_INIT;
	strbuf_puts(&out, adhoc_state_word(ab->state, ab->failed));
	const char *s = strbuf_str(&sb);
	while (*s == ' ' || *s == ':')
		s++;
	if (*s)
		strbuf_printf(&out, ": %s", s);
	strbuf_release(&sb);
	return strbuf_detach(&out);
}

char *adhoc_group_what(const struct fold_group *g)
{
	const struct adhoc_board *ab = g->data;
	if (g->n == 1 && (ab->state != ADHOC_RAN || ab->failed))
		return xasprintf("%s: %s", adhoc_state_word(ab->state, ab->failed), ab->error);
	return xstrdup(g->key);
}

char *adhoc_group_header(const struct fold_group *g, const char *what)
{
	char *set = fold_nodeset(g);
	char *h = xasprintf("%s (%zu board%s, %s)", set, g->n, g->n == 1 ? "" : "s", what);
	free(set);
	return h;
}

void adhoc_print_header(FILE *out, const char *header, bool bad)
{
	bool color = log_color_for(fileno(out));
	const char *on = !color ? "" : bad ? "\033[1;31m" : "\033[1;32m", *off = color ? "\033[0m" : "";
	fprintf(out, "---------------\n%s%s%s\n---------------\n", on, header, off);
}
