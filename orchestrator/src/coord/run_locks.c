#include "coord/run_locks.h"
#include "util/board_token.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOLD_POLL_MS 200

struct held_board {
	char *name;
	int refs;
	int fd;                    /* lock folder flock */
	bool in_db;
	bool pending;              /* its lock file is being taken, outside the mutex */
	/* the board tokens of holders that died holding it (lock folder,
	 * database), "T1 T2", and who they were; handed out once */
	char orphans[2 * 32];
	char orphans_from[600];
};

struct run_locks {
	char *dir;
	char *note;
	int64_t wait_ms;
	int64_t role_wait_ms;
	struct coord_db *db;
	pthread_mutex_t mu;        /* boards, and the database connection */
	pthread_cond_t settled;    /* a pending board was taken or given up */
	struct held_board *boards;
	size_t n, cap;
};

struct run_locks *run_locks_new(const char *note, int64_t wait_ms, int64_t role_wait_ms,
		      struct coord_db *db, char *err, size_t errlen)
{
	char *dir = board_lock_dir(err, errlen);
	if (!dir)
		return NULL;
	struct run_locks *h = xcalloc(1, sizeof(*h));
	h->dir = dir;
	h->note = xstrdup(note ? note : "");
	h->wait_ms = wait_ms;
	h->role_wait_ms = role_wait_ms;
	h->db = db;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->settled, NULL);
	return h;
}

/* The entry for name, settled or pending. */
static struct held_board *find_any(struct run_locks *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->boards[i].refs > 0 && !strcmp(h->boards[i].name, name))
			return &h->boards[i];
	return NULL;
}

static struct held_board *find(struct run_locks *h, const char *name)
{
	struct held_board *b = find_any(h, name);
	return b && !b->pending ? b : NULL;
}

static void drop(struct run_locks *h, struct held_board *b)
{
	if (--b->refs > 0)
		return;
	if (b->in_db)
		coord_db_board_release(h->db, b->name);
	board_lock_release(b->fd);
	free(b->name);
	*b = h->boards[--h->n];
}

/* Keeps the tokens of the dead holders in dead (none of them ours, each
 * once) for run_locks_orphans. */
static void note_orphans(struct held_board *b, const struct board_holder *dead, size_t n,
			 const char *ours)
{
	for (size_t i = 0; i < n; i++) {
		const struct board_holder *d = &dead[i];
		if (!d->token[0] || !strcmp(d->token, ours) || strstr(b->orphans, d->token))
			continue;
		char desc[400];
		board_holder_describe(d, desc, sizeof(desc));
		size_t k = strlen(b->orphans), f = strlen(b->orphans_from);
		snprintf(b->orphans + k, sizeof(b->orphans) - k, "%s%s", k ? " " : "", d->token);
		snprintf(b->orphans_from + f, sizeof(b->orphans_from) - f, "%s%s (%s)",
			 f ? ", " : "", desc, d->where);
	}
}

/* One board, once, called with the mutex held: a new entry or one more
 * ref. The lock file (open, flock, the holder written) is taken with the
 * mutex let go, as a pending entry other takers of that board wait for:
 * 64 boards starting at once do not queue behind each other's file system
 * calls, nor behind a thread the scheduler has put aside while it held the
 * mutex. The database's lock is taken under the mutex (one connection). */
static int take_one(struct run_locks *h, const char *name, struct board_holder *who, char *err,
		    size_t errlen)
{
	struct held_board *b;
	while ((b = find_any(h, name)) && b->pending)
		pthread_cond_wait(&h->settled, &h->mu);
	if (b) {
		b->refs++;
		return 0;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 8;
		h->boards = xrealloc(h->boards, h->cap * sizeof(*h->boards));
	}
	h->boards[h->n++] = (struct held_board){ xstrdup(name), 1, -1, false, true, "", "" };
	pthread_mutex_unlock(&h->mu);
	int fd = -1;
	char token[BOARD_TOKEN_LEN + 1];
	board_token(name, token, sizeof(token));
	struct board_holder dead[2];
	int ret = board_lock_try(h->dir, name, h->note, token, &fd, who, &dead[0], err, errlen);
	pthread_mutex_lock(&h->mu);
	memset(&dead[1], 0, sizeof(dead[1]));
	if (ret == 0 && h->db) {
		ret = coord_db_board_try(h->db, name, h->note, token, who, &dead[1], err, errlen);
		if (ret != 0)
			board_lock_release(fd);
	}
	b = find_any(h, name);   /* the array may have moved meanwhile; only its taker settles it */
	if (b && ret == 0) {
		b->fd = fd;
		b->in_db = h->db != NULL;
		b->pending = false;
		note_orphans(b, dead, 2, token);
	} else if (b) {
		free(b->name);
		*b = h->boards[--h->n];
	}
	pthread_cond_broadcast(&h->settled);
	return ret;
}

/* All of boards or none; on failure which board and who holds it. */
static int take_all(struct run_locks *h, const char *const *boards, size_t n, size_t *failed,
		    struct board_holder *who, char *err, size_t errlen)
{
	pthread_mutex_lock(&h->mu);
	int ret = 0;
	size_t i = 0;
	for (; i < n; i++) {
		ret = take_one(h, boards[i], who, err, errlen);
		if (ret != 0)
			break;
	}
	if (ret != 0) {
		*failed = i;
		while (i-- > 0) {
			struct held_board *b = find(h, boards[i]);
			if (b)
				drop(h, b);
		}
	}
	pthread_mutex_unlock(&h->mu);
	return ret;
}

int run_locks_acquire(struct run_locks *h, const char *const *boards, size_t n, bool role, char *msg,
		 size_t msglen)
{
	int64_t wait_ms = role ? h->role_wait_ms : h->wait_ms;
	int64_t deadline = clock_mono_ms() + (wait_ms > 0 ? wait_ms : 0);
	char err[512] = "";
	for (;;) {
		size_t failed = 0;
		struct board_holder who;
		memset(&who, 0, sizeof(who));
		int ret = take_all(h, boards, n, &failed, &who, err, sizeof(err));
		if (ret == BOARD_LOCK_ERROR) {
			snprintf(msg, msglen, "%s", err);
			return ret;
		}
		if (ret == 0)
			return 0;
		if (clock_mono_ms() >= deadline || interrupt_requested()) {
			char desc[512];
			board_holder_describe(&who, desc, sizeof(desc));
			snprintf(msg, msglen, "board %s is held by %s%s", boards[failed], desc,
				 wait_ms > 0 ? " (waited for it)" : "");
			return ret;
		}
		int64_t left = deadline - clock_mono_ms();
		int64_t nap = left < HOLD_POLL_MS ? left : HOLD_POLL_MS;
		struct timespec ts = { (time_t)(nap / 1000), (long)(nap % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

void run_locks_release(struct run_locks *h, const char *const *boards, size_t n)
{
	pthread_mutex_lock(&h->mu);
	for (size_t i = 0; i < n; i++) {
		struct held_board *b = find(h, boards[i]);
		if (b)
			drop(h, b);
	}
	pthread_mutex_unlock(&h->mu);
}

void run_locks_free(struct run_locks *h)
{
	if (!h)
		return;
	while (h->n) {
		h->boards[0].refs = 1;
		drop(h, &h->boards[0]);
	}
	free(h->boards);
	free(h->dir);
	free(h->note);
	pthread_cond_destroy(&h->settled);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

static const char **board_names(const struct board *const *boards, size_t n)
{
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = boards[i]->name;
	return names;
}

static int claims_acquire(void *ctx, const struct board *const *boards, size_t n, bool role,
			  char *msg, size_t msglen)
{
	const char **names = board_names(boards, n);
	int ret = run_locks_acquire(ctx, names, n, role, msg, msglen);
	free(names);
	return ret < 0 ? -1 : 0;
}

static void claims_release(void *ctx, const struct board *const *boards, size_t n)
{
	const char **names = board_names(boards, n);
	run_locks_release(ctx, names, n);
	free(names);
}

bool run_locks_held(struct run_locks *h, const char *board, char *why, size_t len)
{
	pthread_mutex_lock(&h->mu);
	struct held_board *b = find(h, board);
	bool in_db = b && b->in_db;
	pthread_mutex_unlock(&h->mu);
	char lost[400];
	if (!in_db || coord_db_board_held(h->db, board, lost, sizeof(lost)))
		return true;
	snprintf(why, len, "board %s %s", board, lost);
	return false;
}

bool run_locks_orphans(struct run_locks *h, const char *board, char *tokens, size_t tlen, char *from,
		  size_t flen)
{
	pthread_mutex_lock(&h->mu);
	struct held_board *b = find(h, board);
	bool any = b && b->orphans[0];
	if (any) {
		snprintf(tokens, tlen, "%s", b->orphans);
		snprintf(from, flen, "%s", b->orphans_from);
		b->orphans[0] = b->orphans_from[0] = '\0';
	}
	pthread_mutex_unlock(&h->mu);
	return any;
}

static bool claims_orphans(void *ctx, const struct board *board, char *tokens, size_t tlen,
			   char *from, size_t flen)
{
	return run_locks_orphans(ctx, board->name, tokens, tlen, from, flen);
}

static bool claims_held(void *ctx, const struct board *board, char *why, size_t len)
{
	return run_locks_held(ctx, board->name, why, len);
}

void run_locks_schedule_claims(struct run_locks *h, struct plan_claims *cl)
{
	cl->acquire = claims_acquire;
	cl->release = claims_release;
	cl->held = claims_held;
	cl->orphans = claims_orphans;
	cl->ctx = h;
}
