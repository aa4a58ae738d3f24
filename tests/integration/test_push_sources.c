/*
 * push: sources are regular files, and reading them is bounded
 * (docs/guarantees.md "A push reads only regular files, within the test's
 * deadline"): validate refuses a device and a FIFO with file:line:col; at
 * run time a source opened O_NONBLOCK and fstat'd before any read, so a
 * FIFO put in the file's place never blocks; a 1 TiB sparse source under
 * `timeout: 2s` ends with the test (its checksum stops at the deadline)
 * on a local board and an OpenSSH board (127.0.205.x); Ctrl-C during such
 * a push ends orch within the 2 s bound and the push is an `error`. And
 * fetch: a destination on orch's own files is refused, a fetched file
 * keeps the board's restrictive mode, a controller disk that fills up is
 * an `error` (exit 3).
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "execute/artifact.h"
#include "execute/artifact_sums.h"
#include "transport/transport_local.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_BASE "127.0.205"

static struct lab *L;
static char *tmp;

static int group_setup(void **state)
{
	if (lab_group_up(&L, LAB_BASE, 2, 0, false) < 0)
		return -1;
	tmp = ts_orch_dir("push-sources");
	free(lab_write_inventory(L, tmp, "inv.yaml", LAB_PORT_KEY,
				 "boards:\n"
				 "  ps-ossh: { workdir: %s/w-ossh, ssh: { host: " LAB_BASE ".2 } }\n"
				 "  ps-loc: { local: true, workdir: %s/w-loc }\n",
				 tmp, tmp));
	assert_int_equal(ts_run(NULL, "truncate -s 1T '%s/huge.bin' && mkfifo '%s/fifo' && "
				"printf ok > '%s/small.txt'", tmp, tmp, tmp), 0);
	return 0;
}

static int group_teardown(void **state)
{
	lab_group_down(&L);
	return ts_rmrf_free(&tmp);
}

static char *scenario(const char *name, const char *boards, const char *test)
{
	char *text = xasprintf("name: %s\ninventory: inv.yaml\nboards: [%s]\ntests:\n%s", name,
			       boards, test);
	char *sc = ts_write_scenario(tmp, name, text);
	free(text);
	return sc;
}

static void test_validate_refuses_device_and_fifo(void **state)
{
	char *t = xasprintf("  - name: dev\n    run: 'true'\n    push: [{ src: /dev/zero }]\n"
			    "  - name: fifo\n    run: 'true'\n    push: [{ src: %s/fifo, dest: f }]\n"
			    "  - name: dir\n    run: 'true'\n    push: [{ src: %s, dest: d }]\n",
			    tmp, tmp);
	char *sc = scenario("badsrc", "ps-loc", t);
	char *out = NULL;
	int64_t t0 = clock_mono_ms();
	int rc = ts_run(&out, "%s validate %s 2>&1", ORCH_BIN, sc);
	assert_true(clock_mono_ms() - t0 < 10000);
	if (rc != 2 || !strstr(out, "badsrc.yaml:7:19: error: push: 'src' must be a regular file, found "
			       "a device") ||
	    !strstr(out, "badsrc.yaml:10:19: error: push: 'src' must be a regular file, found a FIFO") ||
	    !strstr(out, ":13:19: error: push: 'src' must be a regular file, found a directory"))
		fail_msg("orch validate exited %d:\n%s", rc, out);
	free(out);
	rc = ts_run(&out, "timeout 20 %s run %s -o %s/runs 2>&1", ORCH_BIN, sc, tmp);
	if (rc != 2)
		fail_msg("orch run exited %d:\n%s", rc, out);
	TS_FREE(out, sc, t);
}

/* What validate saw may change before the push: a FIFO or a device in the
 * source's place is refused at once, never opened for a blocking read. */
static void test_push_refuses_fifo_at_run_time(void **state)
{
	char err[512];
	struct transport *t = transport_local_new();
	assert_non_null(t);
	char name[] = "ps-loc";
	struct board b = { .name = name };
	const char *srcs[] = { "fifo", "/dev/zero" };
	for (size_t i = 0; i < 2; i++) {
		char *src = srcs[i][0] == '/' ? xstrdup(srcs[i]) : xasprintf("%s/%s", tmp, srcs[i]);
		char *dest = xasprintf("%s/dest-%zu", tmp, i);
		struct file_push fp = { .src = src, .dest = dest, .mode = 0644,
					.timeout_ms = 20000 };
		bool infra = false;
		int64_t t0 = clock_mono_ms();
		int rc = artifact_push_file(t, &b, &fp, &infra, err, sizeof(err));
		assert_int_equal(rc, -1);
		if (clock_mono_ms() - t0 > 2000 || !strstr(err, "not a regular file"))
			fail_msg("%s: took %lld ms: %s", src, (long long)(clock_mono_ms() - t0), err);
		assert_false(ts_file_exists(dest));
		TS_FREE(src, dest);
	}
	/* the checksums refuse them too */
	char sha[65];
	uint32_t crc;
	char *fifo = xasprintf("%s/fifo", tmp);
	assert_int_equal(artifact_file_sums(fifo, sha, &crc), -1);
	assert_int_equal(artifact_file_crc(fifo, &crc), -1);
	free(fifo);
	transport_free(t);
}

/* A 1 TiB sparse source under a 2 s timeout: the test ends with its
 * deadline on both boards (the checksum is not read to the end). */
static void test_huge_source_bounded_by_timeout(void **state)
{
	char *t = xasprintf("  - name: huge\n    timeout: 2s\n    run: 'true'\n"
			    "    push: [{ src: %s/huge.bin, dest: huge.bin }]\n", tmp);
	char *sc = scenario("huge", "ps-ossh, ps-loc", t);
	char *out = NULL;
	int64_t t0 = clock_mono_ms();
	int rc = ts_run(&out, "timeout 120 %s run %s -o %s/runs -j 2 2>&1", ORCH_BIN, sc, tmp);
	int64_t took = clock_mono_ms() - t0;
	if (rc != 1 || took > 20000)
		fail_msg("orch run exited %d after %lld ms:\n%s", rc, (long long)took, out);
	char *dir = xasprintf("%s/runs/huge/latest", tmp);
	json_t *res = ts_json_load_in(dir, "results.json");
	assert_non_null(res);
	const char *boards[] = { "ps-ossh", "ps-loc" };
	for (size_t i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "huge");
		if (strcmp(ts_json_str(r, "status"), "fail") != 0 ||
		    !strstr(ts_json_str(r, "message"), "timed out"))
			fail_msg("%s: %s: %s", boards[i], ts_json_str(r, "status"),
				 ts_json_str(r, "message"));
	}
	json_decref(res);
	TS_FREE(dir, out, sc, t);
}

/* Ctrl-C (SIGINT) during the push: orch ends within 2 s of the second
 * one, the push is an error (not a fail), exit 130. */
static void test_interrupted_push_is_error(void **state)
{
	char *t = xasprintf("  - name: intr\n    timeout: 10m\n    run: 'true'\n"
			    "    push: [{ src: %s/huge.bin, dest: %s/dst/huge.bin }]\n", tmp, tmp);
	char *sc = scenario("intr", "ps-loc", t);
	char *log = xasprintf("%s/intr.log", tmp);
	char *cmd = xasprintf("exec %s run %s -o %s/runs", ORCH_BIN, sc, tmp);
	pid_t pid = ts_spawn(cmd, log);
	/* wait until the push is under way: the part file exists */
	char *part = xasprintf("%s/dst/huge.bin.orch-part.ps-loc", tmp);
	int64_t dl = clock_mono_ms() + 30000;
	while (!ts_file_exists(part) && clock_mono_ms() < dl)
		usleep(10000);
	assert_true(ts_file_exists(part));
	kill(pid, SIGINT);
	usleep(300000);
	kill(pid, SIGINT);
	int64_t t0 = clock_mono_ms();
	int st = 0;
	while (waitpid(pid, &st, WNOHANG) == 0 && clock_mono_ms() - t0 < 20000)
		usleep(10000);
	int64_t took = clock_mono_ms() - t0;
	if (took >= 20000) {
		kill(-pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	char *text = ts_read_file(log);
	if (took > 2500 || !WIFEXITED(st) || WEXITSTATUS(st) != 130)
		fail_msg("orch took %lld ms after the second Ctrl-C (status %d):\n%s",
			 (long long)took, st, text ? text : "");
	char *dir = xasprintf("%s/runs/intr/latest", tmp);
	json_t *res = ts_json_load_in(dir, "results.json");
	assert_non_null(res);
	json_t *r = ts_json_result_or_fail(res, "ps-loc", "intr");
	if (strcmp(ts_json_str(r, "status"), "error") != 0)
		fail_msg("interrupted push: %s: %s", ts_json_str(r, "status"),
			 ts_json_str(r, "message"));
	json_decref(res);
	TS_FREE(dir, text, part, cmd, log, sc, t);
}

/* fetch: a destination on orch's own files is refused by validate; a
 * fetched file keeps the board's restrictive mode (0640 stays 0640). */
static void test_fetch_names_and_modes(void **state)
{
	char *t = xasprintf("  - name: clash\n    run: 'true'\n"
			    "    fetch: [{ src: /var/log/stdout.log }, { src: /x, dest: result.json },\n"
			    "            { src: /y, dest: sub/../stderr.log }, { src: /z, dest: a.stderr.log }]\n");
	char *sc = scenario("clash", "ps-loc", t);
	char *out = NULL;
	int rc = ts_run(&out, "%s validate %s 2>&1", ORCH_BIN, sc);
	if (rc != 2 || !strstr(out, "clash.yaml:7:20: error: fetch: 'dest' 'stdout.log' is one of "
			       "orch's own files") ||
	    !strstr(out, "'result.json' is one of orch's own files") ||
	    !strstr(out, "'a.stderr.log' is one of orch's own files"))
		fail_msg("orch validate exited %d:\n%s", rc, out);
	TS_FREE(out, sc, t);

	const char *boards[] = { "ps-ossh", "ps-loc" };
	for (size_t i = 0; i < 2; i++) {
		char *f = xasprintf("/tmp/orch-lie-mode.%ld.%s", (long)getpid(), boards[i]);
		t = xasprintf("  - name: modes\n"
			      "    run: rm -f %s; umask 077; printf secret > %s; chmod 0640 %s\n"
			      "    fetch: [{ src: %s, dest: m.txt }]\n", f, f, f, f);
		sc = scenario("modes", boards[i], t);
		rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, tmp);
		if (rc != 0)
			fail_msg("orch run exited %d:\n%s", rc, out);
		char *path = xasprintf("%s/runs/modes/latest/%s/modes/m.txt", tmp, boards[i]);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		if ((st.st_mode & 07777) != 0640)
			fail_msg("%s: fetched with mode %o, the board's is 0640", boards[i],
				 (unsigned)(st.st_mode & 07777));
		ts_run(NULL, "rm -f %s", f);
		TS_FREE(path, out, sc, t, f);
	}
}

/* A fetch that cannot be written on the controller (a full disk) is an
 * `error` (exit 3) naming the controller, not a fail of the board's command. */
static void test_fetch_to_full_disk_is_error(void **state)
{
	char *mnt = xasprintf("%s/small", tmp);
	mkdir(mnt, 0755);
	if (ts_run(NULL, "mount -t tmpfs -o size=1m tmpfs '%s'", mnt) != 0) {
		free(mnt);
		ts_skip("needs to mount a tmpfs (root)");
	}
	char *t = xasprintf("  - name: big\n"
			    "    run: head -c 3000000 /dev/zero > %s/big.bin\n"
			    "    fetch: [{ src: %s/big.bin, dest: big.bin }]\n", tmp, tmp);
	char *sc = scenario("full", "ps-loc", t);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, mnt);
	char *dir = xasprintf("%s/runs/full/latest", mnt);
	json_t *res = ts_json_load_in(dir, "results.json");
	ts_run(NULL, "umount -l '%s'", mnt);
	if (rc != 3 || !res)
		fail_msg("orch run exited %d:\n%s", rc, out);
	json_t *r = ts_json_result_or_fail(res, "ps-loc", "big");
	if (strcmp(ts_json_str(r, "status"), "error") != 0 ||
	    !strstr(ts_json_str(r, "message"), "on the controller"))
		fail_msg("fetch to a full disk: %s: %s", ts_json_str(r, "status"),
			 ts_json_str(r, "message"));
	json_decref(res);
	TS_FREE(dir, out, sc, t, mnt);
}

/* A local test's command gets PATH, HOME, LANG, TERM and its own env:,
 * never orch's environment (ORCH_DB with a password, tokens). */
static void test_local_env_minimal(void **state)
{
	const char *t = "  - name: env\n    run: env\n    env: { KEEP_ME: kept }\n";
	char *sc = scenario("env", "ps-loc", t);
	char *out = NULL;
	int rc = ts_run(&out, "ORCH_LIE_DB='postgresql://u:PW-lie-4711@127.0.205.9:1/x' "
			"MY_API_TOKEN=tok-lie-4711 LANG=C.UTF-8 %s run %s -o %s/runs 2>&1",
			ORCH_BIN, sc, tmp);
	char *path = xasprintf("%s/runs/env/latest/ps-loc/env/stdout.log", tmp);
	char *log = ts_read_file(path);
	char *jpath = xasprintf("%s/runs/env/latest/junit.xml", tmp);
	char *junit = ts_read_file(jpath);
	if (!log || strstr(log, "4711") || strstr(log, "ORCH_LIE") || strstr(log, "MY_API") || !strstr(log, "PATH=") ||
	    !strstr(log, "HOME=") || !strstr(log, "KEEP_ME=kept") || !strstr(log, "LANG=C.UTF-8"))
		fail_msg("orch exited %d; the command's environment:\n%s\norch said:\n%s", rc,
			 log ? log : "(none)", out);
	if (junit && strstr(junit, "4711"))
		fail_msg("junit.xml holds orch's environment:\n%s", junit);
	TS_FREE(junit, jpath, log, path, out, sc);
}

/* {vars.a} and {vars.A} would both be $ORCH_VARS_A: refused by validate. */
static void test_vars_differing_in_case_refused(void **state)
{
	char *text = xasprintf("name: vc\ninventory: inv.yaml\nboards: [ps-loc]\n"
			       "vars: { a: one, A: two }\ntests:\n"
			       "  - { name: t, run: 'echo {vars.a} {vars.A}' }\n"
			       "  - { name: u, run: 'true', vars: { B: x, b: y } }\n");
	char *sc = ts_write_file(tmp, "vc.yaml", text);
	char *out = NULL;
	int rc = ts_run(&out, "%s validate %s 2>&1", ORCH_BIN, sc);
	if (rc != 2 || !strstr(out, "vc.yaml:4:17: error: 'vars.a' and 'vars.A' differ only in "
			       "case") || !strstr(out, "'vars.B' and 'vars.b' differ only in case"))
		fail_msg("orch validate exited %d:\n%s", rc, out);
	TS_FREE(out, sc, text);
}

TS_MAIN(group_setup, group_teardown, test_validate_refuses_device_and_fifo,
	test_push_refuses_fifo_at_run_time, test_huge_source_bounded_by_timeout,
	test_interrupted_push_is_error, test_fetch_names_and_modes,
	test_fetch_to_full_disk_is_error, test_local_env_minimal,
	test_vars_differing_in_case_refused)
