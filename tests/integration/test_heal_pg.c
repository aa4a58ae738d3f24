/*
 * Board health shared through PostgreSQL (--db): a board whose health check
 * fails on one controller is offline for another one (another lock folder,
 * the same database), which skips it without running anything on it;
 * orch boards --db and orch who --db show it; orch boards --online --db
 * brings it back for both. A real server of tests/lab/pg-lab.sh on
 * 127.0.207.1:55070; the board is local (commands run here, each writes a
 * line to a trace file, so "not contacted" is an empty trace).
 */
#include "pg.h"
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PG_HOST "127.0.207.1"
#define PG_PORT 55070

static struct pg *pg;
static char *tmp;

static int group_setup(void **state)
{
	pg = pg_up(PG_HOST, PG_PORT, "orch");
	if (!pg)
		return -1;
	tmp = ts_mkdtemp("healpg");
	return 0;
}

static int group_teardown(void **state)
{
	pg_down(pg);
	return ts_rmrf_free(&tmp);
}

/* orch ARGS with controller c's own lock folder; exit status, output in *out. */
static int orch_as(int c, char **out, const char *args)
{
	return ts_run(out, "ORCH_LOCK_DIR=%s/locks%d %s %s 2>&1", tmp, c, ORCH_BIN, args);
}

static void test_offline_is_shared_through_the_database(void **state)
{
	for (int c = 1; c <= 2; c++) {
		char *d = xasprintf("%s/locks%d", tmp, c);
		mkdir(d, 0700);
		free(d);
	}
	char *trace = xasprintf("%s/trace", tmp);
	char *ok = xasprintf("%s/healthy", tmp);
	char *inv = xasprintf("boards:\n"
			      "  loc:\n"
			      "    local: true\n"
			      "    health:\n"
			      "      name: marker\n"
			      "      run: \"echo health >> %s; test -e %s\"\n", trace, ok);
	free(ts_write_file(tmp, "rack.yaml", inv));
	char *scen = xasprintf("name: hpg\ninventory: rack.yaml\ntests:\n"
			       "  - name: t\n    run: \"echo test >> %s\"\n", trace);
	char *sc = ts_write_file(tmp, "hpg.yaml", scen);
	char *args = xasprintf("run %s -o %s/runs --db %s --no-history", sc, tmp, pg->url);
	char *out = NULL;

	/* controller 1: the check fails, the board goes offline in the database */
	int rc = orch_as(1, &out, args);
	if (rc != 3)
		fail_msg("controller 1: exit %d, want 3:\n%s", rc, out ? out : "");
	char *t = ts_read_file(trace);
	assert_string_equal(t, "health\n");
	TS_FREE(t, out);
	out = NULL;

	/* controller 2 (its own lock folder) sees it offline: nothing runs */
	ts_run(NULL, "rm -f %s; touch %s", trace, ok);
	rc = orch_as(2, &out, args);
	if (rc != 3)
		fail_msg("controller 2: exit %d, want 3:\n%s", rc, out ? out : "");
	assert_false(ts_file_exists(trace));
	char *rd = xasprintf("%s/runs/hpg/latest", tmp);
	json_t *res = ts_json_load_in(rd, "results.json");
	const json_t *r = json_array_get(json_object_get(res, "results"), 0);
	const char *msg = json_string_value(json_object_get(r, "message"));
	if (!msg || !strstr(msg, "board offline (health check 'marker' failed"))
		fail_msg("message: %s", msg ? msg : "(none)");
	json_decref(res);
	TS_FREE(rd, out);
	out = NULL;

	/* without the database, controller 2's lock folder knows nothing */
	char *a = xasprintf("boards -i %s/rack.yaml", tmp);
	orch_as(2, &out, a);
	TS_ASSERT_HAS(out, "online");
	TS_ASSERT_LACKS(out, "offline");
	free(out);
	out = NULL;
	free(a);
	a = xasprintf("boards -i %s/rack.yaml --db %s", tmp, pg->url);
	orch_as(2, &out, a);
	if (!strstr(out, "offline since 20"))
		fail_msg("orch boards --db:\n%s", out);
	free(out);
	out = NULL;
	free(a);
	a = xasprintf("who --db %s", pg->url);
	orch_as(2, &out, a);
	if (!strstr(out, "loc\toffline\t") || !strstr(out, "\tdb\t"))
		fail_msg("orch who --db:\n%s", out);
	free(out);
	out = NULL;
	free(a);

	/* back online from controller 2: controller 1 runs it again */
	a = xasprintf("boards --online loc --db %s", pg->url);
	rc = orch_as(2, &out, a);
	assert_int_equal(rc, 0);
	free(out);
	out = NULL;
	free(a);
	rc = orch_as(1, &out, args);
	if (rc != 0)
		fail_msg("after --online: exit %d, want 0:\n%s", rc, out ? out : "");
	t = ts_read_file(trace);
	assert_string_equal(t, "health\ntest\n");
	TS_FREE(t, out, args, sc, scen, inv, ok, trace);
}

TS_MAIN(group_setup, group_teardown, test_offline_is_shared_through_the_database)
