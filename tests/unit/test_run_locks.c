/* The boards a run holds (coord/run_locks.c) when its workers take them at the
 * same time: a board whose lock file is slow to take (another process
 * holds it) keeps no other worker waiting, and a board several workers
 * take at once is locked once and let go once. */
#include "testsupport.h"
#include "coord/run_locks.h"
#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct taker {
	struct run_locks *h;
	const char *board;
	int ret;
	int64_t took_ms;
	int64_t end_ms;
	sem_t *started;           /* posted just before run_locks_acquire, or NULL */
};

static void *take(void *arg)
{
	struct taker *t = arg;
	char msg[512];
	if (t->started)
		sem_post(t->started);
	int64_t start = clock_mono_ms();
	t->ret = run_locks_acquire(t->h, &t->board, 1, false, msg, sizeof(msg));
	t->end_ms = clock_mono_ms();
	t->took_ms = t->end_ms - start;
	return NULL;
}

/* Holds DIR/board-NAME.lock from another process (empty: its holder never
 * written, so a taker retries for about 100 ms before it gives up). */
static pid_t hold_outside(const char *dir, const char *name)
{
	char *cmd = xasprintf("exec flock '%s/board-%s.lock' sleep 30", dir, name);
	pid_t pid = ts_spawn(cmd, NULL);
	free(cmd);
	char *check = xasprintf("for i in $(seq 100); do flock -n '%s/board-%s.lock' true || "
				"exit 0; sleep 0.02; done; exit 1", dir, name);
	assert_int_equal(ts_run(NULL, "%s", check), 0);
	free(check);
	return pid;
}

static void test_slow_board_keeps_no_one_waiting(void **state)
{
	char *dir = ts_mkdtemp("run-locks");
	setenv("ORCH_LOCK_DIR", dir, 1);
	char err[512];
	struct run_locks *h = run_locks_new("test", 0, 0, NULL, err, sizeof(err));
	assert_non_null(h);
	const char *held[] = { "busy1", "busy2", "busy3" };
	pid_t outside[3];
	for (int i = 0; i < 3; i++)
		outside[i] = hold_outside(dir, held[i]);
	/* the free board is asked for once the three held ones are being
	 * taken; it must not wait for them: it is taken before the last of
	 * them gives up (each retries for about 100 ms, at the same time) */
	sem_t started;
	sem_init(&started, 0, 0);
	struct taker slow[3], fast = { h, "free", -1, 0, 0, NULL };
	pthread_t ts[3], tf;
	for (int i = 0; i < 3; i++) {
		slow[i] = (struct taker){ h, held[i], -1, 0, 0, &started };
		assert_int_equal(pthread_create(&ts[i], NULL, take, &slow[i]), 0);
	}
	for (int i = 0; i < 3; i++)
		sem_wait(&started);
	assert_int_equal(pthread_create(&tf, NULL, take, &fast), 0);
	int64_t last_slow_end = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(ts[i], NULL);
		if (slow[i].end_ms > last_slow_end)
			last_slow_end = slow[i].end_ms;
	}
	pthread_join(tf, NULL);
	sem_destroy(&started);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(slow[i].ret, BOARD_LOCK_HELD);
		assert_true(slow[i].took_ms >= 80);
		ts_stop(&outside[i]);
	}
	assert_int_equal(fast.ret, 0);
	if (fast.end_ms >= last_slow_end)
		fail_msg("a free board waited behind three held ones: taken %lld ms after it "
			 "was asked for, after they gave up", (long long)fast.took_ms);
	run_locks_free(h);
	unsetenv("ORCH_LOCK_DIR");
	ts_rmrf_free(&dir);
}

static void test_shared_board_locked_once(void **state)
{
	char *dir = ts_mkdtemp("run-locks");
	setenv("ORCH_LOCK_DIR", dir, 1);
	char err[512];
	struct run_locks *h = run_locks_new("test", 0, 0, NULL, err, sizeof(err));
	assert_non_null(h);
	enum { N = 16 };
	struct taker t[N];
	pthread_t th[N];
	for (int i = 0; i < N; i++) {
		t[i] = (struct taker){ h, "server", -1, 0, 0, NULL };
		assert_int_equal(pthread_create(&th[i], NULL, take, &t[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(t[i].ret, 0);
	}
	char *lock = xasprintf("%s/board-server.lock", dir);
	assert_int_not_equal(ts_run(NULL, "flock -n '%s' true", lock), 0);
	const char *name = "server";
	for (int i = 0; i < N - 1; i++)
		run_locks_release(h, &name, 1);
	assert_int_not_equal(ts_run(NULL, "flock -n '%s' true", lock), 0);
	run_locks_release(h, &name, 1);
	assert_int_equal(ts_run(NULL, "flock -n '%s' true", lock), 0);
	run_locks_free(h);
	unsetenv("ORCH_LOCK_DIR");
	ts_rmrf(dir);
	TS_FREE(lock, dir);
}

TS_MAIN(NULL, NULL, test_slow_board_keeps_no_one_waiting, test_shared_board_locked_once)
