/*
 * `transfer:` through a file on the board and with the test's own SSH
 * algorithms, against OpenSSH and dropbear on loopback: the bytes land in
 * a file at the path (watched with inotify: created, written, closed,
 * removed; stdout.log names it), read back whole, a file that was there
 * is refused and kept, two ciphers in one scenario give two figures, each
 * naming the cipher and MAC that ran, with the board's CPU shares beside
 * them; `orch validate` refuses a cipher libssh does not know at
 * file:line:col.
 */
#include "testsupport.h"
#include "lab.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static struct lab *L;
static char *tmp;
static char *board_dir;   /* the boards' folder for transfers (they share this host) */

static int group_setup(void **state)
{
	if (lab_group_up(&L, "127.0.228", 1, 1, false) < 0)
		return -1;
	tmp = ts_orch_dir("transfer-path");
	board_dir = xasprintf("%s/board", tmp);
	mkdir(board_dir, 0777);
	chmod(board_dir, 0777);
	free(lab_write_inventory(L, tmp, "inv.yaml", LAB_PORT_KEY,
				 "boards:\n"
				 "  tp-ossh: { ssh: { host: %s.1 } }\n"
				 "  tp-drop: { ssh: { host: %s.200 } }\n",
				 L->base, L->base));
	return 0;
}

static int group_teardown(void **state)
{
	lab_group_down(&L);
	ts_rmrf(tmp);
	TS_FREE(tmp, board_dir);
	return 0;
}

/* orch -v run of a scenario on boards; its output in *out. */
static json_t *run(const char *name, const char *boards, const char *tests, int want_rc,
		   char **out)
{
	return ts_orch_run_tests(tmp, name, boards, tests, "-v", want_rc, out);
}

static json_t *passed(json_t *res, const char *board, const char *test)
{
	json_t *r = ts_json_result_or_fail(res, board, test);
	if (strcmp(ts_json_str(r, "status"), "pass") != 0)
		fail_msg("%s %s: %s: %s", board, test, ts_json_str(r, "status"),
			 ts_json_str(r, "message"));
	return r;
}

static double metric(json_t *r, const char *name)
{
	json_t *m = json_object_get(json_object_get(r, "metrics"), name);
	if (!m)
		fail_msg("no metric %s", name);
	return json_number_value(json_object_get(m, "value"));
}

/* What happened in board_dir while the watch was on: files created, closed
 * after writing and deleted, counted. */
struct dir_events {
	int created, closed_written, deleted;
	char name[NAME_MAX + 1];
};

static void read_events(int fd, struct dir_events *ev)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (poll(&p, 1, 0) > 0) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (char *q = buf; q < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)q;
			if (e->len && (e->mask & IN_CREATE)) {
				ev->created++;
				snprintf(ev->name, sizeof(ev->name), "%s", e->name);
			}
			ev->closed_written += !!(e->mask & IN_CLOSE_WRITE);
			ev->deleted += !!(e->mask & IN_DELETE);
			q += sizeof(*e) + e->len;
		}
	}
}

static void assert_dir_empty(void)
{
	char *ls = NULL;
	assert_int_equal(ts_run(&ls, "ls -A '%s'", board_dir), 0);
	if (*ls)
		fail_msg("left on the board: %s", ls);
	free(ls);
}

/* Up writes a file in the folder (the file system sees it made, written,
 * closed and removed), down reads it back whole; on both servers. */
static void test_bytes_land_at_path(void **state)
{
	const char *boards[] = { "tp-ossh", "tp-drop" };
	for (int i = 0; i < 2; i++) {
		int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		assert_true(fd >= 0);
		assert_true(inotify_add_watch(fd, board_dir, IN_CREATE | IN_CLOSE_WRITE |
					      IN_DELETE) >= 0);
		char *tests = xasprintf("  - name: fs\n"
					"    transfer: { size: 3000001, path: %s }\n", board_dir);
		char *out = NULL;
		json_t *res = run(i ? "fs-drop" : "fs-ossh", boards[i], tests, 0, &out);
		struct dir_events ev = { 0 };
		read_events(fd, &ev);
		close(fd);
		json_t *r = passed(res, boards[i], "fs");
		assert_true(metric(r, "transfer.up") > 0);
		assert_true(metric(r, "transfer.down") > 0);
		/* the board's CPU shares, split, beside each figure */
		double user = metric(r, "transfer.up_cpu_user"), sys = metric(r, "transfer.up_cpu_sys");
		assert_true(user >= 0 && sys >= 0 && metric(r, "transfer.up_cpu_iowait") >= 0);
		assert_true(user + sys <= metric(r, "transfer.up_syscpu") + 0.01);
		if (ev.created != 1 || ev.closed_written < 1 || ev.deleted != 1)
			fail_msg("%s: created %d, closed after writing %d, deleted %d", boards[i],
				 ev.created, ev.closed_written, ev.deleted);
		assert_true(strncmp(ev.name, "orch-transfer.", 14) == 0);
		char *log = xasprintf("%s/runs/%s/latest/%s/fs/stdout.log", tmp,
				      i ? "fs-drop" : "fs-ossh", boards[i]);
		char *text = ts_read_file(log);
		/* it names the file it wrote */
		char *named = xasprintf("file: %s/%s\n", board_dir, ev.name);
		if (!strstr(text, named))
			fail_msg("no '%s' in stdout.log:\n%s", named, text);
		free(named);
		TS_ASSERT_HAS(text, "up: 3000001 bytes in ", "down: 3000001 bytes in ");
		TS_FREE(text, log);
		assert_dir_empty();
		json_decref(res);
		TS_FREE(out, tests);
	}
}

/* A file that is there already is never written nor removed. */
static void test_existing_file_kept(void **state)
{
	char *file = xasprintf("%s/mine", board_dir);
	free(ts_write_file(board_dir, "mine", "keep me\n"));
	chmod(file, 0666);
	char *tests = xasprintf("  - name: fs\n    transfer: { size: 1000, path: %s }\n", file);
	char *out = NULL;
	json_t *res = run("exists", "tp-ossh, tp-drop", tests, 1, &out);
	for (const char *const *b = (const char *const[]){ "tp-ossh", "tp-drop", NULL }; *b; b++) {
		json_t *r = ts_json_result_or_fail(res, *b, "fs");
		assert_string_equal(ts_json_str(r, "status"), "fail");
		if (!strstr(ts_json_str(r, "message"), "exists on the board"))
			fail_msg("%s: %s", *b, ts_json_str(r, "message"));
	}
	char *kept = ts_read_file(file);
	assert_string_equal(kept, "keep me\n");
	free(kept);
	unlink(file);
	json_decref(res);
	TS_FREE(out, tests, file);
}

/* Two tests, two ciphers (and MACs): two figures, each naming what ran. */
static void test_two_ciphers_two_figures(void **state)
{
	char *tests = xasprintf(
		"  - name: ctr\n"
		"    transfer: { size: 2MiB, direction: up, path: %s, ciphers: aes128-ctr,\n"
		"                macs: hmac-sha2-256 }\n"
		"  - name: chacha\n"
		"    transfer: { size: 2MiB, direction: up, path: %s,\n"
		"                ciphers: chacha20-poly1305@openssh.com }\n", board_dir, board_dir);
	char *out = NULL;
	json_t *res = run("ciphers", "tp-ossh, tp-drop", tests, 0, &out);
	for (const char *const *b = (const char *const[]){ "tp-ossh", "tp-drop", NULL }; *b; b++) {
		json_t *ctr = passed(res, *b, "ctr"), *chacha = passed(res, *b, "chacha");
		assert_true(metric(ctr, "transfer.up") > 0);
		assert_true(metric(chacha, "transfer.up") > 0);
		const char *a = ts_json_str(ctr, "implementation");
		const char *c = ts_json_str(chacha, "implementation");
		if (!a || strcmp(a, "SSH cipher aes128-ctr, MAC hmac-sha2-256") != 0)
			fail_msg("%s ctr: implementation %s", *b, a ? a : "(none)");
		if (!c || !strstr(c, "SSH cipher chacha20-poly1305@openssh.com"))
			fail_msg("%s chacha: implementation %s", *b, c ? c : "(none)");
	}
	/* the reports show which is which */
	char *path = xasprintf("%s/runs/ciphers/latest/summary.txt", tmp);
	char *text = ts_read_file(path);
	if (!strstr(text, "implementation: tp-drop,tp-ossh ctr: SSH cipher aes128-ctr"))
		fail_msg("summary.txt:\n%s", text);
	TS_FREE(text, path);
	assert_dir_empty();
	json_decref(res);
	TS_FREE(out, tests);
}

/* validate refuses a cipher libssh does not know, where it is written. */
static void test_validate_refuses_cipher(void **state)
{
	char *sc = ts_write_file(tmp, "badcipher.yaml",
				 "name: bad\ninventory: inv.yaml\nboards: [tp-ossh]\ntests:\n"
				 "  - name: x\n"
				 "    transfer: { size: 1M, ciphers: [aes128-ctr, blowfish-cbc] }\n");
	char *out = NULL;
	int rc = ts_run(&out, "%s validate %s 2>&1", ORCH_BIN, sc);
	assert_int_equal(rc, 2);
	char *want = xasprintf("%s:6:49: error: unknown cipher 'blowfish-cbc'", sc);
	if (!strstr(out, want))
		fail_msg("wanted '%s' in:\n%s", want, out);
	TS_FREE(want, out, sc);
}

TS_MAIN(group_setup, group_teardown, test_bytes_land_at_path, test_existing_file_kept,
	test_two_ciphers_two_figures, test_validate_refuses_cipher)
