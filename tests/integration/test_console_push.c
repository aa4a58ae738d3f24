/*
 * `bench:` on boards whose only way in is a serial console: remote-bench is
 * pushed through the console shell (execute/push_console.h), at 115200 baud
 * on a paced pty board (tests/lab/pty-line.c), through `orch run`:
 *   - a busybox board: gzip + base64 chunks, the pushed file is the same
 *     bytes, the bench passes, a console.push rate is recorded; the next run
 *     finds the binary by its checksum and pushes nothing;
 *   - a minimal board (dash, no base64, gzip or sha256sum): printf octal
 *     escapes, checked by size;
 *   - a board where the push cannot finish (no `mv`): the test errors and no
 *     part file is left behind.
 */
#include "testsupport.h"
#include "ts_pty_board.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_DIR ORCH_BINARY_DIR "/remote-bench/bin"
#define CPU_BIN BENCH_DIR "/x86_64/remote-bench-cpu"

static int setup(void **state)
{
	if (ts_pty_board_setup(state, "console-push") < 0)
		return -1;
	if (access(CPU_BIN, R_OK) != 0) {
		print_message("the build has no %s\n", CPU_BIN);
		return -1;
	}
	return 0;
}

static void stop_board(struct ts_pty_board *f)
{
	ts_stop(&f->board);
}

/* A minimal board's PATH: these commands only, from Debian's coreutils. */
static char *min_bin(struct ts_pty_board *f, const char *cmds)
{
	char *bin = xasprintf("%s/minbin-%d", f->dir, (int)strlen(cmds));
	assert_int_equal(ts_run(NULL, "mkdir -p %s && for c in %s; do ln -sf $(command -v $c) "
				"%s/$c; done", bin, cmds, bin), 0);
	return bin;
}

static int run_bench(struct ts_pty_board *f, const char *board, char **out)
{
	char *inv_text = xasprintf("boards:\n"
				   "  %s:\n"
				   "    arch: x86_64\n"
				   "    transport: serial\n"
				   "    workdir: %s/wd-%s\n"
				   "    serial: { port: %s/%s.tty, baud: 115200 }\n",
				   board, f->dir, board, f->dir, board);
	char *inv = ts_write_file(f->dir, "inv.yaml", inv_text);
	char *sc = ts_write_file(f->dir, "bench.yaml",
				 "name: cpush\n"
				 "tests:\n"
				 "  - name: cpu\n"
				 "    bench: cpu\n"
				 "    args: [--time, 0.05, --repeats, 1]\n");
	int rc = ts_run(out, "%s run %s -i %s -o %s/runs --bench-dir %s", ORCH_BIN, sc, inv,
			f->dir, BENCH_DIR);
	print_message("%s", *out);
	TS_FREE(inv_text, inv, sc);
	return rc;
}

static char *results(struct ts_pty_board *f)
{
	char *path = xasprintf("%s/runs/cpush/latest/results.json", f->dir);
	char *r = ts_read_file(path);
	free(path);
	assert_non_null(r);
	return r;
}

static void assert_same_binary(struct ts_pty_board *f, const char *board)
{
	assert_int_equal(ts_run(NULL, "cmp %s %s/wd-%s/bin/remote-bench-cpu", CPU_BIN, f->dir,
				board), 0);
}

static void test_busybox_board(void **state)
{
	struct ts_pty_board *f = *state;
	ts_pty_board_start(f, "bb", 115200, "/bin/busybox sh -i");
	char *out = NULL;
	assert_int_equal(run_bench(f, "bb", &out), 0);
	TS_ASSERT_HAS(out, "over the console", "gzip+base64");
	free(out);
	assert_same_binary(f, "bb");
	char *r = results(f);
	TS_ASSERT_HAS(r, "\"console.push\"", "\"cpu.bogomips\"");
	free(r);

	/* already there: found by its checksum, nothing pushed */
	assert_int_equal(run_bench(f, "bb", &out), 0);
	TS_ASSERT_LACKS(out, "over the console");
	free(out);
	r = results(f);
	TS_ASSERT_LACKS(r, "\"console.push\"");
	free(r);
	stop_board(f);
}

static void test_minimal_board_printf(void **state)
{
	struct ts_pty_board *f = *state;
	char *bin = min_bin(f, "cat mkdir chmod mv rm wc stty");
	char *shell = xasprintf("env -i PATH=%s /bin/dash -i", bin);
	ts_pty_board_start(f, "min", 115200, shell);
	char *out = NULL;
	assert_int_equal(run_bench(f, "min", &out), 0);
	TS_ASSERT_HAS(out, "(printf escapes,", "no sha256sum");
	free(out);
	assert_same_binary(f, "min");
	stop_board(f);
	TS_FREE(shell, bin);
}

static void test_failed_push_leaves_no_part(void **state)
{
	struct ts_pty_board *f = *state;
	char *bin = min_bin(f, "cat mkdir chmod rm wc stty base64");
	char *shell = xasprintf("env -i PATH=%s /bin/dash -i", bin);
	ts_pty_board_start(f, "nomv", 115200, shell);
	char *out = NULL;
	assert_int_equal(run_bench(f, "nomv", &out), 3);
	TS_ASSERT_HAS(out, "over the console failed");
	free(out);
	char *wd = xasprintf("%s/wd-nomv/bin", f->dir);
	DIR *d = opendir(wd);
	assert_non_null(d);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			print_message("left on the board: %s\n", e->d_name);
			files++;
		}
	closedir(d);
	assert_int_equal(files, 0);
	free(wd);
	stop_board(f);
	TS_FREE(shell, bin);
}

TS_MAIN(setup, ts_pty_board_teardown, test_busybox_board, test_minimal_board_printf,
	test_failed_push_leaves_no_part)
