/*
 * How push: moves bytes over SSH (127.0.171.x, an OpenSSH board and a
 * dropbear board with a 4 MiB receive window): the send window never
 * stalls a push to a server that acknowledges late (dropbear -W 4194304
 * sends its first window adjust only after more than orch's 384 KiB
 * arrived: without the doubling the push hangs until its timeout); the
 * inventory's `ciphers` is what the session negotiates; the part file never
 * outlives a push, whether it worked or failed. The `transfer:` test kind
 * measures both ways against OpenSSH and dropbear, bounded by the test's
 * timeout, leaving nothing running on the board.
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct lab *L;
static char *tmp;

static int group_setup(void **state)
{
	if (lab_group_up_with(&L, "LAB_DROPBEAR_ARGS", "-W 4194304", "127.0.171", 1, 1, false) < 0)
		return -1;
	tmp = ts_orch_dir("push-transfer");
	free(lab_write_inventory(L, tmp, "inv.yaml", LAB_PORT_KEY,
				 "boards:\n"
				 "  xf-ossh: { ssh: { host: %s.1 } }\n"
				 "  xf-chacha: { ssh: { host: %s.1, ciphers: chacha20-poly1305@openssh.com } }\n"
				 "  xf-drop: { ssh: { host: %s.200 } }\n",
				 L->base, L->base, L->base));
	char *big = xasprintf("%s/big.bin", tmp);
	assert_int_equal(ts_run(NULL, "head -c 8388608 /dev/urandom > '%s'", big), 0);
	free(big);
	return 0;
}

static int group_teardown(void **state)
{
	lab_down(L);
	return ts_rmrf_free(&tmp);
}

/* orch -v run of a one-test scenario on board; its output in *out. */
static json_t *run(const char *name, const char *board, const char *test, int want_rc,
		   char **out)
{
	return ts_orch_run_tests(tmp, name, board, test, "-v", want_rc, out);
}

static void board_sh(const char *host_alias, const char *cmd, char **out)
{
	assert_int_equal(ts_run(out, "ssh -F %s %s %s", L->ssh_config, host_alias, cmd), 0);
}

static void test_late_acks_do_not_stall(void **state)
{
	char *out = NULL;
	board_sh("labdropbear1", "rm -rf /tmp/xfer-push", NULL);
	json_t *res = run("late", "xf-drop",
			  "  - name: big\n"
			  "    timeout: 30s\n"
			  "    push: { src: big.bin, dest: /tmp/xfer-push/big.bin }\n"
			  "    run: cksum < /tmp/xfer-push/big.bin\n", 0, &out);
	json_t *r = ts_json_result_or_fail(res, "xf-drop", "big");
	assert_string_equal(ts_json_str(r, "status"), "pass");
	/* the whole 8 MiB within a few seconds, not at the timeout */
	assert_true(json_real_value(json_object_get(r, "duration_s")) < 10.0);
	char *want = NULL;
	assert_int_equal(ts_run(&want, "cksum < '%s/big.bin'", tmp), 0);
	char *log = xasprintf("%s/runs/late/latest/xf-drop/big/stdout.log", tmp);
	char *got = ts_read_file(log);
	assert_non_null(got);
	assert_string_equal(got, want);
	TS_FREE(got, log, want);
	json_decref(res);
	free(out);
}

static void test_ciphers_negotiated(void **state)
{
	char *out = NULL;
	json_t *res = run("cipher-default", "xf-ossh", "  - name: t\n    run: 'true'\n", 0, &out);
	TS_ASSERT_HAS(out, "xf-ossh: cipher aes128-gcm@openssh.com (to the board)");
	json_decref(res);
	free(out);
	res = run("cipher-chacha", "xf-chacha", "  - name: t\n    run: 'true'\n", 0, &out);
	assert_non_null(strstr(out, "xf-chacha: cipher chacha20-poly1305@openssh.com (to the "
				    "board)"));
	json_decref(res);
	free(out);
}

static void test_no_part_file_left(void **state)
{
	char *out = NULL, *ls = NULL;
	board_sh("lab1", "rm -rf /tmp/xfer-push", NULL);
	json_t *res = run("parts", "xf-chacha",
			  "  - name: ok\n"
			  "    push: { src: big.bin, dest: /tmp/xfer-push/ok.bin, mode: '0640' }\n"
			  "    run: stat -c %a /tmp/xfer-push/ok.bin\n"
			  "  - name: refused\n"
			  "    push: { src: big.bin, dest: /proc/xfer-push/no.bin }\n"
			  "    run: 'true'\n", 1, &out);
	json_t *r = ts_json_result_or_fail(res, "xf-chacha", "ok");
	assert_string_equal(ts_json_str(r, "status"), "pass");
	r = ts_json_result_or_fail(res, "xf-chacha", "refused");
	assert_string_equal(ts_json_str(r, "status"), "fail");
	const char *msg = ts_json_str(r, "message");
	if (!strstr(msg, "big.bin to xf-chacha:/proc/xfer-push/no.bin: "))
		fail_msg("message: %s", msg);
	char *log = xasprintf("%s/runs/parts/latest/xf-chacha/ok/stdout.log", tmp);
	char *mode = ts_read_file(log);
	assert_string_equal(mode, "640\n");
	TS_FREE(mode, log);
	board_sh("lab1", "'ls -a /tmp/xfer-push; ls /proc/xfer-push* 2>&1 | wc -l'", &ls);
	assert_string_equal(ls, ".\n..\nok.bin\n1\n");
	json_decref(res);
	TS_FREE(ls, out);
}

static void test_transfer_kind(void **state)
{
	char *out = NULL;
	json_t *res = run("rate", "xf-ossh, xf-drop",
			  "  - name: both\n"
			  "    transfer: 8MiB\n"
			  "    expect: { transfer.up: { min: 1MiB/s }, transfer.down: { min: 1MiB/s } }\n"
			  "  - name: odd\n"
			  "    transfer: { size: 100001, direction: down }\n", 0, &out);
	const char *boards[] = { "xf-ossh", "xf-drop" };
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, boards[i], "both");
		if (strcmp(ts_json_str(r, "status"), "pass") != 0)
			fail_msg("%s: %s", boards[i], ts_json_str(r, "message"));
		json_t *m = json_object_get(r, "metrics");
		for (int k = 0; k < 2; k++) {
			json_t *x = json_object_get(m, k ? "transfer.down" : "transfer.up");
			assert_non_null(x);
			assert_string_equal(ts_json_str(x, "unit"), "MiB/s");
			assert_true(json_number_value(json_object_get(x, "value")) > 1.0);
		}
		r = ts_json_result_or_fail(res, boards[i], "odd");
		assert_string_equal(ts_json_str(r, "status"), "pass");
		m = json_object_get(r, "metrics");
		assert_null(json_object_get(m, "transfer.up"));
		assert_non_null(json_object_get(m, "transfer.down"));
		char *log = xasprintf("%s/runs/rate/latest/%s/both/stdout.log", tmp, boards[i]);
		char *text = ts_read_file(log);
		assert_non_null(text);
		TS_ASSERT_HAS(text, "up: 8388608 bytes in ", "down: 8388608 bytes in ");
		TS_FREE(text, log);
	}
	json_decref(res);
	free(out);
}

/* A transfer far too big for its timeout fails at the timeout, and what
 * it ran on the board (dd) is gone. */
static void test_transfer_bounded(void **state)
{
	char *out = NULL;
	int64_t t0 = clock_mono_ms();
	json_t *res = run("slow", "xf-ossh, xf-drop",
			  "  - name: huge\n"
			  "    timeout: 2s\n"
			  "    transfer: { size: 64GiB, direction: down }\n", 1, &out);
	int64_t took = clock_mono_ms() - t0;
	for (int i = 0; i < 2; i++) {
		json_t *r = ts_json_result_or_fail(res, i ? "xf-drop" : "xf-ossh", "huge");
		assert_string_equal(ts_json_str(r, "status"), "fail");
		assert_non_null(strstr(ts_json_str(r, "message"),
				       "transfer from the board timed out"));
	}
	assert_true(took < 15000);
	/* this test's dd (other labs' commands run as the same user) */
	assert_int_equal(ts_run_until(300, 1, "pgrep -u %s -f 'dd if=/dev/zero bs=65536 count=1048576'",
				      L->user), 1);
	json_decref(res);
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_late_acks_do_not_stall, test_ciphers_negotiated,
	test_no_part_file_left, test_transfer_kind, test_transfer_bounded)
