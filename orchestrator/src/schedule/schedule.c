#include "schedule/schedule.h"
#include "execute/artifact_sums.h"
#include "execute/execute.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct scheduler {
	const struct plan *plan;
	const struct schedule_options *opts;
	struct store *store;
	struct run_result *run;
	pthread_mutex_t lock;          /* next_board, run, store, hooks */
	size_t next_board;
	pthread_mutex_t *role_locks;   /* one per inventory board */
	struct board_link *links;      /* one per inventory board, for the whole run */
	struct facts_state *facts;     /* one per inventory board */
	pthread_cond_t worker_done;
	size_t workers_running;
	size_t failures;               /* results fail or error, for max_fail */
	char store_error[512];
};

static size_t board_index(const struct scheduler *s, const struct board *b)
{
	return (size_t)(b - s->opts->inventory->boards);
}

/* Hands board's orphans (claims.orphans) to its link, once acquired. */
static void pass_orphans(struct scheduler *s, const struct board *b)
{
	const struct plan_claims *cl = &s->opts->claims;
	char tokens[128], from[640];
	if (cl->orphans && cl->orphans(cl->ctx, b, tokens, sizeof(tokens), from, sizeof(from)))
		board_link_set_orphans(&s->links[board_index(s, b)], tokens, from);
}

/* exec_context.link_of: a role board's link; its lock is held for the item. */
static struct board_link *link_of(void *ctx, const struct board *b)
{
	struct scheduler *s = ctx;
	return &s->links[board_index(s, b)];
}

/* exec_context.facts_of: a role board's facts, wanted as its own tests
 * want them; its lock is held for the item. */
static struct facts_state *facts_of(void *ctx, const struct board *b)
{
	struct scheduler *s = ctx;
	struct facts_state *fs = &s->facts[board_index(s, b)];
	if (!fs->done) {
		fs->want = s->opts->gather_facts;
		fs->specs = s->opts->facts;
		fs->n_specs = s->opts->n_facts;
	}
	return fs;
}

/* Facts a role board gave during an item go into the run (once: the move
 * empties them). */
static void put_role_facts(struct scheduler *s, const struct board *const *boards, size_t n)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < n; i++) {
		struct facts_state *fs = &s->facts[board_index(s, boards[i])];
		if (fs->done && fs->facts.board)
			run_result_put_facts(s->run, &fs->facts);
	}
	pthread_mutex_unlock(&s->lock);
}

static int compare_ptr(const void *a, const void *b)
{
	const struct board *x = *(const struct board *const *)a;
	const struct board *y = *(const struct board *const *)b;
	return (x > y) - (x < y);
}

/* The boards item needs to itself: its own board and the boards of its
 * fixed roles, sorted (one global lock order: no deadlock). A server board
 * thus serves one client at a time, and never while it runs a test of its
 * own. */
static size_t locked_boards(const struct plan_item *item, const struct board **out)
{
	size_t n = 0;
	out[n++] = item->board;
	for (size_t r = 0; r < item->n_roles; r++) {
		if (item->roles[r].role->each)
			continue;
		for (size_t k = 0; k < item->roles[r].n_boards; k++) {
			const struct board *b = item->roles[r].boards[k];
			bool dup = false;
			for (size_t j = 0; j < n; j++)
				dup |= out[j] == b;
			if (!dup)
				out[n++] = b;
		}
	}
	qsort(out, n, sizeof(*out), compare_ptr);
	return n;
}

/* The result goes to the store first, outside the lock (a journal line and
 * result.json: the same work for the 10th result as for the 10000th), then
 * into the run and the hooks under it, with the board's facts the first
 * time they are there. */
static void record(struct scheduler *s, const struct plan_item *item, struct test_result *tr,
		   struct facts_state *fs)
{
	char err[512];
	bool saved = store_save_test(s->store, s->run, tr, err, sizeof(err)) == 0;
	/* told before tr moves into the run: no copy, and outside the lock */
	if (s->opts->claims.item_done)
		s->opts->claims.item_done(s->opts->claims.ctx, item, tr,
					  fs && fs->done && fs->facts.board ? &fs->facts : NULL);
	bool failed = tr->status == STATUS_FAIL || tr->status == STATUS_ERROR;
	pthread_mutex_lock(&s->lock);
	s->failures += failed;
	if (!saved && !s->store_error[0])
		snprintf(s->store_error, sizeof(s->store_error), "%s", err);
	if (fs && fs->done && fs->facts.board)
		run_result_put_facts(s->run, &fs->facts);   /* once: the move empties it */
	run_result_take(s->run, tr);
	const struct test_result *stored = &s->run->results[s->run->n_results - 1];
	if (s->opts->hooks.item_finished)
		s->opts->hooks.item_finished(s->opts->hooks.ctx, item, stored);
	pthread_mutex_unlock(&s->lock);
}

/* The boards of locked other than the item's own (its role boards), into
 * out; how many. */
static size_t role_boards(const struct plan_item *item, const struct board **locked, size_t n,
			  const struct board **out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (locked[i] != item->board)
			out[k++] = locked[i];
	return k;
}

/* Runs item and records its result; its status, and its message into
 * msg (for the board's errors in a row). */
static enum result_status run_item(struct scheduler *s, struct board_link *bl,
				   struct facts_state *fs, const struct plan_item *item,
				   char *msg, size_t msglen)
{
	struct test_result tr;
	memset(&tr, 0, sizeof(tr));
	tr.board = xstrdup(item->board->name);
	tr.test = xstrdup(item->test->name);
	tr.exit_code = -1;

	/* A client waits here for its turn on the server, before it counts as started. */
	const struct board **locked = xcalloc(2 * s->opts->inventory->n_boards + 2, sizeof(*locked));
	size_t n_locked = locked_boards(item, locked);
	for (size_t i = 0; i < n_locked; i++)
		pthread_mutex_lock(&s->role_locks[board_index(s, locked[i])]);

	char err[512];
	size_t n_roles = role_boards(item, locked, n_locked, locked + n_locked);
	const struct plan_claims *cl = &s->opts->claims;
	bool roles_held = !n_roles || !cl->acquire ||
			  cl->acquire(cl->ctx, locked + n_locked, n_roles, true, err, sizeof(err)) == 0;
	for (size_t i = 0; roles_held && i < n_roles; i++)
		pass_orphans(s, locked[n_locked + i]);
	char *dir = !roles_held ? NULL
				: store_test_dir(s->store, item->board->name, item->test->name, err,
						 sizeof(err));
	pthread_mutex_lock(&s->lock);
	if (dir && s->opts->hooks.item_started)
		s->opts->hooks.item_started(s->opts->hooks.ctx, item);
	pthread_mutex_unlock(&s->lock);
	if (dir) {
		tr.log_dir = store_log_dir(item->board->name, item->test->name);
		struct exec_context ctx = {
			.item = item,
			.link = bl,
			.link_of = link_of,
			.links_ctx = s,
			.facts = fs,
			.facts_of = facts_of,
			.test_dir = dir,
			.bench_dir = s->opts->bench_dir,
		};
		execute_item(&ctx, &tr);
		put_role_facts(s, locked + n_locked, n_roles);
		char why[512];
		if (cl->held && tr.status != STATUS_SKIP &&
		    !cl->held(cl->ctx, item->board, why, sizeof(why))) {
			tr.status = STATUS_ERROR;   /* it may have run beside another controller */
			test_result_set_message(&tr, "%s%s", why,
						board_link_halted(bl) ? "; orch stopped its command on the "
									"board when the lock was lost" : "");
		}
	} else {
		tr.status = STATUS_ERROR;
		test_result_set_message(&tr, "%s", err);
	}

	if (roles_held && n_roles && cl->release)
		cl->release(cl->ctx, locked + n_locked, n_roles);
	for (size_t i = n_locked; i-- > 0;)
		pthread_mutex_unlock(&s->role_locks[board_index(s, locked[i])]);
	free(locked);
	free(dir);
	enum result_status st = tr.status;
	snprintf(msg, msglen, "%s", tr.message ? tr.message : result_status_name(st));
	record(s, item, &tr, fs);
	return st;
}

static void end_item(struct scheduler *s, const struct plan_item *item,
		     enum result_status status, const char *msg)
{
	struct test_result tr;
	memset(&tr, 0, sizeof(tr));
	tr.board = xstrdup(item->board->name);
	tr.test = xstrdup(item->test->name);
	tr.exit_code = -1;
	tr.status = status;
	test_result_set_message(&tr, "%s", msg);
	record(s, item, &tr, NULL);
}

/* A skip because the board is offline: infrastructure, for the exit code. */
static void offline_item(struct scheduler *s, const struct plan_item *item, const char *reason)
{
	struct test_result tr;
	memset(&tr, 0, sizeof(tr));
	tr.board = xstrdup(item->board->name);
	tr.test = xstrdup(item->test->name);
	tr.exit_code = -1;
	tr.status = STATUS_SKIP;
	tr.board_offline = true;
	test_result_set_message(&tr, "board offline (%s)", reason);
	record(s, item, &tr, NULL);
}

static void note_offline(struct scheduler *s, const struct board *b, const char *reason,
			 int64_t since_us)
{
	pthread_mutex_lock(&s->lock);
	run_result_add_offline(s->run, b->name, reason, since_us);
	pthread_mutex_unlock(&s->lock);
}

static void go_offline(struct scheduler *s, const struct board *b, const char *reason)
{
	const struct schedule_health *h = &s->opts->health;
	log_warn("%s: offline: %s", b->name, reason);
	if (h->set_offline)
		h->set_offline(h->ctx, b, reason);
	note_offline(s, b, reason, clock_wall_us());
}

/* The board's health checks, once, when this run first takes it: false
 * (the reason in why) when one did not pass. Their logs go to
 * BOARD/health.NAME/; they are not results of the run. */
static bool health_checks_pass(struct scheduler *s, struct board_link *bl, const struct board *b,
			       char *why, size_t len)
{
	const struct board_health *bh = b->health;
	for (size_t i = 0; bh && i < bh->n_checks; i++) {
		const struct test *t = &bh->checks[i];
		struct plan_item item = { .board = b, .test = t };
		char *name = xasprintf("health.%s", t->name ? t->name : "check");
		char err[512];
		char *dir = store_test_dir(s->store, b->name, name, err, sizeof(err));
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		tr.board = xstrdup(b->name);
		tr.test = xstrdup(name);
		tr.exit_code = -1;
		if (dir) {
			tr.log_dir = store_log_dir(b->name, name);
			struct exec_context ctx = {
				.item = &item, .link = bl, .links_ctx = s, .link_of = link_of,
				.test_dir = dir, .bench_dir = s->opts->bench_dir,
			};
			execute_item(&ctx, &tr);
		} else {
			tr.status = STATUS_ERROR;
			test_result_set_message(&tr, "%s", err);
		}
		bool ok = tr.status == STATUS_PASS;
		if (!ok)
			snprintf(why, len, "health check '%s' %s: %s", t->name ? t->name : "?",
				 tr.status == STATUS_SKIP ? "could not run" : "failed",
				 tr.message ? tr.message : result_status_name(tr.status));
		else
			log_info("%s: health check '%s' passed", b->name, t->name ? t->name : "?");
		test_result_release(&tr);
		free(dir);
		free(name);
		if (!ok)
			return false;
	}
	return true;
}

/* Whether the board may run tests: not offline in the shared state, and
 * its health checks pass (else it goes offline); the reason in why. */
static bool board_online(struct scheduler *s, struct board_link *bl, const struct board *b,
			 char *why, size_t len)
{
	const struct schedule_health *h = &s->opts->health;
	int64_t since = 0;
	if (h->offline && h->offline(h->ctx, b, why, len, &since) == 1) {
		log_warn("%s: offline since the shared state says so: %s; its tests are skipped",
			 b->name, why);
		note_offline(s, b, why, since);
		return false;
	}
	if (interrupt_requested() || health_checks_pass(s, bl, b, why, len))
		return true;
	go_offline(s, b, why);
	return false;
}

static void skip_item(struct scheduler *s, const struct plan_item *item)
{
	end_item(s, item, STATUS_SKIP, "interrupted before it ran");
}

/* --max-fail: whether enough tests failed that no new one starts; the
 * skip's reason into msg. */
static bool max_fail_reached(struct scheduler *s, char *msg, size_t len)
{
	if (s->opts->max_fail <= 0)
		return false;
	pthread_mutex_lock(&s->lock);
	size_t n = s->failures;
	pthread_mutex_unlock(&s->lock);
	if (n < (size_t)s->opts->max_fail)
		return false;
	snprintf(msg, len, "not started: --max-fail %d reached (%zu test%s failed or errored)",
		 s->opts->max_fail, n, n == 1 ? "" : "s");
	return true;
}

static long next_board(struct scheduler *s)
{
	if (s->opts->claims.next_board)
		return s->opts->claims.next_board(s->opts->claims.ctx);
	pthread_mutex_lock(&s->lock);
	size_t b = s->next_board++;
	pthread_mutex_unlock(&s->lock);
	return b < s->plan->n_boards ? (long)b : -1;
}

static bool wanted(struct scheduler *s, const struct plan_item *item)
{
	return !s->opts->claims.item_wanted ||
	       s->opts->claims.item_wanted(s->opts->claims.ctx, item);
}

/* A board's items in order, on one connection, while its boards are held. */
static void run_board(struct scheduler *s, size_t b)
{
	const struct plan_claims *cl = &s->opts->claims;
	const struct plan_board *pb = &s->plan->boards[b];
	const struct board *used[1] = { pb->board };
	size_t n_used = 1;
	char msg[512];
	bool interrupted = false;
	if (cl->acquire && cl->acquire(cl->ctx, used, n_used, false, msg, sizeof(msg)) < 0) {
		for (size_t i = 0; i < pb->n_items; i++) {
			if (!wanted(s, &pb->items[i]))
				continue;
			if (interrupt_requested())
				skip_item(s, &pb->items[i]);
			else
				end_item(s, &pb->items[i], STATUS_ERROR, msg);
		}
		goto out;
	}
	size_t idx = board_index(s, pb->board);
	struct board_link *bl = &s->links[idx];
	pthread_mutex_lock(&s->role_locks[idx]);
	pass_orphans(s, pb->board);
	pthread_mutex_unlock(&s->role_locks[idx]);
	struct facts_state *fs = &s->facts[idx];
	fs->want = s->opts->gather_facts;
	fs->specs = s->opts->facts;
	fs->n_specs = s->opts->n_facts;
	char why[640] = "";
	bool checked = false, offline = false;
	const struct schedule_health *h = &s->opts->health;
	for (size_t i = 0; i < pb->n_items; i++) {
		if (!wanted(s, &pb->items[i]))
			continue;
		if (!checked && !interrupt_requested()) {
			checked = true;
			offline = !board_online(s, bl, pb->board, why, sizeof(why));
		}
		if (interrupt_requested()) {
			interrupted = true;
			skip_item(s, &pb->items[i]);
		} else if (offline) {
			offline_item(s, &pb->items[i], why);
		} else if (cl->held && !cl->held(cl->ctx, pb->board, msg, sizeof(msg))) {
			end_item(s, &pb->items[i], STATUS_ERROR, msg);
		} else if (max_fail_reached(s, msg, sizeof(msg))) {
			end_item(s, &pb->items[i], STATUS_SKIP, msg);
		} else {
			enum result_status st = run_item(s, bl, fs, &pb->items[i], msg, sizeof(msg));
			int n = pb->board->offline_after > 0 && h->count && st != STATUS_SKIP
					? h->count(h->ctx, pb->board, st == STATUS_ERROR) : -1;
			if (n >= pb->board->offline_after && n > 0) {
				snprintf(why, sizeof(why), "%d infrastructure errors in a row (the last: %s)",
					 n, msg);
				go_offline(s, pb->board, why);
				offline = true;
			}
		}
	}
	if (cl->release) {
		/* another controller may take the board now: let go of it (under
		 * its lock: a multi-host item elsewhere may use it as a role board) */
		pthread_mutex_lock(&s->role_locks[idx]);
		board_link_release(bl);
		board_link_init(bl, pb->board, s->opts->inventory_dir);
		pthread_mutex_unlock(&s->role_locks[idx]);
		cl->release(cl->ctx, used, n_used);
	}
out:
	if (cl->board_done)
		cl->board_done(cl->ctx, b, interrupted || interrupt_requested());
}

static void *worker(void *arg)
{
	struct scheduler *s = arg;
	for (;;) {
		long b = interrupt_requested() && s->opts->claims.next_board ? -1 : next_board(s);
		if (b < 0)
			break;
		run_board(s, (size_t)b);
	}
	pthread_mutex_lock(&s->lock);
	s->workers_running--;
	pthread_cond_signal(&s->worker_done);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Stops the commands on boards whose lock was lost (claims.held false)
 * at once, not when they end: another controller may take the board. */
static void halt_lost_boards(struct scheduler *s)
{
	const struct plan_claims *cl = &s->opts->claims;
	if (!cl->held)
		return;
	for (size_t i = 0; i < s->opts->inventory->n_boards; i++) {
		struct board_link *bl = &s->links[i];
		char why[512];
		if (!board_link_halted(bl) &&
		    !cl->held(cl->ctx, &s->opts->inventory->boards[i], why, sizeof(why))) {
			log_warn("%s; stopping the command in flight on it", why);
			board_link_halt(bl);
		}
	}
}

/* The main thread ticks the hooks and the store until every worker is done. */
static void wait_for_workers(struct scheduler *s)
{
	bool marked = false;
	int64_t next_tick = clock_mono_ms() + 1000;
	pthread_mutex_lock(&s->lock);
	while (s->workers_running) {
		/* wakes every DEADLINE_TICK_MS to see a Ctrl-C at once */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += DEADLINE_TICK_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&s->worker_done, &s->lock, &until);
		halt_lost_boards(s);
		bool mark = !marked && interrupt_requested();
		bool tick = clock_mono_ms() >= next_tick;
		if (!mark && !tick)
			continue;
		if (tick && s->workers_running && s->opts->hooks.tick)
			s->opts->hooks.tick(s->opts->hooks.ctx);
		pthread_mutex_unlock(&s->lock);
		if (mark)
			store_mark_interrupted(s->store);   /* before a third Ctrl-C can come */
		marked |= mark;
		if (tick) {
			store_tick(s->store);   /* results.json catches up in quiet spells */
			next_tick = clock_mono_ms() + 1000;
		}
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

int schedule_run(const struct plan *p, struct store *st, struct run_result *run,
		 const struct schedule_options *opts, char *err, size_t errlen)
{
	struct scheduler s = { .plan = p, .opts = opts, .store = st, .run = run };
	size_t n_inv = opts->inventory->n_boards;
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.worker_done, NULL);
	s.role_locks = xcalloc(n_inv ? n_inv : 1, sizeof(*s.role_locks));
	s.links = xcalloc(n_inv ? n_inv : 1, sizeof(*s.links));
	s.facts = xcalloc(n_inv ? n_inv : 1, sizeof(*s.facts));
	for (size_t i = 0; i < n_inv; i++) {
		pthread_mutex_init(&s.role_locks[i], NULL);
		board_link_init(&s.links[i], &opts->inventory->boards[i], opts->inventory_dir);
	}

	/* the files tests push are summed while the boards connect */
	struct artifact_sums *sums = artifact_sums_start(p);
	size_t jobs = opts->jobs > 0 ? (size_t)opts->jobs : SCHEDULE_MAX_JOBS;
	if (jobs > SCHEDULE_MAX_JOBS)
		jobs = SCHEDULE_MAX_JOBS;
	if (jobs > p->n_boards)
		jobs = p->n_boards;
	pthread_t *threads = xcalloc(jobs ? jobs : 1, sizeof(*threads));
	size_t started = 0;
	s.workers_running = jobs;
	for (; started < jobs; started++)
		if (pthread_create(&threads[started], NULL, worker, &s) != 0)
			break;
	pthread_mutex_lock(&s.lock);
	s.workers_running -= jobs - started;   /* the ones that could not start */
	pthread_mutex_unlock(&s.lock);
	if (started == 0 && p->n_boards) {
		s.workers_running = 1;
		worker(&s);   /* could not start threads: run on this one */
	}
	wait_for_workers(&s);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);

	free(threads);
	artifact_sums_stop(sums);
	/* every link closes what it opened and joins what it adopted: nothing
	 * started for this run outlives it */
	for (size_t i = 0; i < n_inv; i++) {
		board_link_release(&s.links[i]);
		board_facts_release(&s.facts[i].facts);
		pthread_mutex_destroy(&s.role_locks[i]);
	}
	free(s.links);
	free(s.facts);
	free(s.role_locks);
	pthread_cond_destroy(&s.worker_done);
	pthread_mutex_destroy(&s.lock);
	if (s.store_error[0]) {
		snprintf(err, errlen, "%s", s.store_error);
		return -1;
	}
	return 0;
}
