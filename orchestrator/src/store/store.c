#include "store/store.h"
#include "result/result_json.h"
#include "store/results_text.h"
#include "store/store_int.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/log_dir.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STORE_MAX_SUFFIX 1000
#define JOURNAL_RESERVE (256 * 1024)          /* reserved ahead of the end */
#define REBUILD_MIN_US 1000000                /* at most once a second */
#define REBUILD_GROWTH 8                      /* and when it grew by 1/8 */
#define REBUILD_US_PER_BYTE 10                /* or on a tick, at 100 KB/s */
#define SYNC_MIN_US 1000000                   /* the journal is synced once a second */
#define JSON_LINE_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

struct store *store_create(const char *runs_dir, const char *scenario_name,
			   struct run_result *run, char *err, size_t errlen)
{
	char *safe = fs_safe_name(scenario_name && *scenario_name ? scenario_name : "run");
	char *scen_dir = fs_path_join(runs_dir, safe);
	free(safe);
	struct store *st = NULL;
	if (fs_mkdir_p(scen_dir, err, errlen) < 0)
		goto fail;

	int64_t when = run->start_wall_us ? run->start_wall_us : clock_wall_us();
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
	st->clock_us = clock_mono_us;
	st->journal_fd = -1;
	st->journaled = true;
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

/* Keeps the first error; st->lock held. */
static void remember_error(struct store *st, const char *err)
{
	if (!st->error[0])
		snprintf(st->error, sizeof(st->error), "%s", err);
}

/* The same, taking st->lock. */
static void remember_error_locking(struct store *st, const char *err)
{
	pthread_mutex_lock(&st->lock);
	remember_error(st, err);
	pthread_mutex_unlock(&st->lock);
}

/* results.json from the journal's first len bytes: the header, then each
 * result line as it is. Outside st->lock. */
static int rebuild_from_journal(struct store *st, off_t len, size_t n_fail, size_t n_error,
				bool interrupted, char *err, size_t errlen)
{
	struct fs_replace a;
	struct results_sink o;
	int ret = results_open(st->path, &a, &o, err, errlen);
	if (ret < 0)
		return ret;
	json_t *hdr = json_deep_copy(st->header);
	json_object_set_new(hdr, "exit_code",
			    json_integer(interrupted ? 130 : n_fail ? 1 : n_error ? 3 : 0));
	if (interrupted)
		json_object_set_new(hdr, "interrupted", json_true());
	results_emit_header(&o, hdr, NULL);
	json_decref(hdr);

	char *buf = xmalloc(65536);
	size_t n_items = 0;
	off_t at = st->header_len;
	struct strbuf line = STRBUF_INIT;
	while (at < len) {
		size_t want = (size_t)(len - at) < 65536 ? (size_t)(len - at) : 65536;
		ssize_t got = pread(st->journal_fd, buf, want, at);
		if (got <= 0) {
			snprintf(err, errlen, "cannot read '%s/%s': %s", st->path, STORE_JOURNAL,
				 got < 0 ? strerror(errno) : "cut short");
			ret = -1;
			break;
		}
		at += got;
		for (char *p = buf, *end = buf + got; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl) {
				strbuf_append(&line, p, (size_t)(end - p));
				break;
			}
			strbuf_append(&line, p, (size_t)(nl - p));
			results_emit_item(&o, strbuf_str(&line), line.len, n_items++);
			strbuf_reset(&line);
			p = nl + 1;
		}
	}
	strbuf_release(&line);
	free(buf);
	if (ret < 0) {
		fs_replace_abort(&a);
		return ret;
	}
	results_emit_end(&o, n_items);
	uint64_t bytes = results_bytes_written(&a);
	ret = fs_replace_commit(&a, err, errlen);
	pthread_mutex_lock(&st->lock);
	st->stats.results_bytes += bytes;
	st->stats.rebuilds++;
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/* ---- the journal -------------------------------------------------------- */

/* Appends text (whole lines) to the journal; st->lock held. A line that
 * could not be written whole is cut off again. */
static int journal_append(struct store *st, const char *text, size_t len, char *err,
			  size_t errlen)
{
	if (st->journal_fd < 0) {
		snprintf(err, errlen, "'%s/%s' is not open", st->path, STORE_JOURNAL);
		return -1;
	}
	if (st->journal_len + (off_t)len > st->journal_alloc) {
		off_t to = st->journal_len + (off_t)len + JOURNAL_RESERVE;
		if (fallocate(st->journal_fd, FALLOC_FL_KEEP_SIZE, st->journal_alloc,
			      to - st->journal_alloc) == 0)
			st->journal_alloc = to;
	}
	if (fs_write_fd(st->journal_fd, text, len) < 0) {
		int e = errno;
		if (ftruncate(st->journal_fd, st->journal_len) == 0)
			lseek(st->journal_fd, st->journal_len, SEEK_SET);
		snprintf(err, errlen, "cannot write '%s/%s': %s", st->path, STORE_JOURNAL,
			 strerror(e));
		return -1;
	}
	st->journal_len += (off_t)len;
	st->stats.journal_bytes += len;
	return 0;
}

static char *json_line(json_t *j)
{
	char *text = json_dumps(j, JSON_LINE_FLAGS);
	json_decref(j);
	if (!text)
		return NULL;
	char *line = xasprintf("%s\n", text);
	free(text);
	return line;
}

int store_start(struct store *st, const struct run_result *run, char *err, size_t errlen)
{
	int ret = 0;
	pthread_mutex_lock(&st->lock);
	if (st->started)
		goto out;
	st->started = true;
	struct run_result hdr = *run;
	hdr.run_id = run->run_id ? run->run_id : st->run_id;
	hdr.end_wall_us = 0;
	hdr.exit_code = 0;
	hdr.interrupted = false;
	st->header = results_header_json(&hdr);

	char *path = fs_path_join(st->path, STORE_JOURNAL);
	st->journal_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (st->journal_fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		free(path);
		ret = -1;
		goto out;
	}
	free(path);
	if (fallocate(st->journal_fd, FALLOC_FL_KEEP_SIZE, 0, JOURNAL_RESERVE) == 0)
		st->journal_alloc = JOURNAL_RESERVE;
	json_t *line = json_deep_copy(st->header);
	json_object_set_new(line, "orch_journal", json_integer(1));
	json_object_set_new(line, "results", json_array());
	char *text = json_line(line);
	ret = journal_append(st, text, strlen(text), err, errlen);
	free(text);
	st->header_len = st->journal_len;
	st->last_rebuild_len = st->journal_len;
	st->last_rebuild_us = st->last_sync_us = st->clock_us();
	if (ret == 0)
		ret = fs_fsync_dir(st->path, err, errlen);
	off_t len = st->journal_len;
	if (ret < 0)
		remember_error(st, err);
	pthread_mutex_unlock(&st->lock);
	if (ret == 0 && rebuild_from_journal(st, len, 0, 0, false, err, errlen) < 0) {
		remember_error_locking(st, err);
		ret = -1;
	}
	return ret;
out:
	pthread_mutex_unlock(&st->lock);
	return ret;
}

/* Whether results.json is due for a rebuild now; st->lock held. After a
 * result: when the journal grew by 1/8 since the last one (so the bytes
 * rebuilt stay a fixed multiple of the journal). On the scheduler's tick
 * also when results wait longer than the last results.json takes at
 * 100 KB/s (so a quiet spell does not leave them out for long, and the
 * bytes written per second stay bounded). Never twice within a second. */
static bool rebuild_due(struct store *st, int64_t now, bool tick)
{
	int64_t since = now - st->last_rebuild_us;
	if (st->rebuilding || since < REBUILD_MIN_US)
		return false;
	off_t grown = st->journal_len - st->last_rebuild_len;
	if (grown <= 0)
		return false;
	if (grown >= st->last_rebuild_len / REBUILD_GROWTH)
		return true;
	return tick && since >= (int64_t)st->last_rebuild_len * REBUILD_US_PER_BYTE;
}

static int save_result_json(struct store *st, const struct test_result *tr, char *err,
			    size_t errlen)
{
	/* the scheduler made the folder before the test ran: log_dir names it */
	char *dir = tr->log_dir ? fs_path_join(st->path, tr->log_dir)
				: store_test_dir(st, tr->board, tr->test, err, errlen);
	if (!dir)
		return -1;
	char *path = fs_path_join(dir, LOG_DIR_RESULT);
	json_t *j = test_result_to_json(tr);
	char *text = result_json_dump(j);
	json_decref(j);
	int ret = -1;
	if (!text)
		snprintf(err, errlen, "cannot encode '%s' as JSON", path);
	else if ((ret = fs_replace_file_nosync(path, text, strlen(text), err, errlen)) < 0 &&
		 tr->log_dir && access(dir, F_OK) < 0 && fs_mkdir_p(dir, err, errlen) == 0)
		ret = fs_replace_file_nosync(path, text, strlen(text), err, errlen);
	free(text);
	free(path);
	free(dir);
	return ret;
}

/* Syncs the journal (at most once a second) and rebuilds results.json
 * when due, outside st->lock; one worker at a time does each. */
static int sync_and_rebuild(struct store *st, bool tick, char *err, size_t errlen)
{
	pthread_mutex_lock(&st->lock);
	int64_t now = st->clock_us();
	bool open = st->journal_fd >= 0;
	bool rebuild = open && rebuild_due(st, now, tick);
	bool sync = open && (rebuild || (!st->syncing && st->journal_len > st->synced_len &&
					 now - st->last_sync_us >= SYNC_MIN_US));
	off_t len = st->journal_len;
	/* after a write error results.json says exit 3, as the run will */
	size_t n_fail = st->n_fail, n_error = st->n_error + (st->error[0] != '\0');
	bool interrupted = st->interrupted;
	if (rebuild) {
		st->rebuilding = true;
		st->last_rebuild_us = now;
		st->last_rebuild_len = len;
	}
	if (sync) {
		st->syncing = true;
		st->last_sync_us = now;
	}
	pthread_mutex_unlock(&st->lock);

	int ret = 0;
	if (sync && fdatasync(st->journal_fd) < 0) {
		snprintf(err, errlen, "cannot sync '%s/%s': %s", st->path, STORE_JOURNAL,
			 strerror(errno));
		ret = -1;
	}
	if (rebuild && ret == 0)
		ret = rebuild_from_journal(st, len, n_fail, n_error, interrupted, err, errlen);
	pthread_mutex_lock(&st->lock);
	if (sync) {
		st->syncing = false;
		if (ret == 0 && len > st->synced_len)
			st->synced_len = len;
	}
	if (rebuild)
		st->rebuilding = false;
	pthread_mutex_unlock(&st->lock);
	return ret;
}

int store_save_test(struct store *st, const struct run_result *run, const struct test_result *tr,
		    char *err, size_t errlen)
{
	char err2[512] = "";
	int ret = store_start(st, run, err, errlen);
	char *line = json_line(test_result_to_json(tr));
	if (!line) {
		snprintf(err, errlen, "cannot encode the result of %s/%s as JSON", tr->board,
			 tr->test);
		remember_error_locking(st, err);
		return -1;
	}

	pthread_mutex_lock(&st->lock);
	if (ret == 0)
		ret = journal_append(st, line, strlen(line), err, errlen);
	if (ret < 0)
		remember_error(st, err);
	if (ret == 0) {
		st->n_fail += tr->status == STATUS_FAIL || tr->regressed;
		st->n_error += tr->status == STATUS_ERROR;
	}
	pthread_mutex_unlock(&st->lock);
	free(line);

	if (save_result_json(st, tr, err2, sizeof(err2)) < 0 && ret == 0) {
		snprintf(err, errlen, "%s", err2);
		ret = -1;
	}
	if (ret == 0 && sync_and_rebuild(st, false, err, errlen) < 0)
		ret = -1;
	if (ret < 0)
		remember_error_locking(st, err);
	return ret;
}

void store_tick(struct store *st)
{
	char err[512];
	if (sync_and_rebuild(st, true, err, sizeof(err)) < 0)
		remember_error_locking(st, err);
}

void store_mark_interrupted(struct store *st)
{
	char err[512];
	pthread_mutex_lock(&st->lock);
	bool first = !st->interrupted && st->journal_fd >= 0;
	st->interrupted = true;
	while (first && st->rebuilding) {   /* it may have read the flag before */
		pthread_mutex_unlock(&st->lock);
		usleep(10000);
		pthread_mutex_lock(&st->lock);
	}
	off_t len = st->journal_len;
	size_t n_fail = st->n_fail, n_error = st->n_error + (st->error[0] != '\0');
	if (first) {
		st->rebuilding = true;
		st->last_rebuild_us = st->clock_us();
		st->last_rebuild_len = len;
	}
	pthread_mutex_unlock(&st->lock);
	if (!first)
		return;
	int ret = rebuild_from_journal(st, len, n_fail, n_error, true, err, sizeof(err));
	pthread_mutex_lock(&st->lock);
	st->rebuilding = false;
	if (ret < 0)
		remember_error(st, err);
	pthread_mutex_unlock(&st->lock);
}

int store_save_run_json(struct store *st, json_t *run_json, char *err, size_t errlen)
{
	char *path = fs_path_join(st->path, "run.json");
	char *text = result_json_dump(run_json);
	int ret = -1;
	if (!text)
		snprintf(err, errlen, "cannot encode '%s' as JSON", path);
	else
		ret = fs_replace_file(path, text, strlen(text), err, errlen);
	free(text);
	free(path);
	json_decref(run_json);
	return ret;
}

int store_finish(struct store *st, const struct run_result *run, char *err, size_t errlen)
{
	int ret = store_start(st, run, err, errlen);
	if (ret == 0 && st->journaled) {
		char *end = result_time_iso(run->end_wall_us ? run->end_wall_us : clock_wall_us());
		char *line = json_line(json_pack("{s:b, s:s, s:i, s:b}", "orch_journal_end", 1,
						 "end", end, "exit_code", run->exit_code,
						 "interrupted", run->interrupted));
		free(end);
		pthread_mutex_lock(&st->lock);
		ret = journal_append(st, line, strlen(line), err, errlen);
		if (ret == 0 && fdatasync(st->journal_fd) < 0) {
			snprintf(err, errlen, "cannot sync '%s/%s': %s", st->path, STORE_JOURNAL,
				 strerror(errno));
			ret = -1;
		}
		pthread_mutex_unlock(&st->lock);
		free(line);
	}
	char err2[512];
	if (store_write_results(st->path, run, err2, sizeof(err2)) < 0 && ret == 0) {
		snprintf(err, errlen, "%s", err2);
		ret = -1;
	}
	if (ret < 0)
		remember_error_locking(st, err);
	return ret;
}

int store_link_latest(struct store *st, char *err, size_t errlen)
{
	char *link = fs_path_join(st->scenario_dir, "latest");
	struct stat sb;
	int ret = -1;
	if (lstat(link, &sb) == 0 && !S_ISLNK(sb.st_mode))
		snprintf(err, errlen, "'%s' is a %s, not a link: left as it is, not pointed at %s",
			 link, S_ISDIR(sb.st_mode) ? "folder" : "file", st->run_id);
	else
		ret = fs_replace_symlink(st->run_id, link, err, errlen);
	free(link);
	return ret;
}

const char *store_failed(struct store *st)
{
	pthread_mutex_lock(&st->lock);
	const char *e = st->error[0] ? st->error : NULL;
	pthread_mutex_unlock(&st->lock);
	return e;
}

void store_get_stats(struct store *st, struct store_stats *out)
{
	pthread_mutex_lock(&st->lock);
	*out = st->stats;
	pthread_mutex_unlock(&st->lock);
}

void store_set_clock(struct store *st, int64_t (*clock_us)(void))
{
	pthread_mutex_lock(&st->lock);
	st->clock_us = clock_us;
	st->last_rebuild_us = st->last_sync_us = clock_us();
	pthread_mutex_unlock(&st->lock);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->lock);
	if (st->journal_fd >= 0) {
		/* the reserve beyond the end goes back to the file system */
		if (st->journal_alloc > st->journal_len &&
		    ftruncate(st->journal_fd, st->journal_len) < 0)
			st->journal_alloc = 0;   /* nothing more to do about it */
		close(st->journal_fd);
	}
	json_decref(st->header);
	free(st->scenario_dir);
	free(st->path);
	free(st->run_id);
	free(st);
}
