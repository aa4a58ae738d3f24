/* A rack shared through a real PostgreSQL (tests/lab/pg-lab.sh): board
 * locks across controllers (each with a lock folder of its own, as on two
 * hosts), reservations in the database, and joined runs: three controllers
 * over a 24-board rack, one three times slower (the fast ones take more;
 * the merged folder equals a single-controller run board x test x status),
 * and one killed mid-run (its boards run again on the others; nothing lost,
 * nothing run twice to completion). Real orch processes, local boards. */
#include "testsupport.h"
#include "pg.h"
#include "ts_orch.h"

#include "store/store.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG_HOST "127.0.150.1"
#define PG_PORT 55440
#define N_BOARDS 24

static struct pg *pg;

struct fixture {
	char *tmp;
	char *url;        /* a database of this test's own */
	char *scenario;
};

static int group_setup(void **state)
{
	return pg_group_up(&pg, PG_HOST, PG_PORT);
}

static int group_teardown(void **state)
{
	return pg_group_down(&pg);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	f->tmp = ts_mkdtemp("rackpg");
	f->url = pg_createdb_next(pg, "rack");
	struct strbuf sb = STRBUF_INIT;
	ts_local_boards(&sb, "b", 2, N_BOARDS);
	free(ts_write_file(f->tmp, "rack.yaml", strbuf_str(&sb)));
	strbuf_release(&sb);
	/* work: as slow as the controller; check: fails on b07 only */
	f->scenario = ts_write_file(f->tmp, "sc.yaml",
		"name: shared\ninventory: rack.yaml\nboards: [all]\ntests:\n"
		"  - name: work\n    run: sleep {env.DELAY|0}; echo work {board.name}\n"
		"  - name: check\n    run: '[ \"{board.name}\" != b07 ]'\n"
		"  - name: tail\n    run: echo tail\n");
	*state = f;
	return f->url ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ts_rmrf(f->tmp);
	TS_FREE(f->tmp, f->url, f->scenario, f);
	return 0;
}

/* "cd TMP && ORCH_LOCK_DIR=TMP/locks-HOST" */
static char *env(struct fixture *f, const char *host)
{
	return xasprintf("cd %s && ORCH_LOCK_DIR=%s/locks-%s", f->tmp, f->tmp, host);
}

/* Waits up to 60 s for the file name in the scratch folder to hold text. */
static bool wait_tmp_text(struct fixture *f, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", f->tmp, name);
	bool seen = false;
	for (int i = 0; i < 3000 && !seen; i++) {
		char *now = ts_read_file(path);
		seen = now && strstr(now, text);
		free(now);
		if (!seen)
			usleep(20000);
	}
	free(path);
	return seen;
}

static char *read_tmp(struct fixture *f, const char *name)
{
	char *path = xasprintf("%s/%s", f->tmp, name);
	char *text = ts_read_file(path);
	free(path);
	return text;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_board_lock_across_controllers(void **state)
{
	struct fixture *f = *state;
	char *args = xasprintf("run %s -l b01 -q -o runs --db %s", f->scenario, f->url);
	char *e = env(f, "hostA");
	char *cmd = xasprintf("%s DELAY=30 exec %s %s", e, ORCH_BIN, args);
	pid_t holder = ts_spawn(cmd, NULL);
	free(cmd);
	char *out = NULL, *eb = env(f, "hostB");
	for (int i = 0; i < 100 && !(out && strstr(out, "b01\trun\t")); i++) {
		free(out);
		usleep(50 * 1000);
		ts_run(&out, "%s %s who --db %s", eb, ORCH_BIN, f->url);
	}
	TS_ASSERT_HAS(out, "b01\trun\t", "\tdb\t");
	free(out);
	/* another controller (its own lock folder): the database says who */
	int rc = ts_run(&out, "%s %s run %s -l b01 -l b02 -o runs --db %s --wait 0", eb, ORCH_BIN,
			f->scenario, f->url);
	assert_int_equal(rc, 3);
	char who[64];
	snprintf(who, sizeof(who), "pid %ld since", (long)holder);
	TS_ASSERT_HAS(out, "board b01 is held by");
	assert_non_null(strstr(out, who));
	TS_ASSERT_HAS(out, "3 passed, 0 failed, 3 errors");
	free(out);
	/* kill -9: the session ends, the lock goes with it */
	kill(holder, SIGKILL);
	assert_int_equal(ts_wait_exit(holder, 300000), 128 + SIGKILL);
	ts_stop(&holder);
	rc = ts_run(&out, "%s %s run %s -l b01 -o runs --db %s --wait 5s", eb, ORCH_BIN,
		    f->scenario, f->url);
	assert_int_equal(rc, 0);
	free(out);
	/* a reservation in the database blocks the other controller's runs */
	assert_int_equal(ts_run(&out, "%s %s lock b02 --db %s --for 10m --note bisecting", e,
				ORCH_BIN, f->url), 0);
	free(out);
	ts_run(&out, "%s %s who --db %s", eb, ORCH_BIN, f->url);
	TS_ASSERT_HAS(out, "b02\treservation\t", "bisecting");
	free(out);
	rc = ts_run(&out, "%s %s run %s -l b02 -o runs --db %s", eb, ORCH_BIN, f->scenario, f->url);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "reserved since");
	free(out);
	assert_int_equal(ts_run(&out, "%s %s unlock b02 --db %s", e, ORCH_BIN, f->url), 0);
	free(out);
	rc = ts_run(&out, "%s %s run %s -l b02 -o runs --db %s", eb, ORCH_BIN, f->scenario, f->url);
	assert_int_equal(rc, 0);
	TS_FREE(out, e, eb, args);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* board\ttest\tstatus lines of a results.json, sorted (caller frees). */
static char *result_set(const char *path, int *n_retried, const char *controller, int *n_by)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	json_t *results = json_object_get(root, "results");
	size_t n = json_array_size(results);
	char **lines = calloc(n + 1, sizeof(*lines));
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(results, i);
		lines[i] = xasprintf("%s\t%s\t%s\n", json_string_value(json_object_get(r, "board")),
				     json_string_value(json_object_get(r, "test")),
				     json_string_value(json_object_get(r, "status")));
		if (n_retried && json_is_true(json_object_get(r, "retried")))
			(*n_retried)++;
		const char *by = json_string_value(json_object_get(r, "controller"));
		if (n_by && by && controller && !strcmp(by, controller))
			(*n_by)++;
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_puts(&sb, lines[i]);
		free(lines[i]);
	}
	free(lines);
	json_decref(root);
	return strbuf_detach(&sb);
}

/* How many boards have facts in a results.json ("boards" object). */
static size_t facts_boards(const char *path)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	size_t n = json_object_size(json_object_get(root, "boards"));
	json_decref(root);
	return n;
}

static const char *const names[] = { "fast1", "fast2", "slow" };

/* Starts the three controllers of run NAME; slow is three times slower. */
static void start_joined(struct fixture *f, const char *name, const char *delay_fast,
			 const char *delay_slow, pid_t pids[3])
{
	for (int c = 0; c < 3; c++) {
		char *e = env(f, names[c]);
		char *cmd = xasprintf("%s DELAY=%s exec %s run %s -o runs-%s --db %s --join %s "
				      "--controller %s", e, c == 2 ? delay_slow : delay_fast, ORCH_BIN,
				      f->scenario, names[c], f->url, name, names[c]);
		char *log = xasprintf("%s/%s.log", f->tmp, names[c]);
		pids[c] = ts_spawn(cmd, log);
		TS_FREE(e, cmd, log);
	}
}

/* The merged folder: the only runs dir with a latest link (parts leave it). */
static char *merged_results(struct fixture *f)
{
	char *found = NULL;
	for (int c = 0; c < 3; c++) {
		char *p = xasprintf("%s/runs-%s/shared/latest/results.json", f->tmp, names[c]);
		if (ts_file_exists(p)) {
			assert_null(found);
			found = p;
		} else {
			free(p);
		}
	}
	assert_non_null(found);
	return found;
}

static void test_joined_fast_take_more_and_merge_equals_single(void **state)
{
	struct fixture *f = *state;
	pid_t pids[3];
	start_joined(f, "pipeline-1", "0.2", "0.6", pids);
	for (int c = 0; c < 3; c++)
		assert_int_equal(ts_wait_exit(pids[c], 300000), 1);   /* b07 check failed: the run's code */
	int took[3];
	for (int c = 0; c < 3; c++) {
		char *log = xasprintf("%s.log", names[c]);
		char *text = read_tmp(f, log);
		took[c] = count(text, " takes board ");
		TS_FREE(text, log);
	}
	assert_int_equal(took[0] + took[1] + took[2], N_BOARDS);
	assert_true(took[0] > took[2] && took[1] > took[2]);
	char *merged_path = merged_results(f);
	int retried = 0;
	char *merged = result_set(merged_path, &retried, NULL, NULL);
	assert_int_equal(retried, 0);
	assert_int_equal(count(merged, "\n"), 3 * N_BOARDS);
	/* the same scenario on one controller, no database */
	char *out = NULL, *e = env(f, "single");
	int rc = ts_run(&out, "%s %s run %s -o runs-single -q", e, ORCH_BIN, f->scenario);
	assert_int_equal(rc, 1);
	free(out);
	char *single_path = xasprintf("%s/runs-single/shared/latest/results.json", f->tmp);
	char *single = result_set(single_path, NULL, NULL, NULL);
	assert_string_equal(merged, single);
	/* and the facts of every board, whichever controller asked it */
	assert_int_equal(facts_boards(single_path), N_BOARDS);
	assert_int_equal(facts_boards(merged_path), N_BOARDS);
	/* the logs of every test are in the merged folder, whoever ran it */
	char *dir = strdup(merged_path);
	*strrchr(dir, '/') = '\0';
	for (int i = 1; i <= N_BOARDS; i++) {
		char *log = xasprintf("%s/b%02d/work/stdout.log", dir, i);
		char *text = ts_read_file(log);
		char want[32];
		snprintf(want, sizeof(want), "work b%02d", i);
		assert_non_null(text);
		assert_non_null(strstr(text, want));
		TS_FREE(text, log);
	}
	TS_FREE(dir, e, single_path, single, merged, merged_path);
}

static void test_killed_controller_items_rerun_elsewhere(void **state)
{
	struct fixture *f = *state;
	pid_t pids[3];
	start_joined(f, "pipeline-2", "0.4", "0.4", pids);
	/* kill "slow" (here as fast as the others) once it ran a board and holds more */
	char *text = NULL;
	for (int i = 0; i < 200; i++) {
		free(text);
		text = read_tmp(f, "slow.log");
		if (count(text, " takes board ") >= 4)
			break;
		usleep(50 * 1000);
	}
	assert_true(count(text, " takes board ") >= 4);
	free(text);
	kill(pids[2], SIGKILL);
	assert_int_equal(ts_wait_exit(pids[2], 300000), 128 + SIGKILL);
	assert_int_equal(ts_wait_exit(pids[0], 300000), 1);
	assert_int_equal(ts_wait_exit(pids[1], 300000), 1);
	char *merged_path = merged_results(f);
	int retried = 0, by_victim = 0;
	char *merged = result_set(merged_path, &retried, "slow", &by_victim);
	assert_int_equal(count(merged, "\n"), 3 * N_BOARDS);   /* nothing lost */
	assert_int_equal(count(merged, "\tfail\n"), 1);
	assert_int_equal(count(merged, "\tpass\n"), 3 * N_BOARDS - 1);
	assert_true(retried >= 1);                              /* its boards ran again */
	/* what the killed controller finished counts once: every test in its
	 * own folder is in the merged folder as its result, not rerun */
	char *part = xasprintf("%s/runs-slow/shared", f->tmp);
	char *out = NULL;
	ts_run(&out, "ls %s", part);
	char *first = strtok(out, "\n");
	assert_non_null(first);
	char *part_dir = xasprintf("%s/%s", part, first);
	struct run_result mine;
	memset(&mine, 0, sizeof(mine));
	char err[512];
	assert_int_equal(store_journal_load(part_dir, &mine, NULL, err, sizeof(err)), 0);
	int own = (int)mine.n_results;
	run_result_release(&mine);
	assert_int_equal(by_victim, own);
	TS_FREE(part_dir, out, part, merged, merged_path);
}

/* A board only an absent controller may take ends as error after
 * --join-wait; a controller with another plan, or a name already running,
 * is turned away before it runs anything (exit 2). */
static void test_join_edges(void **state)
{
	struct fixture *f = *state;
	free(ts_write_file(f->tmp, "two.yaml", "boards:\n  b01: { local: true }\n"
			   "  b02: { local: true, controllers: [ghost] }\n"));
	char *sc = ts_write_file(f->tmp, "two-sc.yaml", "name: two\ninventory: two.yaml\n"
				 "boards: [all]\ntests:\n  - { name: t, run: \"sleep {env.DELAY|0}\" }\n");
	char *out = NULL, *e = env(f, "a");
	int rc = ts_run(&out, "%s %s run %s -o runs-a --db %s --join p3 --controller a "
			"--join-wait 1s", e, ORCH_BIN, sc, f->url);
	assert_int_equal(rc, 3);
	TS_ASSERT_HAS(out, "no controller that may take board b02", "1 passed, 0 failed, 1 error");
	free(out);

	char *cmd = xasprintf("%s DELAY=3 exec %s run %s -o runs-a --db %s --join p4 "
			      "--controller a", e, ORCH_BIN, sc, f->url);
	char *a_log = xasprintf("%s/p4-a.log", f->tmp);
	pid_t a = ts_spawn(cmd, a_log);
	TS_FREE(a_log, cmd);
	assert_true(wait_tmp_text(f, "p4-a.log", "joined 'p4' as controller a"));
	rc = ts_run(&out, "%s %s run %s -o runs-b --db %s --join p4 --controller b -l b01", e,
		    ORCH_BIN, sc, f->url);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "was started with another plan");
	free(out);
	rc = ts_run(&out, "%s %s run %s -o runs-b --db %s --join p4 --controller a", e, ORCH_BIN,
		    sc, f->url);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "controller 'a' has already joined run 'p4'");
	free(out);
	rc = ts_run(&out, "%s %s run %s --join p5", e, ORCH_BIN, sc);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "--join needs the database");
	free(out);
	ts_stop(&a);
	TS_FREE(e, sc);
}

/* Two controllers of one host without --controller: the second is HOST-2.
 * Their clients take turns on the one server board of a multi-host test
 * through its board lock (a role board is waited for), so nothing errors. */
static void test_join_same_host_shared_server(void **state)
{
	struct fixture *f = *state;
	free(ts_write_file(f->tmp, "srv.yaml", "boards:\n  srv: { local: true }\n"
			   "  b01: { local: true }\n  b02: { local: true }\n"
			   "  b03: { local: true }\n  b04: { local: true }\n"));
	char *sc = ts_write_file(f->tmp, "srv-sc.yaml", "name: pairs\ninventory: srv.yaml\n"
				 "boards: [all, \"!srv\"]\ntests:\n  - name: pair\n"
				 "    roles: { server: srv, client: each }\n    steps:\n"
				 "      - { on: server, run: \"echo serving\" }\n"
				 "      - { on: client, run: \"sleep 0.4\" }\n");
	pid_t pids[2];
	for (int c = 0; c < 2; c++) {
		char *e = env(f, "same");
		char *cmd = xasprintf("%s exec %s run %s -o runs-%d --db %s --join p6", e, ORCH_BIN,
				      sc, c, f->url);
		char *log = xasprintf("%s/same%d.log", f->tmp, c);
		pids[c] = ts_spawn(cmd, log);
		TS_FREE(e, cmd, log);
		if (c == 0)   /* the first joins first: it is HOST, the second HOST-2 */
			assert_true(wait_tmp_text(f, "same0.log", "joined 'p6' as controller"));
	}
	assert_int_equal(ts_wait_exit(pids[0], 300000), 0);
	assert_int_equal(ts_wait_exit(pids[1], 300000), 0);
	char host[128] = "";
	gethostname(host, sizeof(host) - 1);
	char *l0 = read_tmp(f, "same0.log"), *l1 = read_tmp(f, "same1.log");
	char want0[200], want1[200];
	snprintf(want0, sizeof(want0), "as controller %s:", host);
	snprintf(want1, sizeof(want1), "as controller %s-2:", host);
	assert_non_null(strstr(l0, want0));
	assert_non_null(strstr(l1, want1));
	TS_FREE(l0, l1);
	char *p0 = xasprintf("%s/runs-0/pairs/latest/results.json", f->tmp);
	char *p1 = xasprintf("%s/runs-1/pairs/latest/results.json", f->tmp);
	char *merged = result_set(ts_file_exists(p0) ? p0 : p1, NULL, NULL, NULL);
	assert_string_equal(merged, "b01\tpair\tpass\nb02\tpair\tpass\n"
				    "b03\tpair\tpass\nb04\tpair\tpass\n");
	TS_FREE(merged, p0, p1, sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_board_lock_across_controllers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_joined_fast_take_more_and_merge_equals_single,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_controller_items_rerun_elsewhere, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_join_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_join_same_host_shared_server, setup, teardown),
	};
	return ts_run_group(tests, group_setup, group_teardown);
}
