/*
 * Boot phases on the kernel's clock: the qemu lab board (no network)
 * power-cycled by a boot test whose phases end at the kernel's own lines
 * ("Linux version", "Run /init") and at the lab initramfs's lines, which go
 * through /dev/kmsg and so carry printk stamps too. The kernel replays what
 * it logged before its console was enabled in one burst, "Linux version"
 * among it: on arrival times the kernel phase came out 0.17-0.20 s short.
 * Every stamped phase must lie within 10 ms of its printk stamp (placed on
 * orch's clock at the first one), be marked "printk", and "login:" (no
 * stamp) keeps its arrival. Skipped, saying why, without qemu or a kernel.
 */
#include "testsupport.h"
#include "ts_qemu.h"
#include "result/result.h"
#include "result/result_json.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct ts_qemu board;

static int setup(void **state)
{
	*state = &board;
	return ts_qemu_start(&board, "boot-printk", "--no-net");
}

static double printk_s(const char *line)
{
	double s = -1;
	if (!line || sscanf(line, "[ %lf]", &s) != 1)
		return -1;
	return s;
}

static void test_phases_on_printk(void **state)
{
	struct ts_qemu *f = *state;
	char *inv_text = xasprintf(
		"boards:\n"
		"  bq:\n"
		"    serial: { port: %s/console, baud: 115200 }\n"
		"    power: { cycle: '%s power cycle --state %s' }\n",
		f->state, f->script, f->state);
	char *inv = ts_write_file(f->dir, "inv.yaml", inv_text);
	char *sc = ts_write_file(
		f->dir, "printk.yaml",
		"name: printk\n"
		"tests:\n"
		"  - name: boot\n"
		"    boot:\n"
		"      trigger: power-cycle\n"
		"      timeout: 150s\n"
		"      phases:\n"
		"        - { name: firmware, until: 'Linux version' }\n"
		"        - { name: kernel, until: 'Run /init' }\n"
		"        - { name: mount, until: 'orch-lab: mounting' }\n"
		"        - { name: udev, until: 'orch-lab: starting udev' }\n"
		"        - { name: services, until: 'orch-lab: starting services' }\n"
		"        - { name: login, until: 'login:' }\n");
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -i %s -o %s/runs", ORCH_BIN, sc, inv, f->dir);
	print_message("%s", out ? out : "");
	assert_int_equal(rc, 0);
	char *dir = xasprintf("%s/runs/printk/latest", f->dir);
	struct run_result run = { 0 };
	char err[256];
	assert_int_equal(run_result_load(dir, &run, err, sizeof(err)), 0);
	const struct test_result *tr = run_result_find(&run, "bq", "boot");
	assert_non_null(tr);
	assert_int_equal(tr->n_phases, 6);
	double k0 = printk_s(tr->phases[0].line), at0 = tr->phases[0].offset_s;
	assert_true(k0 >= 0);
	int stamped = 0;
	for (size_t i = 0; i < tr->n_phases; i++) {
		const struct phase_result *ph = &tr->phases[i];
		double k = printk_s(ph->line);
		print_message("%-9s at %.6f s  printk %.6f  %s\n", ph->name, ph->offset_s, k,
			      ph->kernel_clock ? "printk" : "console");
		assert_true(ph->reached);
		if (k < 0) {
			assert_false(ph->kernel_clock);
			continue;
		}
		stamped++;
		assert_true(ph->kernel_clock);
		assert_true(fabs((ph->offset_s - at0) - (k - k0)) <= 0.010);
	}
	assert_int_equal(stamped, 5);
	assert_false(tr->phases[5].kernel_clock);   /* "login:" is getty's, unstamped */
	run_result_release(&run);
	TS_FREE(dir, out, sc, inv, inv_text);
}

TS_MAIN(setup, ts_qemu_group_down, test_phases_on_printk)
