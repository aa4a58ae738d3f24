/*
 * Whole lines (docs/guarantees.md): a `metrics:` regex, a `ready:` pattern
 * and a boot phase's `until:` see a line whole up to the 1 MiB cap, on an
 * OpenSSH board, a dropbear board, a local board and a serial console (a
 * pty running a login script and `sh -i`); a longer line is reported as too
 * long for matching (results.json `long_lines`, the summary) and never
 * matched in pieces. Peers on 127.0.205.x.
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_console.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_BASE "127.0.205"
#define SECRET "wl-console-pw"

/* A console that prints a 12000-byte line again and again, as a chatty
 * kernel would: "login:" at offset 8192 (a piece's start when lines were
 * cut at 8192). */
static const char chatty_script[] =
	"while :; do\n"
	"  head -c 8192 /dev/zero | tr '\\0' k; printf 'login:';\n"
	"  head -c 3802 /dev/zero | tr '\\0' k; printf '\\n'; sleep 0.2\n"
	"done\n";

/* Lines for the boards, by kind: `sh gen.sh KIND`. */
static const char gen_script[] =
	"case $1 in\n"
	"tput) printf '{'; head -c 8183 /dev/zero | tr '\\0' x; printf ' tput=123456 MB/s}\\n' ;;\n"
	"speed) printf 'speed 5 '; head -c 9000 /dev/zero | tr '\\0' z; printf ' BAD\\n' ;;\n"
	"huge) head -c 1048600 /dev/zero | tr '\\0' h; printf ' tput=5\\ntail tput=7\\n' ;;\n"
	"ready) head -c 10000 /dev/zero | tr '\\0' r; printf ' listening\\n'; sleep 30 ;;\n"
	"esac\n";

struct fx {
	struct lab *lab;
	char *dir;
	char *gen;
	pid_t socat[2];
	char *console;
	char *chatty;
};

static struct fx F;

static int setup(void **state)
{
	if (ts_run(NULL, "command -v socat >/dev/null") != 0) {
		print_message("socat is not installed (apt-get install socat)\n");
		return -1;
	}
	if (lab_group_up(&F.lab, LAB_BASE, 1, 1, false) < 0)
		return -1;
	F.dir = ts_mkdtemp("wholelines");
	chmod(F.dir, 0755);
	F.gen = ts_write_file(F.dir, "gen.sh", gen_script);
	char *login = ts_console_login_script("wl-board", SECRET);
	int up = ts_console_start(F.dir, "console", login, &F.console, &F.socat[0]);
	free(login);
	if (up < 0 || ts_console_start(F.dir, "chatty", chatty_script, &F.chatty, &F.socat[1]) < 0)
		return -1;
	free(lab_write_inventory(
		F.lab, F.dir, "rack.yaml", "connect_timeout: 5s",
		"boards:\n"
		"  sshb: { tags: [c], ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  drop: { tags: [c], ssh: { host: " LAB_BASE ".200, port: %d } }\n"
		"  loc: { local: true, tags: [c] }\n"
		"  ser: { tags: [c], transport: serial,\n"
		"         serial: { port: %s, login_user: root, password_env: WL_SECRET } }\n"
		"  chat: { tags: [boot], serial: { port: %s } }\n",
		LAB_PORT, LAB_PORT, F.console, F.chatty));
	return 0;
}

static int teardown(void **state)
{
	ts_stop(&F.socat[0]);
	ts_stop(&F.socat[1]);
	lab_down(F.lab);
	ts_rmrf(F.dir);
	TS_FREE(F.dir, F.gen, F.console, F.chatty);
	return 0;
}

/* Runs scenario NAME (tests after the header) on the boards matching
 * selector; returns orch's exit code; *out its output, *res results.json. */
static int run_scenario(const char *name, const char *selector, const char *tests, char **out,
			json_t **res)
{
	char *sc = ts_rack_scenario(F.dir, name, selector, "timeout: 60s", tests);
	int rc = ts_run(out, "WL_SECRET='" SECRET "' %s run %s -o %s/runs -j 4", ORCH_BIN, sc,
			F.dir);
	*res = ts_orch_results(F.dir, name);
	if (!*res)
		print_message("orch said:\n%s\n", *out);
	free(sc);
	return rc;
}

static const char *boards[] = { "sshb", "drop", "loc", "ser" };

static double metric_value(json_t *r, const char *name)
{
	json_t *m = json_object_get(json_object_get(r, "metrics"), name);
	return m ? json_number_value(json_object_get(m, "median")) : -1;
}

/* `print('{' + 'x'*8183 + ' tput=123456 MB/s}')`: the number is 123456. */
static void test_json_line_over_8k(void **state)
{
	char *tests = xasprintf("  - name: tput\n    run: sh %s tput\n"
				"    metrics: [{ name: tput, regex: 'tput=([0-9]+)' }]\n"
				"    expect: { tput: { min: 100000 } }\n", F.gen);
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("tput", "tag:c", tests, &out, &res);
	assert_non_null(res);
	for (size_t i = 0; i < 4; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "tput");
		double v = metric_value(r, "tput");
		if (v != 123456 || strcmp(ts_json_str(r, "status"), "pass") != 0)
			fail_msg("%s: tput = %g (%s: %s); orch said:\n%s", boards[i], v,
				 ts_json_str(r, "status"), ts_json_str(r, "message"), out);
		assert_null(json_object_get(r, "long_lines"));
	}
	assert_int_equal(rc, 0);
	json_decref(res);
	TS_FREE(out, tests);
}

/* `^speed ([0-9]+) z+$` does not match a line that ends in " BAD". */
static void test_anchored_regex_sees_line_end(void **state)
{
	char *tests = xasprintf("  - name: speed\n    run: sh %s speed\n"
				"    metrics: [{ name: speed, regex: '^speed ([0-9]+) z+$' }]\n"
				"    expect: { speed: { min: 1 } }\n", F.gen);
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("speed", "tag:c", tests, &out, &res);
	assert_non_null(res);
	for (size_t i = 0; i < 4; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "speed");
		if (metric_value(r, "speed") >= 0 || strcmp(ts_json_str(r, "status"), "fail") != 0)
			fail_msg("%s: speed = %g (%s); orch said:\n%s", boards[i],
				 metric_value(r, "speed"), ts_json_str(r, "status"), out);
		assert_non_null(strstr(ts_json_str(r, "message"), "'speed' is missing"));
	}
	assert_int_equal(rc, 1);
	json_decref(res);
	TS_FREE(out, tests);
}

/* A line of 1 MiB + 7 bytes holding "tput=5": too long for matching, so
 * the value is the next line's 7; results.json and the summary say so. */
static void test_line_over_cap_reported(void **state)
{
	char *tests = xasprintf("  - name: huge\n    run: sh %s huge\n"
				"    log_limit: 4MiB\n"
				"    metrics: [{ name: tput, regex: 'tput=([0-9]+)' }]\n", F.gen);
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("huge", "tag:c", tests, &out, &res);
	assert_non_null(res);
	for (size_t i = 0; i < 4; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "huge");
		json_t *n = json_object_get(r, "long_lines");
		if (metric_value(r, "tput") != 7 || json_integer_value(n) != 1)
			fail_msg("%s: tput = %g, long_lines %lld (%s: %s); orch said:\n%s", boards[i],
				 metric_value(r, "tput"), (long long)json_integer_value(n),
				 ts_json_str(r, "status"), ts_json_str(r, "message"), out);
		char *log = xasprintf("%s/runs/huge/latest/%s/huge/stdout.log", F.dir, boards[i]);
		struct stat st;
		assert_int_equal(stat(log, &st), 0);
		if (st.st_size < 1048600)
			fail_msg("%s: stdout.log has %lld bytes, the long line is not kept whole",
				 boards[i], (long long)st.st_size);
		free(log);
	}
	assert_int_equal(rc, 0);
	char *summary = xasprintf("%s/runs/huge/latest/summary.txt", F.dir);
	char *text = ts_read_file(summary);
	assert_non_null(text);
	/* once, with the boards it applies to */
	if (!strstr(text, "warning: drop,loc,ser,sshb huge: 1 output line longer than the 1 MiB "
			  "matching cap"))
		fail_msg("summary.txt:\n%s", text);
	TS_FREE(text, summary);
	json_decref(res);
	TS_FREE(out, tests);
}

/* A 12000-byte console line: `^login:` (at offset 8192) is not a line
 * start, `kklogin:k+$` (across offset 8192, to the line's end) is reached. */
static void test_boot_phase_on_whole_console_line(void **state)
{
	const char *tests =
		"  - name: anchored\n"
		"    boot: { trigger: none, timeout: 3s, phases: [{ name: p, until: '^login:' }] }\n"
		"  - name: across\n"
		"    boot: { trigger: none, timeout: 20s,\n"
		"            phases: [{ name: p, until: '^k+kklogin:k+$' }] }\n";
	char *out = NULL;
	json_t *res = NULL;
	run_scenario("bootline", "tag:boot", tests, &out, &res);
	assert_non_null(res);
	json_t *a = ts_json_result_or_fail(res, "chat", "anchored");
	json_t *b = ts_json_result_or_fail(res, "chat", "across");
	if (strcmp(ts_json_str(a, "status"), "fail") != 0 ||
	    !strstr(ts_json_str(a, "message"), "not reached"))
		fail_msg("anchored: %s: %s; orch said:\n%s", ts_json_str(a, "status"),
			 ts_json_str(a, "message"), out);
	if (strcmp(ts_json_str(b, "status"), "pass") != 0)
		fail_msg("across: %s: %s; orch said:\n%s", ts_json_str(b, "status"),
			 ts_json_str(b, "message"), out);
	json_decref(res);
	free(out);
}

/* A ready: line of 10000 bytes is one line: the step is ready at once. */
static void test_ready_on_long_line(void **state)
{
	char *tests = xasprintf("  - name: ready\n    roles: { server: loc, client: each }\n"
				"    steps:\n"
				"      - { on: server, run: sh %s ready, background: true,\n"
				"          ready: '^r{10000} listening$', ready_timeout: 20s }\n"
				"      - { on: client, run: 'true' }\n", F.gen);
	char *out = NULL;
	json_t *res = NULL;
	run_scenario("ready", "sshb", tests, &out, &res);
	assert_non_null(res);
	json_t *r = json_array_get(json_object_get(res, "results"), 0);
	if (strcmp(ts_json_str(r, "status"), "pass") != 0)
		fail_msg("ready: %s: %s; orch said:\n%s", ts_json_str(r, "status"),
			 ts_json_str(r, "message"), out);
	json_decref(res);
	TS_FREE(out, tests);
}

TS_MAIN(setup, teardown, test_json_line_over_8k, test_anchored_regex_sees_line_end,
	test_line_over_cap_reported, test_boot_phase_on_whole_console_line, test_ready_on_long_line)
