/*
 * Metrics from a boot test's console lines (`metrics:` on a `boot:` test):
 * a Bifferboard-style transcript typed into a socat pty pair while `orch
 * run` listens (trigger none). The BogoMIPS of "Calculated BogoMips: 56.32"
 * and the kernel version of "Linux version 2.6.37" land in results.json as
 * metrics; an expectation on one of them is checked like any other.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char scenario[] =
	"name: bootmetrics\n"
	"tests:\n"
	"  - name: boot\n"
	"    boot: { trigger: none, timeout: 30s, phases: [{ name: login, until: 'login:' }] }\n"
	"    metrics:\n"
	"      - { name: bogomips, unit: BogoMIPS,\n"
	"          regex: '(?|Calibrating delay loop.*?([0-9.]+) BogoMIPS|Calculated BogoMips:? "
	"*([0-9.]+))' }\n"
	"      - { name: kernel.version, regex: 'Linux version ([0-9]+\\.[0-9]+)' }\n"
	"    expect: { bogomips: { min: %s } }\n";

static const char transcript[] =
	"Linux version 2.6.37 (build@host) #1 Tue Mar 1 2011\\n"
	"Calibrating delay loop (skipped) preset value.. \\n"
	"Calculated BogoMips: 56.32\\n"
	"Freeing unused kernel memory: 104k freed\\n"
	"biffer login: ";

/* Runs the scenario with the expectation min, typing the transcript once
 * the run holds the console; returns orch's exit status, *res the results. */
static int run_once(const char *dir, const char *min, char **res)
{
	char *a = xasprintf("%s/A", dir), *b = xasprintf("%s/B", dir);
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s pty,raw,echo=0,link=%s", a, b);
	pid_t socat = ts_spawn(cmd, NULL);
	free(cmd);
	for (int i = 0; i < 250 && (!ts_file_exists(a) || !ts_file_exists(b)); i++)
		usleep(20000);
	char real[PATH_MAX];
	assert_non_null(realpath(a, real));
	char *lockfile = xasprintf("/var/lock/LCK..pts_%s", real + 9);
	char *inv_text = xasprintf("boards:\n  biffer:\n    serial: { port: %s }\n", a);
	char *inv = ts_write_file(dir, "inv.yaml", inv_text);
	char *sc_text = xasprintf(scenario, min);
	char *sc = ts_write_file(dir, "bootmetrics.yaml", sc_text);
	char *log = xasprintf("%s/run.log", dir);
	cmd = xasprintf("exec %s run %s -i %s -o %s/runs", ORCH_BIN, sc, inv, dir);
	pid_t run = ts_spawn(cmd, log);
	/* the run holds the console: its lock, then the port open */
	TS_WAIT_UNTIL(5000, ts_file_exists(lockfile) && ts_pid_has_open(run, real));
	assert_true(ts_pid_has_open(run, real));
	assert_int_equal(ts_run(NULL, "printf '%s' > %s", transcript, b), 0);
	int st = 0;
	for (int i = 0; i < 1500 && waitpid(run, &st, WNOHANG) != run; i++)
		usleep(20000);
	char *text = ts_read_file(log);
	print_message("%s", text ? text : "");
	free(text);
	char *res_path = xasprintf("%s/runs/bootmetrics/latest/results.json", dir);
	*res = ts_read_file(res_path);
	ts_stop(&socat);
	TS_FREE(res_path, cmd, log, sc, sc_text, inv, inv_text, lockfile, a, b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_console_metrics(void **state)
{
	char *dir = ts_mkdtemp("boot-metrics");
	char *res = NULL;
	assert_int_equal(run_once(dir, "50", &res), 0);
	assert_non_null(res);
	TS_ASSERT_HAS(res, "\"bogomips\"", "56.32", "\"kernel.version\"", "2.6");
	free(res);
	/* an expectation on a console metric fails the test */
	assert_int_equal(run_once(dir, "100", &res), 1);
	TS_ASSERT_HAS(res, "bogomips");
	free(res);
	ts_rmrf_free(&dir);
}

int main(void)
{
	ts_require_tool("socat", "apt-get install socat");
	return TS_RUN_TESTS(NULL, NULL, test_console_metrics);
}
