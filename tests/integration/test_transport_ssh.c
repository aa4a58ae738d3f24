/*
 * The ssh transport against a loopback lab of real servers (tests/lab/sshd-lab.sh):
 * three OpenSSH boards, one that takes passwords, one dropbear board, on
 * 127.0.21.x. Run as root (the lab user `orchlab`, the password board).
 */
#include "lab.h"
#include "testsupport.h"
#include "ts_collect.h"
#include "transport/transport.h"
#include "transport/transport_ssh.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
/* ASan's quarantine keeps freed buffers resident, which would hide whether
 * streaming output really keeps memory flat. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=1";
}
#endif

#define LAB_BASE "127.0.21"

static struct lab *lab;

static int group_setup(void **state)
{
	return lab_group_up(&lab, LAB_BASE, 3, 1, true);
}

static int group_teardown(void **state)
{
	return lab_group_down(&lab);
}

static void test_exec_output_and_exit(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 1));
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo hello; echo 'it''s' \"$0\" >/dev/null; printf world",
					 10000, -1, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_false(st.timed_out);
	assert_string_equal(strbuf_str(&c.out), "hello\nworld");
	assert_string_equal(transport_describe(tr), "orchlab@" LAB_BASE ".1:2222");
	ts_collect_release(&c);

	struct ts_collect c2 = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo out; echo err >&2; exit 3", 10000, -1, &c2, &st),
			 0);
	assert_int_equal(st.exit_code, 3);
	assert_string_equal(strbuf_str(&c2.out), "out\n");
	assert_string_equal(strbuf_str(&c2.err), "err\n");
	ts_collect_release(&c2);

	/* One session, many channels. */
	for (int i = 0; i < 20; i++) {
		struct ts_collect c3 = { 0 };
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "echo %d", i);
		assert_int_equal(ts_collect_exec(tr, cmd, 10000, -1, &c3, &st), 0);
		assert_int_equal(st.exit_code, 0);
		assert_int_equal(atoi(strbuf_str(&c3.out)), i);
		ts_collect_release(&c3);
	}
	transport_free(tr);
}

static void test_capture(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 2));
	char *out = NULL;
	int code = -1;
	char err[256];
	assert_int_equal(transport_capture(tr, "id -un", 10000, 100, &out, &code, err, sizeof(err)), 0);
	assert_int_equal(code, 0);
	assert_string_equal(out, "orchlab\n");
	free(out);
	transport_free(tr);
}

static void check_timeout_kills_group(struct ssh_target t, int n)
{
	struct transport *tr = lab_connect_or_fail(t);
	struct ts_collect c = { 0 };
	struct transport_status st;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "echo started; sleep %d & sleep %d; echo never", n, n);
	assert_int_equal(ts_collect_exec(tr, cmd, 1500, -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	assert_string_equal(strbuf_str(&c.out), "started\n");
	ts_collect_release(&c);
	assert_int_equal(ts_count_sleepers(tr, n), 0);
	/* The session is still usable after a kill. */
	struct ts_collect c2 = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo alive", 10000, -1, &c2, &st), 0);
	assert_string_equal(strbuf_str(&c2.out), "alive\n");
	ts_collect_release(&c2);
	transport_free(tr);
}

static void test_timeout_kills_group(void **state)
{
	check_timeout_kills_group(lab_target(lab, LAB_OPENSSH, 1), 4321);
}

/* A timeout that expires before the wrapper's pid line arrived still kills
 * what the command started. */
static void test_timeout_before_pid_line(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 2));
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "sleep 4328", 1, -1, &c, &st), 0);
	assert_true(st.timed_out);
	assert_int_equal(st.exit_code, -1);
	ts_collect_release(&c);
	assert_int_equal(ts_count_sleepers(tr, 4328), 0);
	transport_free(tr);
}

static int stop_after_first(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	(void)stream;
	(void)data;
	(void)len;
	*(int *)ctx += 1;
	return -1;
}

static void test_stop_from_callback(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 3));
	int calls = 0;
	char err[256];
	struct transport_exec req = {
		.command = "echo x; sleep 4325", .timeout_ms = 30000, .stdin_fd = -1,
		.on_output = stop_after_first, .ctx = &calls,
	};
	struct transport_status st;
	assert_int_equal(transport_exec(tr, &req, &st, err, sizeof(err)), 0);
	assert_true(st.stopped);
	assert_int_equal(calls, 1);
	assert_int_equal(ts_count_sleepers(tr, 4325), 0);
	transport_free(tr);
}

static int interrupt_on_output(void *ctx, enum transport_stream stream, const char *data,
			       size_t len)
{
	(void)ctx;
	(void)stream;
	(void)data;
	(void)len;
	interrupt_request();
	return 0;
}

static void test_interrupt(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 3));
	char err[256];
	struct transport_exec req = {
		.command = "echo x; sleep 4326", .timeout_ms = 30000, .stdin_fd = -1,
		.on_output = interrupt_on_output,
	};
	struct transport_status st;
	assert_int_equal(transport_exec(tr, &req, &st, err, sizeof(err)), 0);
	interrupt_reset();
	assert_true(st.interrupted);
	assert_int_equal(ts_count_sleepers(tr, 4326), 0);
	transport_free(tr);
}

/* Pushes size bytes of pseudo-random data through `sha256sum` and compares. */
static void check_stdin_push(struct ssh_target t, size_t size)
{
	char *dir = ts_mkdtemp("stdin");
	char *path = xasprintf("%s/data", dir);
	char *expect = NULL;
	assert_int_equal(ts_run(NULL, "head -c %zu /dev/urandom > '%s'", size, path), 0);
	assert_int_equal(ts_run(&expect, "sha256sum < '%s' | cut -d' ' -f1", path), 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct transport *tr = lab_connect_or_fail(t);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "sha256sum | cut -d' ' -f1", 60000, fd, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c.out), expect);
	ts_collect_release(&c);
	close(fd);
	/* A command that ignores its stdin still finishes. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ts_collect c2 = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo ignored", 60000, fd, &c2, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c2.out), "ignored\n");
	ts_collect_release(&c2);
	close(fd);
	transport_free(tr);
	TS_FREE(expect, path);
	ts_rmrf_free(&dir);
}

static void test_stdin_push(void **state)
{
	check_stdin_push(lab_target(lab, LAB_OPENSSH, 2), 5u << 20);
}

/* stdin from a pipe whose writer is slow: output keeps flowing meanwhile. */
static void test_stdin_from_pipe(void **state)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (write(p[1], "a\n", 2) != 2)
			_exit(1);
		usleep(300000);
		if (write(p[1], "b\n", 2) != 2)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 2));
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo first; cat", 10000, p[0], &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c.out), "first\na\nb\n");
	ts_collect_release(&c);
	close(p[0]);
	waitpid(pid, NULL, 0);
	transport_free(tr);
}

static void test_stdout_50mb_streams(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 1));
	struct ts_collect c = { .count_only = true };
	struct transport_status st;
	lab_reset_hwm();
	long rss_before = lab_vm_kib("VmRSS");
	assert_int_equal(ts_collect_exec(tr, "head -c 52428800 /dev/zero", 60000, -1, &c, &st), 0);
	long hwm = lab_vm_kib("VmHWM");
	assert_int_equal(st.exit_code, 0);
	assert_int_equal(c.out_bytes, 52428800);
	print_message("rss before %ld KiB, peak during %ld KiB\n", rss_before, hwm);
	assert_true(rss_before > 0 && hwm > 0);
	assert_true(hwm - rss_before < 20 * 1024);
	ts_collect_release(&c);
	transport_free(tr);
}

static char *wrong_known_hosts(const char *dir, int board, int key_of)
{
	/* board's address with the key of another board */
	char *out = NULL;
	char *path = xasprintf("%s/known_hosts.wrong", dir);
	assert_int_equal(ts_run(&out, "k=$(grep '^\\[%s.%d\\]' '%s' | cut -d' ' -f2,3) && "
				"echo \"[%s.%d]:%d $k\" > '%s'", LAB_BASE, key_of, lab->known_hosts,
				LAB_BASE, board, LAB_PORT, path), 0);
	free(out);
	return path;
}

static void test_host_key_policies(void **state)
{
	char *dir = ts_mkdtemp("kh");
	char *wrong = wrong_known_hosts(dir, 1, 2);
	char err[512] = "";

	struct ssh_target t = lab_target(lab, LAB_OPENSSH, 1);
	t.known_hosts = wrong;
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("strict, changed: %s\n", err);
	/* the board, the expected key and the offered one, told apart */
	assert_non_null(strstr(err, "host key mismatch for board1 (" LAB_BASE ".1:2222)"));
	assert_non_null(strstr(err, wrong));
	const char *want = strstr(err, " expects ssh-ed25519 SHA256:");
	const char *got = strstr(err, "the server offers ssh-ed25519 SHA256:");
	assert_non_null(want);
	assert_non_null(got);
	assert_true(strncmp(want + 28, got + 37, 43) != 0);

	t.host_key = SSH_HOSTKEY_ACCEPT_NEW;   /* a changed key is refused even so */
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	TS_ASSERT_HAS(err, "host key mismatch");

	t.host_key = SSH_HOSTKEY_OFF;
	struct transport *tr = lab_connect_or_fail(t);
	transport_free(tr);

	char *fresh = xasprintf("%s/known_hosts.new", dir);
	t.known_hosts = fresh;
	t.host_key = SSH_HOSTKEY_STRICT;
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("strict, unknown: %s\n", err);
	assert_non_null(strstr(err, "host key for board1 (" LAB_BASE ".1:2222) is not in"));

	t.host_key = SSH_HOSTKEY_ACCEPT_NEW;
	tr = lab_connect_or_fail(t);
	transport_free(tr);
	char *text = ts_read_file(fresh);
	assert_non_null(text);
	assert_non_null(strstr(text, "[" LAB_BASE ".1]:2222 ssh-ed25519 ") ? text
			: (strstr(text, "|1|") ? text : NULL));
	free(text);
	/* now known: strict accepts it */
	t.host_key = SSH_HOSTKEY_STRICT;
	tr = lab_connect_or_fail(t);
	transport_free(tr);

	TS_FREE(fresh, wrong);
	ts_rmrf_free(&dir);
}

static void test_connection_refused(void **state)
{
	struct ssh_target t = lab_target(lab, LAB_OPENSSH, 1);
	t.port = 2223;
	char err[512] = "";
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("%s\n", err);
	assert_string_equal(err, "connect to board1 (" LAB_BASE ".1:2223): connection refused");
}

/* A server that accepts TCP but never says a word: the connect timeout applies. */
static void test_connect_timeout_and_interrupt(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(LAB_PORT) };
	inet_pton(AF_INET, LAB_BASE ".250", &sa.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	struct ssh_target t = lab_target(lab, LAB_OPENSSH, 1);
	t.name = "silent";
	t.host = LAB_BASE ".250";
	t.connect_timeout_ms = 700;
	char err[512] = "";
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("%s\n", err);
	assert_string_equal(err, "connect to silent (" LAB_BASE ".250:2222): timed out after 700 ms");

	t.connect_timeout_ms = 60000;
	interrupt_request();
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	interrupt_reset();
	assert_string_equal(err, "connect to silent (" LAB_BASE ".250:2222): interrupted");
	close(fd);
}

static void test_wrong_key(void **state)
{
	char *dir = ts_mkdtemp("key");
	assert_int_equal(ts_run(NULL, "ssh-keygen -q -t ed25519 -N '' -f '%s/other'", dir), 0);
	char *key = xasprintf("%s/other", dir);
	struct ssh_target t = lab_target(lab, LAB_OPENSSH, 2);
	t.identity = key;
	char err[512] = "";
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("%s\n", err);
	assert_non_null(strstr(err, "authentication to board2 (orchlab@" LAB_BASE
				    ".2:2222) failed: no accepted key"));
	free(key);
	ts_rmrf_free(&dir);
}

static void test_password(void **state)
{
	struct ssh_target t = lab_target(lab, LAB_PASSWORD, 1);
	assert_non_null(t.password);
	struct transport *tr = lab_connect_or_fail(t);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo pw", 10000, -1, &c, &st), 0);
	assert_string_equal(strbuf_str(&c.out), "pw\n");
	ts_collect_release(&c);
	transport_free(tr);

	char err[512] = "";
	t.password = "wrong";
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	print_message("%s\n", err);
	TS_ASSERT_HAS(err, "failed: no accepted key, password refused");

	/* A board that takes no passwords says so. */
	struct ssh_target k = lab_target(lab, LAB_OPENSSH, 1);
	k.identity = NULL;
	k.password = "whatever";
	assert_null(transport_ssh_new(&k, err, sizeof(err)));
	print_message("%s\n", err);
	TS_ASSERT_HAS(err, "failed: no accepted key, and the server does not take passwords");
}

static void test_dropbear(void **state)
{
	struct ssh_target t = lab_target(lab, LAB_DROPBEAR, 1);
	struct transport *tr = lab_connect_or_fail(t);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo db; echo e >&2; exit 4", 10000, -1, &c, &st), 0);
	assert_int_equal(st.exit_code, 4);
	assert_string_equal(strbuf_str(&c.out), "db\n");
	assert_string_equal(strbuf_str(&c.err), "e\n");
	ts_collect_release(&c);
	transport_free(tr);
	check_stdin_push(t, 1u << 20);
	check_timeout_kills_group(t, 4322);
}

static void test_ssh_config_alias(void **state)
{
	struct ssh_target t = {
		.name = "alias", .host = "lab2", .ssh_config = lab->ssh_config,
		.host_key = SSH_HOSTKEY_STRICT,
	};
	struct transport *tr = lab_connect_or_fail(t);
	assert_string_equal(transport_describe(tr), "orchlab@" LAB_BASE ".2:2222");
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo alias", 10000, -1, &c, &st), 0);
	assert_string_equal(strbuf_str(&c.out), "alias\n");
	ts_collect_release(&c);
	transport_free(tr);

	/* The inventory's port wins over the config's. */
	t.port = 2223;
	char err[512] = "";
	assert_null(transport_ssh_new(&t, err, sizeof(err)));
	assert_non_null(strstr(err, LAB_BASE ".2:2223): connection refused"));
}

static void test_proxy_command(void **state)
{
	struct ssh_target t = {
		.name = "proxied", .host = "labproxy", .ssh_config = lab->ssh_config,
		.host_key = SSH_HOSTKEY_STRICT,
	};
	struct transport *tr = lab_connect_or_fail(t);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo via proxy", 10000, -1, &c, &st), 0);
	assert_int_equal(st.exit_code, 0);
	assert_string_equal(strbuf_str(&c.out), "via proxy\n");
	ts_collect_release(&c);
	transport_free(tr);
}

static int board1_logins(void)
{
	char *out = NULL;
	ts_run(&out, "grep -c 'Accepted publickey' '%s/board1/daemon.log'", lab->dir);
	int n = out ? atoi(out) : -1;
	free(out);
	return n;
}

/* ProxyJump: libssh 0.10 runs `ssh -W` through board 1 (bin/ssh adds the lab's config). */
static void test_proxy_jump(void **state)
{
	char *old_path = xstrdup(getenv("PATH"));
	char *path = xasprintf("%s/bin:%s", lab->dir, old_path);
	setenv("PATH", path, 1);
	struct ssh_target t = {
		.name = "jumped", .host = "labjump", .ssh_config = lab->ssh_config,
		.host_key = SSH_HOSTKEY_STRICT,
	};
	char err[512] = "";
	int logins_before = board1_logins();
	struct transport *tr = transport_ssh_new(&t, err, sizeof(err));
	setenv("PATH", old_path, 1);
	TS_FREE(path, old_path);
	if (!tr)
		fail_msg("connect through ProxyJump: %s", err);
	assert_string_equal(transport_describe(tr), "orchlab@" LAB_BASE ".2:2222");
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(tr, "echo $SSH_CONNECTION", 10000, -1, &c, &st), 0);
	assert_non_null(strstr(strbuf_str(&c.out), " " LAB_BASE ".2 2222"));
	ts_collect_release(&c);
	/* and the way went through board 1: it logged the jump's login */
	assert_true(board1_logins() > logins_before);
	transport_free(tr);
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[128];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	int ppid = 0;
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');
		if (p)
			sscanf(p + 1, " %*c %d", &ppid);
	}
	fclose(f);
	return (pid_t)ppid;
}

/* The `sleep` of a killed session is orphaned to us (lab_up makes this
 * process a subreaper), or, on the command runner, its runner shell is:
 * kill the sleep, and reap our own child (the sleep or its shell). */
static void kill_orphaned_sleep(const char *cmdline)
{
	size_t want = strlen(cmdline) + 1 + strlen(cmdline + strlen(cmdline) + 1) + 1;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		char path[64], buf[128];
		pid_t ppid = parent_of(pid);
		pid_t ours = ppid == getpid() ? pid : ppid > 1 && parent_of(ppid) == getpid() ? ppid : 0;
		if (!ours)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		if (n == want && memcmp(buf, cmdline, want) == 0 && kill(pid, SIGKILL) == 0)
			waitpid(ours, NULL, 0);   /* a runner shell ends once its command did */
	}
	if (d)
		closedir(d);
}

static void test_lost_connection(void **state)
{
	struct transport *tr = lab_connect_or_fail(lab_target(lab, LAB_OPENSSH, 3));
	struct ts_collect c = { 0 };
	struct transport_status st;
	char err[512] = "";
	/* The shell's parent is the sshd process serving this connection. */
	struct transport_exec req = {
		.command = "kill -KILL $PPID; exec sleep 4327", .timeout_ms = 10000, .stdin_fd = -1,
		.on_output = ts_collect_output, .ctx = &c,
	};
	assert_int_equal(transport_exec(tr, &req, &st, err, sizeof(err)), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "board3 (" LAB_BASE ".3:2222)"));
	ts_collect_release(&c);
	/* The next command connects again. */
	struct ts_collect c1 = { 0 };
	assert_int_equal(ts_collect_exec(tr, "echo back", 10000, -1, &c1, &st), 0);
	assert_string_equal(strbuf_str(&c1.out), "back\n");
	ts_collect_release(&c1);
	transport_free(tr);
	kill_orphaned_sleep("sleep\0" "4327");
}

int main(void)
{
	transport_ssh_global_init();
	return TS_RUN_TESTS(group_setup, group_teardown, test_exec_output_and_exit, test_capture,
		   test_timeout_kills_group, test_timeout_before_pid_line, test_stop_from_callback,
		   test_interrupt, test_stdin_push, test_stdin_from_pipe, test_stdout_50mb_streams,
		   test_host_key_policies, test_connection_refused,
		   test_connect_timeout_and_interrupt, test_wrong_key, test_password, test_dropbear,
		   test_ssh_config_alias, test_proxy_command, test_proxy_jump,
		   test_lost_connection);
}
