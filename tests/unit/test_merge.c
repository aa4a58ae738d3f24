/* merge: shard run folders joined equal to the whole run; refusals. */
#include "testsupport.h"
#include "ts_json.h"
#include "ts_run_folder.h"

#include "finish/finish.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct spec {
	const char *board;
	const char *test;
	enum result_status status;
};

/* The whole run: three boards x two tests; shard 1 has biff+rpi, shard 2 apu. */
static const struct spec whole[] = {
	{ "biff", "kernel", STATUS_PASS }, { "biff", "memory", STATUS_FAIL },
	{ "rpi", "kernel", STATUS_PASS },  { "rpi", "memory", STATUS_PASS },
	{ "apu", "kernel", STATUS_ERROR }, { "apu", "memory", STATUS_PASS },
};

/* Writes a run folder DIR with results.json, run.json and BOARD/TEST/stdout.log. */
static void write_run(const char *dir, const char *scenario, const char *host, int64_t start,
		      int64_t end, const struct spec *specs, size_t n)
{
	struct run_result run;
	ts_run_folder_init(&run, scenario, "20261202-165000", "0.1.0", host, start, end);
	for (size_t i = 0; i < n; i++) {
		struct test_result *tr = run_result_add(&run, specs[i].board, specs[i].test);
		tr->status = specs[i].status;
		tr->log_dir = xasprintf("%s/%s", specs[i].board, specs[i].test);
		test_result_add_sample(tr, "m", "MiB/s", true, 10.0 + (double)i);
		char *text = xasprintf("output of %s/%s\n", specs[i].board, specs[i].test);
		ts_run_folder_log(dir, tr->log_dir, "stdout.log", text);
		free(text);
	}
	char *rj = xasprintf("{\"scenario\": \"%s\", \"host\": \"%s\"}\n", scenario, host);
	ts_run_folder_write(dir, &run, rj);
	free(rj);
}

struct fixture {
	char *tmp;
	char *shard1;
	char *shard2;
	char *whole;
	char *out;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	f->tmp = ts_mkdtemp("merge");
	f->shard1 = xasprintf("%s/shard1", f->tmp);
	f->shard2 = xasprintf("%s/shard2", f->tmp);
	f->whole = xasprintf("%s/whole", f->tmp);
	f->out = xasprintf("%s/merged/nightly", f->tmp);
	write_run(f->shard1, "nightly", "ci-1", 2000000, 9000000, whole, 4);
	write_run(f->shard2, "nightly", "ci-2", 1000000, 5000000, whole + 4, 2);
	write_run(f->whole, "nightly", "ci-1", 1000000, 9000000, whole, 6);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_rmrf(f->tmp);
	TS_FREE(f->tmp, f->shard1, f->shard2, f->whole, f->out, f);
	return 0;
}

static void test_merge_equals_whole(void **state)
{
	struct fixture *f = *state;
	char *shards[] = { f->shard1, f->shard2 };
	struct run_result merged, back, ref;
	char err[512] = "";

	if (finish_merge(f->out, shards, 2, &merged, err, sizeof(err)) < 0)
		fail_msg("merge: %s", err);
	assert_int_equal(merged.n_results, 6);
	assert_int_equal(merged.exit_code, 3);   /* an error is the rack: 3 whatever failed */
	assert_int_equal(merged.start_wall_us, 1000000);
	assert_int_equal(merged.end_wall_us, 9000000);
	assert_string_equal(merged.host, "ci-1,ci-2");
	assert_string_equal(merged.scenario, "nightly");
	assert_string_equal(merged.run_id, "nightly");

	/* what is on disk reads back equal, board x test and status, to the whole run */
	assert_int_equal(run_result_load(f->out, &back, err, sizeof(err)), 0);
	assert_int_equal(run_result_load(f->whole, &ref, err, sizeof(err)), 0);
	assert_int_equal(back.n_results, ref.n_results);
	for (size_t i = 0; i < ref.n_results; i++) {
		const struct test_result *w = &ref.results[i];
		const struct test_result *m = run_result_find(&back, w->board, w->test);
		assert_non_null(m);
		assert_int_equal(m->status, w->status);
		assert_string_equal(m->log_dir, w->log_dir);
		assert_int_equal(m->n_metrics, 1);
		char *log = xasprintf("%s/%s/stdout.log", f->out, m->log_dir);
		char *text = ts_read_file(log);
		char *want = xasprintf("output of %s/%s\n", w->board, w->test);
		assert_non_null(text);
		assert_string_equal(text, want);
		TS_FREE(log, text, want);
	}
	assert_int_equal(back.exit_code, ref.exit_code);
	assert_int_equal(back.start_wall_us, ref.start_wall_us);
	assert_int_equal(back.end_wall_us, ref.end_wall_us);

	json_t *rj = ts_json_load_in(f->out, "run.json");
	assert_non_null(rj);
	json_t *from = json_object_get(rj, "merged_from");
	assert_int_equal(json_array_size(from), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(from, 1), "host")),
			    "ci-2");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(json_array_get(from, 0), "run"), "host")), "ci-1");
	assert_int_equal(json_integer_value(json_object_get(rj, "exit_code")), 3);
	json_decref(rj);

	/* the shards are untouched */
	assert_true(ts_file_exists(f->shard1));
	assert_true(ts_file_exists(f->shard2));
	run_result_release(&merged);
	run_result_release(&back);
	run_result_release(&ref);
}

static void test_out_exists(void **state)
{
	struct fixture *f = *state;
	char *shards[] = { f->shard1, f->shard2 };
	struct run_result merged;
	char err[512] = "";

	assert_int_equal(fs_mkdir_p(f->out, NULL, 0), 0);
	char *keep = ts_write_file(f->out, "keep.txt", "mine\n");
	assert_int_equal(finish_merge(f->out, shards, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "already exists");
	assert_int_equal(merged.n_results, 0);
	char *text = ts_read_file(keep);
	assert_string_equal(text, "mine\n");
	char *results = xasprintf("%s/results.json", f->out);
	assert_false(ts_file_exists(results));
	TS_FREE(results, text, keep);

	/* an existing file is refused too */
	char *file = ts_write_file(f->tmp, "afile", "x");
	assert_int_equal(finish_merge(file, shards, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "already exists");
	free(file);
}

static void test_board_in_two_shards(void **state)
{
	struct fixture *f = *state;
	char *shards[] = { f->shard1, f->whole };
	struct run_result merged;
	char err[512] = "";

	assert_int_equal(finish_merge(f->out, shards, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "board 'biff' is in two shards");
	assert_false(ts_file_exists(f->out));

	/* the same shard twice is the same mistake */
	char *twice[] = { f->shard2, f->shard2 };
	assert_int_equal(finish_merge(f->out, twice, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "board 'apu' is in two shards");
	assert_false(ts_file_exists(f->out));
}

static void test_bad_shards(void **state)
{
	struct fixture *f = *state;
	struct run_result merged;
	char err[512] = "";

	char *other = xasprintf("%s/other", f->tmp);
	write_run(other, "weekly", "ci-3", 1, 2, whole + 4, 2);
	char *mixed[] = { f->shard1, other };
	assert_int_equal(finish_merge(f->out, mixed, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "different scenarios");
	assert_false(ts_file_exists(f->out));

	char *missing = xasprintf("%s/nope", f->tmp);
	char *bad[] = { f->shard1, missing };
	assert_int_equal(finish_merge(f->out, bad, 2, &merged, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "nope");
	assert_false(ts_file_exists(f->out));
	TS_FREE(other, missing);
}

int main(void)
{
	return TS_RUN_EACH(setup, teardown, test_merge_equals_whole, test_out_exists,
		   test_board_in_two_shards, test_bad_shards);
}
