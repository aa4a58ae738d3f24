#ifndef ORCH_RESULT_RESULT_JSON_H
#define ORCH_RESULT_RESULT_JSON_H
/*
 * results.json and <board>/<test>/result.json: the result model to and from
 * JSON (jansson). The schema is written down in docs/results-json.md; what
 * is written here reads back equal.
 */
#include <jansson.h>

#include "result/result.h"

struct strbuf;

json_t *test_result_to_json(const struct test_result *tr);
json_t *run_result_to_json(const struct run_result *run);
/* One element of results.json's "trends" (store writes them one at a time). */
json_t *metric_trend_to_json(const struct metric_trend *t);
/* The same element as text, byte for byte what json_dumps() with
 * RESULT_JSON_FLAGS makes of metric_trend_to_json(t), appended to out
 * without building the tree (a run of 2560 metrics has 25600 points). */
void metric_trend_json_text(const struct metric_trend *t, struct strbuf *out);

/* 0, or -1 with the reason in err ("results.json: not a run folder ..."). */
/* A metric's verdict evidence ("verdict" of a metric) and the run's
 * baseline_kind / baseline_name members (result/verdict_json.c). */
json_t *metric_verdict_to_json(const struct metric_verdict *v);
int metric_verdict_from_json(const json_t *o, struct metric_verdict *v, char *err, size_t errlen);
void run_baseline_to_json(const struct run_result *run, json_t *o);
int run_baseline_from_json(const json_t *o, struct run_result *run, char *err, size_t errlen);

int test_result_from_json(const json_t *obj, struct test_result *tr, char *err, size_t errlen);
int run_result_from_json(const json_t *obj, struct run_result *run, char *err, size_t errlen);
/* Reads RUN_DIR/results.json into run (caller releases it); on error run is
 * empty and err says why ("RUN: no results.json: not a run folder"). */
int run_result_load(const char *run_dir, struct run_result *run, char *err, size_t errlen);

/* How results.json and result.json are printed: indented, reals with 15
 * significant digits, so any number that came from decimal text (a bench's
 * output, a parsed duration) reads back bit for bit and arithmetic noise
 * (106.91999999999999) prints short. Metric statistics, which readers
 * recompute from the samples, are rounded to 8 significant digits. */
#define RESULT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15))
/* j printed with RESULT_JSON_FLAGS plus a final newline (caller frees), or NULL. */
char *result_json_dump(const json_t *j);

/* Wall-clock microseconds as ISO 8601 UTC, "2026-12-02T16:50:00Z", with a
 * ".123456" fraction when not whole seconds (caller frees). */
char *result_time_iso(int64_t wall_us);
/* The inverse; also accepts "+HH:MM"/"-HH:MM" offsets. 0, or -1 if malformed. */
int result_time_parse(const char *s, int64_t *wall_us);

#endif
