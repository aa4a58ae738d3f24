/* lock/board_lock: the holder text, and the lock and reservation files in a
 * scratch folder (two opens of one lock file conflict like two processes). */
#include "testsupport.h"

#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_holder_text_round_trip(void **state)
{
	(void)state;
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
	assert_non_null(strstr(desc, ", reserved since "));
	assert_non_null(strstr(desc, " until "));
}

static void test_lock_reserve_list(void **state)
{
	(void)state;
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
	ts_rmrf(dir);
	free(dir);
}

/* A holder that died with the board (its record, with its token, left in
 * the lock file under a free flock) is handed to the next taker, who
 * records its own token; a clean release leaves nothing to hand on. */
static void test_dead_holder_token(void **state)
{
	(void)state;
	char *dir = ts_mkdtemp("boardlock-unit");
	struct board_holder who, prev;
	char err[256];
	int fd = -1;
	free(ts_write_file(dir, "board-b1.lock",
			   "board=b1\nuser=alice\nhost=lab1\npid=4242\nsince_us=1\n"
			   "token=0123456789abcdef-89abcdef\n"));
	assert_int_equal(board_lock_try(dir, "b1", "next", "fedcba9876543210-01234567", &fd, &who,
				       &prev, err, sizeof(err)), 0);
	assert_string_equal(prev.token, "0123456789abcdef-89abcdef");
	assert_int_equal(prev.pid, 4242);
	char *path = xasprintf("%s/board-b1.lock", dir);
	char *text = ts_read_file(path);
	assert_non_null(strstr(text, "token=fedcba9876543210-01234567\n"));
	free(text);
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
	ts_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holder_text_round_trip),
		cmocka_unit_test(test_lock_reserve_list),
		cmocka_unit_test(test_dead_holder_token),
	};
	return ts_run_group(tests, NULL, NULL);
}
