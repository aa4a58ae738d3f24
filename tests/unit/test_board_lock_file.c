/* lock/board_lock: the holder text, and the lock and reservation files in a
 * scratch folder (two opens of one lock file conflict like two processes);
 * which records are believed (docs/guarantees.md, "Lock records"). */
#include "testsupport.h"

#include "lock/board_lock.h"
#include "util/board_token.h"
#include "util/deadline.h"
#include "util/lock_dir.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A token board_token could have made for board in another process
 * (run part given). */
static void token_of_run(const char *run, const char *board, char *buf, size_t len)
{
	board_token(board, buf, len);
	memcpy(buf, run, 16);
}

static void test_holder_text_round_trip(void **state)
{
	struct board_holder h, back;
	board_holder_self(&h, "rpi1", "bisect\nwith a newline");
	assert_null(strchr(h.note, '\n'));   /* one line per key, always */
	h.expires_us = 1764700000000000;
	char text[1024];
	board_holder_format(&h, text, sizeof(text));
	assert_int_equal(board_holder_parse(text, &back), 0);
	assert_string_equal(back.board, "rpi1");
	assert_string_equal(back.user, h.user);
	assert_string_equal(back.host, h.host);
	assert_int_equal(back.pid, getpid());
	assert_true(back.since_us == h.since_us);
	assert_true(back.expires_us == h.expires_us);
	assert_string_equal(back.note, "bisect with a newline");
	assert_int_equal(board_holder_parse("", &back), -1);
	assert_int_equal(board_holder_parse("garbage\n=\nuser=\n", &back), -1);
	char desc[512];
	board_holder_describe(&h, desc, sizeof(desc));
	char want[64];
	snprintf(want, sizeof(want), " pid %ld since ", (long)getpid());
	assert_non_null(strstr(desc, want));
	h.reservation = true;
	board_holder_describe(&h, desc, sizeof(desc));
	TS_ASSERT_HAS(desc, ", reserved since ", " until ");
}

static void test_lock_reserve_list(void **state)
{
	char *dir = ts_mkdtemp("board-lock-unit");
	struct board_holder who, prev;
	char err[256];
	int fd = -1, fd2 = -1;
	assert_int_equal(board_lock_try(dir, "b/1", "first", NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	assert_int_equal(board_lock_try(dir, "b/1", "second", NULL, &fd2, &who, &prev, err, sizeof(err)),
			 BOARD_LOCK_HELD);
	assert_string_equal(who.note, "first");
	assert_int_equal(who.pid, getpid());
	/* a run holds it: no reservation */
	assert_int_equal(board_lock_reserve(dir, "b/1", 0, "x", &who, err, sizeof(err)),
			 BOARD_LOCK_HELD);
	struct board_holder *list = NULL;
	assert_int_equal(board_lock_list(dir, &list, err, sizeof(err)), 1);
	assert_false(list[0].reservation);
	free(list);
	board_lock_release(fd);
	assert_int_equal(board_lock_list(dir, &list, err, sizeof(err)), 0);
	free(list);
	/* a reservation blocks a run, expires, and goes with unreserve */
	int64_t soon = clock_wall_us() + 300 * 1000;
	assert_int_equal(board_lock_reserve(dir, "b/1", soon, "desk", &who, err, sizeof(err)), 0);
	assert_int_equal(board_lock_try(dir, "b/1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)),
			 BOARD_LOCK_HELD);
	assert_true(who.reservation);
	assert_string_equal(who.note, "desk");
	assert_int_equal(board_lock_list(dir, &list, err, sizeof(err)), 1);
	assert_true(list[0].reservation);
	free(list);
	usleep(350 * 1000);
	assert_int_equal(board_lock_try(dir, "b/1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	board_lock_release(fd);
	assert_int_equal(board_lock_reserve(dir, "b/1", 0, "forever", &who, err, sizeof(err)), 0);
	bool had = false;
	assert_int_equal(board_lock_unreserve(dir, "b/1", &had, err, sizeof(err)), 0);
	assert_true(had);
	assert_int_equal(board_lock_unreserve(dir, "b/1", &had, err, sizeof(err)), 0);
	assert_false(had);
	assert_int_equal(board_lock_try(dir, "b/1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	board_lock_release(fd);
	ts_rmrf_free(&dir);
}

/* A holder that died with the board (its record, with its token, left in
 * the lock file under a free flock) is handed to the next taker, who
 * records its own token; a clean release leaves nothing to hand on. */
static void test_dead_holder_token(void **state)
{
	char *dir = ts_mkdtemp("boardlock-unit");
	struct board_holder who, prev;
	char err[256];
	int fd = -1;
	char dead[BOARD_TOKEN_LEN + 1], mine[BOARD_TOKEN_LEN + 1];
	token_of_run("0123456789abcdef", "b1", dead, sizeof(dead));
	token_of_run("fedcba9876543210", "b1", mine, sizeof(mine));
	char *rec = xasprintf("board=b1\nuser=alice\nhost=lab1\npid=4242\nsince_us=1\n"
			      "token=%s\n", dead);
	free(ts_write_file(dir, "board-b1.lock", rec));
	free(rec);
	assert_int_equal(board_lock_try(dir, "b1", "next", mine, &fd, &who, &prev, err,
				       sizeof(err)), 0);
	assert_string_equal(prev.token, dead);
	assert_int_equal(prev.pid, 4242);
	char *path = xasprintf("%s/board-b1.lock", dir);
	char *text = ts_read_file(path);
	char *want = xasprintf("token=%s\n", mine);
	assert_non_null(strstr(text, want));
	TS_FREE(want, text);
	board_lock_release(fd);
	assert_int_equal(board_lock_try(dir, "b1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	assert_string_equal(prev.token, "");
	board_lock_release(fd);
	/* a token that board_token could not have made is not one */
	free(ts_write_file(dir, "board-b1.lock", "user=a\npid=1\ntoken=x;rm -rf /\n"));
	assert_int_equal(board_lock_try(dir, "b1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	assert_string_equal(prev.token, "");
	board_lock_release(fd);
	free(path);
	ts_rmrf_free(&dir);
}

/* Takes b1 in dir with the lock file holding text (mode, and owner when
 * root runs the test) and returns the token handed on ("" when the record
 * was not believed). */
static char *handed_on(const char *dir, const char *text, mode_t mode, uid_t owner)
{
	char *path = ts_write_file(dir, "board-b1.lock", text);
	assert_int_equal(chmod(path, mode), 0);
	if (owner != (uid_t)-1)
		assert_int_equal(chown(path, owner, (gid_t)-1), 0);
	struct board_holder who, prev;
	char err[256];
	int fd = -1;
	assert_int_equal(board_lock_try(dir, "b1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	board_lock_release(fd);
	free(path);
	return xstrdup(prev.token);
}

/* A record stops something only when this user or root wrote it, for this
 * board, with a token made for this board: a live run's token of another
 * board copied in, a record naming another board, a lock file others can
 * write (an older orch's 0666) or that another user owns hand on nothing. */
static void test_forged_records(void **state)
{
	char *dir = ts_mkdtemp("boardlock-forged");
	char ok[BOARD_TOKEN_LEN + 1], other[BOARD_TOKEN_LEN + 1];
	token_of_run("0123456789abcdef", "b1", ok, sizeof(ok));
	token_of_run("0123456789abcdef", "h", other, sizeof(other));
	char *good = xasprintf("board=b1\nuser=root\npid=999999\ntoken=%s\n", ok);
	char *t = handed_on(dir, good, 0644, (uid_t)-1);
	assert_string_equal(t, ok);
	free(t);
	char *rec = xasprintf("board=b1\nuser=root\npid=999999\ntoken=%s\n", other);
	t = handed_on(dir, rec, 0644, (uid_t)-1);
	assert_string_equal(t, "");   /* board h's token in b1's record */
	TS_FREE(t, rec);
	rec = xasprintf("board=h\nuser=root\npid=999999\ntoken=%s\n", ok);
	t = handed_on(dir, rec, 0644, (uid_t)-1);
	assert_string_equal(t, "");   /* a record of board h */
	TS_FREE(t, rec);
	rec = xasprintf("board=b1\nuser=root\npid=999999\ntoken=%.1s\n", ok);
	t = handed_on(dir, rec, 0644, (uid_t)-1);
	assert_string_equal(t, "");   /* a prefix would match every run's processes */
	TS_FREE(t, rec);
	t = handed_on(dir, good, 0666, (uid_t)-1);
	assert_string_equal(t, "");   /* anyone could have written it */
	free(t);
	char *path = xasprintf("%s/board-b1.lock", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);   /* ours again */
	if (geteuid() == 0) {
		t = handed_on(dir, good, 0644, 65534);
		assert_string_equal(t, "");   /* nobody's file */
		free(t);
	}
	TS_FREE(path, good);
	ts_rmrf_free(&dir);
}

/* Lock files are made 0644 whatever the umask, never followed through a
 * symbolic link, and only regular files are used. */
static void test_lock_file_kind(void **state)
{
	char *dir = ts_mkdtemp("boardlock-kind");
	struct board_holder who, prev;
	char err[256];
	int fd = -1;
	mode_t old = umask(0);
	assert_int_equal(board_lock_try(dir, "b1", NULL, NULL, &fd, &who, &prev, err, sizeof(err)), 0);
	umask(old);
	board_lock_release(fd);
	char *path = xasprintf("%s/board-b1.lock", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	char *target = ts_write_file(dir, "precious", "keep me\n");
	char *link = xasprintf("%s/board-b2.lock", dir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(board_lock_try(dir, "b2", NULL, NULL, &fd, &who, &prev, err, sizeof(err)),
			 BOARD_LOCK_ERROR);
	TS_ASSERT_HAS(err, "symbolic link");
	char *text = ts_read_file(target);
	assert_string_equal(text, "keep me\n");
	free(text);
	char *fifo = xasprintf("%s/board-b3.lock", dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(board_lock_try(dir, "b3", NULL, NULL, &fd, &who, &prev, err, sizeof(err)),
			 BOARD_LOCK_ERROR);
	TS_ASSERT_HAS(err, "not a regular file");
	TS_FREE(fifo, link, target, path);
	ts_rmrf_free(&dir);
}

/* A lock folder whose records others could replace is refused (not
 * sticky while others can write it), a sticky shared one is used. */
static void test_lock_folder_mode(void **state)
{
	char *dir = ts_mkdtemp("boardlock-folder");
	char *saved = getenv("ORCH_LOCK_DIR") ? xstrdup(getenv("ORCH_LOCK_DIR")) : NULL;
	setenv("ORCH_LOCK_DIR", dir, 1);
	char err[512] = "";
	assert_int_equal(chmod(dir, 0777), 0);
	char *got = lock_dir_path(err, sizeof(err));
	assert_null(got);
	TS_ASSERT_HAS(err, "not sticky");
	assert_int_equal(chmod(dir, 01777), 0);
	got = lock_dir_path(err, sizeof(err));
	assert_non_null(got);
	free(got);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, (gid_t)-1), 0);
		assert_int_equal(chmod(dir, 0755), 0);
		assert_null(lock_dir_path(err, sizeof(err)));
		TS_ASSERT_HAS(err, "not by you or root");
		assert_int_equal(chown(dir, 0, (gid_t)-1), 0);
	}
	if (saved)
		setenv("ORCH_LOCK_DIR", saved, 1);
	else
		unsetenv("ORCH_LOCK_DIR");
	free(saved);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_holder_text_round_trip, test_lock_reserve_list, test_dead_holder_token,
	test_forged_records, test_lock_file_kind, test_lock_folder_mode)
