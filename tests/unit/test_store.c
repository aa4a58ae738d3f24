/* The run folder: naming, collisions, latest link, per-test files,
 * results.json valid after every save, concurrent saves. */
#include "lab.h"
#include "testsupport.h"
#include "ts_json.h"
#include "finish/finish.h"
#include "store/store.h"
#include "result/result_json.h"
#include "sample_run.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static json_t *load_json(const char *dir, const char *name)
{
	json_t *j = ts_json_load_in(dir, name);
	assert_non_null(j);
	return j;
}

static void test_folder_naming(void **state)
{
	struct run_result run = { 0 };
	run.start_wall_us = 1796230200000000LL;
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "night ly/../x", &run, err, sizeof(err));
	assert_non_null(st);

	time_t t = (time_t)(run.start_wall_us / 1000000);
	struct tm tm;
	localtime_r(&t, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	assert_string_equal(run.run_id, stamp);
	/* the scenario name is one path component, whatever it holds */
	char *want = xasprintf("%s/night_ly_.._x/%s", ts_tmp, stamp);
	assert_string_equal(store_path(st), want);
	assert_true(is_dir(want));
	free(want);

	/* same second: -2, -3; nothing existing is reused */
	struct run_result run2 = { .start_wall_us = run.start_wall_us };
	struct run_result run3 = { .start_wall_us = run.start_wall_us };
	struct store *st2 = store_create(ts_tmp, "night ly/../x", &run2, err, sizeof(err));
	struct store *st3 = store_create(ts_tmp, "night ly/../x", &run3, err, sizeof(err));
	assert_non_null(st2);
	assert_non_null(st3);
	char *id2 = xasprintf("%s-2", stamp), *id3 = xasprintf("%s-3", stamp);
	assert_string_equal(run2.run_id, id2);
	assert_string_equal(run3.run_id, id3);
	TS_FREE(id2, id3);
	store_close(st);
	store_close(st2);
	store_close(st3);
	run_result_release(&run);
	run_result_release(&run2);
	run_result_release(&run3);
	store_close(NULL);
}

static void test_create_fails(void **state)
{
	char *file = ts_write_file(ts_tmp, "plainfile", "x");
	struct run_result run = { 0 };
	char err[512] = "";
	assert_null(store_create(file, "s", &run, err, sizeof(err)));
	TS_ASSERT_HAS(err, "plainfile");
	assert_null(run.run_id);
	free(file);
}

static void test_save_and_finish(void **state)
{
	struct run_result sample = { 0 };
	sample_run_fill(&sample);
	struct run_result run = { 0 };
	run.scenario = xstrdup(sample.scenario);
	run.host = xstrdup(sample.host);
	run.orch_version = xstrdup("0.1.0");
	run.start_wall_us = sample.start_wall_us;
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "nightly", &run, err, sizeof(err));
	assert_non_null(st);
	const char *dir = store_path(st);

	char *tdir = store_test_dir(st, "rpi/1", "boot", err, sizeof(err));
	assert_non_null(tdir);
	char *want = xasprintf("%s/rpi_1/boot", dir);
	assert_string_equal(tdir, want);
	assert_true(is_dir(tdir));
	TS_FREE(want, tdir);
	char *rel = store_log_dir("rpi/1", "boot");
	assert_string_equal(rel, "rpi_1/boot");
	free(rel);

	assert_int_equal(store_save_run_json(st, json_pack("{s:s}", "scenario", "nightly"),
					     err, sizeof(err)), 0);
	json_t *rj = load_json(dir, "run.json");
	assert_string_equal(json_string_value(json_object_get(rj, "scenario")), "nightly");
	json_decref(rj);

	for (size_t i = 0; i < sample.n_results; i++) {
		struct test_result *tr = run_result_add(&run, "", "");
		test_result_release(tr);
		test_result_copy(tr, &sample.results[i]);
		assert_int_equal(store_save_test(st, &run, tr, err, sizeof(err)), 0);

		/* the test's own result.json */
		char *sub = xasprintf("%s/%s", tr->board, tr->test);
		char *tdir2 = fs_path_join(dir, sub);
		json_t *one = load_json(tdir2, "result.json");
		assert_string_equal(json_string_value(json_object_get(one, "test")), tr->test);
		json_decref(one);
		TS_FREE(tdir2, sub);

		/* the journal holds every test so far, whole */
		struct run_result back;
		size_t n_bad = 9;
		assert_int_equal(store_journal_load(dir, &back, &n_bad, err, sizeof(err)), 0);
		assert_int_equal(n_bad, 0);
		assert_int_equal(back.n_results, i + 1);
		assert_string_equal(back.run_id, run.run_id);
		assert_string_equal(back.scenario, run.scenario);
		assert_int_equal(back.end_wall_us, 0);
		assert_string_equal(back.results[i].board, tr->board);
		run_result_release(&back);
		/* and results.json is always valid (rebuilt at most once a second) */
		assert_int_equal(run_result_load(dir, &back, err, sizeof(err)), 0);
		assert_true(back.n_results <= i + 1);
		run_result_release(&back);
	}
	assert_null(store_failed(st));

	run.end_wall_us = run.start_wall_us + 5000000;
	run.exit_code = finish_exit_code(&run, NULL);
	assert_int_equal(store_finish(st, &run, err, sizeof(err)), 0);
	assert_int_equal(store_link_latest(st, err, sizeof(err)), 0);
	/* the final results.json is exactly what jansson prints for the whole run */
	json_t *whole = run_result_to_json(&run);
	char *want_text = result_json_dump(whole);
	json_decref(whole);
	char *results_path = fs_path_join(dir, "results.json");
	char *got_text = ts_read_file(results_path);
	assert_string_equal(got_text, want_text);
	TS_FREE(got_text, want_text, results_path);
	/* the journal ends with the end line */
	struct run_result back;
	assert_int_equal(store_journal_load(dir, &back, NULL, err, sizeof(err)), 0);
	assert_int_equal(back.end_wall_us, run.end_wall_us);
	assert_int_equal(back.exit_code, run.exit_code);
	assert_int_equal(back.n_results, sample.n_results);
	run_result_release(&back);

	char *link = xasprintf("%s/nightly/latest", ts_tmp);
	char target[256] = "";
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, run.run_id);   /* relative */
	assert_int_equal(run_result_load(link, &back, err, sizeof(err)), 0);
	assert_int_equal(back.end_wall_us, run.end_wall_us);
	run_result_release(&back);

	/* a second run moves the link */
	struct run_result run2 = { .start_wall_us = run.start_wall_us };
	struct store *st2 = store_create(ts_tmp, "nightly", &run2, err, sizeof(err));
	assert_non_null(st2);
	assert_int_equal(store_finish(st2, &run2, err, sizeof(err)), 0);
	assert_int_equal(store_link_latest(st2, err, sizeof(err)), 0);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	assert_string_equal(target, run2.run_id);
	/* no temporary files left behind */
	char *out = NULL;
	ts_run(&out, "find '%s' -name '*.tmp.*'", ts_tmp);
	assert_string_equal(out, "");
	TS_FREE(out, link);
	store_close(st2);
	run_result_release(&run2);
	store_close(st);
	run_result_release(&run);
	run_result_release(&sample);
}

#define N_THREADS 8
#define PER_THREAD 12

struct worker {
	struct store *st;
	const struct run_result *run;
	int id;
	int failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < PER_THREAD; i++) {
		struct test_result tr = { 0 };
		tr.board = xasprintf("board%d", w->id);
		tr.test = xasprintf("test%02d", i);
		tr.status = (i + w->id) % 7 == 0 ? STATUS_FAIL : STATUS_PASS;
		tr.log_dir = xasprintf("%s/%s", tr.board, tr.test);
		for (int k = 0; k < 5; k++)
			test_result_add_sample(&tr, "m", "s", false, w->id + i + k * 0.25);
		char err[512];
		if (store_save_test(w->st, w->run, &tr, err, sizeof(err)) < 0)
			w->failures++;
		test_result_release(&tr);
	}
	return NULL;
}

static void test_concurrent_saves(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("parallel");
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "parallel", &run, err, sizeof(err));
	assert_non_null(st);
	pthread_t th[N_THREADS];
	struct worker w[N_THREADS];
	for (int i = 0; i < N_THREADS; i++) {
		w[i] = (struct worker){ st, &run, i, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < N_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
	struct run_result back;
	size_t n_bad = 9;
	assert_int_equal(store_journal_load(store_path(st), &back, &n_bad, err, sizeof(err)), 0);
	assert_int_equal(n_bad, 0);
	assert_int_equal(back.n_results, N_THREADS * PER_THREAD);
	for (int i = 0; i < N_THREADS; i++) {
		for (int k = 0; k < PER_THREAD; k++) {
			char b[32], t[32];
			snprintf(b, sizeof(b), "board%d", i);
			snprintf(t, sizeof(t), "test%02d", k);
			const struct test_result *tr = run_result_find(&back, b, t);
			assert_non_null(tr);
			assert_int_equal(tr->metrics[0].n_samples, 5);
		}
	}
	run_result_release(&back);
	store_close(st);
	run_result_release(&run);
}

/* A folder (or file) called latest is the user's: left alone, said so. */
static void test_latest_folder_left_alone(void **state)
{
	struct run_result run = { 0 };
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "nightly", &run, err, sizeof(err));
	assert_non_null(st);
	char *latest = xasprintf("%s/nightly/latest", ts_tmp);
	assert_int_equal(mkdir(latest, 0755), 0);
	free(ts_write_file(latest, "keep.txt", "mine"));
	assert_int_equal(store_link_latest(st, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "is a folder, not a link");
	assert_non_null(strstr(err, latest));
	char *kept = xasprintf("%s/keep.txt", latest);
	char *text = ts_read_file(kept);
	assert_string_equal(text, "mine");
	TS_FREE(text, kept, latest);
	store_close(st);
	run_result_release(&run);
}

/* A kill in the middle of a line leaves it cut short: the lines before it
 * are read back, the cut one is counted and left out. */
static void test_journal_cut_line(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("cut");
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "cut", &run, err, sizeof(err));
	assert_non_null(st);
	for (int i = 0; i < 3; i++) {
		struct test_result tr = { 0 };
		tr.board = xasprintf("b%d", i);
		tr.test = xstrdup("t");
		tr.status = i == 1 ? STATUS_ERROR : STATUS_PASS;
		test_result_set_message(&tr, "line %d", i);
		assert_int_equal(store_save_test(st, &run, &tr, err, sizeof(err)), 0);
		test_result_release(&tr);
	}
	char *journal = fs_path_join(store_path(st), STORE_JOURNAL);
	FILE *f = fopen(journal, "a");
	assert_non_null(f);
	fputs("{\"board\": \"b3\", \"test\": \"t\", \"sta", f);
	fclose(f);
	struct run_result back;
	size_t n_bad = 0;
	assert_int_equal(store_journal_load(store_path(st), &back, &n_bad, err, sizeof(err)), 0);
	assert_int_equal(back.n_results, 3);
	assert_int_equal(n_bad, 1);
	assert_int_equal(back.results[1].status, STATUS_ERROR);
	assert_string_equal(back.results[2].message, "line 2");
	run_result_release(&back);

	/* no header: not a journal */
	free(ts_write_file(store_path(st), STORE_JOURNAL, "{\"board\": \"x\"}\n"));
	assert_int_equal(store_journal_load(store_path(st), &back, NULL, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "journal.jsonl:1:");
	free(journal);
	store_close(st);
	run_result_release(&run);
}

/* Deterministic cost per result: the bytes a store writes, with a clock
 * that moves 0.5 s per result (so results.json could be rebuilt every
 * other test).
 * Journal bytes per result are constant and results.json's rebuilds stay
 * within a fixed multiple of the journal, at 200 results as at 3200: the
 * cost per result does not grow with the run. */
static int64_t fake_now_us;

static int64_t fake_clock(void)
{
	return fake_now_us;
}

static void save_many(size_t n, double *journal_per_result, double *rebuild_ratio)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("cost");
	char err[512] = "";
	struct store *st = store_create(ts_tmp, "cost", &run, err, sizeof(err));
	assert_non_null(st);
	fake_now_us = 1000000000;
	store_set_clock(st, fake_clock);
	for (size_t i = 0; i < n; i++) {
		struct test_result tr = { 0 };
		tr.board = xasprintf("board%02zu", i % 64);
		tr.test = xasprintf("test%05zu", i / 64);
		tr.status = STATUS_PASS;
		tr.exit_code = 0;
		tr.log_dir = xasprintf("%s/%s", tr.board, tr.test);
		test_result_add_sample(&tr, "m", "s", false, 1.25);
		fake_now_us += 500000;
		if (store_save_test(st, &run, &tr, err, sizeof(err)) < 0)
			fail_msg("save %zu: %s", i, err);
		test_result_release(&tr);
	}
	struct store_stats stats;
	store_get_stats(st, &stats);
	*journal_per_result = (double)stats.journal_bytes / (double)n;
	*rebuild_ratio = (double)stats.results_bytes / (double)stats.journal_bytes;
	assert_true(stats.rebuilds >= 10);
	store_close(st);
	run_result_release(&run);
	ts_rmrf_free(&ts_tmp);
	ts_tmp = ts_mkdtemp("store");
}

static void test_cost_per_result_is_flat(void **state)
{
	double j_small, r_small, j_big, r_big;
	save_many(200, &j_small, &r_small);
	save_many(3200, &j_big, &r_big);
	print_message("journal bytes/result %.1f and %.1f; results.json bytes/journal byte "
		      "%.2f and %.2f\n", j_small, j_big, r_small, r_big);
	assert_true(j_big <= j_small * 1.05);
	assert_true(r_small <= 12.0);
	assert_true(r_big <= 12.0);
	assert_true(r_big <= r_small * 1.5);
}

/* A run with 64 boards x 40 metrics x 10 nights of trends: written
 * results.json reads back with every trend, and writing it does not hold
 * them all as one JSON tree (it took about 20 MB more than the run itself;
 * measured in a child, as the growth of its peak RSS over the write). */
static void fill_trends(struct run_result *run)
{
	run->scenario = xstrdup("s40");
	run->run_id = xstrdup("20261203-120000");
	char name[64];
	for (int b = 0; b < 64; b++)
		for (int t = 0; t < 40; t++) {
			snprintf(name, sizeof(name), "rs%d", b + 1);
			char test[16];
			snprintf(test, sizeof(test), "t%d", t + 1);
			struct test_result *tr = run_result_add(run, name, test);
			tr->status = STATUS_PASS;
			test_result_add_sample(tr, "v", "", true, t);
			struct metric_trend *tt = run_result_add_trend(run, name, test, "v");
			for (int k = 0; k < 10; k++) {
				char id[32];
				snprintf(id, sizeof(id), "20261%03d-120000", k);
				metric_trend_add_point(tt, id, "nightly", k + t, k == 9);
			}
		}
}

/* The bound on the peak RSS growth is checked in builds without ASan, whose
 * allocator keeps freed memory in quarantine (the ASan build still checks
 * that the figures read back). */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_BOUND_KIB LONG_MAX
#else
#define RSS_BOUND_KIB (6 * 1024)
#endif

static void test_trends_written_one_at_a_time(void **state)
{
	struct run_result run = { 0 };
	fill_trends(&run);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long before = lab_vm_kib("VmHWM");
		char err[256];
		int rc = store_write_results(ts_tmp, &run, err, sizeof(err));
		long grew = lab_vm_kib("VmHWM") - before;
		fprintf(stderr, "results.json with 25600 trend points: peak RSS grew %ld KiB\n", grew);
		_exit(rc < 0 ? 2 : grew > RSS_BOUND_KIB ? 1 : 0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	struct run_result back = { 0 };
	char err[256];
	assert_int_equal(run_result_load(ts_tmp, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n_trends, 2560);
	assert_int_equal(back.n_results, 2560);
	const struct metric_trend *t = run_result_find_trend(&back, "rs64", "t40", "v");
	assert_non_null(t);
	assert_int_equal(t->n, 10);
	assert_true(t->points[9].current);
	assert_true(t->points[9].value == 48);
	assert_string_equal(t->points[0].label, "nightly");
	run_result_release(&back);
	run_result_release(&run);
}

int main(void)
{
	return TS_RUN_EACH(ts_tmp_setup, ts_tmp_teardown, test_folder_naming, test_create_fails,
		   test_save_and_finish, test_concurrent_saves, test_latest_folder_left_alone,
		   test_journal_cut_line, test_cost_per_result_is_flat,
		   test_trends_written_one_at_a_time);
}
