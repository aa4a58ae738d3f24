/* Board facts: the built-in command run by /bin/sh (through the local
 * transport, as on a board), the scenario's own facts, and the parser. */
#include "testsupport.h"
#include "execute/command.h"
#include "execute/facts.h"
#include "transport/transport_local.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void test_gather_local(void **state)
{
	char n1[] = "wireguard", c1[] = "echo '  v0.0.20180202  '; echo second line";
	char n2[] = "silent", c2[] = "true";
	char n3[] = "failing", c3[] = "exit 3";
	char n4[] = "quoted", c4[] = "printf '%s\\n' \"it's (a) $HOME\"";
	struct fact_spec extra[] = {
		{ .name = n1, .command = c1 },
		{ .name = n2, .command = c2 },
		{ .name = n3, .command = c3 },
		{ .name = n4, .command = c4 },
	};
	struct transport *t = transport_local_new();
	struct board_facts bf = { .board = xstrdup("here") };
	char err[256] = "";
	assert_int_equal(facts_gather(t, NULL, extra, 4, &bf, err, sizeof(err)), 0);
	struct utsname u;
	uname(&u);
	assert_string_equal(board_facts_get(&bf, "kernel"), u.release);
	assert_string_equal(board_facts_get(&bf, "arch"), u.machine);
	char cores[16];
	snprintf(cores, sizeof(cores), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(board_facts_get(&bf, "cores"), cores);
	assert_non_null(board_facts_get(&bf, "os"));
	assert_non_null(board_facts_get(&bf, "cpu"));
	assert_non_null(strstr(board_facts_get(&bf, "memory"), " MiB"));
	assert_non_null(strstr(board_facts_get(&bf, "libc"), "glibc 2."));
	assert_true(board_facts_get(&bf, "mhz") || board_facts_get(&bf, "bogomips"));
	assert_string_equal(board_facts_get(&bf, "wireguard"), "v0.0.20180202");
	assert_null(board_facts_get(&bf, "silent"));
	assert_null(board_facts_get(&bf, "failing"));
	char *want = xasprintf("it's (a) %s", getenv("HOME") ? getenv("HOME") : "");
	assert_string_equal(board_facts_get(&bf, "quoted"), want);
	free(want);
	board_facts_release(&bf);
	transport_free(t);
}

static void test_parse(void **state)
{
	char n1[] = "wg", c1[] = "x";
	struct fact_spec extra[] = { { .name = n1, .command = c1 } };
	struct board_facts bf = { 0 };
	char *long_value = xmalloc(400);
	memset(long_value, 'x', 399);
	long_value[399] = '\0';
	char *out = xasprintf("noise line\nkernel=6.1.0\r\nkernel=second\nwg=%s\nbogus=1\n"
			      "cores=\nos= Debian GNU/Linux \nlibc=musl 1.2.3", long_value);
	facts_parse(out, extra, 1, &bf);
	assert_string_equal(board_facts_get(&bf, "kernel"), "6.1.0");
	assert_int_equal(strlen(board_facts_get(&bf, "wg")), FACTS_VALUE_MAX);
	assert_null(board_facts_get(&bf, "bogus"));
	assert_null(board_facts_get(&bf, "cores"));
	assert_string_equal(board_facts_get(&bf, "os"), "Debian GNU/Linux");
	assert_string_equal(board_facts_get(&bf, "libc"), "musl 1.2.3");
	TS_FREE(out, long_value);
	board_facts_release(&bf);
}

/* busybox sh and its applets (what small boards have) run the same command. */
static void test_busybox(void **state)
{
	if (access("/bin/busybox", X_OK) != 0) {
		fprintf(stderr, "no /bin/busybox (scripts/install-deps.sh qemu installs busybox-static)\n");
		fail();
	}
	char *cmd = facts_command(NULL, NULL, 0);
	char *dir = ts_mkdtemp("facts");
	char *script = ts_write_file(dir, "facts.sh", cmd);
	char *bin = xasprintf("%s/bin", dir);
	char *out = NULL;
	/* a PATH of busybox applets only */
	int rc = ts_run(&out, "mkdir -p '%s' && for a in uname awk tr getconf ls head; do "
			"ln -sf /bin/busybox '%s'/$a; done; PATH='%s' /bin/busybox sh '%s'",
			bin, bin, bin, script);
	assert_int_equal(rc, 0);
	struct board_facts bf = { 0 };
	facts_parse(out, NULL, 0, &bf);
	assert_non_null(board_facts_get(&bf, "kernel"));
	assert_non_null(board_facts_get(&bf, "cpu"));
	assert_non_null(board_facts_get(&bf, "memory"));
	assert_non_null(board_facts_get(&bf, "cores"));
	board_facts_release(&bf);
	free(out);
	ts_rmrf(dir);
	TS_FREE(dir, script, bin, cmd);
}

/* PATH shims that log each program the facts command starts, then run the
 * real one (or, with fake set, print fake for -m and -r). */
static char *shim_path(const char *dir, const char *log)
{
	static const char *const tools[] = { "uname", "awk", "tr", "getconf", "ls", "head",
					     "cut", "sed", "cat", "grep", "ldd", "wc", NULL };
	char *bin = xasprintf("%s/bin", dir);
	assert_int_equal(ts_run(NULL, "mkdir -p '%s'", bin), 0);
	for (size_t i = 0; tools[i]; i++) {
		char *text = xasprintf("#!/bin/sh\necho %s >>'%s'\n"
				       "PATH=/usr/bin:/bin exec %s \"$@\"\n", tools[i], log, tools[i]);
		char *p = ts_write_file(bin, tools[i], text);
		assert_int_equal(chmod(p, 0755), 0);
		TS_FREE(p, text);
	}
	return bin;
}

static size_t count_lines(const char *path)
{
	char *text = ts_read_file(path);
	size_t n = 0;
	for (const char *c = text; c && *c; c++)
		n += *c == '\n';
	free(text);
	return n;
}

/* 64 boards run the facts command at once on the first connect of a run:
 * a board's shell reads /proc itself and starts no program from PATH
 * (uname on kernels without /proc/sys/kernel/arch; glibc's own loader,
 * started by its path, tells the libc), not eight. */
static void test_programs_started(void **state)
{
	char *dir = ts_mkdtemp("facts-progs");
	char *log = xasprintf("%s/started", dir);
	char *bin = shim_path(dir, log);
	char *cmd = facts_command(NULL, NULL, 0);
	char *script = ts_write_file(dir, "facts.sh", cmd);
	char *out = NULL;
	assert_int_equal(ts_run(&out, "PATH='%s' /bin/sh '%s'", bin, script), 0);
	struct board_facts bf = { 0 };
	facts_parse(out, NULL, 0, &bf);
	struct utsname u;
	uname(&u);
	assert_string_equal(board_facts_get(&bf, "kernel"), u.release);
	assert_string_equal(board_facts_get(&bf, "arch"), u.machine);
	/* the same value getconf gives (which is now not started: glibc's
	 * loader, a program of its own, answers) */
	char *gc = NULL;
	assert_int_equal(ts_run(&gc, "getconf GNU_LIBC_VERSION"), 0);
	gc[strcspn(gc, "\n")] = '\0';
	assert_string_equal(board_facts_get(&bf, "libc"), gc);
	free(gc);
	size_t allowed = access("/proc/sys/kernel/arch", R_OK) == 0 ? 0 : 1;
	size_t started = count_lines(log);
	if (started > allowed) {
		char *which = ts_read_file(log);
		fprintf(stderr, "facts started %zu programs:\n%s", started, which);
		free(which);
	}
	assert_true(started <= allowed);
	board_facts_release(&bf);
	free(out);
	ts_rmrf(dir);
	TS_FREE(dir, log, bin, cmd, script);
}

/* cmd (freed) with /proc, /sys, /etc and /lib moved under root. */
static char *rooted(char *cmd, const char *root)
{
	static const char *const paths[] = { "/proc/", "/sys/", "/etc/os-release", "/lib/", "/lib64/",
					     "/lib32/", "/libx32/", NULL };
	struct strbuf sb = STRBUF_INIT;
	for (const char *c = cmd; *c;) {
		size_t i;
		for (i = 0; paths[i]; i++)
			if (strncmp(c, paths[i], strlen(paths[i])) == 0)
				break;
		if (paths[i]) {
			strbuf_printf(&sb, "%s%s", root, paths[i]);
			c += strlen(paths[i]);
		} else {
			strbuf_putc(&sb, *c++);
		}
	}
	free(cmd);
	return strbuf_detach(&sb);
}

/* The facts command with /proc, /sys, /etc and /lib moved under root. */
static char *facts_command_under(const char *root)
{
	return rooted(facts_command(NULL, NULL, 0), root);
}

/* A small ARM board seen through files: old-style cpuinfo (Processor,
 * Hardware, BogoMIPS, no MHz), no cpu/online and no kernel/arch (uname
 * answers), os-release with single quotes, a musl loader and no getconf;
 * dash and busybox sh both read it the way the old awk script did. */
static void test_small_arm_board(void **state)
{
	char *dir = ts_mkdtemp("facts-arm");
	char *log = xasprintf("%s/started", dir);
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p root/proc/sys/kernel root/etc "
				"root/lib bin && printf '%%s\\n' 5.10.110 >root/proc/sys/kernel/osrelease",
				dir), 0);
	free(ts_write_file(dir, "root/proc/cpuinfo",
			   "processor\t: 0\nProcessor\t: ARMv7 Processor rev 5 (v7l)\n"
			   "BogoMIPS\t: 38.40\n\nprocessor\t: 1\nBogoMIPS\t: 38.40\n\n"
			   "Hardware\t: BCM2835\nRevision\t: a21041\n"));
	free(ts_write_file(dir, "root/proc/meminfo",
			   "MemTotal:        1012348 kB\nMemFree:          512000 kB\n"));
	free(ts_write_file(dir, "root/etc/os-release",
			   "NAME='Buildroot'\nVERSION=\"2023.02 (it's lts)\"\nVERSION_ID=2023.02\n"));
	char *loader = ts_write_file(dir, "root/lib/ld-musl-armhf.so.1",
				     "#!/bin/sh\necho 'musl libc (armhf)' >&2\n"
				     "echo 'Version 1.2.3' >&2\necho 'Dynamic Program Loader' >&2\nexit 1\n");
	assert_int_equal(chmod(loader, 0755), 0);
	char *uname_text = xasprintf("#!/bin/sh\necho uname >>'%s'\n"
				     "case $1 in -m) echo armv7l;; *) echo wrong;; esac\n", log);
	char *uname_path = ts_write_file(dir, "bin/uname", uname_text);
	assert_int_equal(chmod(uname_path, 0755), 0);
	char *root = xasprintf("%s/root", dir);
	char *cmd = facts_command_under(root);
	char *script = ts_write_file(dir, "facts.sh", cmd);
	const char *shells[] = { "/bin/sh", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = NULL;
		if (i == 1)   /* busybox runs its own uname applet, not PATH's */
			free(ts_write_file(dir, "root/proc/sys/kernel/arch", "armv7l\n"));
		assert_int_equal(ts_run(&out, "PATH='%s/bin' %s '%s'", dir, shells[i], script), 0);
		struct board_facts bf = { 0 };
		facts_parse(out, NULL, 0, &bf);
		assert_string_equal(board_facts_get(&bf, "kernel"), "5.10.110");
		assert_string_equal(board_facts_get(&bf, "arch"), "armv7l");
		assert_string_equal(board_facts_get(&bf, "cpu"), "ARMv7 Processor rev 5 (v7l)");
		assert_string_equal(board_facts_get(&bf, "bogomips"), "38.40");
		assert_null(board_facts_get(&bf, "mhz"));
		assert_string_equal(board_facts_get(&bf, "cores"), "2");
		assert_string_equal(board_facts_get(&bf, "memory"), "988 MiB");
		assert_string_equal(board_facts_get(&bf, "os"), "Buildroot");
		assert_string_equal(board_facts_get(&bf, "os_version"), "2023.02 (its lts)");
		assert_string_equal(board_facts_get(&bf, "libc"), "musl 1.2.3");
		board_facts_release(&bf);
		free(out);
	}
	/* cpu/online wins over the count of processor lines, ranges and all */
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p root/sys/devices/system/cpu && "
				"echo 0-3,6 >root/sys/devices/system/cpu/online", dir), 0);
	char *out = NULL;
	assert_int_equal(ts_run(&out, "PATH='%s/bin' /bin/sh '%s'", dir, script), 0);
	struct board_facts bf = { 0 };
	facts_parse(out, NULL, 0, &bf);
	assert_string_equal(board_facts_get(&bf, "cores"), "5");
	board_facts_release(&bf);
	free(out);
	ts_rmrf(dir);
	TS_FREE(dir, log, loader, uname_text, uname_path, root, cmd, script);
}

/* strace's view of one run of script under root (dir/trace): the system
 * calls of the shell and what it starts, each file descriptor with its
 * path. */
static char *traced_run(const char *dir, const char *shell, const char *script)
{
	char *out = NULL;
	if (ts_run(NULL, "command -v strace >/dev/null") != 0)
		fail_msg("needs strace (scripts/install-deps.sh build)");
	assert_int_equal(ts_run(&out, "cd '%s' && strace -f -y -o trace -e trace=read,write,execve,clone,clone3,fork,vfork "
				"%s '%s'", dir, shell, script), 0);
	return out;
}

/* Lines of dir/trace holding all of the given words. */
static size_t trace_count(const char *dir, const char *w1, const char *w2)
{
	char *path = xasprintf("%s/trace", dir);
	char *text = ts_read_file(path);
	size_t n = ts_count_lines(text, w1, w2);
	TS_FREE(text, path);
	return n;
}

/* A 4-core ARM board of files under dir/root with a glibc older than
 * 2.34; cpu: its cpuinfo. */
static void arm_board_files(const char *dir, struct strbuf *cpu)
{
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p root/proc/sys/kernel root/etc root/lib "
				"root/sys/devices/system/cpu && echo 6.1.55 >root/proc/sys/kernel/osrelease && "
				"echo armv7l >root/proc/sys/kernel/arch && echo 0-3 >root/sys/devices/system/cpu/online && "
				": >root/lib/libc-2.31.so && : >root/lib/ld-linux-armhf.so.3", dir), 0);
	for (int i = 0; i < 4; i++)
		strbuf_printf(cpu, "processor\t: %d\nmodel name\t: ARMv7 Processor rev 4 (v7l)\n"
			      "BogoMIPS\t: 108.00\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 "
			      "tls vfpv4 idiva idivt vfpd32 lpae evtstrm crc32\nCPU implementer\t: 0x41\n"
			      "CPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xd03\n"
			      "CPU revision\t: 4\n\n", i);
	strbuf_puts(cpu, "Hardware\t: BCM2835\nRevision\t: a02082\nSerial\t\t: 00000000deadbeef\n");
	free(ts_write_file(dir, "root/proc/cpuinfo", strbuf_str(cpu)));
	free(ts_write_file(dir, "root/proc/meminfo", "MemTotal:         948304 kB\n"));
	free(ts_write_file(dir, "root/etc/os-release",
			   "NAME=\"Poky\"\nVERSION=\"4.0.9 (kirkstone)\"\nID=poky\nVERSION_ID=4.0.9\n"
			   "PRETTY_NAME=\"Poky 4.0.9 (kirkstone)\"\nHOME_URL=\"https://www.yoctoproject.org/\"\n"
			   "SUPPORT_URL=\"https://www.yoctoproject.org/community/\"\n"));
}

/* The facts of arm_board_files. */
static void assert_arm_board(const char *out)
{
	struct board_facts bf = { 0 };
	facts_parse(out, NULL, 0, &bf);
	assert_string_equal(board_facts_get(&bf, "libc"), "glibc 2.31");
	assert_string_equal(board_facts_get(&bf, "cpu"), "ARMv7 Processor rev 4 (v7l)");
	assert_string_equal(board_facts_get(&bf, "bogomips"), "108.00");
	assert_string_equal(board_facts_get(&bf, "cores"), "4");
	assert_string_equal(board_facts_get(&bf, "os"), "Poky");
	assert_string_equal(board_facts_get(&bf, "os_version"), "4.0.9 (kirkstone)");
	assert_string_equal(board_facts_get(&bf, "memory"), "926 MiB");
	board_facts_release(&bf);
}

/* What the facts cost a board, seen by strace on a 4-core ARM board of
 * files with a glibc older than 2.34: no program started at all (the
 * version is in libc-2.31.so's name; getconf was started before), the
 * lines written at once (one write: each is a wake-up and a packet of the
 * board's sshd; there were 10), cpuinfo read to the end of its first
 * block (it was read whole: no MHz on ARM) and os-release to VERSION. */
static void test_board_costs(void **state)
{
	char *dir = ts_mkdtemp("facts-cost");
	struct strbuf cpu = STRBUF_INIT;
	arm_board_files(dir, &cpu);
	char *root = xasprintf("%s/root", dir);
	char *cmd = facts_command_under(root);
	char *script = ts_write_file(dir, "facts.sh", cmd);
	const char *shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = traced_run(dir, shells[i], script);
		assert_arm_board(out);
		size_t execs = trace_count(dir, "execve(", NULL);
		size_t writes = trace_count(dir, "write(1", NULL);
		size_t cpu_reads = trace_count(dir, "read(", "/proc/cpuinfo>");
		size_t os_reads = trace_count(dir, "read(", "/etc/os-release>");
		print_message("%s: %zu programs, %zu writes, %zu reads of cpuinfo (%zu bytes), "
			      "%zu of os-release\n", shells[i], execs - 1, writes, cpu_reads, cpu.len,
			      os_reads);
		assert_int_equal(execs, 1);            /* the shell itself */
		assert_int_equal(writes, 1);
		assert_true(cpu_reads <= cpu.len / 4 + 1);
		assert_true(os_reads <= 45);
		free(out);
	}
	strbuf_release(&cpu);
	ts_rmrf(dir);
	TS_FREE(dir, root, cmd, script);
}

#define RIDE_END "\norch-prelude-end-0123456789abcdef\n"

/* A board's first test command with its facts riding on it, as
 * command_run sends it (command_prelude_text, inline), on the board of
 * test_board_costs: no process started and two writes, the facts with
 * the end line, then the command's own (the prelude ran in a subshell of
 * its own before, and wrote its lines and the end line apart: one process
 * and three writes). */
static void test_ride_costs(void **state)
{
	char *dir = ts_mkdtemp("facts-ride");
	struct strbuf cpu = STRBUF_INIT;
	arm_board_files(dir, &cpu);
	char *root = xasprintf("%s/root", dir);
	char *pre = rooted(facts_prelude(NULL), root);
	struct command_spec spec = { .command = "echo cmd", .prelude = pre, .prelude_inline = true };
	char *text = command_prelude_text(&spec, RIDE_END);
	char *script = ts_write_file(dir, "ride.sh", text);
	const char *shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = traced_run(dir, shells[i], script);
		char *end = strstr(out, RIDE_END);
		if (!end)
			fail_msg("%s: no end line in:\n%s", shells[i], out);
		assert_string_equal(end + strlen(RIDE_END), "cmd\n");
		*end = '\0';
		assert_arm_board(out);
		size_t forks = trace_count(dir, "clone", NULL) + trace_count(dir, "fork(", NULL);
		size_t writes = trace_count(dir, "write(1", NULL);
		print_message("%s: %zu processes started, %zu writes\n", shells[i], forks, writes);
		assert_int_equal(forks, 0);
		assert_int_equal(writes, 2);
		free(out);
	}
	strbuf_release(&cpu);
	ts_rmrf(dir);
	TS_FREE(dir, root, pre, text, script);
}

/* The work folder's file system: the longest mount point above its first
 * existing folder (a sibling mount that only shares the prefix does not
 * count), the device, and the disk's model from sysfs (a partition's
 * parent), in dash and busybox sh. */
static void test_workdir_fs(void **state)
{
	char *dir = ts_mkdtemp("facts-workdir");
	assert_int_equal(ts_run(NULL, "cd '%s' && mkdir -p root/proc root/sys/class/block/sda1 "
				"root/sys/class/block/device mnt/usb mnt/usbx/orch", dir), 0);
	char *mounts = xasprintf("/dev/root / ext4 rw 0 0\n/dev/sda1 %s/mnt/usb ext3 rw 0 0\n"
				 "tmpfs %s/mnt/usbx tmpfs rw 0 0\n", dir, dir);
	free(ts_write_file(dir, "root/proc/mounts", mounts));
	free(ts_write_file(dir, "root/sys/class/block/device/model", "Flash Disk      \n"));
	char *root = xasprintf("%s/root", dir);
	char *work = xasprintf("%s/mnt/usb/orch/not-made-yet", dir);
	char *cmd = rooted(facts_command(work, NULL, 0), root);
	char *script = ts_write_file(dir, "facts.sh", cmd);
	free(cmd);
	const char *shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *out = NULL;
		assert_int_equal(ts_run(&out, "%s '%s'", shells[i], script), 0);
		struct board_facts bf = { 0 };
		facts_parse(out, NULL, 0, &bf);
		if (!board_facts_get(&bf, "workdir_fs") ||
		    strcmp(board_facts_get(&bf, "workdir_fs"), "ext3") != 0)
			fail_msg("%s:\n%s", shells[i], out);
		assert_string_equal(board_facts_get(&bf, "workdir_device"), "/dev/sda1");
		assert_string_equal(board_facts_get(&bf, "workdir_model"), "Flash Disk");
		board_facts_release(&bf);
		free(out);
	}
	TS_FREE(script, work);
	/* this machine's own: what df says of the folder */
	struct transport *t = transport_local_new();
	struct board_facts bf = { .board = xstrdup("here") };
	char err[256] = "", *df = NULL;
	assert_int_equal(facts_gather(t, dir, NULL, 0, &bf, err, sizeof(err)), 0);
	assert_int_equal(ts_run(&df, "df --output=fstype,source '%s' | tail -n 1", dir), 0);
	char *want = xasprintf("%s %s\n", board_facts_get(&bf, "workdir_fs"),
			       board_facts_get(&bf, "workdir_device"));
	char *got = df;
	while (*got == ' ')
		got++;
	for (char *c = got; *c; c++)   /* df pads its columns */
		if (c[0] == ' ' && c[1] == ' ')
			memmove(c, c + 1, strlen(c));
	assert_string_equal(got, want);
	TS_FREE(want, df);
	board_facts_release(&bf);
	transport_free(t);
	TS_FREE(root, mounts);
	ts_rmrf_free(&dir);
}

/* The command after an inline prelude finds its shell as it would alone:
 * the same variables (bar PPID), no function, IFS, $? and open files. */
static void test_ride_leaves_no_trace(void **state)
{
	static const char cmd[] = "echo \"status=$?\"; set | grep -v -e '^PPID=' -e '^_='; "
				  "command -v orch_fp orch_fq orch_o; echo \"[$IFS]\"; "
				  "cd /proc/$$/fd && echo fds *";
	char *dir = ts_mkdtemp("facts-trace");
	char *pre = facts_prelude("/tmp/orch-no-such-folder/work");
	struct command_spec spec = { .command = cmd, .prelude = pre, .prelude_inline = true };
	char *text = command_prelude_text(&spec, RIDE_END);
	char *with = ts_write_file(dir, "with.sh", text);
	char *alone = ts_write_file(dir, "alone.sh", cmd);
	const char *shells[] = { "dash", "/bin/busybox sh" };
	for (size_t i = 0; i < 2; i++) {
		char *a = NULL, *w = NULL;
		assert_int_equal(ts_run(&a, "%s '%s' </dev/null", shells[i], alone), 0);
		assert_int_equal(ts_run(&w, "%s '%s' </dev/null", shells[i], with), 0);
		char *end = strstr(w, RIDE_END);
		if (!end)
			fail_msg("%s: no end line in:\n%s", shells[i], w);
		TS_ASSERT_HAS(a, "\nfds 0 1 ");
		assert_string_equal(end + strlen(RIDE_END), a);
		TS_FREE(a, w);
	}
	ts_rmrf(dir);
	TS_FREE(dir, pre, text, with, alone);
}

TS_MAIN(NULL, NULL, test_workdir_fs, test_gather_local, test_parse, test_busybox,
	test_programs_started, test_small_arm_board, test_board_costs, test_ride_costs,
	test_ride_leaves_no_trace)
