/* util/log_dir: the names of a test folder's files, the fetch
 * destinations they reserve, and the opening of a file for a writer
 * (appended, emptied, private; never through a symbolic link, never
 * inherited by a child). */
#include "testsupport.h"
#include "util/strbuf.h"
#include "util/log_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_names(void **state)
{
	assert_string_equal(LOG_DIR_STDOUT, "stdout.log");
	assert_string_equal(LOG_DIR_STDERR, "stderr.log");
	assert_string_equal(LOG_DIR_RESULT, "result.json");
	assert_string_equal(LOG_DIR_BOOT_LOG, "boot.log");
	assert_string_equal(LOG_DIR_BOOT_RAW, "boot.raw");
	assert_string_equal(LOG_DIR_PUSH_LOG, "push.log");
	static const struct { const char *role, *board; bool is_stderr; const char *want; } logs[] = {
		{ "server", NULL, false, "server.stdout.log" },
		{ "server", NULL, true, "server.stderr.log" },
		{ "client", "b07", false, "client.b07.stdout.log" },
		{ "client", "b07", true, "client.b07.stderr.log" },
	};
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char *name = log_dir_role_log(logs[i].role, logs[i].board, logs[i].is_stderr);
		assert_string_equal(name, logs[i].want);
		free(name);
	}
	char *a = log_dir_attempt(2), *p = log_dir_part("dumps/core.gz");
	assert_string_equal(a, "attempt-2");
	assert_string_equal(p, "dumps/core.gz.part");
	assert_true(log_dir_is_attempt(a));
	assert_false(log_dir_is_attempt("attempts.txt"));
	TS_FREE(a, p);
}

/* Every name a writer uses is refused as a fetch destination, with or
 * without folders and .part after it; names beside them are not. */
static void test_reserved(void **state)
{
	static const char *const own[] = {
		"stdout.log", "./stderr.log", "server.stdout.log", "client.b07.stderr.log",
		"result.json", "boot.log", "boot.raw", "push.log", "attempt-1", "attempt-3/x.bin",
		"boot.log/inner", "stdout.log.part", "push.log.part.part", "./././result.json",
	};
	static const char *const free_names[] = {
		"core.gz", "logs/stdout.log", "result.json.bak", "a.part", "stdout.txt",
		"boot", "dumps/push.log", "attempt", "x/attempt-1",
	};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!log_dir_reserved(own[i]))
			fail_msg("'%s' is not reserved", own[i]);
	for (size_t i = 0; i < sizeof(free_names) / sizeof(free_names[0]); i++)
		if (log_dir_reserved(free_names[i]))
			fail_msg("'%s' is reserved", free_names[i]);
}

static void write_str(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

static void test_open_modes(void **state)
{
	mode_t old = umask(022);
	char *dir = ts_mkdtemp("log-dir");
	char err[512] = "";
	for (int i = 0; i < 2; i++) {
		int fd = log_dir_open(dir, LOG_DIR_STDOUT, LOG_DIR_APPEND, err, sizeof(err));
		assert_true(fd >= 0);
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		write_str(fd, i ? "second\n" : "first\n");
		close(fd);
	}
	char *text = ts_read_in(dir, LOG_DIR_STDOUT);
	assert_string_equal(text, "first\nsecond\n");
	free(text);

	FILE *f = log_dir_fopen(dir, LOG_DIR_STDOUT, LOG_DIR_TRUNCATE, err, sizeof(err));
	assert_non_null(f);
	fputs("fresh\n", f);
	assert_int_equal(fclose(f), 0);
	text = ts_read_in(dir, LOG_DIR_STDOUT);
	assert_string_equal(text, "fresh\n");
	free(text);

	int fd = log_dir_open(dir, "core.gz.part", LOG_DIR_PRIVATE, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	struct stat sb;
	char *part = xasprintf("%s/core.gz.part", dir), *log = xasprintf("%s/stdout.log", dir);
	assert_int_equal(stat(part, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(stat(log, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);

	assert_int_equal(log_dir_open(dir, "no/such/boot.log", LOG_DIR_TRUNCATE, err,
				      sizeof(err)), -1);
	TS_ASSERT_HAS(err, "cannot open '", "No such file or directory");
	ts_rmrf(dir);
	TS_FREE(part, log, dir);
	umask(old);
}

/* A symbolic link where a log goes is refused, whichever way the file is
 * opened, and what it points at is left as it was. */
static void test_symlink_refused(void **state)
{
	char *dir = ts_mkdtemp("log-dir");
	char *victim = ts_write_file(dir, "victim", "keep me\n");
	char *link = xasprintf("%s/%s", dir, LOG_DIR_BOOT_LOG);
	assert_int_equal(symlink(victim, link), 0);
	static const enum log_dir_how hows[] = { LOG_DIR_APPEND, LOG_DIR_TRUNCATE,
						 LOG_DIR_PRIVATE };
	for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		char err[512] = "";
		assert_int_equal(log_dir_open(dir, LOG_DIR_BOOT_LOG, hows[i], err, sizeof(err)),
				 -1);
		char *want = xasprintf("'%s' is a symbolic link, not a file orch writes", link);
		assert_string_equal(err, want);
		free(want);
		err[0] = '\0';
		assert_null(log_dir_fopen(dir, LOG_DIR_BOOT_LOG, hows[i], err, sizeof(err)));
		TS_ASSERT_HAS(err, "symbolic link");
	}
	char *text = ts_read_file(victim);
	assert_string_equal(text, "keep me\n");
	ts_rmrf(dir);
	TS_FREE(text, link, victim, dir);
}

TS_MAIN(NULL, NULL, test_names, test_reserved, test_open_modes, test_symlink_refused)
