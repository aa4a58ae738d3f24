/* util/fsutil: whole-file writes (also from many threads at once), the
 * names of their temporary files, mkdir -p. */
#include "testsupport.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_WRITERS 8
#define N_WRITES 200

struct writer {
	const char *path;
	char text[32];
	int failures;
};

static void *write_many(void *arg)
{
	struct writer *w = arg;
	char err[256];
	for (int i = 0; i < N_WRITES; i++)
		if (fs_replace_file(w->path, w->text, strlen(w->text), err, sizeof(err)) < 0)
			w->failures++;
	return NULL;
}

/* Threads writing the same file each get their own temporary: every write
 * succeeds, the file is one writer's whole text, and no temporary is left. */
static void test_write_atomic_concurrent(void **state)
{
	char *dir = ts_mkdtemp("fsutil");
	char *path = xasprintf("%s/results.json", dir);
	struct writer w[N_WRITERS];
	pthread_t threads[N_WRITERS];
	for (int i = 0; i < N_WRITERS; i++) {
		w[i] = (struct writer){ .path = path };
		snprintf(w[i].text, sizeof(w[i].text), "writer %d\n", i);
		assert_int_equal(pthread_create(&threads[i], NULL, write_many, &w[i]), 0);
	}
	for (int i = 0; i < N_WRITERS; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
	char *text = ts_read_file(path);
	assert_non_null(text);
	bool whole = false;
	for (int i = 0; i < N_WRITERS; i++)
		whole |= strcmp(text, w[i].text) == 0;
	assert_true(whole);
	char *out = NULL;
	assert_int_equal(ts_run(&out, "ls -A '%s'", dir), 0);
	assert_string_equal(out, "results.json\n");
	TS_FREE(out, text, path);
	ts_rmrf_free(&dir);
}

/* The temporary file fs_replace_open makes is told by its name, with its
 * writer's pid; other names are not. */
static void test_atomic_tmp_name(void **state)
{
	char *dir = ts_mkdtemp("fsutil");
	char *path = xasprintf("%s/results.json", dir);
	char err[256] = "";
	struct fs_replace a;
	assert_int_equal(fs_replace_open(&a, path, err, sizeof(err)), 0);
	long pid = 0;
	assert_true(fs_replace_tmp_name(strrchr(a.tmp, '/') + 1, &pid));
	assert_int_equal(pid, (long)getpid());
	fs_replace_abort(&a);
	const char *not_tmp[] = { "results.json", "x.tmp.", "x.tmp.12", "x.tmp.12.", "x.tmp.0.1",
				  "x.tmp.12.3a", "x.tmp.abc.1", "latest.tmp.-4.1" };
	for (size_t i = 0; i < sizeof(not_tmp) / sizeof(not_tmp[0]); i++)
		assert_false(fs_replace_tmp_name(not_tmp[i], &pid));
	free(path);
	ts_rmrf_free(&dir);
}

static void test_mkdir_p(void **state)
{
	char *dir = ts_mkdtemp("fsutil");
	char *deep = xasprintf("%s/a/b/c", dir);
	char err[256] = "";
	assert_int_equal(fs_mkdir_p(deep, err, sizeof(err)), 0);
	assert_int_equal(fs_mkdir_p(deep, err, sizeof(err)), 0);   /* exists: fine */
	assert_true(ts_file_exists(deep));
	assert_int_equal(fs_mkdir_p("", err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "cannot create directory");
	free(deep);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_write_atomic_concurrent, test_atomic_tmp_name, test_mkdir_p)
