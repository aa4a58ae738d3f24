/* history_load on SQLite against the window query it replaced: see
 * tests/support/ts_history.h. A real SQLite file. */
#include "testsupport.h"
#include "ts_history.h"
#include "util/strbuf.h"

static char *sqlite_file(const char *dir)
{
	return xasprintf("%s/h.sqlite", dir);
}

int main(void)
{
	return ts_history_run_checks(sqlite_file, NULL);
}
