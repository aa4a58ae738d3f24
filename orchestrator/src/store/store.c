#include "store/store.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

/*
 * While the run goes on, results.json is written from the store's own deep
 * copies of the saved results, not from the caller's run: workers append to
 * the run concurrently (which may move its array), but a finished
 * test_result handed to store_save_test is not touched again. Only the
 * run's header fields, set before the first test, are read from it.
 */
struct store {
	char *scenario_dir;          /* RUNS_DIR/SCENARIO */
	char *path;                  /* the run folder */
	char *run_id;
	pthread_mutex_t lock;
	struct run_result saved;     /* copies of what store_save_test got */
};

#define STORE_MAX_SUFFIX 1000

static int64_t wall_now_us(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

struct store *store_create(const char *runs_dir, const char *scenario_name,
			   struct run_result *run, char *err, size_t errlen)
{
	char *safe = fs_safe_name(scenario_name && *scenario_name ? scenario_name : "run");
	char *scen_dir = fs_path_join(runs_dir, safe);
	free(safe);
	struct store *st = NULL;
	if (fs_mkdir_p(scen_dir, err, errlen) < 0)
		goto fail;

	int64_t when = run->start_wall_us ? run->start_wall_us : wall_now_us();
	time_t secs = (time_t)(when / 1000000);
	struct tm tm;
	char stamp[32];
	if (!localtime_r(&secs, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm)) {
		snprintf(err, errlen, "cannot format the time of the run");
		goto fail;
	}

	char *id = NULL, *path = NULL;
	for (int n = 1; n <= STORE_MAX_SUFFIX; n++) {
		id = n == 1 ? xstrdup(stamp) : xasprintf("%s-%d", stamp, n);
		path = fs_path_join(scen_dir, id);
		if (mkdir(path, 0755) == 0)
			break;
		int e = errno;
		free(id);
		free(path);
		id = path = NULL;
		if (e != EEXIST) {
			snprintf(err, errlen, "cannot create run folder in '%s': %s", scen_dir,
				 strerror(e));
			goto fail;
		}
	}
	if (!id) {
		snprintf(err, errlen, "cannot create run folder in '%s': %s-2 ... -%d all taken",
			 scen_dir, stamp, STORE_MAX_SUFFIX);
		goto fail;
	}

	st = xcalloc(1, sizeof(*st));
	st->scenario_dir = scen_dir;
	st->path = path;
	st->run_id = id;
	pthread_mutex_init(&st->lock, NULL);
	free(run->run_id);
	run->run_id = xstrdup(id);
	if (!run->scenario && scenario_name)
		run->scenario = xstrdup(scenario_name);
	return st;
fail:
	free(scen_dir);
	return NULL;
}

const char *store_path(const struct store *st)
{
	return st->path;
}

char *store_log_dir(const char *board, const char *test)
{
	char *b = fs_safe_name(board);
	char *t = fs_safe_name(test);
	char *rel = xasprintf("%s/%s", b, t);
	free(b);
	free(t);
	return rel;
}

char *store_test_dir(struct store *st, const char *board, const char *test, char *err,
		     size_t errlen)
{
	char *rel = store_log_dir(board, test);
	char *dir = fs_path_join(st->path, rel);
	free(rel);
	if (fs_mkdir_p(dir, err, errlen) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

static int write_json(const char *path, const json_t *j, char *err, size_t errlen)
{
	char *text = result_json_dump(j);
	if (!text) {
		snprintf(err, errlen, "cannot encode '%s' as JSON", path);
		return -1;
	}
	int ret = fs_write_atomic(path, text, strlen(text), err, errlen);
	free(text);
	return ret;
}

/* Writes results.json from run's header and results; st->lock held. */
static int write_results(struct store *st, const struct run_result *hdr,
			 const struct run_result *results, char *err, size_t errlen)
{
	struct run_result view = *hdr;
	view.results = results->results;
	view.n_results = results->n_results;
	json_t *j = run_result_to_json(&view);
	char *path = fs_path_join(st->path, "results.json");
	int ret = write_json(path, j, err, errlen);
	free(path);
	json_decref(j);
	return ret;
}

int store_save_test(struct store *st, const struct run_result *run, const struct test_result *tr,
		    char *err, size_t errlen)
{
	int ret = -1;
	char *dir = NULL, *path = NULL;
	json_t *j = NULL;

	dir = store_test_dir(st, tr->board, tr->test, err, errlen);
	if (!dir)
		goto out;
	path = fs_path_join(dir, "result.json");
	j = test_result_to_json(tr);
	if (write_json(path, j, err, errlen) < 0)
		goto out;

	pthread_mutex_lock(&st->lock);
	struct test_result *slot = NULL;
	for (size_t i = 0; i < st->saved.n_results; i++) {
		struct test_result *s = &st->saved.results[i];
		if (strcmp(s->board, tr->board) == 0 && strcmp(s->test, tr->test) == 0) {
			slot = s;
			break;
		}
	}
	if (!slot)
		slot = run_result_add(&st->saved, "", "");
	test_result_release(slot);
	test_result_copy(slot, tr);

	struct run_result hdr = {
		.scenario = run->scenario,
		.run_id = run->run_id ? run->run_id : st->run_id,
		.orch_version = run->orch_version,
		.host = run->host,
		.start_wall_us = run->start_wall_us,
		.baseline = run->baseline,
	};
	hdr.exit_code = run_result_exit_code(&st->saved);
	ret = write_results(st, &hdr, &st->saved, err, errlen);
	pthread_mutex_unlock(&st->lock);
out:
	json_decref(j);
	free(path);
	free(dir);
	return ret;
}

int store_save_run_json(struct store *st, json_t *run_json, char *err, size_t errlen)
{
	char *path = fs_path_join(st->path, "run.json");
	int ret = write_json(path, run_json, err, errlen);
	free(path);
	json_decref(run_json);
	return ret;
}

int store_finish(struct store *st, const struct run_result *run, char *err, size_t errlen)
{
	pthread_mutex_lock(&st->lock);
	int ret = write_results(st, run, run, err, errlen);
	pthread_mutex_unlock(&st->lock);
	if (ret < 0)
		return ret;
	char *link = fs_path_join(st->scenario_dir, "latest");
	ret = fs_symlink_atomic(st->run_id, link, err, errlen);
	free(link);
	return ret;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->lock);
	run_result_release(&st->saved);
	free(st->scenario_dir);
	free(st->path);
	free(st->run_id);
	free(st);
}
