/* history_load on PostgreSQL against the window query it replaced (see
 * tests/support/ts_history.h): a real server started by the test
 * (tests/lab/pg-lab.sh). */
#include "pg.h"
#include "testsupport.h"
#include "ts_history.h"
#include "util/strbuf.h"

#define PG_HOST "127.0.185.1"
#define PG_PORT 55485

static struct pg *pg;

static char *start_server(const char *dir)
{
	(void)dir;
	pg = pg_up(PG_HOST, PG_PORT, "orch");
	return pg ? xstrdup(pg->url) : NULL;
}

static void stop_server(void)
{
	pg_down(pg);
}

int main(void)
{
	return ts_history_run_checks(start_server, stop_server);
}
