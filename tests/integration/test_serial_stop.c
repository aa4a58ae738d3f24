/*
 * Stopping a serial console command that ignores TERM, INT and HUP, on a
 * real pty board (tests/lab/pty-line, the board's shell its controlling
 * terminal, as a getty's): on a timeout, one Ctrl-C and two Ctrl-C of
 * orch's the command's process group is gone from the machine, the result
 * says what the console shell confirmed, and the next command runs at once
 * on the same console (no new login, no 30 s prompt wait); through `orch
 * run` on a busybox board, the message of the timed-out test and the next
 * test starting at once.
 */
#include "testsupport.h"
#include "ts_pty_board.h"
#include "ts_json.h"
#include "transport/transport.h"
#include "transport/transport_serial.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int setup(void **state)
{
	if (ts_pty_board_setup(state, "serial-stop") < 0)
		return -1;
	return 0;
}

/* The bytes of path (NULs kept), at most size - 1, NUL-terminated: the
 * length read, 0 when it cannot be read. */
static size_t read_raw(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, buf, size - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	return (size_t)r;
}

/* Processes on this machine, zombies aside, whose command line holds needle. */
static int live_processes(const char *needle)
{
	DIR *d = opendir("/proc");
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char *path = xasprintf("/proc/%s/cmdline", e->d_name);
		char cmd[4096];
		size_t len = read_raw(path, cmd, sizeof(cmd));
		free(path);
		path = xasprintf("/proc/%s/stat", e->d_name);
		char *stat = ts_read_file(path);
		free(path);
		const char *st = stat ? strrchr(stat, ')') : NULL;
		if (len && st && st[2] != 'Z') {
			/* the arguments are NUL-separated: the first two suffice here */
			size_t l0 = strlen(cmd);
			if (strstr(cmd, needle) || (l0 + 1 < len && strstr(cmd + l0 + 1, needle)))
				n++;
		}
		free(stat);
	}
	closedir(d);
	return n;
}

/* Waits up to 3 s for no live process with needle: the count left. */
static int processes_left(const char *needle)
{
	int64_t dl = deadline_in_ms(3000);
	int n;
	while ((n = live_processes(needle)) > 0 && !deadline_expired(dl))
		usleep(50000);
	return n;
}

struct seen {
	struct strbuf out;
	atomic_int started;
};

static int collect(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	(void)stream;
	struct seen *s = ctx;
	strbuf_append(&s->out, data, len);
	if (strstr(strbuf_str(&s->out), "started"))
		atomic_store(&s->started, 1);
	return 0;
}

static struct transport *open_console(struct ts_pty_board *f)
{
	struct serial_target tg = { .port = f->port, .connect_timeout_ms = 15000 };
	char err[256];
	struct transport *t = transport_serial_new(&tg, NULL, "ser1", err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	return t;
}

static int run(struct transport *t, const char *cmd, int64_t timeout_ms, struct seen *s,
	       struct transport_status *st, int64_t *took_ms)
{
	char err[512];
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .on_output = collect, .ctx = s };
	strbuf_reset(&s->out);
	atomic_store(&s->started, 0);
	int64_t t0 = clock_mono_ms();
	int r = transport_exec(t, &req, st, err, sizeof(err));
	*took_ms = clock_mono_ms() - t0;
	if (r < 0)
		print_message("exec: %s\n", err);
	print_message("%s: %s (%lld ms)\n", cmd, st->stop_note, (long long)*took_ms);
	return r;
}

/* The console answers a command at once after a stop. */
static void assert_usable_at_once(struct transport *t, struct seen *s)
{
	struct transport_status st;
	int64_t took;
	assert_int_equal(run(t, "echo after", 10000, s, &st, &took), 0);
	assert_string_equal(strbuf_str(&s->out), "after\n");
	assert_int_equal(st.exit_code, 0);
	assert_true(took < 3000);
}

static void timeout_stops(struct ts_pty_board *f, const char *shell)
{
	ts_pty_board_start(f, "b", 0, shell);
	struct transport *t = open_console(f);
	struct seen s = { .out = STRBUF_INIT };
	struct transport_status st;
	int64_t took;
	assert_int_equal(run(t, "trap '' TERM INT HUP; echo started; sleep 1007", 1500, &s, &st,
			     &took), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	TS_ASSERT_HAS(st.stop_note, "ignored SIGTERM for 1 s and ended on SIGKILL",
		"its process group", "the console shell's prompt came back");
	assert_int_equal(processes_left("1007"), 0);
	assert_true(took < 1500 + 4000);
	assert_usable_at_once(t, &s);

	/* a command that does not ignore TERM ends on it */
	assert_int_equal(run(t, "echo started; sleep 1017", 1000, &s, &st, &took), 0);
	assert_true(st.timed_out);
	TS_ASSERT_HAS(st.stop_note, "ended on SIGTERM");
	assert_int_equal(processes_left("1017"), 0);
	assert_usable_at_once(t, &s);
	strbuf_release(&s.out);
	transport_free(t);
}

static void test_timeout_dash(void **state)
{
	timeout_stops(*state, "/bin/dash -i");
}

static void test_timeout_busybox(void **state)
{
	timeout_stops(*state, "/bin/busybox sh -i");
}

struct signaller {
	struct seen *s;
	int count;
};

/* Once the command printed "started": count SIGINTs to this process, 300
 * ms apart (closer ones count as one, util/interrupt.h). */
static void *send_ctrl_c(void *arg)
{
	struct signaller *sg = arg;
	int64_t dl = deadline_in_ms(10000);
	while (!atomic_load(&sg->s->started) && !deadline_expired(dl))
		usleep(10000);
	for (int i = 0; i < sg->count; i++) {
		if (i)
			usleep(300000);
		kill(getpid(), SIGINT);
	}
	return NULL;
}

static void ctrl_c_stops(struct ts_pty_board *f, int count, const char *expect)
{
	ts_pty_board_start(f, "b", 0, "/bin/busybox sh -i");
	struct transport *t = open_console(f);
	struct seen s = { .out = STRBUF_INIT };
	struct transport_status st;
	int64_t took;
	interrupt_reset();
	interrupt_install();
	struct signaller sg = { .s = &s, .count = count };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, send_ctrl_c, &sg), 0);
	int r = run(t, "trap '' TERM INT HUP; echo started; sleep 1027", 60000, &s, &st, &took);
	pthread_join(th, NULL);
	bool hurry = interrupt_hurry();
	interrupt_reset();
	signal(SIGINT, SIG_DFL);
	assert_int_equal(r, 0);
	assert_true(st.interrupted);
	assert_int_equal(count >= 2, hurry);
	assert_non_null(strstr(st.stop_note, expect));
	TS_ASSERT_HAS(st.stop_note, "the console shell's prompt came back");
	assert_int_equal(processes_left("1027"), 0);
	assert_usable_at_once(t, &s);
	strbuf_release(&s.out);
	transport_free(t);
}

static void test_one_ctrl_c(void **state)
{
	ctrl_c_stops(*state, 1, "ignored SIGTERM for 1 s and ended on SIGKILL");
}

static void test_two_ctrl_c(void **state)
{
	/* the second: Ctrl-\, KILL without the grace */
	ctrl_c_stops(*state, 2, "was killed (SIGKILL)");
}

/* Seconds since midnight of results.json's "start" of r (same day). */
static double start_s(json_t *r)
{
	int y, mo, d, h, mi;
	double sec;
	assert_int_equal(sscanf(ts_json_str(r, "start"), "%d-%d-%dT%d:%d:%lfZ", &y, &mo, &d, &h,
				&mi, &sec), 6);
	return h * 3600.0 + mi * 60.0 + sec;
}

/* orch run: the timed-out test's message says what was verified, and the
 * next test on the console starts at once. */
static void test_orch_run_next_test_at_once(void **state)
{
	struct ts_pty_board *f = *state;
	ts_pty_board_start(f, "ser1", 0, "/bin/busybox sh -i");
	char *inv_text = xasprintf("boards:\n"
				   "  ser1:\n"
				   "    transport: serial\n"
				   "    workdir: %s/wd\n"
				   "    serial: { port: %s }\n", f->dir, f->port);
	char *inv = ts_write_file(f->dir, "inv.yaml", inv_text);
	char *sc = ts_write_file(f->dir, "stop.yaml",
				 "name: stop\n"
				 "tests:\n"
				 "  - name: stubborn\n"
				 "    run: \"trap '' TERM INT HUP; sleep 1037\"\n"
				 "    timeout: 2s\n"
				 "  - name: next\n"
				 "    run: echo next\n");
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -i %s -o %s/runs", ORCH_BIN, sc, inv, f->dir);
	print_message("%s", out);
	assert_int_equal(rc, 1);
	char *dir = xasprintf("%s/runs/stop/latest", f->dir);
	json_t *root = ts_json_load_in(dir, "results.json");
	assert_non_null(root);
	json_t *stub = ts_json_result_or_fail(root, "ser1", "stubborn");
	json_t *next = ts_json_result_or_fail(root, "ser1", "next");
	const char *msg = ts_json_str(stub, "message");
	print_message("stubborn: %s\n", msg);
	assert_string_equal(ts_json_str(stub, "status"), "fail");
	TS_ASSERT_HAS(msg, "timed out after 2s; its process group");
	assert_non_null(strstr(msg, "ignored SIGTERM for 1 s and ended on SIGKILL; the console "
				    "shell's prompt came back"));
	assert_int_equal(processes_left("1037"), 0);
	assert_string_equal(ts_json_str(next, "status"), "pass");
	/* at once: no 5 s resync and 30 s wait for a login prompt in between */
	double gap = start_s(next) - start_s(stub) -
		     json_number_value(json_object_get(stub, "duration_s"));
	print_message("next test started %.3f s after the stubborn one ended\n", gap);
	assert_true(gap < 3.0);
	json_decref(root);
	TS_FREE(dir, out, inv_text, inv, sc);
}

TS_MAIN(setup, ts_pty_board_teardown, test_timeout_dash, test_timeout_busybox, test_one_ctrl_c,
	test_two_ctrl_c, test_orch_run_next_test_at_once)
