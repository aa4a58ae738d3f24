/* The run folder: naming, collisions, latest link, per-test files,
 * results.json valid after every save, concurrent saves. */
#include "testsupport.h"
#include "ts_json.h"
#include "store/store.h"
#include "result/result_json.h"
#include "sample_run.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *tmp;

static int setup(void **state)
{
	(void)state;
	tmp = ts_mkdtemp("store");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ts_rmrf(tmp);
	free(tmp);
	return 0;
}

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
	(void)state;
	struct run_result run = { 0 };
	run.start_wall_us = 1796230200000000LL;
	char err[512] = "";
	struct store *st = store_create(tmp, "night ly/../x", &run, err, sizeof(err));
	assert_non_null(st);

	time_t t = (time_t)(run.start_wall_us / 1000000);
	struct tm tm;
	localtime_r(&t, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	assert_string_equal(run.run_id, stamp);
	/* the scenario name is one path component, whatever it holds */
	char *want = xasprintf("%s/night_ly_.._x/%s", tmp, stamp);
	assert_string_equal(store_path(st), want);
	assert_true(is_dir(want));
	free(want);

	/* same second: -2, -3; nothing existing is reused */
	struct run_result run2 = { .start_wall_us = run.start_wall_us };
	struct run_result run3 = { .start_wall_us = run.start_wall_us };
	struct store *st2 = store_create(tmp, "night ly/../x", &run2, err, sizeof(err));
	struct store *st3 = store_create(tmp, "night ly/../x", &run3, err, sizeof(err));
	assert_non_null(st2);
	assert_non_null(st3);
	char *id2 = xasprintf("%s-2", stamp), *id3 = xasprintf("%s-3", stamp);
	assert_string_equal(run2.run_id, id2);
	assert_string_equal(run3.run_id, id3);
	free(id2);
	free(id3);
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
	(void)state;
	char *file = ts_write_file(tmp, "plainfile", "x");
	struct run_result run = { 0 };
	char err[512] = "";
	assert_null(store_create(file, "s", &run, err, sizeof(err)));
	assert_non_null(strstr(err, "plainfile"));
	assert_null(run.run_id);
	free(file);
}

static void test_save_and_finish(void **state)
{
	(void)state;
	struct run_result sample = { 0 };
	sample_run_fill(&sample);
	struct run_result run = { 0 };
	run.scenario = xstrdup(sample.scenario);
	run.host = xstrdup(sample.host);
	run.orch_version = xstrdup("0.1.0");
	run.start_wall_us = sample.start_wall_us;
	char err[512] = "";
	struct store *st = store_create(tmp, "nightly", &run, err, sizeof(err));
	assert_non_null(st);
	const char *dir = store_path(st);

	char *tdir = store_test_dir(st, "rpi/1", "boot", err, sizeof(err));
	assert_non_null(tdir);
	char *want = xasprintf("%s/rpi_1/boot", dir);
	assert_string_equal(tdir, want);
	assert_true(is_dir(tdir));
	free(want);
	free(tdir);
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
		free(tdir2);
		free(sub);

		/* results.json is whole and complete so far */
		struct run_result back;
		assert_int_equal(run_result_load(dir, &back, err, sizeof(err)), 0);
		assert_int_equal(back.n_results, i + 1);
		assert_string_equal(back.run_id, run.run_id);
		assert_string_equal(back.results[i].board, tr->board);
		assert_int_equal(back.exit_code, run_result_exit_code(&back));
		run_result_release(&back);
	}
	/* saving a test again replaces it */
	run.results[0].status = STATUS_FAIL;
	assert_int_equal(store_save_test(st, &run, &run.results[0], err, sizeof(err)), 0);
	struct run_result back;
	assert_int_equal(run_result_load(dir, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n_results, sample.n_results);
	assert_int_equal(back.results[0].status, STATUS_FAIL);
	run_result_release(&back);

	run.end_wall_us = run.start_wall_us + 5000000;
	run.exit_code = run_result_exit_code(&run);
	assert_int_equal(store_finish(st, &run, err, sizeof(err)), 0);
	char *link = xasprintf("%s/nightly/latest", tmp);
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
	struct store *st2 = store_create(tmp, "nightly", &run2, err, sizeof(err));
	assert_non_null(st2);
	assert_int_equal(store_finish(st2, &run2, err, sizeof(err)), 0);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	assert_string_equal(target, run2.run_id);
	/* no temporary files left behind */
	char *out = NULL;
	ts_run(&out, "find '%s' -name '*.tmp.*'", tmp);
	assert_string_equal(out, "");
	free(out);
	free(link);
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
	(void)state;
	struct run_result run = { 0 };
	run.scenario = xstrdup("parallel");
	char err[512] = "";
	struct store *st = store_create(tmp, "parallel", &run, err, sizeof(err));
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
	assert_int_equal(run_result_load(store_path(st), &back, err, sizeof(err)), 0);
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
	assert_int_equal(back.exit_code, 1);
	run_result_release(&back);
	store_close(st);
	run_result_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_folder_naming, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_and_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_saves, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
