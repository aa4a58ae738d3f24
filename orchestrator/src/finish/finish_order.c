/* The order a run folder's run.json gives, for a run read back. */
#include "finish/finish.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

void finish_order_load(const char *run_dir, struct finish_order *ord)
{
	memset(ord, 0, sizeof(*ord));
	char *path = xasprintf("%s/run.json", run_dir);
	ord->json = json_load_file(path, 0, NULL);
	free(path);
	json_t *config = json_object_get(ord->json, "config");
	json_t *boards = json_object_get(json_object_get(config, "inventory"), "boards");
	json_t *tests = json_object_get(json_object_get(config, "scenario"), "tests");
	size_t i;
	json_t *v;
	ord->boards = xcalloc(json_array_size(boards) + 1, sizeof(*ord->boards));
	json_array_foreach(boards, i, v)
		if (json_is_string(json_object_get(v, "name")))
			ord->boards[ord->n_boards++] = json_string_value(json_object_get(v, "name"));
	ord->tests = xcalloc(json_array_size(tests) + 1, sizeof(*ord->tests));
	json_array_foreach(tests, i, v)
		if (json_is_string(json_object_get(v, "name")))
			ord->tests[ord->n_tests++] = json_string_value(json_object_get(v, "name"));
}

void finish_order_apply(const struct finish_order *ord, struct finish_options *o)
{
	if (!ord->n_boards && !ord->n_tests)
		return;
	o->board_order = ord->boards;
	o->n_board_order = ord->n_boards;
	o->test_order = ord->tests;
	o->n_test_order = ord->n_tests;
}

void finish_order_release(struct finish_order *ord)
{
	free(ord->boards);
	free(ord->tests);
	json_decref(ord->json);
	memset(ord, 0, sizeof(*ord));
}
