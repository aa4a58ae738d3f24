/*
 * The board link on a real booting board (tests/lab/qemu-board.sh, ssh on
 * 127.0.91.1): orch run as a user runs it.
 *   - a board that is down (powered off) for its first test errors there,
 *     is brought back by a later power-cycle boot test, and the test after
 *     it reconnects (link.reconnect recorded);
 *   - the nightly sequence on one board: ssh test, boot (power-cycle), ssh
 *     test, bench, boot (reboot over ssh), ssh test: every test passes,
 *     exit 0 (before the board link the third test failed with "connection
 *     ... lost" and the run exited 3).
 * Skipped, saying why, without qemu-system-x86_64 or a /boot/vmlinuz-*.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "ts_qemu.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SSH_ADDR "127.0.91.1"
#define SSH_PORT 2299

static struct ts_qemu board;

static int setup(void **state)
{
	*state = &board;
	if (ts_qemu_start(&board, "link-qemu", "--ssh-addr " SSH_ADDR " --ssh-port %d", SSH_PORT) < 0)
		return -1;
	char *keys = ts_qemu_board_yaml(&board, SSH_ADDR, SSH_PORT, "5s");
	char *inv = xasprintf("boards:\n  qemu:\n    arch: x86_64\n    workdir: /tmp/orch\n%s", keys);
	free(keys);
	ts_qemu_write_inventory(&board, inv);
	free(inv);
	return 0;
}

#define BOOT_TEST(NAME, TRIGGER)                                                         \
	"  - name: " NAME "\n"                                                           \
	"    boot:\n"                                                                    \
	"      trigger: " TRIGGER "\n"                                                   \
	"      timeout: 150s\n"                                                          \
	"      phases:\n"                                                                \
	"        - { name: kernel, until: 'Linux version' }\n"                          \
	"        - { name: ready,  until: 'orch-lab: ready' }\n"

#define SSH_TEST(NAME)                                                                   \
	"  - name: " NAME "\n"                                                           \
	"    run: cat /proc/uptime\n"                                                    \
	"    timeout: 150s\n"                                                            \
	"    metrics: [ { name: uptime, regex: '^([0-9.]+)', unit: s } ]\n"

/* Runs the scenario body; returns orch's exit status and loads results.json. */
static int run_scenario(const char *name, const char *body, json_t **results)
{
	char *text = xasprintf("name: %s\ninventory: %s\nboards: [qemu]\ntests:\n%s", name,
			       board.inventory, body);
	char *sc = ts_write_file(board.dir, name, text);
	char *out = NULL;
	int code = ts_run(&out, "cd %s && %s run %s -q -o runs --bench-dir %s/remote-bench/bin 2>&1",
			  board.dir, ORCH_BIN, sc, ORCH_BINARY_DIR);
	print_message("%s\n", out ? out : "");
	char *path = xasprintf("%s/runs/%s/latest/results.json", board.dir, name);
	*results = json_load_file(path, 0, NULL);
	TS_FREE(path, out, sc, text);
	return code;
}

static const json_t *result_of(const json_t *res, const char *test)
{
	const json_t *tests = json_object_get(res, "results");
	size_t i;
	const json_t *t;
	json_array_foreach(tests, i, t)
		if (!strcmp(json_string_value(json_object_get(t, "test")), test))
			return t;
	fail_msg("no result for %s", test);
	return NULL;
}

static const char *status_of(const json_t *res, const char *test)
{
	return json_string_value(json_object_get(result_of(res, test), "status"));
}

static bool has_metric(const json_t *res, const char *test, const char *metric)
{
	const json_t *m = json_object_get(result_of(res, test), "metrics");
	return json_object_get(m, metric) != NULL;
}

/* Powered off (qemu starts paused): down for the first test, back after the boot. */
static void test_down_board_revived_by_power(void **state)
{
	json_t *res = NULL;
	int code = run_scenario("revive",
				SSH_TEST("first") BOOT_TEST("boot", "power-cycle") SSH_TEST("after"),
				&res);
	assert_non_null(res);
	assert_string_equal(status_of(res, "first"), "error");
	assert_string_equal(status_of(res, "boot"), "pass");
	assert_string_equal(status_of(res, "after"), "pass");
	assert_true(has_metric(res, "after", "link.reconnect"));
	assert_int_equal(code, 3);
	json_decref(res);
}

static void test_nightly_sequence(void **state)
{
	json_t *res = NULL;
	int code = run_scenario("nightly",
				SSH_TEST("ssh1") BOOT_TEST("boot-power", "power-cycle")
				SSH_TEST("ssh2")
				"  - name: cpu\n    bench: cpu\n    timeout: 150s\n"
				BOOT_TEST("boot-reboot", "reboot") SSH_TEST("ssh3"),
				&res);
	assert_non_null(res);
	const char *tests[] = { "ssh1", "boot-power", "ssh2", "cpu", "boot-reboot", "ssh3" };
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		print_message("%s: %s\n", tests[i], status_of(res, tests[i]));
		assert_string_equal(status_of(res, tests[i]), "pass");
	}
	assert_true(has_metric(res, "ssh2", "link.reconnect"));
	assert_int_equal(code, 0);
	json_decref(res);
}

TS_MAIN(setup, ts_qemu_group_down, test_down_board_revived_by_power, test_nightly_sequence)
