/* history_load on SQLite against the window query it replaced: see
 * tests/support/ts_history.h. A real SQLite file. */
#include "testsupport.h"
#include "ts_history.h"
#include "history/history.h"
#include "util/strbuf.h"

#include <stdlib.h>

static char *tmp;
static struct db *db;

static int setup(void **state)
{
	(void)state;
	char err[512];
	tmp = ts_mkdtemp("history-window");
	char *path = xasprintf("%s/h.sqlite", tmp);
	if (history_open(&db, path, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	free(path);
	ts_history_fill(db, tmp);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	db_close(db);
	ts_rmrf(tmp);
	free(tmp);
	return 0;
}

static void test_same_as_window_query(void **state)
{
	(void)state;
	ts_history_check_window(db, tmp);
}

static void test_keys(void **state)
{
	(void)state;
	ts_history_check_keys(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_window_query),
		cmocka_unit_test(test_keys),
	};
	return ts_run_group(tests, setup, teardown);
}
