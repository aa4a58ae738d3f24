/* results.json: schema, exact round trip, times, readable errors. */
#include "testsupport.h"
#include "result/result_json.h"
#include "sample_run.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void assert_str_eq_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_test_equal(const struct test_result *a, const struct test_result *b)
{
	assert_string_equal(a->board, b->board);
	assert_string_equal(a->test, b->test);
	assert_int_equal(a->status, b->status);
	assert_str_eq_null(a->message, b->message);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->start_wall_us, b->start_wall_us);
	assert_int_equal(a->end_wall_us, b->end_wall_us);
	assert_true(a->duration_s == b->duration_s);
	assert_int_equal(a->attempts, b->attempts);
	assert_int_equal(a->n_metrics, b->n_metrics);
	for (size_t i = 0; i < a->n_metrics; i++) {
		const struct metric_result *x = &a->metrics[i], *y = &b->metrics[i];
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->unit, y->unit);
		assert_int_equal(x->higher_is_better, y->higher_is_better);
		assert_int_equal(x->n_samples, y->n_samples);
		for (size_t k = 0; k < x->n_samples; k++)
			assert_true(x->samples[k] == y->samples[k]);
		assert_true(x->median == y->median);
		assert_true(x->min == y->min);
		assert_true(x->max == y->max);
		assert_true(x->mean == y->mean);
		assert_true(x->stddev == y->stddev);
	}
	assert_int_equal(a->n_phases, b->n_phases);
	for (size_t i = 0; i < a->n_phases; i++) {
		const struct phase_result *x = &a->phases[i], *y = &b->phases[i];
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->reached, y->reached);
		assert_true(x->offset_s == y->offset_s);
		assert_true(x->duration_s == y->duration_s);
		assert_true(x->max_s == y->max_s);
		assert_int_equal(x->over_budget, y->over_budget);
		assert_str_eq_null(x->line, y->line);
	}
	assert_str_eq_null(a->last_line, b->last_line);
	assert_str_eq_null(a->log_dir, b->log_dir);
	assert_int_equal(a->regressed, b->regressed);
	assert_str_eq_null(a->comparison, b->comparison);
}

static void test_round_trip(void **state)
{
	struct run_result run = { 0 }, back = { 0 };
	sample_run_fill(&run);
	run.interrupted = true;
	run.end_wall_us += 123457;   /* a fraction of a second survives */
	json_t *j = run_result_to_json(&run);
	char *text = result_json_dump(j);
	json_decref(j);

	json_error_t jerr;
	json_t *parsed = json_loads(text, 0, &jerr);
	assert_non_null(parsed);
	char err[256] = "";
	assert_int_equal(run_result_from_json(parsed, &back, err, sizeof(err)), 0);
	json_decref(parsed);

	/* the change against the baseline survives (docs/results-json.md) */
	assert_int_equal(back.results[1].metrics[0].change, METRIC_CHANGE_REGRESSION);
	assert_true(back.results[1].metrics[0].change_pct == -12.0);
	assert_int_equal(back.results[0].n_metrics, 0);
	assert_string_equal(back.scenario, run.scenario);
	assert_string_equal(back.run_id, run.run_id);
	assert_string_equal(back.orch_version, run.orch_version);
	assert_string_equal(back.host, run.host);
	assert_string_equal(back.baseline, run.baseline);
	assert_int_equal(back.start_wall_us, run.start_wall_us);
	assert_int_equal(back.end_wall_us, run.end_wall_us);
	assert_int_equal(back.exit_code, run.exit_code);
	assert_true(back.interrupted);
	assert_int_equal(back.n_results, run.n_results);
	for (size_t i = 0; i < run.n_results; i++)
		assert_test_equal(&run.results[i], &back.results[i]);

	/* and the text is a fixed point */
	j = run_result_to_json(&back);
	char *again = result_json_dump(j);
	json_decref(j);
	assert_string_equal(text, again);
	TS_FREE(again, text);
	run_result_release(&back);
	run_result_release(&run);
}

/* The verdict's evidence and the run's baseline kind and name survive the
 * file (docs/results-json.md, "The verdict's evidence"), and so does a
 * metric's own threshold. */
static void test_verdict_round_trip(void **state)
{
	struct run_result run = { 0 }, back = { 0 };
	sample_run_fill(&run);
	run.baseline_kind = BASELINE_HISTORY;
	run.baseline_name = xstrdup("last 10 runs");
	struct metric_result *m = &run.results[1].metrics[0];
	metric_verdict_init(&m->verdict);
	m->verdict.baseline = 29.1;
	m->verdict.threshold_pct = 7.5;
	m->verdict.p = 0.0012;
	m->verdict.method = xstrdup("welch");
	m->verdict.n_baseline = 12;
	m->verdict.ack_run = xstrdup("20261201-165000");
	m->verdict.ack_note = xstrdup("kernel 6.6 is 5% slower by design");
	m->has_threshold = true;
	m->threshold_pct = 7.5;
	struct metric_result *u = &run.results[1].metrics[1];
	u->change = METRIC_CHANGE_NOT_JUDGED;
	u->change_pct = 3.0;
	metric_verdict_init(&u->verdict);
	u->verdict.reason = xstrdup("2 earlier runs, needs 3");

	json_t *j = run_result_to_json(&run);
	char *text = result_json_dump(j);
	char err[256] = "";
	assert_int_equal(run_result_from_json(j, &back, err, sizeof(err)), 0);
	json_decref(j);
	assert_int_equal(back.baseline_kind, BASELINE_HISTORY);
	assert_string_equal(back.baseline_name, "last 10 runs");
	const struct metric_result *x = &back.results[1].metrics[0], *y = &back.results[1].metrics[1];
	assert_true(x->verdict.baseline == 29.1);
	assert_true(x->verdict.threshold_pct == 7.5);
	assert_true(x->verdict.p == 0.0012);
	assert_string_equal(x->verdict.method, "welch");
	assert_null(x->verdict.reason);
	assert_int_equal(x->verdict.n_baseline, 12);
	assert_string_equal(x->verdict.ack_run, "20261201-165000");
	assert_string_equal(x->verdict.ack_note, "kernel 6.6 is 5% slower by design");
	assert_true(x->has_threshold && x->threshold_pct == 7.5);
	assert_int_equal(y->change, METRIC_CHANGE_NOT_JUDGED);
	assert_true(y->change_pct == 3.0);
	assert_string_equal(y->verdict.reason, "2 earlier runs, needs 3");
	assert_true(isnan(y->verdict.baseline) && isnan(y->verdict.p));
	assert_null(y->verdict.method);
	assert_false(y->has_threshold);

	/* a copy carries it too (merge and the store copy results) */
	struct test_result copy;
	test_result_copy(&copy, &back.results[1]);
	assert_string_equal(copy.metrics[0].verdict.ack_note, x->verdict.ack_note);
	test_result_release(&copy);

	/* a fixed point */
	j = run_result_to_json(&back);
	char *again = result_json_dump(j);
	json_decref(j);
	assert_string_equal(text, again);
	TS_FREE(again, text);
	run_result_release(&back);
	run_result_release(&run);

	/* an older file with a baseline folder and no kind: judged against a run */
	json_t *old = json_pack("{s:s, s:[]}", "baseline", "runs/n/20261201-165000", "results");
	assert_int_equal(run_result_from_json(old, &back, err, sizeof(err)), 0);
	assert_int_equal(back.baseline_kind, BASELINE_RUN);
	run_result_release(&back);
	json_decref(old);
	old = json_pack("{s:s, s:[]}", "baseline_kind", "yesterday", "results");
	assert_int_equal(run_result_from_json(old, &back, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "baseline_kind");
	json_decref(old);
}

static void test_arbitrary_doubles(void **state)
{
	/* values that never were decimal text: within 1e-15, and the text is a fixed point */
	struct test_result tr = { 0 }, back;
	tr.board = xstrdup("b");
	tr.test = xstrdup("t");
	tr.duration_s = 1.0 / 3;
	for (int i = 1; i <= 7; i++)
		test_result_add_sample(&tr, "x", "s", false, 1e6 / (i * 7.0));
	json_t *j = test_result_to_json(&tr);
	char *text = result_json_dump(j);
	char err[256];
	assert_int_equal(test_result_from_json(j, &back, err, sizeof(err)), 0);
	json_decref(j);
	assert_float_equal(back.duration_s, tr.duration_s, 1e-15);
	for (size_t k = 0; k < 7; k++)
		assert_float_equal(back.metrics[0].samples[k] / tr.metrics[0].samples[k], 1, 1e-14);
	assert_float_equal(back.metrics[0].stddev / tr.metrics[0].stddev, 1, 1e-12);
	j = test_result_to_json(&back);
	char *again = result_json_dump(j);
	json_decref(j);
	assert_string_equal(text, again);
	TS_FREE(text, again);
	test_result_release(&tr);
	test_result_release(&back);
}

static void test_schema_shape(void **state)
{
	struct run_result run = { 0 };
	sample_run_fill(&run);
	json_t *j = run_result_to_json(&run);
	assert_string_equal(json_string_value(json_object_get(j, "start")), "2026-12-02T16:50:00Z");
	assert_true(json_is_null(json_object_get(j, "end")) == false);
	json_t *results = json_object_get(j, "results");
	assert_int_equal(json_array_size(results), run.n_results);
	json_t *mem = json_array_get(results, 1);
	assert_string_equal(json_string_value(json_object_get(mem, "test")), "memory");
	json_t *m = json_object_get(json_object_get(mem, "metrics"), "mem.memcpy");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "MiB/s");
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 5);
	assert_true(json_real_value(json_object_get(m, "value")) ==
		    json_real_value(json_object_get(m, "median")));
	const char *keys[] = { "board", "test", "status", "message", "exit_code", "start", "end",
			       "duration_s", "attempts", "metrics", "phases", "last_line",
			       "log_dir", "regressed", "comparison" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(json_object_get(mem, keys[i]));
	/* the skipped test never started: null times */
	json_t *skip = json_array_get(results, run.n_results - 1);
	assert_true(json_is_null(json_object_get(skip, "start")));
	/* readable reals */
	char *text = result_json_dump(j);
	TS_ASSERT_LACKS(text, "0000000", "9999999");
	TS_ASSERT_HAS(text, "\"value\": 25.65");
	free(text);
	json_decref(j);
	run_result_release(&run);
}

static void test_times(void **state)
{
	int64_t us;
	char *s = result_time_iso(1796230200123456LL);
	assert_string_equal(s, "2026-12-02T16:50:00.123456Z");
	assert_int_equal(result_time_parse(s, &us), 0);
	assert_int_equal(us, 1796230200123456LL);
	free(s);
	assert_int_equal(result_time_parse("2026-12-02T17:50:00.5+01:00", &us), 0);
	assert_int_equal(us, 1796230200500000LL);
	assert_int_equal(result_time_parse("1970-01-01T00:00:00Z", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(result_time_parse("2000-02-29T12:00:00Z", &us), 0);
	assert_int_equal(us, 951825600000000LL);
	assert_int_equal(result_time_parse("2026-12-02 16:50:00Z", &us), -1);
	assert_int_equal(result_time_parse("2026-12-02T16:50:00", &us), -1);
	assert_int_equal(result_time_parse("2026-13-02T16:50:00Z", &us), -1);
	assert_int_equal(result_time_parse("2026-12-02T16:50:00Zjunk", &us), -1);
	/* a short or bad offset is refused, not read past the end of the string */
	s = xstrdup("2026-12-02T16:50:00+1:0");   /* on the heap, where ASan sees an overrun */
	assert_int_equal(result_time_parse(s, &us), -1);
	free(s);
	assert_int_equal(result_time_parse("2026-12-02T16:50:00+01:0", &us), -1);
	assert_int_equal(result_time_parse("2026-12-02T16:50:00+-1:00", &us), -1);
	assert_int_equal(result_time_parse("2026-12-02T16:50:00+01:60", &us), -1);
}

static void test_bad_json(void **state)
{
	struct { const char *json; const char *err; } cases[] = {
		{ "[]", "top" },
		{ "{\"scenario\":\"x\"}", "results: missing" },
		{ "{\"results\":[{\"test\":\"t\",\"status\":\"pass\"}]}", "results[0].board: missing" },
		{ "{\"results\":[{\"board\":\"b\",\"test\":\"t\",\"status\":\"ok\"}]}",
		  "results[0].status: expected pass, fail, error or skip" },
		{ "{\"results\":[{\"board\":\"b\",\"test\":\"t\",\"status\":\"pass\",\"start\":\"yesterday\"}]}",
		  "results[0].start: expected an ISO 8601 time" },
		{ "{\"results\":[{\"board\":\"b\",\"test\":\"t\",\"status\":\"pass\","
		  "\"metrics\":{\"m\":{\"samples\":[1,\"x\"]}}}]}",
		  "results[0].metrics.m: samples: expected numbers" },
		{ "{\"results\":[{\"board\":\"b\",\"test\":\"t\",\"status\":\"pass\","
		  "\"phases\":[{\"name\":\"k\"},{\"reached\":true}]}]}",
		  "results[0].phases[1].name: missing" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);
		assert_non_null(j);
		struct run_result run;
		char err[256] = "";
		assert_int_equal(run_result_from_json(j, &run, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].err))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err, cases[i].err);
		assert_int_equal(run.n_results, 0);
		json_decref(j);
	}
}

static void test_minimal_and_foreign(void **state)
{
	/* an older or hand-written file: only required members, stats without samples */
	const char *text = "{\"results\":[{\"board\":\"b\",\"test\":\"t\",\"status\":\"fail\","
			   "\"metrics\":{\"x\":{\"value\":4.5,\"unit\":\"s\",\"better\":\"lower\"}}}]}";
	json_t *j = json_loads(text, 0, NULL);
	struct run_result run;
	char err[256] = "";
	assert_int_equal(run_result_from_json(j, &run, err, sizeof(err)), 0);
	json_decref(j);
	assert_int_equal(run.n_results, 1);
	assert_int_equal(run.results[0].exit_code, -1);
	assert_int_equal(run.results[0].status, STATUS_FAIL);
	assert_float_equal(run.results[0].metrics[0].median, 4.5, 0);
	assert_false(run.results[0].metrics[0].higher_is_better);
	run_result_release(&run);
}

static void test_load(void **state)
{
	char *dir = ts_mkdtemp("result-load");
	struct run_result run;
	char err[512];
	char *missing = xasprintf("%s/nope", dir);
	assert_int_equal(run_result_load(missing, &run, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "No such file");
	free(missing);

	assert_int_equal(run_result_load(dir, &run, err, sizeof(err)), -1);
	char *want = xasprintf("%s: no results.json: not a run folder", dir);
	assert_string_equal(err, want);
	free(want);

	free(ts_write_file(dir, "results.json", "{\"results\": [\n  {\"board\": 1}\n"));
	assert_int_equal(run_result_load(dir, &run, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "results.json:");

	struct run_result sample = { 0 };
	sample_run_fill(&sample);
	json_t *j = run_result_to_json(&sample);
	char *text = result_json_dump(j);
	json_decref(j);
	free(ts_write_file(dir, "results.json", text));
	free(text);
	assert_int_equal(run_result_load(dir, &run, err, sizeof(err)), 0);
	assert_int_equal(run.n_results, sample.n_results);
	assert_string_equal(run.results[3].test, "boot");
	assert_int_equal(run.results[3].n_phases, 4);
	run_result_release(&run);
	run_result_release(&sample);
	ts_rmrf_free(&dir);
}

/* A trend written as text is what jansson writes of its tree: strings
 * with every control byte, quotes, backslashes, UTF-8 and bytes that are
 * not UTF-8; NULL labels; reals of every shape (integers, exponents both
 * ways, tiny, huge, negative zero, not finite); no points at all. */
static void test_trend_text(void **state)
{
	char ctl[40];
	for (int i = 0; i < 31; i++)
		ctl[i] = (char)(i + 1);
	ctl[31] = 0x7f;
	ctl[32] = '\0';
	const char *names[] = { "hr1", "", "a\"b\\c/d", ctl, "caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80",
				"bad \xff\xfe \xc0\x80 \xed\xa0\x80 end", "\xc3", NULL };
	const double values[] = { 0, -0.0, 1, -1, 1.5, 100, 1e15, 1e16, 1e17, 1e20, 1e-5, 1e-300,
				  123456789.123456789, -2.5e-7, 1.0 / 3, 4.9e-324, 1.7976931348623157e308,
				  NAN, INFINITY, -INFINITY, 0.1, 2e-10, 99999999999999.9 };
	size_t nn = sizeof(names) / sizeof(*names), nv = sizeof(values) / sizeof(*values);
	for (size_t i = 0; i < nn; i++) {
		struct run_result run = { 0 };
		const char *b = names[i] ? names[i] : "b", *t = names[(i + 1) % nn] ? names[(i + 1) % nn] : "t";
		struct metric_trend *mt = run_result_add_trend(&run, b, t, names[(i + 2) % (nn - 1)]);
		for (size_t k = 0; k < (i == 3 ? 0 : nv); k++)
			metric_trend_add_point(mt, names[(i + k) % (nn - 1)], names[(i * 3 + k) % nn],
					       values[(i + k) % nv], k % 7 == 2);
		json_t *j = metric_trend_to_json(mt);
		char *want = json_dumps(j, RESULT_JSON_FLAGS);
		json_decref(j);
		struct strbuf got = STRBUF_INIT;
		strbuf_puts(&got, "x");
		metric_trend_json_text(mt, &got);
		assert_non_null(want);
		assert_string_equal(strbuf_str(&got) + 1, want);
		free(want);
		strbuf_release(&got);
		run_result_release(&run);
	}
}

/* The tries of a retried test, flaky, a skip because the board was
 * offline, a rerun's origin and the run's offline boards read back as
 * they were written. */
static void test_heal_round_trip(void **state)
{
	struct run_result run = { 0 };
	run.scenario = xstrdup("nightly");
	run.rerun_of = xstrdup("/runs/nightly/20261203-010000");
	run.rerun_only = xstrdup("failed");
	run_result_add_offline(&run, "rb2", "health check 'alive' failed: exit 1",
			       1764810000000000LL);
	struct test_result *tr = run_result_add(&run, "rb1", "ping");
	tr->status = STATUS_PASS;
	tr->flaky = true;
	test_result_add_infra_attempt(tr, STATUS_ERROR, "connect: Connection refused",
				      1764810000000000LL, 0.25, false, "rb1/ping/attempt-1");
	test_result_add_infra_attempt(tr, STATUS_PASS, NULL, 1764810005000000LL, 1.5, true,
				      NULL);
	tr = run_result_add(&run, "rb2", "ping");
	tr->status = STATUS_SKIP;
	tr->board_offline = true;
	test_result_set_message(tr, "board offline (health check 'alive' failed: exit 1)");

	json_t *j = run_result_to_json(&run);
	struct run_result back;
	char err[512];
	assert_int_equal(run_result_from_json(j, &back, err, sizeof(err)), 0);
	json_decref(j);
	assert_string_equal(back.rerun_of, run.rerun_of);
	assert_string_equal(back.rerun_only, "failed");
	assert_int_equal(back.n_offline, 1);
	assert_string_equal(back.offline[0].board, "rb2");
	assert_string_equal(back.offline[0].reason, run.offline[0].reason);
	assert_int_equal(back.offline[0].since_wall_us, run.offline[0].since_wall_us);
	const struct test_result *a = &back.results[0];
	assert_true(a->flaky);
	assert_int_equal(a->n_infra_attempts, 2);
	assert_int_equal(a->infra_attempts[0].status, STATUS_ERROR);
	assert_string_equal(a->infra_attempts[0].message, "connect: Connection refused");
	assert_string_equal(a->infra_attempts[0].log_dir, "rb1/ping/attempt-1");
	assert_true(a->infra_attempts[0].duration_s == 0.25);
	assert_false(a->infra_attempts[0].power_cycled);
	assert_int_equal(a->infra_attempts[1].status, STATUS_PASS);
	assert_null(a->infra_attempts[1].message);
	assert_true(a->infra_attempts[1].power_cycled);
	assert_int_equal(a->infra_attempts[1].start_wall_us, 1764810005000000LL);
	assert_true(back.results[1].board_offline);
	assert_false(back.results[1].flaky);
	assert_int_equal(back.results[1].n_infra_attempts, 0);
	/* a copy keeps them too */
	struct test_result copy;
	test_result_copy(&copy, a);
	assert_int_equal(copy.n_infra_attempts, 2);
	assert_string_equal(copy.infra_attempts[0].log_dir, "rb1/ping/attempt-1");
	test_result_release(&copy);
	run_result_release(&back);
	run_result_release(&run);
}

TS_MAIN(NULL, NULL, test_round_trip, test_verdict_round_trip, test_arbitrary_doubles,
	test_schema_shape, test_times, test_bad_json, test_minimal_and_foreign, test_load,
	test_trend_text, test_heal_round_trip)
