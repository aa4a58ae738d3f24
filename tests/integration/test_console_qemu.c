/*
 * A serial-only board that boots for real: the qemu lab board started with
 * no network device (tests/lab/qemu-board.sh start --no-net), reached by
 * `orch run` only through its console:
 *   - a boot test (power cycle) with `metrics:` read from the console lines:
 *     the kernel's BogoMIPS and its version, recorded like any metric;
 *   - `bench: cpu` on the same board: remote-bench pushed over the console
 *     (gzip + base64 through busybox), run, its metrics recorded;
 *   - the console is locked while the run holds it (a second orch is told
 *     who has it) and free again afterwards.
 * Skipped, saying why, without qemu-system-x86_64 or a /boot/vmlinuz-*.
 */
#include "testsupport.h"
#include "ts_qemu.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BENCH_DIR ORCH_BINARY_DIR "/remote-bench/bin"

static struct ts_qemu board;

static int setup(void **state)
{
	*state = &board;
	return ts_qemu_start(&board, "console-qemu", "--no-net");
}

static void test_serial_only_board(void **state)
{
	struct ts_qemu *f = *state;
	char *inv_text = xasprintf(
		"boards:\n"
		"  sq:\n"
		"    arch: x86_64\n"
		"    transport: serial\n"
		"    workdir: /tmp/orch\n"
		"    serial: { port: %s/console, baud: 115200, user: root,\n"
		"              password_env: ORCH_LAB_QEMU_PASSWORD }\n"
		"    power: { cycle: '%s power cycle --state %s' }\n"
		"  sqtwin:\n"   /* the same console under another name: past the board lock */
		"    serial: { port: %s/console }\n",
		f->state, f->script, f->state, f->state);
	char *inv = ts_write_file(f->dir, "inv.yaml", inv_text);
	char *sc = ts_write_file(
		f->dir, "serial-only.yaml",
		"name: serialonly\n"
		"tests:\n"
		"  - name: boot\n"
		"    boot:\n"
		"      trigger: power-cycle\n"
		"      timeout: 150s\n"
		"      phases:\n"
		"        - { name: kernel, until: 'Run /init' }\n"
		"        - { name: login, until: 'login:' }\n"
		"    metrics:\n"
		"      - { name: bogomips, unit: BogoMIPS,\n"
		"          regex: '(?|Calibrating delay loop.*?([0-9.]+) BogoMIPS|"
		"Calculated BogoMips:? *([0-9.]+)|Total of [0-9]+ processors activated "
		"\\(([0-9.]+) BogoMIPS)' }\n"
		"      - { name: kernel.version, regex: 'Linux version ([0-9]+\\.[0-9]+)' }\n"
		"  - name: cpu\n"
		"    bench: cpu\n"
		"    timeout: 5m\n"
		"    args: [--time, 0.1, --repeats, 1]\n");
	char *log = xasprintf("%s/run.log", f->dir);
	char *cmd = xasprintf("ORCH_LAB_QEMU_PASSWORD=orchlab exec %s run %s -i %s -l sq -o %s/runs "
			      "--bench-dir %s", ORCH_BIN, sc, inv, f->dir, BENCH_DIR);
	pid_t run = ts_spawn(cmd, log);

	/* once the run holds the console (its pid in the UUCP lock), a second
	 * orch is refused */
	char *console = xasprintf("%s/console", f->state);
	char real[4096];
	assert_non_null(realpath(console, real));
	assert_true(strncmp(real, "/dev/pts/", 9) == 0);
	char *lockfile = xasprintf("/var/lock/LCK..pts_%s", real + 9);
	bool held = false;
	for (int i = 0; i < 300 && !held; i++) {
		char *t = ts_read_file(lockfile);
		held = t && atol(t) == (long)run;
		free(t);
		if (!held)
			usleep(50000);
	}
	assert_true(held);
	char *out = NULL;
	int rc = ts_run(&out, "%s boot sqtwin -i %s --trigger none --timeout 1s -o %s/second",
			ORCH_BIN, inv, f->dir);
	print_message("second: %s", out);
	assert_int_equal(rc, 3);
	char want[64];
	snprintf(want, sizeof(want), "in use by pid %ld (", (long)run);
	assert_non_null(strstr(out, want));
	free(out);

	int st = 0;
	for (int i = 0; i < 3000 && waitpid(run, &st, WNOHANG) != run; i++)
		usleep(100000);
	char *text = ts_read_file(log);
	print_message("%s", text ? text : "(no log)");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	TS_ASSERT_HAS(text, "over the console");
	free(text);

	char *res_path = xasprintf("%s/runs/serialonly/latest/results.json", f->dir);
	char *res = ts_read_file(res_path);
	assert_non_null(res);
	TS_ASSERT_HAS(res, "\"bogomips\"", "\"kernel.version\"", "\"console.push\"",
		"\"cpu.bogomips\"");
	TS_FREE(res, res_path);
	assert_false(ts_file_exists(lockfile));   /* free again after the run */
	TS_FREE(lockfile, console, log, cmd, sc, inv, inv_text);
}

TS_MAIN(setup, ts_qemu_group_down, test_serial_only_board)
