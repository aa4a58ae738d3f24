/* lock/board_lock: the holder text, and the lock and reservation files in a
 * scratch folder (two opens of one lock file conflict like two processes). */
#include "testsupport.h"

#include "lock/board_lock.h"
#include "util/deadline.h"

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
	struct board_holder who;
	char err[256];
	int fd = -1, fd2 = -1;
	assert_int_equal(board_lock_try(dir, "b/1", "first", &fd, &who, err, sizeof(err)), 0);
	assert_int_equal(board_lock_try(dir, "b/1", "second", &fd2, &who, err, sizeof(err)),
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
	assert_int_equal(board_lock_try(dir, "b/1", NULL, &fd, &who, err, sizeof(err)),
			 BOARD_LOCK_HELD);
	assert_true(who.reservation);
	assert_string_equal(who.note, "desk");
	assert_int_equal(board_lock_list(dir, &list, err, sizeof(err)), 1);
	assert_true(list[0].reservation);
	free(list);
	usleep(350 * 1000);
	assert_int_equal(board_lock_try(dir, "b/1", NULL, &fd, &who, err, sizeof(err)), 0);
	board_lock_release(fd);
	assert_int_equal(board_lock_reserve(dir, "b/1", 0, "forever", &who, err, sizeof(err)), 0);
	bool had = false;
	assert_int_equal(board_lock_unreserve(dir, "b/1", &had, err, sizeof(err)), 0);
	assert_true(had);
	assert_int_equal(board_lock_unreserve(dir, "b/1", &had, err, sizeof(err)), 0);
	assert_false(had);
	assert_int_equal(board_lock_try(dir, "b/1", NULL, &fd, &who, err, sizeof(err)), 0);
	board_lock_release(fd);
	ts_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holder_text_round_trip),
		cmocka_unit_test(test_lock_reserve_list),
	};
	return ts_run_group(tests, NULL, NULL);
}
