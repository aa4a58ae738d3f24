/* history_load on PostgreSQL against the window query it replaced (see
 * tests/support/ts_history.h): a real server started by the test
 * (tests/lab/pg-lab.sh). */
#include "pg.h"
#include "testsupport.h"
#include "ts_history.h"
#include "history/history.h"
#include "util/strbuf.h"

#include <stdlib.h>

#define PG_HOST "127.0.185.1"
#define PG_PORT 55485

static struct pg *pg;
static struct db *db;
static char *tmp;

static int setup(void **state)
{
	(void)state;
	char err[512];
	pg = pg_up(PG_HOST, PG_PORT, "orch");
	if (!pg)
		return -1;
	tmp = ts_mkdtemp("history-window-pg");
	if (history_open(&db, pg->url, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	ts_history_fill(db, tmp);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	db_close(db);
	pg_down(pg);
	if (tmp)
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
