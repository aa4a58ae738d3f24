/* The orch binary: compare (table, JSON, exit codes, usage), report, merge. */
#include "testsupport.h"
#include "ts_run_folder.h"

#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct fixture {
	char *tmp;
	char *a;       /* old run */
	char *b;       /* new run: memcpy -12.1%, loop +2.9%, kernel pass, vm only in B */
	char *s1;      /* shards of b */
	char *s2;
};

static void write_run(const char *dir, bool newer, int shard)
{
	struct run_result run;
	ts_run_folder_init(&run, "nightly", newer ? "20261202-165000" : "20261201-165000", "test",
			   shard == 2 ? "ci-2" : "ci-1",
			   newer ? 1764694200000000 : 1764607800000000,
			   (newer ? 1764694200000000 : 1764607800000000) + 60000000);
	if (shard != 2) {
		struct test_result *tr = run_result_add(&run, "biff", "memory");
		tr->log_dir = xstrdup("biff/memory");
		/* three tight repeats each, so the changes can be judged */
		for (int k = -1; k <= 1; k++) {
			double f = 1.0 + k * 0.001;
			test_result_add_sample(tr, "mem.memcpy", "MiB/s", true, (newer ? 22.5 : 25.6) * f);
			test_result_add_sample(tr, "mem.loop", "ops/s", true, (newer ? 102.9 : 100.0) * f);
			test_result_add_sample(tr, "mem.same", "MiB/s", true, 7.0 * f);
		}
		tr = run_result_add(&run, "biff", "kernel");
		tr->log_dir = xstrdup("biff/kernel");
		ts_run_folder_log(dir, "biff/kernel", "stdout.log", "Linux biff\n");
	}
	if (newer && shard != 1) {
		struct test_result *tr = run_result_add(&run, "vm", "kernel");
		tr->status = STATUS_ERROR;
		tr->log_dir = xstrdup("vm/kernel");
		test_result_set_message(tr, "ssh: connection refused");
		ts_run_folder_log(dir, "vm/kernel", "stderr.log", "refused\n");
	}
	ts_run_folder_write(dir, &run, "{\"scenario\": \"nightly\"}\n");
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	f->tmp = ts_mkdtemp("cmd-compare");
	f->a = xasprintf("%s/a", f->tmp);
	f->b = xasprintf("%s/b", f->tmp);
	f->s1 = xasprintf("%s/s1", f->tmp);
	f->s2 = xasprintf("%s/s2", f->tmp);
	write_run(f->a, false, 0);
	write_run(f->b, true, 0);
	write_run(f->s1, true, 1);
	write_run(f->s2, true, 2);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_rmrf(f->tmp);
	TS_FREE(f->tmp, f->a, f->b, f->s1, f->s2, f);
	return 0;
}

/* Runs orch with stdout only (stderr dropped) or stderr only. */
#define ORCH_STDOUT(out, fmt, ...) ts_run(out, "(NO_COLOR=1 %s " fmt " 2>/dev/null)", ORCH_BIN, __VA_ARGS__)
#define ORCH_STDERR(out, fmt, ...) ts_run(out, "(NO_COLOR=1 %s " fmt " 2>&1 >/dev/null)", ORCH_BIN, __VA_ARGS__)

static void test_table(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDOUT(&out, "compare %s %s", f->a, f->b), 1);
	TS_ASSERT_HAS(out, "BOARD", "mem.memcpy", "25.6 MiB/s", "22.5 MiB/s", "12.1% slower",
		"2.9% faster", "test only in B", "mem.same", "1 regression,");
	TS_ASSERT_LACKS(out, "\033[");
	free(out);

	assert_int_equal(ORCH_STDOUT(&out, "compare --only-changes %s %s", f->a, f->b), 1);
	TS_ASSERT_LACKS(out, "mem.same");
	TS_ASSERT_HAS(out, "mem.memcpy");
	free(out);

	/* people's messages stay off stderr when all is well */
	assert_int_equal(ORCH_STDERR(&out, "compare %s %s", f->a, f->b), 1);
	assert_string_equal(out, "");
	free(out);
}

static void test_exit_codes(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDOUT(&out, "compare %s %s", f->a, f->a), 0);
	TS_ASSERT_HAS(out, "0 regressions");
	free(out);
	assert_int_equal(ORCH_STDOUT(&out, "compare --threshold 20 %s %s", f->a, f->b), 0);
	TS_ASSERT_HAS(out, "12.1% slower");
	free(out);
	assert_int_equal(ORCH_STDOUT(&out, "compare -t 12%% %s %s", f->a, f->b), 1);
	free(out);
	/* B -> A: memcpy got faster, loop 2.8% slower (within 5%), vm only in A */
	assert_int_equal(ORCH_STDOUT(&out, "compare %s %s", f->b, f->a), 0);
	TS_ASSERT_HAS(out, "test only in A");
	free(out);
}

static void test_json(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDOUT(&out, "compare --format json %s %s", f->a, f->b), 1);
	json_error_t jerr;
	json_t *j = json_loads(out, 0, &jerr);
	if (!j)
		fail_msg("not JSON (%s): %s", jerr.text, out);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"),
							    "regression")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "b"), "path")),
			    f->b);
	json_t *rows = json_object_get(j, "rows");
	size_t regressions = 0;
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		if (json_is_true(json_object_get(row, "regression"))) {
			regressions++;
			assert_string_equal(json_string_value(json_object_get(row, "name")),
					    "mem.memcpy");
			assert_string_equal(json_string_value(json_object_get(row, "words")),
					    "12.1% slower");
		}
	}
	assert_int_equal(regressions, 1);
	json_decref(j);
	free(out);
}

/* --format junit: the regression is a failed test a CI view shows; the file
 * has junit-10's structure and junitparser reads it. */
static void test_junit(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDOUT(&out, "compare --format junit %s %s", f->a, f->b), 1);
	TS_ASSERT_HAS(out, "<testsuites name=\"orch compare ", "failures=\"1\"",
		"name=\"memory: mem.memcpy\"",
		"<failure message=\"12.1% slower\" type=\"regression\">",
		"<skipped message=\"test only in B\"/>");
	char *file = ts_write_file(f->tmp, "compare-junit.xml", out);
	char *lint = NULL;
	if (ts_run(NULL, "command -v xmllint") == 0 &&
	    ts_run(&lint, "xmllint --noout --schema '%s/tests/report/junit.xsd' '%s'",
		   ORCH_SOURCE_DIR, file) != 0)
		fail_msg("compare's junit does not validate: %s", lint);
	free(lint);
	if (ts_run(NULL, "/usr/bin/python3 -c 'import junitparser' 2>/dev/null") == 0) {
		char *py = NULL;
		assert_int_equal(ts_run(&py, "/usr/bin/python3 -c 'import junitparser, sys\n"
					     "x = junitparser.JUnitXml.fromfile(sys.argv[1])\n"
					     "print(sum(1 for s in x for c in s if any(r._tag == \"failure\" "
					     "for r in c.result)))' '%s'", file), 0);
		assert_string_equal(py, "1\n");
		free(py);
	}
	TS_FREE(file, out);
	assert_int_equal(ORCH_STDOUT(&out, "compare --format junit %s %s", f->a, f->a), 0);
	TS_ASSERT_HAS(out, "failures=\"0\"");
	free(out);
}

static void test_usage(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDOUT(&out, "compare --help%s", ""), 0);
	TS_ASSERT_HAS(out, "usage: orch compare RUN_A RUN_B");
	free(out);

	static const char *const bad[] = { "", "ONLY_ONE", "--threshold x A B",
					   "--threshold -1 A B", "--format xml A B", "--bogus A B",
					   "--threshold" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ORCH_STDERR(&out, "compare %s", bad[i]), 2);
		if (!strstr(out, "orch compare: ") || !strstr(out, "--help"))
			fail_msg("'compare %s' said: %s", bad[i], out);
		free(out);
	}

	/* three runs: one column per run, each against the first */
	int code = ORCH_STDOUT(&out, "compare %s %s %s", f->a, f->b, f->a);
	assert_true(code == 0 || code == 1);
	TS_ASSERT_HAS(out, "BOARD", "2 runs against ");
	free(out);
	code = ORCH_STDOUT(&out, "compare --format html %s %s %s", f->a, f->b, f->a);
	assert_true(code == 0 || code == 1);
	assert_true(strncmp(out, "<!DOCTYPE html>", 15) == 0);
	free(out);
	assert_int_equal(ORCH_STDERR(&out, "compare %s %s %s/missing", f->a, f->b, f->tmp), 2);
	free(out);

	assert_int_equal(ORCH_STDERR(&out, "compare %s %s/missing", f->a, f->tmp), 2);
	TS_ASSERT_HAS(out, "missing");
	free(out);
}

static void test_report(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	assert_int_equal(ORCH_STDERR(&out, "report %s", f->b), 0);
	TS_ASSERT_HAS(out, "vm");
	free(out);
	static const char *const files[] = { "summary.txt", "junit.xml", "report.html" };
	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", f->b, files[i]);
		assert_true(ts_file_exists(p));
		free(p);
	}
	assert_int_equal(ORCH_STDERR(&out, "report %s/missing", f->tmp), 2);
	TS_ASSERT_HAS(out, "orch report: ");
	free(out);
	assert_int_equal(ORCH_STDERR(&out, "report%s", ""), 2);
	free(out);
	assert_int_equal(ORCH_STDOUT(&out, "report --help%s", ""), 0);
	TS_ASSERT_HAS(out, "usage: orch report");
	free(out);
}

static void test_merge(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	char *merged = xasprintf("%s/merged", f->tmp);
	/* vm errored and nothing failed: the merged run says 3, like the whole run */
	assert_int_equal(ORCH_STDERR(&out, "merge %s %s %s", merged, f->s1, f->s2), 3);
	free(out);
	char *p = xasprintf("%s/vm/kernel/stderr.log", merged);
	assert_true(ts_file_exists(p));
	free(p);
	p = xasprintf("%s/junit.xml", merged);
	assert_true(ts_file_exists(p));
	free(p);

	/* merged equals the whole run: nothing changed between them */
	assert_int_equal(ORCH_STDOUT(&out, "compare --only-changes %s %s", f->b, merged), 0);
	TS_ASSERT_HAS(out, "no changes");
	free(out);

	/* never into an existing folder */
	assert_int_equal(ORCH_STDERR(&out, "merge %s %s %s", merged, f->s1, f->s2), 2);
	TS_ASSERT_HAS(out, "already exists");
	free(out);
	assert_int_equal(ORCH_STDERR(&out, "merge %s", merged), 2);
	TS_FREE(out, merged);
}

int main(void)
{
	if (!ts_file_exists(ORCH_BIN)) {
		fprintf(stderr, "%s is not built\n", ORCH_BIN);
		return 1;
	}
	return TS_RUN_TESTS(setup, teardown, test_table, test_exit_codes, test_json, test_junit,
		   test_usage, test_report, test_merge);
}
