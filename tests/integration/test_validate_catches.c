/*
 * orch validate catches before the run what used to fail during it:
 * bounds whose unit is not the metric's (bench metrics from
 * the programs' declared lists, regex metrics, transfer), a metric a
 * bench program does not print, a tab named as a tab, a regex error with
 * its caret at PCRE2's offset, a misspelled bench program with a
 * did-you-mean from --bench-dir; every error in one pass, each on the
 * line that holds the mistake.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("validate-catches", "inventory.yaml", "boards:\n  l1: { local: true }\n");
	char *dir = xasprintf("%s/bench/x86_64", tmp);
	char *cmd = xasprintf("mkdir -p '%s' && touch '%s/remote-bench-mem' '%s/remote-bench-cpu'",
			      dir, dir, dir);
	assert_int_equal(ts_run(NULL, "%s", cmd), 0);
	TS_FREE(cmd, dir);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static char *validate(int want, const char *file, const char *text)
{
	char *sc = ts_write_file(tmp, file, text);
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s validate %s --bench-dir bench 2>&1", tmp, ORCH_BIN, sc);
	if (rc != want)
		fail_msg("validate %s: exit %d, wanted %d:\n%s", file, rc, want, out);
	free(sc);
	return out;
}

static void test_units_and_names(void **state)
{
	char *out = validate(2, "units.yaml",
		"inventory: inventory.yaml\n"
		"tests:\n"
		"  - name: mem\n"
		"    bench: mem\n"
		"    expect:\n"
		"      mem.memcpy: { min: 20 ms }\n"
		"      mem.word: { min: 20 bananas }\n"
		"      mem.memcopy: { min: 1 MiB/s }\n"
		"      mem.block: { min: 2 GB/s }\n"
		"  - name: re\n"
		"    run: echo 5\n"
		"    metrics: [{ name: lat, regex: '([0-9]+)', unit: ms }]\n"
		"    expect: { lat: { max: 3 MiB } }\n"
		"  - name: tr\n"
		"    transfer: 1MiB\n"
		"    expect: { transfer.up: { min: 10 Mbit/s, max: 3 s } }\n"
		"  - name: typo\n"
		"    bench: memm\n");
	TS_ASSERT_HAS(out, "units.yaml:6:26: error: the bound on 'mem.memcpy' is in 'ms', which does not "
		 "convert to the metric's unit 'MiB/s'");
	TS_ASSERT_HAS(out, "units.yaml:7:24: error: the bound on 'mem.word' is in 'bananas'");
	TS_ASSERT_HAS(out, "units.yaml:8:7: error: expect on metric 'mem.memcopy', which remote-bench mem "
		 "does not print (did you mean 'mem.memcpy'?)");
	TS_ASSERT_HAS(out, "units.yaml:13:27: error: the bound on 'lat' is in 'MiB', which does not convert "
		 "to the metric's unit 'ms'");
	TS_ASSERT_HAS(out, "unit 's' of 'max' does not convert to 'Mbit/s' of 'min'");
	if (strstr(out, "mem.block"))
		fail_msg("2 GB/s converts to MiB/s:\n%s", out);
	free(out);
}

static void test_bench_name(void **state)
{
	char *out = validate(2, "bench.yaml",
		"inventory: inventory.yaml\ntests:\n  - { name: m, bench: memm }\n");
	TS_ASSERT_HAS(out, "unknown remote-bench program 'memm' (did you mean 'mem'?");
	free(out);
}

static void test_tab_and_regex(void **state)
{
	char *out = validate(2, "tab.yaml", "inventory: inventory.yaml\ntests:\n"
			     "  -\tname: a\n");
	TS_ASSERT_HAS(out, "tab.yaml:3:4: error: a tab character: YAML indents with spaces only");
	free(out);
	out = validate(2, "rx.yaml", "inventory: inventory.yaml\ntests:\n"
		       "  - name: a\n    run: x\n"
		       "    metrics: [{ name: m, regex: 'speed (\\d+ MB/s' }]\n");
	TS_ASSERT_HAS(out, "rx.yaml:5:49: error: invalid regex for 'regex'");
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_units_and_names, test_bench_name, test_tab_and_regex)
