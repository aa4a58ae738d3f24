#ifndef ORCH_RESULT_RESULT_JSON_H
#define ORCH_RESULT_RESULT_JSON_H
/*
 * results.json and <board>/<test>/result.json: the result model to and from
 * JSON (jansson). The schema is written down in docs/results-json.md; what
 * is written here reads back equal.
 */
#include <jansson.h>

#include "result/result.h"

json_t *test_result_to_json(const struct test_result *tr);
json_t *run_result_to_json(const struct run_result *run);

/* 0, or -1 with the reason in err ("results.json: not a run folder ..."). */
int test_result_from_json(const json_t *obj, struct test_result *tr, char *err, size_t errlen);
int run_result_from_json(const json_t *obj, struct run_result *run, char *err, size_t errlen);
/* Reads RUN_DIR/results.json. */
int run_result_load(const char *run_dir, struct run_result *run, char *err, size_t errlen);

#endif
