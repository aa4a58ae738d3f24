/*
 * orch's exit codes through the real binary (result/exit_code.h,
 * docs/orch.1.md "EXIT STATUS"): from the code alone CI tells all passed
 * (0), tests failed on a sound rack (1), the rack broken whatever the
 * tests did (3), nothing ran (4: every test skipped, an empty shard;
 * --allow-empty). Local boards, and dead SSH boards on 127.0.202.x ports
 * nothing listens on (connection refused at once).
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dir;

static int setup(void **state)
{
	dir = ts_mkdtemp("exitcodes");
	char *o = xasprintf("%s/out", dir);
	mkdir(o, 0755);
	free(o);
	struct strbuf sb = STRBUF_INIT;
	ts_local_boards(&sb, "l", 1, 6);
	/* port 9 (discard) on an address of this test's range: nothing listens */
	for (int i = 1; i <= 5; i++)
		strbuf_printf(&sb, "  d%d: { ssh: { host: 127.0.202.%d, port: 9, user: nobody, "
			      "connect_timeout: 2s } }\n", i, i);
	free(ts_write_file(dir, "rack.yaml", strbuf_str(&sb)));
	strbuf_release(&sb);
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

/* Runs `orch run NAME.yaml -q OPTS` over a scenario of BODY; returns the
 * exit code, the output in *out (caller frees). */
static int run_body(const char *name, const char *body, const char *opts, char **out)
{
	char *text = xasprintf("name: %s\ninventory: rack.yaml\n%s", name, body);
	char *file = xasprintf("s-%s.yaml", name);   /* never rack.yaml */
	free(ts_write_file(dir, file, text));
	int code = ts_run(out, "cd '%s' && %s run %s -q -o runs %s 2>&1", dir, ORCH_BIN, file,
			  opts ? opts : "");
	TS_FREE(text, file);
	return code;
}

static json_t *latest_results(const char *name)
{
	char *d = xasprintf("%s/runs/%s/latest", dir, name);
	json_t *j = ts_json_load_in(d, "results.json");
	free(d);
	return j;
}

static void test_all_passed_exits_0(void **state)
{
	char *out = NULL;
	assert_int_equal(run_body("pass", "boards: [l1, l2]\ntests:\n  - { name: t, run: 'true' }\n",
				  NULL, &out), 0);
	free(out);
}

static void test_failures_alone_exit_1(void **state)
{
	char *out = NULL;
	assert_int_equal(run_body("fails", "boards: ['l*']\ntests:\n  - { name: t, run: 'exit 1' }\n",
				  NULL, &out), 1);
	free(out);
}

/* 6 failures and 5 infrastructure errors: the rack is broken, 3, and
 * results.json says so with every failure still recorded */
static void test_failures_and_errors_exit_3(void **state)
{
	char *out = NULL;
	int code = run_body("rack", "boards: ['l*', 'd*']\ntests:\n  - { name: t, run: 'exit 1' }\n",
			    NULL, &out);
	assert_int_equal(code, 3);
	json_t *res = latest_results("rack");
	assert_non_null(res);
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 3);
	size_t fails = 0, errors = 0, i;
	json_t *r;
	json_array_foreach(json_object_get(res, "results"), i, r) {
		fails += !strcmp(ts_json_str(r, "status"), "fail");
		errors += !strcmp(ts_json_str(r, "status"), "error");
	}
	assert_int_equal(fails, 6);
	assert_int_equal(errors, 5);
	json_decref(res);
	free(out);
}

/* a boot test on boards without a serial console skips everywhere: nothing
 * ran, 4, never 0 */
static void test_all_skipped_exits_4(void **state)
{
	char *out = NULL;
	int code = run_body("skips", "boards: [l1, l2]\ntests:\n  - name: boot\n    boot:\n"
			    "      trigger: none\n      phases:\n        - { name: k, until: 'x' }\n",
			    NULL, &out);
	assert_int_equal(code, 4);
	json_t *res = latest_results("skips");
	assert_non_null(res);
	assert_int_equal(json_integer_value(json_object_get(res, "exit_code")), 4);
	json_decref(res);
	char *html_path = xasprintf("%s/runs/skips/latest/report.html", dir);
	char *html = ts_read_file(html_path);
	assert_non_null(html);
	TS_ASSERT_HAS(html, "nothing ran");
	TS_FREE(html, html_path, out);
	/* --allow-empty is for empty plans, not for skipped ones */
	code = run_body("skips", "boards: [l1, l2]\ntests:\n  - name: boot\n    boot:\n"
			"      trigger: none\n      phases:\n        - { name: k, until: 'x' }\n",
			"--allow-empty", &out);
	assert_int_equal(code, 4);
	free(out);
}

/* one board over two shards: one shard runs it (0), the other is empty
 * (4, or 0 with --allow-empty for a CI matrix) */
static void test_empty_shard_exits_4_unless_allowed(void **state)
{
	const char *body = "boards: [l1]\ntests:\n  - { name: t, run: 'true' }\n";
	char *out = NULL;
	int one = run_body("shard", body, "--shard 1/2", &out);
	free(out);
	int two = run_body("shard", body, "--shard 2/2", &out);
	free(out);
	assert_true((one == 0 && two == 4) || (one == 4 && two == 0));
	const char *empty = one == 4 ? "--shard 1/2" : "--shard 2/2";
	char *opts = xasprintf("%s --allow-empty", empty);
	assert_int_equal(run_body("shard", body, opts, &out), 0);
	TS_FREE(out, opts);
}

/* --junit PATH: the run's junit.xml there as well, whatever the code; an
 * invalid scenario (exit 2) still writes one, naming the first error's
 * file:line:col, so CI shows the cause */
static void test_junit_path_also_for_exit_2(void **state)
{
	char *out = NULL;
	int code = run_body("bad", "boards: [l1]\ntests:\n  - name: t\n    rnu: 'true'\n",
			    "--junit out/bad.xml", &out);
	assert_int_equal(code, 2);
	free(out);
	char *path = xasprintf("%s/out/bad.xml", dir);
	char *xml = ts_read_file(path);
	assert_non_null(xml);
	TS_ASSERT_HAS(xml, "errors=\"1\"",
		"<error message=\"s-bad.yaml:5:5: test &#39;t&#39; needs one of");
	TS_FREE(xml, path);

	code = run_body("rackj", "boards: [l1, d1]\ntests:\n  - { name: t, run: 'exit 1' }\n",
			"--junit out/rack.xml", &out);
	assert_int_equal(code, 3);
	free(out);
	path = xasprintf("%s/out/rack.xml", dir);
	xml = ts_read_file(path);
	char *in_run = xasprintf("%s/runs/rackj/latest/junit.xml", dir);
	char *same = ts_read_file(in_run);
	assert_non_null(xml);
	assert_non_null(same);
	assert_string_equal(xml, same);
	TS_ASSERT_HAS(xml, "<failure", "<error");
	TS_FREE(xml, same, path, in_run);
}

TS_MAIN(setup, teardown, test_all_passed_exits_0, test_failures_alone_exit_1,
	test_failures_and_errors_exit_3, test_all_skipped_exits_4,
	test_empty_shard_exits_4_unless_allowed, test_junit_path_also_for_exit_2)
