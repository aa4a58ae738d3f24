/*
 * A rack at a glance: 64 local boards x 40 tests, one test failing on 4
 * boards. What orch prints to a pipe (a CI log) and summary.txt grow with
 * the tests and the failures, not with boards x tests: the failures are
 * named with their boards folded (b[10-13]), the passes folded, and the
 * summary stays within 60 lines; -v still gives a line per board x test.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define N_TESTS 40

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_rack_dir("rack-glance");
	struct strbuf sc = STRBUF_INIT;
	strbuf_puts(&sc, TS_RACK_HEAD("rack"));
	for (int t = 1; t <= N_TESTS; t++) {
		if (t == 7)
			strbuf_puts(&sc, "  - { name: t07, run: \"case {board.name} in b1[0-3]) echo "
					 "disk gone; exit 1;; esac\" }\n");
		else if (t == 9)
			strbuf_puts(&sc, "  - name: t09\n    run: \"echo speed $((900 + $(echo "
					 "{board.name} | tr -dc 0-9)))\"\n    metrics: [ { name: dd.write, "
					 "regex: 'speed (\\d+)', unit: MB/s, better: higher } ]\n");
		else
			strbuf_printf(&sc, "  - { name: t%02d, run: \"true\" }\n", t);
	}
	free(ts_write_file(tmp, "rack.yaml", sc.buf));
	strbuf_release(&sc);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

/* Lines of text, those of the log's own warnings left out: they say what
 * the controller went through (a loaded machine), not the results. */
static size_t count_lines(const char *text, size_t *warnings)
{
	size_t n = 0;
	*warnings = 0;
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		if (!strncmp(l, "orch: warning: ", 15))
			(*warnings)++;
		else
			n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

static void test_pipe_and_summary_bounded(void **state)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd %s && %s run rack.yaml -o runs 2>&1 | cat", tmp, ORCH_BIN);
	assert_int_equal(rc, 0);   /* the pipe's status */
	size_t warnings;
	size_t lines = count_lines(out, &warnings);
	/* a line per test, the 4 failures, a progress line per 30 s, the summary */
	if (lines > N_TESTS + 4 + 20 + 60)
		fail_msg("%zu lines to a pipe (and %zu warnings):\n%s", lines, warnings, out);
	TS_ASSERT_HAS(out, "failed: t07 on b10: command exited with status 1; logs b10/t07",
		"t07: 60 passed, 4 failed on b[10-13]\n", "t01: 64 passed\n");
	TS_ASSERT_LACKS(out, ": started");

	char *summary = ts_read_in(tmp, "runs/rack/latest/summary.txt");
	assert_non_null(summary);
	size_t s_lines = count_lines(summary, &warnings);
	if (s_lines + warnings > 60)
		fail_msg("summary.txt has %zu lines:\n%s", s_lines + warnings, summary);
	assert_non_null(strstr(summary, "failed: t07 on b[10-13]: command exited with status 1\n"
				     "  b[10-13]: last line (stdout.log): disk gone; logs b[10-13]/t07\n"));
	TS_ASSERT_HAS(summary, "39 tests passed on all 64 boards: t[01-06,08-40]\n");
	assert_non_null(strstr(summary, "  t09 dd.write: median 932.5 MB/s, 901 to 964 MB/s over 64 "
				     "boards\n"));
	TS_ASSERT_HAS(summary, "2556 passed, 4 failed, 0 errors, 0 skipped");
	/* what the terminal got ends with the same summary */
	TS_ASSERT_HAS(out, "t07: 60 passed, 4 failed on b[10-13]\n39 tests passed");
	TS_FREE(summary, out);

	/* the full table, a line per board x test, on request */
	assert_int_equal(ts_run(&out, "%s report --full %s/runs/rack/latest 2>&1 | grep -c "
				"'^b[0-9]* *t[0-9]* *pass'", ORCH_BIN, tmp), 0);
	assert_int_equal(atoi(out), TS_RACK_BOARDS * N_TESTS - 4);
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_pipe_and_summary_bounded)
