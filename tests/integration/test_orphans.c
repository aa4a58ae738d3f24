/*
 * A board is not used while a run that died holding it may still run
 * commands there (docs/guarantees.md): orch is killed with SIGKILL while
 * its test sleeps on an OpenSSH and a dropbear board, and the same test is
 * run again at once, through the lock folder and through PostgreSQL's
 * board locks (another controller with a lock folder of its own). The new
 * run stops the leftover first, says so (terminal and results.json
 * `orphans`), and its test never runs beside it: the test's command itself
 * checks that the earlier sleep is gone before it starts, and the killed
 * run's command never writes its end line. And a board reflashed between
 * two runs (a new host key, its sshd restarted) is an error at once naming
 * the expected and the offered key. Peers on 127.0.223.x.
 */
#include "lab.h"
#include "pg.h"
#include "testsupport.h"
#include "ts_json.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.223"
#define PG_HOST "127.0.223.100"
#define PG_PORT 55230

/* Each board's test: it refuses to start while the previous run's sleep
 * (its pid in DIR/BOARD.pid) is alive (a zombie is not: the test process
 * is the orphans' subreaper), logs its start, sleeps, logs its end. */
static const char scenario_fmt[] =
	"name: %s\ninventory: rack.yaml\nboards: [all]\ndefaults: { timeout: 60s }\ntests:\n"
	"  - name: slow\n"
	"    run: |\n"
	"      M=%s/{board.name}\n"
	"      alive() { [ -r /proc/$1/status ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status; }\n"
	"      if [ -s $M.pid ] && alive $(cat $M.pid); then echo \"{env.RUN} overlap\" >> $M.log; exit 1; fi\n"
	"      echo \"{env.RUN} start\" >> $M.log\n"
	"      sleep {env.SLEEP|0} & echo $! > $M.pid; wait $!\n"
	"      echo \"{env.RUN} end\" >> $M.log\n";

static const char *const boards[] = { "sshb", "drop" };
#define N_BOARDS 2

struct fx {
	struct lab *lab;
	struct pg *pg;
	char *dir;
};

static struct fx F;

static int group_setup(void **state)
{
	ts_require_root("the lab's boards log in as root");
	F.lab = lab_up(LAB_BASE, 2, 1, false);   /* board 2: reflashed */
	if (!F.lab)
		return -1;
	F.dir = ts_mkdtemp("orphans");
	chmod(F.dir, 0755);
	char *inv = xasprintf(
		"defaults:\n"
		"  ssh: { user: %s, identity: %s, known_hosts: %s, connect_timeout: 5s }\n"
		"boards:\n"
		"  sshb: { ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  drop: { ssh: { host: " LAB_BASE ".200, port: %d } }\n",
		F.lab->user, F.lab->identity, F.lab->known_hosts, LAB_PORT, LAB_PORT);
	free(ts_write_file(F.dir, "rack.yaml", inv));
	free(inv);
	return 0;
}

static int group_teardown(void **state)
{
	pg_down(F.pg);
	lab_down(F.lab);
	return ts_rmrf_free(&F.dir);
}

/* A fresh marker folder and scenario for one case; returns the scenario. */
static char *case_scenario(const char *name, char **marks)
{
	*marks = xasprintf("%s/%s", F.dir, name);
	mkdir(*marks, 0777);
	chmod(*marks, 0777);   /* the lab user writes its marks there */
	char *text = xasprintf(scenario_fmt, name, *marks);
	char *file = xasprintf("%s.yaml", name);
	char *sc = ts_write_file(F.dir, file, text);
	TS_FREE(file, text);
	return sc;
}

static char *mark_file(const char *marks, const char *board, const char *ext)
{
	return xasprintf("%s/%s.%s", marks, board, ext);
}

/* Waits up to 60 s for every board's pid file; returns the pids. */
static void wait_pids(const char *marks, long *pids)
{
	for (int b = 0; b < N_BOARDS; b++) {
		char *path = mark_file(marks, boards[b], "pid");
		pids[b] = 0;
		for (int i = 0; i < 3000 && pids[b] <= 0; i++) {
			char *text = ts_read_file(path);
			pids[b] = text ? strtol(text, NULL, 10) : 0;
			free(text);
			if (pids[b] <= 0)
				usleep(20 * 1000);
		}
		if (pids[b] <= 0) {
			char *alog = xasprintf("%s/A.log", marks);
			char *said = ts_read_file(alog);
			fail_msg("%s: the first run's command never started; orch said:\n%s",
				 boards[b], said ? said : "");
		}
		free(path);
	}
}

/* Starts run A (the sleep), waits for its commands, kills orch with
 * SIGKILL, and checks that the sleeps outlived it; pids: theirs. */
static void start_and_kill(const char *env, const char *args, const char *marks, long *pids)
{
	char *cmd = xasprintf("cd %s && %s RUN=A SLEEP=40 exec %s %s", F.dir, env, ORCH_BIN, args);
	char *log = xasprintf("%s/A.log", marks);
	pid_t orch = ts_spawn(cmd, log);
	wait_pids(marks, pids);
	assert_int_equal(kill(orch, SIGKILL), 0);
	int status;
	assert_int_equal(waitpid(orch, &status, 0), orch);
	for (int b = 0; b < N_BOARDS; b++)
		if (!ts_pid_running(pids[b]))
			fail_msg("%s: the killed run's sleep %ld did not outlive orch: nothing to "
				 "test", boards[b], pids[b]);
	TS_FREE(log, cmd);
}

/* Run B's checks: it passed, said what it stopped (terminal and
 * results.json), the sleeps are gone, and no board's log shows A's end
 * line or an overlap. */
static void check_rerun(int rc, const char *out, const char *name, const char *marks,
			const long *pids)
{
	if (rc != 0)
		fail_msg("the rerun exited %d; orch said:\n%s", rc, out);
	char *run_dir = xasprintf("%s/runs/%s/latest", F.dir, name);
	json_t *res = ts_json_load_in(run_dir, "results.json");
	assert_non_null(res);
	for (int b = 0; b < N_BOARDS; b++) {
		char pidtext[32];
		snprintf(pidtext, sizeof(pidtext), "%ld sleep", pids[b]);
		json_t *r = ts_json_result_or_fail(res, boards[b], "slow");
		const char *orphans = ts_json_str(r, "orphans");
		if (!orphans || !strstr(orphans, pidtext) || !strstr(orphans, "verified gone"))
			fail_msg("%s: results.json orphans = %s, not naming %s; orch said:\n%s",
				 boards[b], orphans ? orphans : "(none)", pidtext, out);
		char *warn = xasprintf("%s: an earlier run (", boards[b]);
		if (!strstr(out, warn) || !strstr(out, pidtext))
			fail_msg("%s: no warning naming %s; orch said:\n%s", boards[b], pidtext, out);
		free(warn);
		assert_false(ts_pid_running(pids[b]));
		char *path = mark_file(marks, boards[b], "log");
		char *log = ts_read_file(path);
		if (!log || strcmp(log, "A start\nB start\nB end\n") != 0)
			fail_msg("%s: the board's log is\n%s", boards[b], log ? log : "(none)");
		TS_FREE(log, path);
	}
	json_decref(res);
	free(run_dir);
}

/* The lock folder: its record of the killed run names the token its
 * commands carry; the next run on this controller stops them first. */
static void test_kill9_rerun_lock_folder(void **state)
{
	char *marks;
	char *sc = case_scenario("lockdir", &marks);
	char *env = xasprintf("ORCH_LOCK_DIR=%s/locks", F.dir);
	char *args = xasprintf("run %s -q -o runs", sc);
	long pids[N_BOARDS];
	start_and_kill(env, args, marks, pids);
	char *out = NULL;
	int rc = ts_run(&out, "cd %s && %s RUN=B %s run %s -o runs 2>&1", F.dir, env, ORCH_BIN, sc);
	check_rerun(rc, out, "lockdir", marks, pids);
	TS_FREE(out, args, env, sc, marks);
}

/* PostgreSQL's board locks: the killed controller's row names its token;
 * another controller (a lock folder of its own, as on another host) stops
 * its commands before it uses the boards. */
static void test_kill9_rerun_database(void **state)
{
	if (!F.pg)
		F.pg = pg_up(PG_HOST, PG_PORT, "orch");
	assert_non_null(F.pg);
	char *marks;
	char *sc = case_scenario("db", &marks);
	char *env1 = xasprintf("ORCH_LOCK_DIR=%s/locks-host1", F.dir);
	char *args = xasprintf("run %s -q -o runs --db %s", sc, F.pg->url);
	long pids[N_BOARDS];
	start_and_kill(env1, args, marks, pids);
	char *out = NULL;
	int rc = ts_run(&out, "cd %s && ORCH_LOCK_DIR=%s/locks-host2 RUN=B %s run %s -o runs "
			"--db %s 2>&1", F.dir, F.dir, ORCH_BIN, sc, F.pg->url);
	check_rerun(rc, out, "db", marks, pids);
	TS_FREE(out, args, env1, sc, marks);
}

/* The fingerprint ("SHA256:...") of the public key file path. */
static char *fingerprint(const char *path)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "ssh-keygen -l -f '%s' | cut -d' ' -f2", path), 0);
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return out;
}

/* Board 2 is reflashed: a new host key, its sshd restarted on it
 * (SIGHUP); returns once it offers the new key (within 10 s). */
static void reflash_board2(const char *newpub)
{
	char *bdir = xasprintf("%s/board2", F.lab->dir);
	assert_int_equal(ts_run(NULL, "cd %s && rm -f new new.pub && ssh-keygen -q -t ed25519 -N '' "
				"-C reflashed -f new && mv new ssh_host_ed25519_key && "
				"mv new.pub ssh_host_ed25519_key.pub && kill -HUP $(cat sshd.pid)",
				bdir), 0);
	char *key = ts_read_file(newpub);
	assert_non_null(key);
	char *sp = strchr(key, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;
	if (sp)
		*sp = '\0';   /* "ssh-ed25519 BASE64" */
	bool offered = false;
	int64_t until = clock_mono_ms() + 10000;
	while (!offered && clock_mono_ms() < until) {
		char *out = NULL;
		ts_run(&out, "ssh-keyscan -T 2 -t ed25519 -p %d " LAB_BASE ".2 2>/dev/null", LAB_PORT);
		offered = out && strstr(out, key);
		free(out);
		if (!offered)
			usleep(50 * 1000);
	}
	if (!offered)
		fail_msg("board2's sshd does not offer its new key after 10 s");
	TS_FREE(key, bdir);
}

/* A board whose host key changed between two runs (reflashed) is an error
 * at once, naming the board, the key known_hosts expects and the key the
 * server offers: no wait for it to "come back", although its test retries
 * infrastructure errors after a power cycle and may take 60 s. */
static void test_reflashed_board_errors_at_once(void **state)
{
	char *inv = xasprintf(
		"boards:\n"
		"  flash: { ssh: { host: " LAB_BASE ".2, port: %d, user: %s, identity: %s,\n"
		"                  known_hosts: %s, connect_timeout: 5s },\n"
		"           power: { cycle: 'true' } }\n",
		LAB_PORT, F.lab->user, F.lab->identity, F.lab->known_hosts);
	free(ts_write_file(F.dir, "flash.yaml", inv));
	free(inv);
	char *sc = ts_write_file(F.dir, "rekey.yaml",
		"name: rekey\ninventory: flash.yaml\nboards: [all]\n"
		"defaults: { timeout: 60s, retry: { infra: 2, backoff: 1s } }\ntests:\n"
		"  - { name: one, run: echo one }\n"
		"  - { name: two, run: echo two }\n");
	char *out = NULL;
	assert_int_equal(ts_run(&out, "cd %s && %s run %s -q -o runs 2>&1", F.dir, ORCH_BIN, sc), 0);
	free(out);
	char *pub = xasprintf("%s/board2/ssh_host_ed25519_key.pub", F.lab->dir);
	char *old_fp = fingerprint(pub);
	reflash_board2(pub);
	char *new_fp = fingerprint(pub);
	assert_string_not_equal(old_fp, new_fp);
	int64_t t0 = clock_mono_ms();
	int rc = ts_run(&out, "cd %s && %s run %s -o runs 2>&1", F.dir, ORCH_BIN, sc);
	int64_t took = clock_mono_ms() - t0;
	if (rc != 3)
		fail_msg("exit %d (want 3); orch said:\n%s", rc, out);
	/* a wait would take the test's timeout (60 s) at least */
	if (took > 20000)
		fail_msg("the run took %lld ms; orch said:\n%s", (long long)took, out);
	char *run_dir = xasprintf("%s/runs/rekey/latest", F.dir);
	json_t *res = ts_json_load_in(run_dir, "results.json");
	assert_non_null(res);
	const char *tests[] = { "one", "two" };
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, "flash", tests[i]);
		const char *msg = ts_json_str(r, "message");
		if (strcmp(ts_json_str(r, "status"), "error") != 0 || !msg ||
		    !strstr(msg, "host key mismatch for flash") || !strstr(msg, old_fp) ||
		    !strstr(msg, new_fp))
			fail_msg("%s: %s: %s (want error naming flash, %s and %s)", tests[i],
				 ts_json_str(r, "status"), msg ? msg : "", old_fp, new_fp);
	}
	print_message("reflashed board: the run ended in %lld ms (test timeout 60 s)\n",
		      (long long)took);
	json_decref(res);
	TS_FREE(run_dir, new_fp, old_fp, pub, out, sc);
}

TS_MAIN(group_setup, group_teardown, test_kill9_rerun_lock_folder, test_kill9_rerun_database,
	test_reflashed_board_errors_at_once)
