/*
 * Fuzz target for results.json reading (orch compare, report and merge read
 * run folders people hand them): any bytes that parse as JSON must give a
 * run result or an error, never a crash or a leak. What loads is written
 * back out and read again, and every test result in it is also read alone,
 * as <board>/<test>/result.json is.
 */
#include "result/result_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_result run;
	char err[256];

	if (size > 256 * 1024)
		return 0;
	json_t *obj = json_loadb((const char *)data, size, 0, NULL);
	if (!obj)
		return 0;
	memset(&run, 0, sizeof(run));
	if (run_result_from_json(obj, &run, err, sizeof(err)) == 0) {
		json_t *back = run_result_to_json(&run);
		char *text = result_json_dump(back);
		free(text);
		struct run_result again;
		memset(&again, 0, sizeof(again));
		(void)run_result_from_json(back, &again, err, sizeof(err));
		run_result_release(&again);
		json_decref(back);
	}
	run_result_release(&run);

	struct test_result alone;
	memset(&alone, 0, sizeof(alone));
	(void)test_result_from_json(obj, &alone, err, sizeof(err));
	test_result_release(&alone);

	json_t *results = json_object_get(obj, "results");
	size_t i;
	json_t *one;
	json_array_foreach(results, i, one) {
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		(void)test_result_from_json(one, &tr, err, sizeof(err));
		test_result_release(&tr);
	}
	const char *start = json_string_value(json_object_get(obj, "start"));
	int64_t us;
	if (start)
		(void)result_time_parse(start, &us);
	json_decref(obj);
	return 0;
}
