#ifndef ORCH_TS_JSON_H
#define ORCH_TS_JSON_H
/*
 * Reading back what orch wrote, for the tests: a run folder's JSON files
 * (results.json, run.json, result.json) and the one result of a board x test
 * in results.json.
 */
#include <jansson.h>

/* The parsed JSON file at PATH, owned by the caller (json_decref); NULL,
 * with the path and parse error on stderr, when it is missing or not JSON. */
json_t *ts_json_load(const char *path);
/* ts_json_load() of DIR/NAME. */
json_t *ts_json_load_in(const char *dir, const char *name);

/* The entry of ROOT's "results" array for BOARD x TEST, borrowed from ROOT;
 * NULL when there is none. */
json_t *ts_json_result(json_t *root, const char *board, const char *test);
/* As ts_json_result(), but a missing result fails the current test. */
json_t *ts_json_result_or_fail(json_t *root, const char *board, const char *test);

/* String member KEY of OBJ (borrowed), or "" when OBJ has no such string. */
const char *ts_json_str(json_t *obj, const char *key);

#endif
