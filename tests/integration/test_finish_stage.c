/*
 * One end for every way a run folder is finished (finish/finish.h), through
 * the real binary, on local boards (nothing else is started):
 *   orch merge of the shards of a run gives the exit code, the results'
 *     order and the summary of the same run unsharded (boards in inventory
 *     order, which is not the shards' name order);
 *   orch report of a finished run folder keeps its verdicts against its
 *     baseline, its exit code and its summary, byte for byte;
 *   orch report of a run killed before its end (a journal only) rebuilds it
 *     in the run's own order, as the run would have written it.
 * The run: four boards (inventory order zeta, alpha, mid, beta), a rate
 * metric judged against a baseline run (alpha 20% slower: a regression)
 * and a check that fails on mid.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static const char *const boards[] = { "zeta", "alpha", "mid", "beta" };

static void set_rates(int alpha)
{
	for (size_t i = 0; i < 4; i++) {
		char *name = xasprintf("rate-%s", boards[i]);
		char *text = xasprintf("rate=%d\n", !strcmp(boards[i], "alpha") ? alpha : 100);
		free(ts_write_file(dir, name, text));
		TS_FREE(text, name);
	}
}

static int setup(void **state)
{
	dir = ts_mkdtemp_with("finish-stage", "rack.yaml", "boards:\n  zeta: { local: true }\n"
							   "  alpha: { local: true }\n  mid: { local: true }\n"
							   "  beta: { local: true }\n");
	char *yaml = xasprintf("name: night\ninventory: rack.yaml\nboards: [all]\ntests:\n"
			       "  - name: speed\n    run: cat '%s/rate-{board.name}'\n"
			       "    metrics:\n"
			       "      - { name: net.rate, regex: 'rate=([0-9.]+)', unit: MiB/s }\n"
			       "  - name: check\n    run: test {board.name} != mid\n", dir);
	free(ts_write_file(dir, "night.yaml", yaml));
	free(yaml);
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

/* orch run night.yaml -q OPTS; the run folder in *run (caller frees). */
static int run_night(const char *opts, char **run)
{
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && NO_COLOR=1 %s run night.yaml -q -o runs %s 2>&1", dir,
			  ORCH_BIN, opts);
	char *link = xasprintf("%s/runs/night/latest", dir);
	char real[PATH_MAX];
	*run = xstrdup(realpath(link, real) ? real : "(no run folder)");
	TS_FREE(link, out);
	return code;
}

/* text with every duration ("0.01s", "2m03s", "1h02m") as "T" and runs of
 * blanks as one (column widths follow the durations). Caller frees. */
static char *no_times(const char *text)
{
	regex_t re;
	assert_int_equal(regcomp(&re, "[0-9]+(\\.[0-9]+)?s|[0-9]+m[0-9]+s|[0-9]+h[0-9]+m",
				 REG_EXTENDED), 0);
	struct strbuf sb = STRBUF_INIT;
	const char *p = text;
	regmatch_t m;
	while (regexec(&re, p, 1, &m, 0) == 0) {
		strbuf_append(&sb, p, (size_t)m.rm_so);
		strbuf_puts(&sb, "T");
		p += m.rm_eo;
	}
	strbuf_puts(&sb, p);
	regfree(&re);
	char *s = strbuf_detach(&sb);
	char *w = s;
	for (const char *r = s; *r; r++)
		if (!(*r == ' ' && w > s && w[-1] == ' '))
			*w++ = *r;
	*w = '\0';
	return s;
}

/* "BOARD/TEST status regressed" per result of RUN's results.json, in order. */
static char *results_line(const char *run, int *exit_code)
{
	json_t *j = ts_json_load_in(run, "results.json");
	assert_non_null(j);
	*exit_code = (int)json_integer_value(json_object_get(j, "exit_code"));
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(j, "results"), i, r)
		strbuf_printf(&sb, "%s/%s %s%s\n", ts_json_str(r, "board"), ts_json_str(r, "test"),
			      ts_json_str(r, "status"),
			      json_is_true(json_object_get(r, "regressed")) ? " regressed" : "");
	json_decref(j);
	return strbuf_detach(&sb);
}

/* text with every "NAME " (the run's name, its folder's) as "RUN ". Caller frees. */
static char *no_name(char *text, const char *run_dir)
{
	const char *slash = strrchr(run_dir, '/');
	char *word = xasprintf("%s ", slash ? slash + 1 : run_dir);
	struct strbuf sb = STRBUF_INIT;
	const char *p = text, *hit;
	while ((hit = strstr(p, word))) {
		strbuf_append(&sb, p, (size_t)(hit - p));
		strbuf_puts(&sb, "RUN ");
		p = hit + strlen(word);
	}
	strbuf_puts(&sb, p);
	TS_FREE(word, text);
	return strbuf_detach(&sb);
}

/* The same results in the same order, exit code and summary (but for the
 * durations and the run's own name, "merged" or its run id). */
static void assert_same_run(const char *want_dir, const char *got_dir)
{
	int want_code, got_code;
	char *want = results_line(want_dir, &want_code);
	char *got = results_line(got_dir, &got_code);
	assert_string_equal(got, want);
	assert_int_equal(got_code, want_code);
	char *ws = ts_read_in(want_dir, "summary.txt"), *gs = ts_read_in(got_dir, "summary.txt");
	char *wn = no_name(no_times(ws), want_dir), *gn = no_name(no_times(gs), got_dir);
	assert_string_equal(gn, wn);
	TS_FREE(want, got, ws, gs, wn, gn);
}

/* a baseline, then the run judged against it: alpha regressed, mid failed */
static char *night_against_baseline(char **base)
{
	set_rates(100);
	assert_int_equal(run_night("", base), 1);   /* mid fails there too */
	set_rates(80);
	char *opts = xasprintf("--baseline '%s' --judge-single", *base);
	char *whole = NULL;
	assert_int_equal(run_night(opts, &whole), 1);
	free(opts);
	int code;
	char *lines = results_line(whole, &code);
	assert_string_equal(lines, "zeta/speed pass\nzeta/check pass\n"
			    "alpha/speed fail regressed\nalpha/check pass\n"
			    "mid/speed pass\nmid/check fail\n"
			    "beta/speed pass\nbeta/check pass\n");
	free(lines);
	return whole;
}

static void test_merge_is_the_unsharded_run(void **state)
{
	char *base = NULL, *s1 = NULL, *s2 = NULL;
	char *whole = night_against_baseline(&base);
	char *opts1 = xasprintf("--baseline '%s' --judge-single --shard 1/2", base);
	char *opts2 = xasprintf("--baseline '%s' --judge-single --shard 2/2", base);
	assert_int_equal(run_night(opts1, &s1), 1);   /* alpha, mid */
	assert_int_equal(run_night(opts2, &s2), 0);   /* beta, zeta */
	char *out = NULL;
	int code = ts_run(&out, "cd '%s' && NO_COLOR=1 %s merge merged '%s' '%s' 2>&1", dir,
			  ORCH_BIN, s1, s2);
	assert_int_equal(code, 1);
	char *merged = xasprintf("%s/merged", dir);
	assert_same_run(whole, merged);
	/* what it printed is the summary it wrote */
	char *summary = ts_read_in(merged, "summary.txt");
	assert_non_null(strstr(out, summary));
	TS_FREE(summary, out, merged, opts1, opts2, s1, s2, whole, base);
}

static void test_report_keeps_the_run(void **state)
{
	char *base = NULL;
	char *whole = night_against_baseline(&base);
	char *before = ts_read_in(whole, "summary.txt");
	int code_before;
	char *lines_before = results_line(whole, &code_before);
	char *out = NULL;
	assert_int_equal(ts_run(&out, "NO_COLOR=1 %s report '%s' 2>&1", ORCH_BIN, whole), 0);
	char *after = ts_read_in(whole, "summary.txt");
	assert_string_equal(after, before);
	int code_after;
	char *lines_after = results_line(whole, &code_after);
	assert_string_equal(lines_after, lines_before);
	assert_int_equal(code_after, 1);
	assert_non_null(strstr(out, after));
	json_t *j = ts_json_load_in(whole, "results.json");
	assert_string_equal(ts_json_str(j, "baseline"), base);
	json_decref(j);

	/* killed before its end: the journal alone, rebuilt in the run's order */
	char *copy = xasprintf("%s/killed", dir);
	assert_int_equal(ts_run(NULL, "mkdir '%s' && grep -v orch_journal_end '%s/journal.jsonl' "
				">'%s/journal.jsonl' && cp '%s/run.json' '%s/'", copy, whole, copy,
				whole, copy), 0);
	free(out);
	assert_int_equal(ts_run(&out, "%s report '%s' 2>&1", ORCH_BIN, copy), 0);
	int code_killed;
	char *lines_killed = results_line(copy, &code_killed);
	/* the journal holds each result as it finished, before any verdict */
	assert_string_equal(lines_killed, "zeta/speed pass\nzeta/check pass\n"
			    "alpha/speed pass\nalpha/check pass\n"
			    "mid/speed pass\nmid/check fail\n"
			    "beta/speed pass\nbeta/check pass\n");
	assert_int_equal(code_killed, 130);   /* it did not end */
	TS_FREE(lines_killed, copy, out, before, after, lines_before, lines_after, whole, base);
}

int main(void)
{
	return TS_RUN_EACH(setup, teardown, test_merge_is_the_unsharded_run,
		   test_report_keeps_the_run);
}
