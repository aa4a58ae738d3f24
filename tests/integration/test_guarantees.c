/*
 * What orch guarantees (docs/guarantees.md), attacked through `orch run`
 * against real peers: an OpenSSH board of the loopback lab (127.0.110.x),
 * a serial console (socat running a login script and `sh -i` on a pty) and
 * local boards. Each test is an attack that once worked: hostile inventory
 * values injected into commands, secrets leaking into children and reports,
 * and so on.
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

#define LAB_BASE "127.0.110"
#define SECRET "s3cr3t-lie-password"

/* A console that echoes the password as it is typed, then hangs up. */
static const char echo_login_script[] =
	"user=\n"
	"while [ -z \"$user\" ]; do printf '\\r\\nfake-board login: '; read user || exit 1; done\n"
	"printf 'Password: '\n"
	"read pw || exit 1; sleep 0.3; exit 0\n";

struct fx {
	struct lab *lab;
	char *dir;
	char *inventory;
	char *console;        /* pty of the quiet console (password not echoed) */
	char *echo_console;   /* pty of a console that echoes the password */
	pid_t socat[2];
	char *pwned;          /* what an injected command would create */
};

static struct fx F;

/* The quiet console logs in again after each logout, as a getty would. */
static int start_console(const char *name, bool echo, char **link, pid_t *pid)
{
	char *login = ts_console_login_script("fake-board", SECRET);
	int rc = ts_console_start(F.dir, name, echo ? echo_login_script : login, link, pid);
	free(login);
	return rc;
}

static int setup(void **state)
{
	ts_require_tool("socat", "apt-get install socat");
	if (lab_group_up(&F.lab, LAB_BASE, 1, 0, false) < 0)
		return -1;
	F.dir = ts_mkdtemp("guarantees");
	F.pwned = xasprintf("/tmp/orch-lie-pwned.%ld", (long)getpid());
	if (start_console("console", false, &F.console, &F.socat[0]) < 0 ||
	    start_console("echo-console", true, &F.echo_console, &F.socat[1]) < 0)
		return -1;
	F.inventory = lab_write_inventory(
		F.lab, F.dir, "rack.yaml", "connect_timeout: 5s",
		"  workdir: /tmp/orch-lie-work.%ld\n"
		"boards:\n"
		"  sshb: { arch: x86_64, tags: [c], ssh: { host: " LAB_BASE ".1, port: %d } }\n"
		"  loc: { local: true, tags: [c, l] }\n"
		"  ser: { tags: [c], transport: serial,\n"
		"         serial: { port: %s, login_user: root, password_env: ORCH_LIE_SECRET } }\n"
		"  echoser: { tags: [e], transport: serial,\n"
		"         serial: { port: %s, login_user: root, password_env: ORCH_LIE_SECRET } }\n"
		"  evil: { tags: [evil], ssh: { port: 1,\n"
		"          host: \"$(touch %s.1)`touch %s.2`'\\\"; touch %s.3; \\\"'\\ntouch %s.4\" } }\n",
		(long)getpid(), LAB_PORT, F.console, F.echo_console, F.pwned, F.pwned, F.pwned,
		F.pwned);
	return 0;
}

static int teardown(void **state)
{
	ts_stop(&F.socat[0]);
	ts_stop(&F.socat[1]);
	lab_down(F.lab);
	ts_run(NULL, "rm -rf /tmp/orch-lie-work.%ld '%s'.*", (long)getpid(), F.pwned);
	ts_rmrf(F.dir);
	TS_FREE(F.dir, F.inventory, F.console, F.echo_console, F.pwned);
	return 0;
}

/* Runs scenario NAME (tests after the header) on the boards matching
 * selector; returns orch's exit code; *out: its output, *results: the
 * parsed results.json (NULL if none). env: "VAR=value ..." or "". */
static int run_scenario(const char *name, const char *selector, const char *env,
			const char *tests, char **out, json_t **results)
{
	char *sc = ts_rack_scenario(F.dir, name, selector, "timeout: 30s", tests);
	int rc = ts_run(out, "ORCH_LIE_SECRET='" SECRET "' %s %s run %s -o %s/runs", env, ORCH_BIN,
			sc, F.dir);
	if (results)
		*results = ts_orch_results(F.dir, name);
	free(sc);
	return rc;
}

static char *log_of(const char *scenario, const char *board, const char *test, const char *log)
{
	char *path = xasprintf("%s/runs/%s/latest/%s/%s/%s", F.dir, scenario, board, test, log);
	char *text = ts_read_file(path);
	free(path);
	if (text) {   /* a console turns \n into \r\n */
		char *w = text;
		for (char *r = text; *r; r++)
			if (*r != '\r')
				*w++ = *r;
		*w = '\0';
	}
	return text;
}

static void assert_not_pwned(void)
{
	for (int i = 1; i <= 4; i++) {
		char *p = xasprintf("%s.%d", F.pwned, i);
		if (access(p, F_OK) == 0)
			fail_msg("injected command ran: %s exists", p);
		free(p);
	}
}

/* A hostile inventory host used as {server.host} unquoted, inside "..." and
 * inside '...', on an ssh, a serial and a local client: each receives the
 * exact value and nothing of it runs. */
static void test_hostile_host_is_never_code(void **state)
{
	const char *tests =
		"  - name: inject\n"
		"    roles: { server: evil, client: each }\n"
		"    steps:\n"
		"      - on: client\n"
		"        run: printf '[%s]' {server.host} \"{server.host}\" 'x{server.host}y'\n";
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("inject", "tag:c", "", tests, &out, &res);
	assert_not_pwned();
	char *v = xasprintf("$(touch %s.1)`touch %s.2`'\"; touch %s.3; \"'\ntouch %s.4", F.pwned,
			    F.pwned, F.pwned, F.pwned);
	char *want = xasprintf("[%s][%s][x%sy]", v, v, v);
	const char *boards[] = { "sshb", "loc", "ser" };
	for (size_t i = 0; i < 3; i++) {
		char *got = log_of("inject", boards[i], "inject", "stdout.log");
		if (!got || !strstr(got, want))
			fail_msg("%s received %s, want %s; orch said:\n%s", boards[i],
				 got ? got : "(no log)", want, out);
		free(got);
	}
	assert_int_equal(rc, 0);
	TS_FREE(want, v, out);
	json_decref(res);
}

/* {board.*} works in a plain run: test, on every transport. */
static void test_board_fields_in_plain_run(void **state)
{
	const char *tests =
		"  - name: fields\n"
		"    run: echo \"<{board.name}>\" '<{board.port}>' ={board.arch}=\n";
	char *out = NULL;
	int rc = run_scenario("fields", "tag:c", "", tests, &out, NULL);
	if (rc != 0)
		fail_msg("orch exited %d:\n%s", rc, out);
	const char *boards[] = { "sshb", "loc", "ser" };
	for (size_t i = 0; i < 3; i++) {
		char *got = log_of("fields", boards[i], "fields", "stdout.log");
		char *want = xasprintf("<%s> <", boards[i]);
		if (!got || !strstr(got, want) || strstr(got, "{board."))
			fail_msg("%s printed %s", boards[i], got ? got : "(no log)");
		TS_FREE(want, got);
	}
	free(out);
}

/* No password_env value reaches a local board's test: not in its
 * environment, not in orch's /proc/PID/environ; orch itself dumps no core,
 * and the test gets the core limit orch was started with. */
static void test_password_not_inherited(void **state)
{
	const char *tests =
		"  - name: env\n"
		"    run: env; echo; tr '\\0' '\\n' </proc/$PPID/environ; echo;"
		" grep -i 'core file' /proc/$PPID/limits; echo \"child core $(ulimit -c)\"\n";
	char *out = NULL;
	int rc = run_scenario("env", "tag:l", "", tests, &out, NULL);
	if (rc != 0)
		fail_msg("orch exited %d:\n%s", rc, out);
	char *got = log_of("env", "loc", "env", "stdout.log");
	assert_non_null(got);
	char *env_end = strstr(got, "\n\n");   /* `env` ends at the first empty line */
	assert_non_null(env_end);
	*env_end = '\0';
	if (strstr(got, SECRET) || strstr(env_end + 1, SECRET) || strstr(got, "ORCH_LIE_SECRET"))
		fail_msg("the password reached the test:\n%s\n%s", got, env_end + 1);
	*env_end = '\n';
	if (!strstr(got, "Max core file size        0 "))
		fail_msg("orch may dump core:\n%s", got);
	char *mine = NULL;
	ts_run(&mine, "echo \"child core $(ulimit -c)\"");
	mine[strcspn(mine, "\n")] = '\0';
	if (!strstr(got, mine))
		fail_msg("the test did not get the core limit back (%s):\n%s", mine, got);
	TS_FREE(mine, got, out);
}

/* A console echoing the password: no report or message shows it. */
static void test_echoed_password_not_in_reports(void **state)
{
	const char *tests = "  - name: echo\n    run: 'true'\n";
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("echo", "tag:e", "", tests, &out, &res);
	assert_int_equal(rc, 3);
	if (strstr(out, SECRET))
		fail_msg("orch printed the password:\n%s", out);
	const char *files[] = { "results.json", "junit.xml", "summary.txt", "report.html",
				"run.json" };
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *path = xasprintf("%s/runs/echo/latest/%s", F.dir, files[i]);
		char *text = ts_read_file(path);
		if (!text)
			fail_msg("no %s", path);
		if (strstr(text, SECRET))
			fail_msg("%s holds the password", path);
		TS_FREE(text, path);
	}
	assert_non_null(strstr(out, "Password:"));   /* the console text up to the prompt */
	char *grep = NULL;
	ts_run(&grep, "grep -rl '" SECRET "' %s/runs/echo/ || true", F.dir);
	if (grep && *grep)
		fail_msg("files holding the password: %s", grep);
	TS_FREE(grep, out);
	json_decref(res);
}

/* An identity file others may read is refused, as OpenSSH does. */
static void test_unprotected_identity_refused(void **state)
{
	char *key = xasprintf("%s/open_key", F.dir);
	ts_run(NULL, "cp '%s' '%s' && chmod 644 '%s'", F.lab->identity, key, key);
	char *inv = xasprintf("boards:\n  k: { tags: [k], ssh: { host: " LAB_BASE ".1, port: %d,"
			      " user: %s, identity: %s, known_hosts: %s } }\n", LAB_PORT,
			      F.lab->user, key, F.lab->known_hosts);
	free(ts_write_file(F.dir, "keyrack.yaml", inv));
	char *sc = ts_write_file(F.dir, "key.yaml", "name: key\ninventory: keyrack.yaml\n"
				 "tests:\n  - { name: k, run: 'true' }\n");
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	if (rc != 3 || !strstr(out, "UNPROTECTED PRIVATE KEY FILE"))
		fail_msg("orch exited %d:\n%s", rc, out);
	free(out);
	ts_run(NULL, "chmod 600 '%s'", key);
	rc = ts_run(&out, "%s run %s -o %s/runs", ORCH_BIN, sc, F.dir);
	if (rc != 0)
		fail_msg("with mode 600, orch exited %d:\n%s", rc, out);
	TS_FREE(out, sc, inv, key);
}

/* Bytes that are not UTF-8 are kept: the message is there, readable, with
 * its exact bytes in message_base64; a metric after a NUL is found. */
static void test_bytes_kept_as_they_came(void **state)
{
	const char *tests =
		"  - name: latin1\n"
		"    run: printf 'caf\\351\\n' >&2; exit 1\n"
		"  - name: nul\n"
		"    run: |\n      printf 'junk\\000 rate: 42\\n'\n"
		"    metrics: [{ name: rate, regex: 'rate: ([0-9]+)' }]\n";
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("bytes", "tag:l", "", tests, &out, &res);
	assert_int_equal(rc, 1);
	assert_non_null(res);
	json_t *results = json_object_get(res, "results");
	json_t *latin1 = json_array_get(results, 0), *nul = json_array_get(results, 1);
	const char *msg = ts_json_str(latin1, "message");
	if (!strstr(msg, "caf\xEF\xBF\xBD"))
		fail_msg("message '%s'; orch said:\n%s", msg, out);
	const char *b64 = ts_json_str(latin1, "message_base64");
	char *dec = NULL;
	ts_run(&dec, "printf '%%s' '%s' | base64 -d | od -An -tx1 | tr -d ' \\n'", b64);
	if (!dec || !strstr(dec, "636166e9"))
		fail_msg("message_base64 %s decodes to %s", b64, dec ? dec : "?");
	free(dec);
	if (strcmp(ts_json_str(nul, "status"), "pass") != 0)
		fail_msg("metric after a NUL not found: %s", ts_json_str(nul, "message"));
	char *one = xasprintf("%s/runs/bytes/latest/loc/latin1/result.json", F.dir);
	char *text = ts_read_file(one);
	if (!text || !strstr(text, "message_base64"))
		fail_msg("%s has no message_base64", one);
	TS_FREE(text, one, out);
	json_decref(res);
}

/* A runaway test cannot fill the disk: its log is cut at log_limit, the
 * cut said in the log and in the result; metrics still see every line. */
static void test_logs_capped(void **state)
{
	const char *tests =
		"  - name: flood\n"
		"    log_limit: 1MiB\n"
		"    run: |\n      yes | head -c 8000000; echo 'rate: 7'\n"
		"    metrics: [{ name: rate, regex: 'rate: ([0-9]+)' }]\n";
	char *out = NULL;
	json_t *res = NULL;
	int rc = run_scenario("flood", "tag:l", "", tests, &out, &res);
	if (rc != 0)
		fail_msg("orch exited %d:\n%s", rc, out);
	json_t *r = json_array_get(json_object_get(res, "results"), 0);
	assert_true(json_is_true(json_object_get(r, "log_cut")));
	char *path = xasprintf("%s/runs/flood/latest/loc/flood/stdout.log", F.dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	if (st.st_size > (1 << 20) + 200)
		fail_msg("stdout.log is %lld bytes", (long long)st.st_size);
	char *tail = NULL;
	ts_run(&tail, "tail -c 200 '%s'", path);
	TS_ASSERT_HAS(tail, "[orch: log limit of 1048576 bytes reached; ");
	TS_FREE(tail, path, out);
	json_decref(res);
	const char *bad = "  - { name: b, run: 'true', log_limit: lots }\n";
	rc = run_scenario("badlimit", "tag:l", "", bad, &out, NULL);
	assert_int_equal(rc, 2);
	TS_ASSERT_HAS(out, "invalid size for 'log_limit', found 'lots'");
	free(out);
}

TS_MAIN(setup, teardown, test_hostile_host_is_never_code, test_board_fields_in_plain_run,
	test_password_not_inherited, test_echoed_password_not_in_reports,
	test_unprotected_identity_refused, test_bytes_kept_as_they_came, test_logs_capped)
