#ifndef ORCH_TS_HISTORY_H
#define ORCH_TS_HISTORY_H
/*
 * history_load reads only the runs its series need, newest first; what it
 * returns must be what the window query it replaced returned: per board x
 * test x metric the last N points by start time (then by the order runs
 * were indexed), oldest first, the unit and direction of the oldest point
 * kept. These check it against that query, kept here as the reference, on
 * either back end (tests/unit/test_history_window.c: SQLite;
 * tests/integration/test_history_window_pg.c: PostgreSQL).
 */
#include "db/db.h"

/* Indexes into db (an empty history) 40 nights of scenario "s" with gaps
 * (series missing from some runs, a test added late, a board that comes
 * and goes), ties and out-of-order start times, and runs of another
 * scenario in between; their folders are named under dir. */
void ts_history_fill(struct db *db, const char *dir);
/* history_load against the window query for every filter: last, boards,
 * metric, before_run_dir (dir as given to ts_history_fill). */
void ts_history_check_window(struct db *db, const char *dir);
/* The same for named series (history_query.keys), with a key twice, keys
 * never recorded and a scenario that does not exist. */
void ts_history_check_keys(struct db *db);

/* A back end's test file: the two checks above as one cmocka group on the
 * history at the database TARGET returns (an SQLite path or a
 * postgresql:// URL, caller frees; NULL when it cannot, a failure), called
 * in the group setup with the scratch folder the runs are named under,
 * and filled by ts_history_fill. STOP, when not NULL, is called at
 * teardown once the history is closed. Returns the file's exit status. */
int ts_history_run_checks(char *(*target)(const char *dir), void (*stop)(void));

#endif
