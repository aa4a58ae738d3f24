/*
 * config: reuse in scenarios -- YAML anchors, aliases and merge keys, alias
 * bombs stopped, include: of test lists and of whole scenarios (relative to
 * the including file, cycles refused), every error at the file:line:col
 * where it was written.
 */
#include "testsupport.h"
#include "config/config.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static char *diags_text(const struct diag_list *dl)
{
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);
	diag_print(dl, f);
	fclose(f);
	return all;
}

static void test_anchors_and_merge_keys(void **state)
{
	const char *text =
		"x-common: &common\n"
		"  timeout: 30s\n"
		"  repeat: 3\n"
		"  metrics: &bogo [{ name: bogomips, regex: 'BogoMIPS\\s*:\\s*([0-9.]+)' }]\n"
		"tests:\n"
		"  - <<: *common\n"
		"    name: one\n"
		"    run: cat /proc/cpuinfo\n"
		"  - <<: *common\n"
		"    name: two\n"
		"    run: cat /proc/cpuinfo\n"
		"    repeat: 5\n"                       /* the mapping's own key wins */
		"  - name: three\n"
		"    run: cat /proc/cpuinfo\n"
		"    metrics: *bogo\n";
	char *dir = ts_mkdtemp("reuse");
	char *path = ts_write_file(dir, "anchors.yaml", text);
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	/* x- keys are a place for anchors, not scenario keys */
	if (scenario_load(path, &sc, &dl) != 0) {
		diag_print(&dl, stderr);
		fail_msg("anchors.yaml did not load");
	}
	assert_int_equal(sc->n_tests, 3);
	assert_int_equal(sc->tests[0].timeout_ms, 30000);
	assert_int_equal(sc->tests[1].repeat, 5);
	assert_int_equal(sc->tests[2].n_metrics, 1);
	scenario_free(sc);
	free(path);
	const char *good =
		"defaults: &common { timeout: 30s, repeat: 3 }\n"
		"tests:\n"
		"  - &base\n"
		"    name: one\n"
		"    run: cat /proc/cpuinfo\n"
		"    timeout: 45s\n"
		"    metrics: &bogo [{ name: bogomips, regex: 'BogoMIPS\\s*:\\s*([0-9.]+)' }]\n"
		"  - <<: *base\n"
		"    name: two\n"
		"    repeat: 5\n"
		"  - <<: [*common, *base]\n"
		"    name: three\n"
		"    metrics: *bogo\n";
	path = ts_write_file(dir, "good.yaml", good);
	assert_int_equal(scenario_load(path, &sc, &dl), 0);
	assert_int_equal(sc->n_tests, 3);
	assert_string_equal(sc->tests[1].name, "two");
	assert_string_equal(sc->tests[1].run, "cat /proc/cpuinfo");
	assert_int_equal(sc->tests[1].timeout_ms, 45000);
	assert_int_equal(sc->tests[1].repeat, 5);
	assert_int_equal(sc->tests[1].n_metrics, 1);
	assert_int_equal(sc->tests[2].timeout_ms, 30000);   /* earlier merged map wins */
	assert_int_equal(sc->tests[2].repeat, 3);
	assert_string_equal(sc->tests[2].metrics[0].name, "bogomips");
	/* a copied node keeps the place it was written */
	assert_int_equal(sc->tests[1].metrics[0].pos.line, 7);
	scenario_free(sc);
	free(path);
	ts_rmrf_free(&dir);
}

static void test_alias_errors_and_bomb(void **state)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	const char *unknown = "tests:\n  - name: a\n    run: *nope\n";
	assert_int_equal(scenario_load_buffer("/x/u.yaml", unknown, strlen(unknown), &sc, &dl), -1);
	char *all = diags_text(&dl);
	TS_ASSERT_HAS(all, "/x/u.yaml:3:10: error: unknown alias '*nope'");
	free(all);
	diag_list_release(&dl);

	const char *bad_merge = "tests:\n  - <<: 5\n    name: a\n    run: x\n";
	assert_int_equal(scenario_load_buffer("/x/m.yaml", bad_merge, strlen(bad_merge), &sc, &dl), -1);
	all = diags_text(&dl);
	TS_ASSERT_HAS(all, "/x/m.yaml:2:9: error: merge key '<<' needs a mapping");
	free(all);
	diag_list_release(&dl);

	/* billion laughs: 10^9 nodes if expanded */
	struct strbuf_like { char buf[4096]; } b;
	int n = snprintf(b.buf, sizeof(b.buf), "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 9; i++)
		n += snprintf(b.buf + n, sizeof(b.buf) - (size_t)n,
			      "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
			      i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	assert_int_equal(scenario_load_buffer("/x/bomb.yaml", b.buf, (size_t)n, &sc, &dl), -1);
	assert_null(sc);
	all = diags_text(&dl);
	TS_ASSERT_HAS(all, "/x/bomb.yaml:", "aliases are expanded (an alias bomb?)");
	free(all);
	diag_list_release(&dl);
}

static void test_includes(void **state)
{
	char *dir = ts_mkdtemp("include");
	char *sub = xasprintf("%s/lists", dir);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s'", sub), 0);
	free(ts_write_file(dir, "smoke.yaml",
			   "name: smoke\n"
			   "tests:\n"
			   "  - { name: uname, run: uname -a }\n"
			   "  - include: lists/extra.yaml\n"));
	free(ts_write_file(sub, "extra.yaml",
			   "- { name: uptime, run: cat /proc/uptime }\n"
			   "- { name: df, run: df -h }\n"));
	free(ts_write_file(dir, "benchmarks.yaml",
			   "tests:\n  - { name: memory, bench: mem, args: [--size, 4M] }\n"));
	char *nightly = ts_write_file(dir, "nightly.yaml",
				      "include: [smoke.yaml, benchmarks.yaml]\n"
				      "tests:\n  - { name: own, run: 'true' }\n");
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	if (scenario_load(nightly, &sc, &dl) != 0) {
		diag_print(&dl, stderr);
		fail_msg("nightly did not load");
	}
	assert_int_equal(sc->n_tests, 5);
	const char *order[] = { "uname", "uptime", "df", "memory", "own" };
	for (int i = 0; i < 5; i++)
		assert_string_equal(sc->tests[i].name, order[i]);
	assert_string_equal(sc->name, "nightly");
	assert_non_null(strstr(sc->tests[1].pos.file, "lists/extra.yaml"));
	assert_int_equal(sc->tests[2].pos.line, 2);
	scenario_free(sc);

	/* an error inside an included file is reported there */
	free(ts_write_file(sub, "extra.yaml",
			   "- { name: uptime, run: cat /proc/uptime }\n"
			   "- { name: df, run: df -h, timeout: soon }\n"));
	assert_int_equal(scenario_load(nightly, &sc, &dl), -1);
	char *all = diags_text(&dl);
	if (!strstr(all, "lists/extra.yaml:2:36: error: invalid duration for 'timeout'"))
		fail_msg("%s", all);
	free(all);
	diag_list_release(&dl);

	/* a YAML syntax error in an included file, too */
	free(ts_write_file(sub, "extra.yaml", "- { name: uptime, run: x\n- b\n"));
	assert_int_equal(scenario_load(nightly, &sc, &dl), -1);
	all = diags_text(&dl);
	if (!strstr(all, "lists/extra.yaml:3:1: error: while parsing a flow mapping"))
		fail_msg("%s", all);
	free(all);
	diag_list_release(&dl);

	/* cycles: nightly -> smoke -> loop -> smoke */
	free(ts_write_file(sub, "extra.yaml", "include: ../smoke.yaml\n"));
	assert_int_equal(scenario_load(nightly, &sc, &dl), -1);
	all = diags_text(&dl);
	TS_ASSERT_HAS(all, "lists/extra.yaml:1:10: error: include cycle: ", "smoke.yaml -> ");
	free(all);
	diag_list_release(&dl);

	/* a missing file */
	free(ts_write_file(dir, "nightly.yaml", "include: [smoke.yaml, nope.yaml]\ntests: []\n"));
	assert_int_equal(scenario_load(nightly, &sc, &dl), -1);
	all = diags_text(&dl);
	TS_ASSERT_HAS(all, "nightly.yaml:1:23: error: cannot include 'nope.yaml': no such file");
	free(all);
	diag_list_release(&dl);

	/* duplicate test names across files name the other file */
	free(ts_write_file(sub, "extra.yaml", "- { name: uname, run: x }\n"));
	free(ts_write_file(dir, "nightly.yaml", "include: smoke.yaml\n"));
	assert_int_equal(scenario_load(nightly, &sc, &dl), -1);
	all = diags_text(&dl);
	TS_ASSERT_HAS(all, "extra.yaml:1:11: error: duplicate test name 'uname' (first at ");
	free(all);
	diag_list_release(&dl);

	TS_FREE(nightly, sub);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_anchors_and_merge_keys, test_alias_errors_and_bomb, test_includes)
