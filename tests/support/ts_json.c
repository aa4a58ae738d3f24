#include "ts_json.h"
#include "testsupport.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

json_t *ts_json_load(const char *path)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	if (!j)
		fprintf(stderr, "%s: %s (line %d)\n", path, jerr.text, jerr.line);
	return j;
}

json_t *ts_json_load_in(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	json_t *j = ts_json_load(path);
	free(path);
	return j;
}

const char *ts_json_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

json_t *ts_json_result(json_t *root, const char *board, const char *test)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(root, "results"), i, r) {
		if (!strcmp(ts_json_str(r, "board"), board) && !strcmp(ts_json_str(r, "test"), test))
			return r;
	}
	return NULL;
}

json_t *ts_json_result_or_fail(json_t *root, const char *board, const char *test)
{
	json_t *r = ts_json_result(root, board, test);
	if (!r)
		fail_msg("no result for %s / %s", board, test);
	return r;
}
