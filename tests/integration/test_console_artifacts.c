/*
 * push: and fetch: on boards whose only way in is a serial console, through
 * `orch run`, at 115200 baud on a paced pty board (tests/lab/pty-line.c):
 *   - a busybox board: a file with every byte value is pushed (typed
 *     base64 chunks, checked with cksum, given its mode) and fetched back
 *     (od dump) byte-identical into the test's folder, listed in
 *     results.json and linked from the report; the next run finds the
 *     board's copy by its checksum and does not send it again;
 *   - a minimal board (dash and a few coreutils: no base64, no gzip): the
 *     same through printf escapes;
 *   - a fetch of a missing file, and of one over ORCH_CONSOLE_FETCH_MAX,
 *     fails the test with a message that says so, leaving no file behind.
 */
#include "testsupport.h"
#include "ts_pty_board.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int setup(void **state)
{
	if (ts_pty_board_setup(state, "console-art") < 0)
		return -1;
	struct ts_pty_board *f = *state;
	char *locks = xasprintf("%s/locks", f->dir);
	setenv("ORCH_LOCK_DIR", locks, 1);
	free(locks);
	/* every byte value, twice, then a run of digits after escapes */
	char *all = xasprintf("%s/all.bin", f->dir);
	FILE *fp = fopen(all, "wb");
	assert_non_null(fp);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 256; i++)
			fputc(i, fp);
	fputs("\0017\n%s'\\-0", fp);
	fclose(fp);
	free(all);
	return 0;
}

/* orch run of one test on board; returns orch's exit status. */
static int run_orch(struct ts_pty_board *f, const char *board, const char *test, char **out)
{
	char *inv = xasprintf("boards:\n"
			      "  %s:\n"
			      "    transport: serial\n"
			      "    serial: { port: %s/%s.tty, baud: 115200 }\n",
			      board, f->dir, board);
	free(ts_write_file(f->dir, "inv.yaml", inv));
	char *text = xasprintf("name: cart\ninventory: inv.yaml\ntests:\n%s", test);
	char *sc = ts_write_file(f->dir, "cart.yaml", text);
	int rc = ts_run(out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, f->dir);
	print_message("%s", *out);
	TS_FREE(sc, text, inv);
	return rc;
}

static json_t *result(struct ts_pty_board *f, const char *board, const char *test)
{
	char *dir = xasprintf("%s/runs/cart/latest", f->dir);
	json_t *res = ts_json_load_in(dir, "results.json");
	free(dir);
	json_t *r = json_incref(ts_json_result_or_fail(res, board, test));
	json_decref(res);
	return r;
}

static char *board_stat(struct ts_pty_board *f, const char *board)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "stat -c '%%a %%Y.%%i' %s/wd-%s/all.bin", f->dir, board), 0);
	return out;
}

static void push_fetch_round_trip(struct ts_pty_board *f, const char *board)
{
	char *test = xasprintf(
		"  - name: rt\n"
		"    push: { src: all.bin, dest: %s/wd-%s/all.bin, mode: '0640' }\n"
		"    run: 'wc -c < %s/wd-%s/all.bin'\n"
		"    fetch: { src: %s/wd-%s/all.bin, dest: back/all.bin }\n",
		f->dir, board, f->dir, board, f->dir, board);
	char *out = NULL;
	assert_int_equal(run_orch(f, board, test, &out), 0);
	free(out);
	json_t *r = result(f, board, "rt");
	json_t *arts = json_object_get(r, "artifacts");
	assert_int_equal(json_array_size(arts), 1);
	assert_string_equal(json_string_value(json_array_get(arts, 0)), "back/all.bin");
	json_decref(r);
	assert_int_equal(ts_run(NULL, "cmp %s/all.bin %s/wd-%s/all.bin && cmp %s/all.bin "
				"%s/runs/cart/latest/%s/rt/back/all.bin", f->dir, f->dir, board,
				f->dir, f->dir, board), 0);
	char *html_path = xasprintf("%s/runs/cart/latest/report.html", f->dir);
	char *html = ts_read_file(html_path);
	char *link = xasprintf("%s/rt/back/all.bin", board);
	assert_non_null(html);
	assert_non_null(strstr(html, link));
	TS_FREE(link, html, html_path);

	/* the board has it: not sent again (same inode and mtime), same mode */
	char *before = board_stat(f, board);
	assert_true(strncmp(before, "640 ", 4) == 0);
	sleep(1);
	assert_int_equal(run_orch(f, board, test, &out), 0);
	free(out);
	char *after = board_stat(f, board);
	assert_string_equal(before, after);
	TS_FREE(before, after, test);
}

static void test_busybox_board(void **state)
{
	struct ts_pty_board *f = *state;
	ts_pty_board_start(f, "bb", 115200, "/bin/busybox sh -i");
	push_fetch_round_trip(f, "bb");
	ts_stop(&f->board);
}

static void test_minimal_board(void **state)
{
	struct ts_pty_board *f = *state;
	char *bin = xasprintf("%s/minbin", f->dir);
	assert_int_equal(ts_run(NULL, "mkdir -p %s && for c in cat mkdir chmod mv rm wc stty od "
				"cksum; do ln -sf $(command -v $c) %s/$c; done", bin, bin), 0);
	char *shell = xasprintf("env -i PATH=%s /bin/dash -i", bin);
	ts_pty_board_start(f, "min", 115200, shell);
	push_fetch_round_trip(f, "min");
	ts_stop(&f->board);
	TS_FREE(shell, bin);
}

static void test_fetch_refused(void **state)
{
	struct ts_pty_board *f = *state;
	ts_pty_board_start(f, "ref", 115200, "/bin/busybox sh -i");
	char *test = xasprintf("  - name: missing\n"
			       "    run: 'true'\n"
			       "    fetch: { src: %s/never-written.log }\n"
			       "  - name: big\n"
			       "    run: 'true'\n"
			       "    fetch: { src: %s/all.bin }\n", f->dir, f->dir);
	setenv("ORCH_CONSOLE_FETCH_MAX", "100", 1);
	char *out = NULL;
	int rc = run_orch(f, "ref", test, &out);
	unsetenv("ORCH_CONSOLE_FETCH_MAX");
	assert_int_equal(rc, 1);
	free(out);
	json_t *r = result(f, "ref", "missing");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	if (!strstr(ts_json_str(r, "message"), "never-written.log: no such file"))
		fail_msg("%s", ts_json_str(r, "message"));
	json_decref(r);
	r = result(f, "ref", "big");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	if (!strstr(ts_json_str(r, "message"), "too large for a console fetch: 521 bytes, the "
		    "cap is 100"))
		fail_msg("%s", ts_json_str(r, "message"));
	json_decref(r);
	char *part = xasprintf("%s/runs/cart/latest/ref/big/all.bin.part", f->dir);
	assert_false(ts_file_exists(part));
	TS_FREE(part, test);
	ts_stop(&f->board);
}

TS_MAIN(setup, ts_pty_board_teardown, test_busybox_board, test_minimal_board, test_fetch_refused)
