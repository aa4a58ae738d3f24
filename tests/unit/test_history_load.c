/* history_load on a long history: only the last points of each series leave
 * the database, so orch's memory does not grow with the nights kept (it read
 * every row of the scenario: 135 MiB for 65 nights of 2560 metrics), and the
 * points kept are the newest, oldest first. A real SQLite file. */
#include "lab.h"
#include "testsupport.h"
#include "db/db.h"
#include "history/history.h"
#include "result/result.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { RUNS = 200, METRICS = 200, LAST = 10 };

static char *tmp;
static struct db *db;

/* RUNS nights of one board with METRICS metrics; night i's value is i. */
static int setup(void **state)
{
	tmp = ts_mkdtemp("history-load");
	char *path = xasprintf("%s/h.sqlite", tmp);
	char err[512];
	if (history_open(&db, path, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	free(path);
	for (int i = 0; i < RUNS; i++) {
		struct run_result run = { 0 };
		run.scenario = xstrdup("night");
		run.run_id = xasprintf("2026%04d-000000", i);
		run.host = xstrdup("ctl");
		run.start_wall_us = 1700000000000000LL + i * 1000000LL;
		run.end_wall_us = run.start_wall_us + 1;
		struct test_result *tr = run_result_add(&run, "b1", "t");
		tr->status = STATUS_PASS;
		for (int m = 0; m < METRICS; m++) {
			char name[16];
			snprintf(name, sizeof(name), "m%d", m);
			test_result_add_sample(tr, name, "ops/s", true, i);
		}
		char *dir = xasprintf("%s/run%d", tmp, i);
		if (history_index(db, &run, dir, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		free(dir);
		run_result_release(&run);
	}
	return 0;
}

static int teardown(void **state)
{
	db_close(db);
	return ts_rmrf_free(&tmp);
}

/* The bound on the peak RSS growth is checked in builds without ASan, whose
 * allocator keeps freed memory in quarantine (the ASan build still checks
 * that the figures read back). */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_BOUND_KIB LONG_MAX
#else
#define RSS_BOUND_KIB (8 * 1024)
#endif

static void test_last_points_only(void **state)
{
	const char *boards[] = { "b1" };
	struct history_query q = { .scenario = "night", .boards = boards, .n_boards = 1,
				   .last = LAST };
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long before = lab_vm_kib("VmHWM");
		struct history_series *s = NULL;
		size_t n = 0;
		char err[512];
		int rc = history_load(db, &q, &s, &n, err, sizeof(err));
		long grew = lab_vm_kib("VmHWM") - before;
		fprintf(stderr, "%d nights x %d metrics, last %d: peak RSS grew %ld KiB\n", RUNS,
			METRICS, LAST, grew);
		history_series_free(s, n);
		_exit(rc < 0 ? 2 : grew > RSS_BOUND_KIB ? 1 : 0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	struct history_series *s = NULL;
	size_t n = 0;
	char err[512];
	assert_int_equal(history_load(db, &q, &s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, METRICS);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].n, LAST);
		for (size_t k = 0; k < LAST; k++)
			assert_true(s[i].points[k].value == RUNS - LAST + (int)k);
	}
	history_series_free(s, n);

	/* the newest run left out by its folder: the ten before it */
	char *dir = xasprintf("%s/run%d", tmp, RUNS - 1);
	q.before_run_dir = dir;
	assert_int_equal(history_load(db, &q, &s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, METRICS);
	assert_int_equal(s[0].n, LAST);
	assert_true(s[0].points[LAST - 1].value == RUNS - 2);
	assert_true(s[0].points[0].value == RUNS - LAST - 1);
	history_series_free(s, n);
	free(dir);
}

TS_MAIN(setup, teardown, test_last_points_only)
