#include "ts_config.h"
#include "testsupport.h"

#include <string.h>

struct inventory *ts_inventory_ok(const char *path, const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	if (inventory_load_buffer(path, text, strlen(text), &inv, &dl) != 0) {
		diag_print(&dl, stderr);
		fail_msg("inventory did not load");
	}
	diag_list_release(&dl);
	return inv;
}

struct diag_list ts_inventory_bad(const char *path, const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	assert_int_equal(inventory_load_buffer(path, text, strlen(text), &inv, &dl), -1);
	assert_null(inv);
	return dl;
}

struct scenario *ts_scenario_ok(const char *path, const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	if (scenario_load_buffer(path, text, strlen(text), &sc, &dl) != 0) {
		diag_print(&dl, stderr);
		fail_msg("scenario did not load");
	}
	diag_list_release(&dl);
	return sc;
}

void ts_diag_exact(const struct diag_list *dl, int line, int col, const char *msg)
{
	for (size_t i = 0; i < dl->n; i++)
		if (dl->items[i].line == line && dl->items[i].col == col &&
		    strcmp(dl->items[i].message, msg) == 0)
			return;
	diag_print(dl, stderr);
	fail_msg("no diagnostic %d:%d: %s", line, col, msg);
}
