/*
 * A real kernel booting in qemu as the lab board (tests/lab/qemu-board.sh):
 *   - execute_boot power-cycles it over its serial console: every phase is
 *     reached, in order, and orch's phase deltas agree with the kernel's own
 *     printk timestamps of the same lines (within 0.3 s: a correctness check,
 *     not a benchmark);
 *   - the serial transport logs in on the booted board's getty and runs
 *     commands;
 *   - a phase that never comes fails with the last phase and line seen.
 * Skipped, saying why, without qemu-system-x86_64 or a /boot/vmlinuz-*.
 */
#include "testsupport.h"
#include "ts_qemu.h"
#include "execute/execute.h"
#include "transport/transport_serial.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fx {
	struct ts_qemu q;
	struct board board;
	struct board_link link;
	bool booted;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	int port = 30000 + getpid() % 5000;
	if (ts_qemu_start(&f->q, "serial-qemu", "--ssh-port %d", port) < 0) {
		free(f);
		return -1;
	}
	struct board *b = &f->board;
	b->name = xstrdup("qemu");
	b->transport = TRANSPORT_KIND_SERIAL;
	b->serial.present = true;
	b->serial.port = xasprintf("%s/console", f->q.state);
	b->serial.baud = 115200;
	b->power.cycle = xasprintf("%s power cycle --state %s", f->q.script, f->q.state);
	board_link_init(&f->link, b, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (!f)
		return 0;
	board_link_release(&f->link);
	ts_qemu_stop(&f->q);
	TS_FREE(f->board.name, f->board.serial.port, f->board.power.cycle, f);
	return 0;
}

struct spec_src {
	const char *name;
	const char *until;
};

static void build_test(struct test *t, enum boot_trigger trig, int64_t timeout_ms,
		       const struct spec_src *src, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->name = xstrdup("boot");
	t->kind = TEST_BOOT;
	t->repeat = 1;
	t->timeout_ms = timeout_ms;
	t->boot.trigger = trig;
	t->boot.timeout_ms = timeout_ms;
	t->boot.phases = xcalloc(n, sizeof(*t->boot.phases));
	t->boot.n_phases = n;
	for (size_t i = 0; i < n; i++) {
		char err[128];
		t->boot.phases[i].name = xstrdup(src[i].name);
		t->boot.phases[i].until_src = xstrdup(src[i].until);
		assert_int_equal(orch_regex_compile(&t->boot.phases[i].until, src[i].until, err,
						    sizeof(err)), 0);
	}
}

static void free_test(struct test *t)
{
	for (size_t i = 0; i < t->boot.n_phases; i++) {
		TS_FREE(t->boot.phases[i].name, t->boot.phases[i].until_src);
		orch_regex_free(&t->boot.phases[i].until);
	}
	TS_FREE(t->boot.phases, t->name);
}

static void run_boot(struct fx *f, struct test *t, const char *sub, struct test_result *tr)
{
	struct plan_item item = { .board = &f->board, .test = t };
	char *dir = xasprintf("%s/%s", f->q.dir, sub);
	assert_int_equal(ts_run(NULL, "mkdir -p %s", dir), 0);
	struct exec_context ctx = { .item = &item, .link = &f->link, .test_dir = dir };
	memset(tr, 0, sizeof(*tr));
	tr->board = xstrdup("qemu");
	tr->test = xstrdup("boot");
	assert_int_equal(execute_boot(&ctx, tr), 0);
	free(dir);
}

/* The printk time in "[    3.614988] text", or -1. */
static double printk_time(const char *line)
{
	const char *p = line ? strchr(line, '[') : NULL;
	return p ? strtod(p + 1, NULL) : -1;
}

static void test_power_cycle_phases(void **state)
{
	struct fx *f = *state;
	static const struct spec_src phases[] = {
		{ "firmware", "Linux version" },
		{ "kernel", "Run /init" },
		{ "mount", "orch-lab: mounting" },
		{ "udev", "orch-lab: starting udev" },
		{ "services", "orch-lab: starting services" },
		{ "ready", "orch-lab: ready" },
		{ "login", "login:" },
	};
	struct test t;
	build_test(&t, BOOT_TRIGGER_POWER_CYCLE, 120000, phases, 7);
	struct test_result tr;
	run_boot(f, &t, "cycle", &tr);
	if (tr.status != STATUS_PASS)
		fail_msg("boot: %s: %s", result_status_name(tr.status), tr.message);
	f->booted = true;
	assert_int_equal(tr.n_phases, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_true(tr.phases[i].reached);
		assert_string_equal(tr.phases[i].name, phases[i].name);
		assert_true(tr.phases[i].duration_s >= 0);
		if (i > 0)
			assert_true(tr.phases[i].offset_s >= tr.phases[i - 1].offset_s);
	}
	/* orch's deltas against the kernel's clock, from "Run /init" to "ready"
	 * ("Linux version" is replayed late, when the serial console registers) */
	for (size_t i = 2; i < 6; i++) {
		double k0 = printk_time(tr.phases[1].line), k1 = printk_time(tr.phases[i].line);
		assert_true(k0 >= 0 && k1 >= 0);
		double kernel_delta = k1 - k0;
		double orch_delta = tr.phases[i].offset_s - tr.phases[1].offset_s;
		print_message("%-9s kernel %.6f s  orch %.6f s  diff %+.6f s\n", phases[i].name,
			      kernel_delta, orch_delta, orch_delta - kernel_delta);
		assert_true(orch_delta - kernel_delta < 0.3 && kernel_delta - orch_delta < 0.3);
	}
	assert_non_null(test_result_find_metric(&tr, "boot.kernel"));
	assert_non_null(test_result_find_metric(&tr, "boot.total"));
	char *log = xasprintf("%s/cycle/boot.log", f->q.dir);
	char *text = ts_read_file(log);
	assert_non_null(text);
	TS_ASSERT_HAS(text, "] orch-lab: starting services\n");
	TS_FREE(text, log);
	test_result_release(&tr);
	free_test(&t);
}

static void test_serial_login_on_board(void **state)
{
	struct fx *f = *state;
	if (!f->booted)
		fail_msg("the board did not boot in test_power_cycle_phases: nothing to log in to");
	struct serial_target tg = { .port = f->board.serial.port, .connect_timeout_ms = 60000 };
	char err[512];
	struct transport *t = transport_serial_new(&tg, "orchlab", "qemu", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	char *out = NULL;
	int code = -1;
	assert_int_equal(transport_capture(t, "cat /etc/hostname; uname -s", 30000, 256, &out,
					   &code, err, sizeof(err)), 0);
	assert_string_equal(out, "orch-lab\nLinux\n");
	assert_int_equal(code, 0);
	free(out);
	assert_int_equal(transport_capture(t, "ls /nonexistent", 30000, 256, &out, &code, err,
					   sizeof(err)), 0);
	assert_int_not_equal(code, 0);
	free(out);
	transport_free(t);
}

static void test_phase_never_reached(void **state)
{
	struct fx *f = *state;
	static const struct spec_src phases[] = {
		{ "never", "this line never appears on the console" },
	};
	struct test t;
	build_test(&t, BOOT_TRIGGER_NONE, 3000, phases, 1);
	struct test_result tr;
	run_boot(f, &t, "never", &tr);
	assert_int_equal(tr.status, STATUS_FAIL);
	assert_non_null(tr.message);
	TS_ASSERT_HAS(tr.message, "'never'", "no phase reached", "last line");
	assert_false(tr.phases[0].reached);
	test_result_release(&tr);
	free_test(&t);
}

TS_MAIN(setup, teardown, test_power_cycle_phases, test_serial_login_on_board,
	test_phase_never_reached)
