/*
 * The history's error rates through the real binary (docs/compare.md,
 * "Against the history"): eleven nights of `orch run --baseline history`
 * on the controller itself (a local board, an SQLite history in a scratch
 * folder), the test printing remote-bench JSON lines from a fixed-seed
 * generator with normal noise of SD 5%:
 *   test r1, repeat 1: 300 metrics with no change;
 *   test r5, repeat 5: 300 metrics with no change, and 2000 metrics that
 *   step -10% at night 11 (after 10 nights at the old level).
 * No change, nights 4-11 (8 x 300 metric-runs per cell): <= 1% flagged.
 * The step, at night 11 where it begins: >= 90% caught. Nights 1-3 are
 * "not judged" with the reason ("2 earlier runs, needs 3"). The figures are
 * printed for docs/compare.md.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIGHTS 11
#define STEP_NIGHT 11
#define N_FLAT 300
#define N_STEP 2000

static char *dir;

static const char gen_awk[] =
	"function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }\n"
	"BEGIN {\n"
	"\tsrand(seed)\n"
	"\tfor (i = 0; i < flat; i++)\n"
	"\t\tprintf \"{\\\"metric\\\":\\\"flat%d\\\",\\\"value\\\":%.6f,\\\"unit\\\":\\\"MiB/s\\\","
	"\\\"better\\\":\\\"higher\\\"}\\n\", i, 100 * (1 + 0.05 * gauss())\n"
	"\tfor (i = 0; i < step; i++)\n"
	"\t\tprintf \"{\\\"metric\\\":\\\"step%d\\\",\\\"value\\\":%.6f,\\\"unit\\\":\\\"MiB/s\\\","
	"\\\"better\\\":\\\"higher\\\"}\\n\", i, (night >= at ? 90 : 100) * (1 + 0.05 * gauss())\n"
	"}\n";

static int setup(void **state)
{
	dir = ts_mkdtemp_with("histjudge", "rack.yaml", "boards:\n  here: { local: true }\n");
	free(ts_write_file(dir, "gen.awk", gen_awk));
	/* each execution a seed of its own: night, test and repeat */
	char *yaml = xasprintf(
		"name: sim\ninventory: rack.yaml\nboards: [here]\ntests:\n"
		"  - name: r1\n    repeat: 1\n    parse: remote-bench\n    run: |\n"
		"      n=$(( $(cat '%s/count1') + 1 )); echo $n > '%s/count1'\n"
		"      awk -v seed=$(( $(cat '%s/night') * 1000 + n )) -v flat=%d -v step=0 "
		"-v night=0 -v at=99 -f '%s/gen.awk'\n"
		"  - name: r5\n    repeat: 5\n    parse: remote-bench\n    run: |\n"
		"      n=$(( $(cat '%s/count5') + 1 )); echo $n > '%s/count5'\n"
		"      awk -v seed=$(( $(cat '%s/night') * 1000 + 500 + n )) -v flat=%d -v step=%d "
		"-v night=$(cat '%s/night') -v at=%d -f '%s/gen.awk'\n",
		dir, dir, dir, N_FLAT, dir, dir, dir, dir, N_FLAT, N_STEP, dir, STEP_NIGHT, dir);
	free(ts_write_file(dir, "sim.yaml", yaml));
	free(yaml);
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

struct tally {
	size_t judged, flagged, not_judged;
};

/* Counts the night's metrics of test whose names start with prefix. */
static void count(json_t *root, const char *test, const char *prefix, struct tally *t,
		  const char *want_reason)
{
	json_t *r = ts_json_result_or_fail(root, "here", test);
	json_t *metrics = json_object_get(r, "metrics");
	const char *name;
	json_t *m;
	json_object_foreach(metrics, name, m) {
		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		const char *change = ts_json_str(m, "change");
		assert_non_null(change);
		json_t *v = json_object_get(m, "verdict");
		assert_non_null(v);
		if (!strcmp(change, "not judged")) {
			t->not_judged++;
			const char *reason = ts_json_str(v, "reason");
			assert_non_null(reason);
			if (want_reason)
				assert_string_equal(reason, want_reason);
			continue;
		}
		t->judged++;
		if (!strcmp(change, "regression"))
			t->flagged++;
	}
}

static void test_error_rates(void **state)
{
	struct tally r1 = { 0 }, r5 = { 0 }, step = { 0 };
	for (int night = 1; night <= NIGHTS; night++) {
		char text[16];
		snprintf(text, sizeof(text), "%d\n", night);
		free(ts_write_file(dir, "night", text));
		free(ts_write_file(dir, "count1", "0\n"));
		free(ts_write_file(dir, "count5", "0\n"));
		char *out = NULL;
		int code = ts_run(&out, "cd '%s' && NO_COLOR=1 %s run sim.yaml -q -o runs --baseline "
				  "history 2>&1", dir, ORCH_BIN);
		if (code != 0 && code != 1)
			fprintf(stderr, "night %d: exit %d\n%s\n", night, code, out);
		assert_true(code == 0 || code == 1);
		free(out);
		char *latest = xasprintf("%s/runs/sim/latest", dir);
		char real[PATH_MAX];
		assert_non_null(realpath(latest, real));
		free(latest);
		json_t *root = ts_json_load_in(real, "results.json");
		assert_string_equal(ts_json_str(root, "baseline_kind"), "history");
		char reason[64];
		snprintf(reason, sizeof(reason), "%d earlier run%s, needs 3", night - 1,
			 night == 2 ? "" : "s");
		struct tally early = { 0 };
		if (night <= 3) {
			count(root, "r1", "flat", &early, reason);
			count(root, "r5", "", &early, reason);
			assert_int_equal(early.judged, 0);
			assert_int_equal(early.not_judged, N_FLAT * 2 + N_STEP);
			assert_int_equal(code, 0);
		} else {
			count(root, "r1", "flat", &r1, NULL);
			count(root, "r5", "flat", &r5, NULL);
			if (night == STEP_NIGHT)
				count(root, "r5", "step", &step, NULL);
		}
		json_decref(root);
	}
	fprintf(stderr, "no change, SD 5%%, repeat 1: %zu of %zu metric-runs flagged (%.2f%%)\n",
		r1.flagged, r1.judged, 100.0 * (double)r1.flagged / (double)r1.judged);
	fprintf(stderr, "no change, SD 5%%, repeat 5: %zu of %zu metric-runs flagged (%.2f%%)\n",
		r5.flagged, r5.judged, 100.0 * (double)r5.flagged / (double)r5.judged);
	fprintf(stderr, "-10%% step, SD 5%%, repeat 5: %zu of %zu caught at its first run (%.1f%%)\n",
		step.flagged, step.judged, 100.0 * (double)step.flagged / (double)step.judged);
	assert_int_equal(r1.judged, (NIGHTS - 3) * N_FLAT);
	assert_int_equal(r5.judged, (NIGHTS - 3) * N_FLAT);
	assert_int_equal(step.judged, N_STEP);
	assert_true(r1.flagged * 100 <= r1.judged);
	assert_true(r5.flagged * 100 <= r5.judged);
	assert_true(step.flagged * 10 >= step.judged * 9);
}

TS_MAIN(setup, teardown, test_error_rates)
