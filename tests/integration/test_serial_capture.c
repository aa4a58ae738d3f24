/*
 * Console capture and serial ports against real peers: a socat pty pair
 * (the "adapter": the test plays the board on end A, orch reads end B) and
 * ser2net serving end B over raw TCP and telnet/RFC 2217.
 *   - a line is stamped at its first byte, even when the rest comes later;
 *   - a writer that cannot keep up drops bytes (counted), memory stays bounded,
 *     and the line callback still sees every line;
 *   - the port vanishing mid-capture is reported, and what was read is kept;
 *   - a line callback that blocks delays no stamp: the reader goes on reading
 *     and stamping while the line thread waits, for 300 separate reads and
 *     up to 64 KiB; past that the reader waits, and says so;
 *   - the reader's scheduling is reported: SCHED_FIFO with locked buffers
 *     when the process may, ordinary scheduling (said so) without
 *     CAP_SYS_NICE, with the 0.1 ms time slice it claims really set;
 *   - with the privilege, the CPUs are kept out of idle states and the
 *     kernel's tty workers raised while a capture runs (as
 *     ORCH_CPU_DMA_LATENCY and ORCH_KWORKER_PRIORITY say), and both are put
 *     back when the last capture stops;
 *   - tcp:// and rfc2217:// read and write through ser2net; rfc2217 sets the
 *     baud rate of the device behind ser2net and passes 0xFF through.
 */
#include "testsupport.h"
#include "transport/serial_capture.h"
#include "transport/serial_port.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct fx {
	char *dir;
	char *a;
	char *b;
	pid_t socat;
	pid_t ser2net;
	int tcp_port;
	int telnet_port;
};


static bool wait_path(const char *path, int ms)
{
	for (int i = 0; i < ms / 20; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(20000);
	}
	return false;
}

static bool wait_listen(int port, int ms)
{
	for (int i = 0; i < ms / 50; i++) {
		if (ts_run(NULL, "ss -ltn 'sport = :%d' | grep -q LISTEN", port) == 0)
			return true;
		usleep(50000);
	}
	return false;
}

static int start_pair(struct fx *f)
{
	char *cmd = xasprintf("exec socat pty,raw,echo=0,link=%s pty,raw,echo=0,link=%s",
			      f->a, f->b);
	char *log = xasprintf("%s/socat.log", f->dir);
	f->socat = ts_spawn(cmd, log);
	TS_FREE(cmd, log);
	return wait_path(f->a, 5000) && wait_path(f->b, 5000) ? 0 : -1;
}

static int setup(void **state)
{
	ts_require_tool("socat", "apt-get install socat");
	struct fx *f = xcalloc(1, sizeof(*f));
	f->dir = ts_mkdtemp("serial-capture");
	f->a = xasprintf("%s/A", f->dir);
	f->b = xasprintf("%s/B", f->dir);
	f->tcp_port = 20000 + getpid() % 5000 * 2;
	f->telnet_port = f->tcp_port + 1;
	assert_int_equal(start_pair(f), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (!f)
		return 0;
	ts_stop(&f->ser2net);
	ts_stop(&f->socat);
	ts_rmrf(f->dir);
	TS_FREE(f->dir, f->a, f->b, f);
	return 0;
}

/* The board's end of the pair, raw. */
static int open_board(const char *path)
{
	int fd = open(path, O_RDWR | O_NOCTTY);
	assert_true(fd >= 0);
	struct termios t;
	assert_int_equal(tcgetattr(fd, &t), 0);
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	return fd;
}

static void put(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	while (off < len) {
		ssize_t w = write(fd, s + off, len - off);
		assert_true(w > 0);
		off += (size_t)w;
	}
}

/* Waits (10 s at most) until the capture has read n bytes; checks often,
 * for tests that time one read at a time. */
/* A file for the capture to write (it closes it), emptied. */
static FILE *out_file(const char *path)
{
	FILE *f = fopen(path, "we");
	assert_non_null(f);
	return f;
}

static void wait_bytes(struct serial_capture *c, uint64_t n)
{
	int64_t end = clock_mono_us() + 10 * 1000000;
	while (serial_capture_bytes(c) < n && clock_mono_us() < end)
		usleep(50);
	assert_true(serial_capture_bytes(c) >= n);
}

struct seen {
	pthread_mutex_t mu;
	char *text[8];
	int64_t stamp[8];
	int n;
	uint64_t count;
};

static void seen_line(void *ctx, const struct serial_line *l)
{
	struct seen *s = ctx;
	if (l->partial)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->n < 8) {
		s->text[s->n] = xstrdup(l->text);
		s->stamp[s->n++] = l->mono_us;
	}
	s->count++;
	pthread_mutex_unlock(&s->mu);
}

static void seen_free(struct seen *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->text[i]);
	pthread_mutex_destroy(&s->mu);
}

static void test_first_byte_stamp(void **state)
{
	struct fx *f = *state;
	struct serial_target t = { .port = f->b };
	char err[256];
	struct serial_port *p = serial_port_open(&t, err, sizeof(err));
	assert_non_null(p);
	char *log = xasprintf("%s/boot.log", f->dir), *raw = xasprintf("%s/boot.raw", f->dir);
	struct seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct serial_capture_options o = { .log = out_file(log), .raw = out_file(raw),
					    .on_line = seen_line, .ctx = &s };
	struct serial_capture *c = serial_capture_start(p, &o, err, sizeof(err));
	assert_non_null(c);
	int board = open_board(f->a);
	int64_t t0 = clock_mono_us();
	put(board, "half ");
	wait_bytes(c, 5);
	usleep(50000);
	int64_t t1 = clock_mono_us();
	put(board, "line\r\nnext\n");
	wait_bytes(c, 16);
	struct serial_capture_stats st;
	assert_int_equal(serial_capture_stop(c, &st, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.text[0], "half line");
	assert_true(s.stamp[0] >= t0 && s.stamp[0] < t1);
	assert_true(s.stamp[1] >= t1);
	assert_int_equal(st.bytes, 16);
	assert_int_equal(st.dropped_bytes, 0);
	assert_false(st.port_lost);
	char *text = ts_read_file(log);
	TS_ASSERT_HAS(text, "] half line\n", "] next\n");
	free(text);
	text = ts_read_file(raw);
	assert_string_equal(text, "half line\r\nnext\n");
	free(text);
	close(board);
	serial_port_close(p);
	seen_free(&s);
	TS_FREE(log, raw);
}

enum { HELD_READS = 300 };

/* Blocks the line thread on the first line until released. */
struct blocker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool entered;
	bool release;
	int n;
	int64_t stamp[HELD_READS + 1];
};

static void blocking_line(void *ctx, const struct serial_line *l)
{
	struct blocker *b = ctx;
	if (l->partial)
		return;
	pthread_mutex_lock(&b->mu);
	if (b->n <= HELD_READS)
		b->stamp[b->n] = l->mono_us;
	if (b->n++ == 0) {
		b->entered = true;
		pthread_cond_broadcast(&b->cv);
		while (!b->release)
			pthread_cond_wait(&b->cv, &b->mu);
	}
	pthread_mutex_unlock(&b->mu);
}

/* Waits until the line thread is held in blocking_line. */
static void wait_held(struct blocker *bl)
{
	pthread_mutex_lock(&bl->mu);
	while (!bl->entered)
		pthread_cond_wait(&bl->cv, &bl->mu);
	pthread_mutex_unlock(&bl->mu);
}

static void release_held(struct blocker *bl)
{
	pthread_mutex_lock(&bl->mu);
	bl->release = true;
	pthread_cond_broadcast(&bl->cv);
	pthread_mutex_unlock(&bl->mu);
}

/* A capture whose line thread is held in blocking_line on its first
 * line ("a"), the board's end open to write more. */
struct held {
	struct serial_port *port;
	struct blocker bl;
	struct serial_capture *c;
	int board;
};

static void held_start(struct fx *f, struct held *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->bl.mu, NULL);
	pthread_cond_init(&h->bl.cv, NULL);
	struct serial_target t = { .port = f->b };
	char err[256];
	h->port = serial_port_open(&t, err, sizeof(err));
	assert_non_null(h->port);
	struct serial_capture_options o = { .on_line = blocking_line, .ctx = &h->bl };
	h->c = serial_capture_start(h->port, &o, err, sizeof(err));
	assert_non_null(h->c);
	h->board = open_board(f->a);
	put(h->board, "a\n");
	wait_held(&h->bl);
}

/* Releases the line thread, stops the capture (st) and closes the ends. */
static void held_end(struct held *h, struct serial_capture_stats *st)
{
	release_held(&h->bl);
	char err[256];
	assert_int_equal(serial_capture_stop(h->c, st, err, sizeof(err)), 0);
	close(h->board);
	serial_port_close(h->port);
}

/* While the line thread is held, 300 lines each read on its own (the old
 * ring of 32 reads stopped the reader at the 33rd): every one is read and
 * stamped between its write and its arrival, and the reader never waited. */
static void test_held_line_thread_many_reads(void **state)
{
	struct held h;
	held_start(*state, &h);
	static int64_t before[HELD_READS + 1], after[HELD_READS + 1];
	uint64_t total = 2;
	for (int i = 1; i <= HELD_READS; i++) {
		char line[32];
		snprintf(line, sizeof(line), "line %03d\n", i);
		before[i] = clock_mono_us();
		put(h.board, line);
		total += strlen(line);
		wait_bytes(h.c, total);
		after[i] = clock_mono_us();
	}
	struct serial_capture_stats st;
	held_end(&h, &st);
	assert_int_equal(h.bl.n, HELD_READS + 1);
	for (int i = 1; i <= HELD_READS; i++)
		assert_true(h.bl.stamp[i] >= before[i] && h.bl.stamp[i] <= after[i]);
	TS_ASSERT_LACKS(st.sched, "waited");
}

/* Past 64 KiB behind, the reader waits for the held line thread: nothing is
 * lost, and the run folder's text says the stamps may be late. */
static void test_reader_waits_reported(void **state)
{
	struct held h;
	held_start(*state, &h);
	char *line = xmalloc(1001);
	memset(line, 'x', 999);
	line[999] = '\n';
	line[1000] = '\0';
	for (int i = 0; i < 70; i++)
		put(h.board, line);
	wait_bytes(h.c, 64 * 1024);   /* all the rings hold */
	release_held(&h.bl);
	wait_bytes(h.c, 2 + 70 * 1000);
	struct serial_capture_stats st;
	held_end(&h, &st);
	assert_int_equal(h.bl.n, 71);
	assert_int_equal(st.bytes, 2 + 70 * 1000);
	TS_ASSERT_HAS(st.sched, "; the reader waited ",
		" for the line thread (the stamps of those reads may be late)");
	free(line);
}

static void test_blocked_callback_delays_no_stamp(void **state)
{
	struct held h;
	held_start(*state, &h);
	/* the line thread is held in the callback: the reader must still read */
	int64_t t0 = clock_mono_us();
	put(h.board, "b\n");
	wait_bytes(h.c, 4);
	int64_t t1 = clock_mono_us();
	struct serial_capture_stats st;
	held_end(&h, &st);
	assert_int_equal(h.bl.n, 2);
	assert_true(h.bl.stamp[1] >= t0 && h.bl.stamp[1] <= t1);
}

/* Drops CAP_SYS_NICE from this process and its rtprio limit. */
static int drop_sys_nice(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].permitted &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].inheritable &= ~(1u << (CAP_SYS_NICE % 32));
	struct rlimit rl = { 0, 0 };
	return syscall(SYS_capset, &h, d) < 0 || setrlimit(RLIMIT_RTPRIO, &rl) < 0 ? -1 : 0;
}

/* A capture of port with no files and no callback, or NULL; *p its port. */
static struct serial_capture *plain_capture(const char *port, struct serial_port **p)
{
	struct serial_target t = { .port = port };
	char err[256];
	*p = serial_port_open(&t, err, sizeof(err));
	if (!*p)
		return NULL;
	struct serial_capture_options o = { 0 };
	struct serial_capture *c = serial_capture_start(*p, &o, err, sizeof(err));
	if (!c)
		serial_port_close(*p);
	return c;
}

static void plain_stop(struct serial_capture *c, struct serial_port *p)
{
	char err[256];
	serial_capture_stop(c, NULL, err, sizeof(err));
	serial_port_close(p);
}

/* Whether this process may start a SCHED_FIFO 20 thread. */
static bool may_realtime(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_RTPRIO, &rl);
	return geteuid() == 0 || rl.rlim_cur >= 20;
}

/* 0 when the capture's reader reports want ("SCHED_FIFO" or "ordinary"). */
static int sched_is(const char *port, const char *want)
{
	char err[256];
	struct serial_port *p;
	struct serial_capture *c = plain_capture(port, &p);
	if (!c)
		return 3;
	const char *s = serial_capture_sched(c);
	int ret = strncmp(s, want, strlen(want)) == 0 ? 0 : 4;
	if (ret)
		fprintf(stderr, "sched: %s (wanted %s)\n", s, want);
	struct serial_capture_stats st;
	serial_capture_stop(c, &st, err, sizeof(err));
	if (strncmp(st.sched, want, strlen(want)) != 0)
		ret = 5;
	serial_port_close(p);
	return ret;
}

/* sched_getattr(2)'s result, the fields read here */
struct sched_attr_v0 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

/* Whether a thread of this process has a time slice of slice_ns. */
static bool thread_with_slice(uint64_t slice_ns)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		struct sched_attr_v0 a = { 0 };
		long tid = atol(e->d_name);
		found = tid > 0 && syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0) == 0 &&
			a.sched_runtime == slice_ns;
	}
	closedir(d);
	return found;
}

/* Without the privilege: ordinary scheduling, said so, and the short slice
 * the text claims is really the reader's (or the text says why not). */
static int unprivileged_sched_honest(const char *port)
{
	struct serial_port *p;
	struct serial_capture *c = plain_capture(port, &p);
	if (!c)
		return 3;
	const char *s = serial_capture_sched(c);
	int ret = 0;
	if (strncmp(s, "ordinary scheduling, SCHED_FIFO refused", 39) != 0)
		ret = 4;
	else if (strstr(s, ", a 0.1 ms time slice for the reader"))
		ret = thread_with_slice(100000) ? 0 : 5;
	else if (!strstr(s, ", no short time slice for the reader ("))
		ret = 6;
	if (ret)
		fprintf(stderr, "sched: %s (%d)\n", s, ret);
	plain_stop(c, p);
	return ret;
}

static void test_sched_reported(void **state)
{
	struct fx *f = *state;
	assert_int_equal(sched_is(f->b, may_realtime() ? "SCHED_FIFO priority 20, buffers locked" : "ordinary"), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(drop_sys_nice() < 0 ? 9 : unprivileged_sched_honest(f->b));
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The kernel's current PM QoS CPU latency target, in microseconds. */
static int32_t cpu_latency_now(void)
{
	int fd = open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
	int32_t v = -1;
	if (fd >= 0 && read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = -1;
	if (fd >= 0)
		close(fd);
	return v;
}

#define FIFO_1 100   /* for kworkers_at: SCHED_FIFO priority 1, not a nice value */

/* Unbound kernel workers (kworker/u*) now at nice value nice (ordinary
 * scheduling), or with FIFO_1 at SCHED_FIFO priority 1. */
static int kworkers_at(int nice)
{
	DIR *d = opendir("/proc");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *path = xasprintf("/proc/%s/comm", e->d_name);
		FILE *f = atoi(e->d_name) > 2 ? fopen(path, "re") : NULL;
		char comm[64] = "";
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "kworker/u", 9)) {
			pid_t pid = (pid_t)atoi(e->d_name);
			struct sched_param sp = { 0 };
			int policy = sched_getscheduler(pid);
			errno = 0;
			int v = getpriority(PRIO_PROCESS, (id_t)pid);
			if (nice == FIFO_1)
				n += policy == SCHED_FIFO && sched_getparam(pid, &sp) == 0 &&
				     sp.sched_priority == 1;
			else
				n += policy == SCHED_OTHER && v == nice && !errno;
		}
		if (f)
			fclose(f);
		free(path);
	}
	closedir(d);
	return n;
}

/* What a capture held while it ran (transport/console_boost.h). */
struct boost_seen {
	int32_t latency;           /* the PM QoS CPU latency target */
	int kworkers;              /* unbound workers at the priority asked */
};

/* Starts a capture with the environment variable name=value (value NULL:
 * unset), checks its sched text has want, and returns what it held while it
 * ran: the CPU latency target and the workers at `nice` (or FIFO_1). */
static struct boost_seen boost_during(const char *port, const char *name, const char *value,
				      const char *want, int nice)
{
	if (value)
		setenv(name, value, 1);
	struct serial_port *p;
	struct serial_capture *c = plain_capture(port, &p);
	assert_non_null(c);
	if (!strstr(serial_capture_sched(c), want))
		fprintf(stderr, "sched: %s (wanted %s)\n", serial_capture_sched(c), want);
	assert_non_null(strstr(serial_capture_sched(c), want));
	struct boost_seen seen = { cpu_latency_now(), kworkers_at(nice) };
	plain_stop(c, p);
	unsetenv(name);
	return seen;
}

/* With the privilege: idle CPUs kept awake and the kernel's tty workers
 * raised while a capture runs, as the environment says, and both put back
 * at the stop. (test_serial_capture runs alone, RUN_SERIAL: another
 * process's capture would hold them too.) */
static void test_console_boost(void **state)
{
	struct fx *f = *state;
	const char *v = "ORCH_CPU_DMA_LATENCY", *k = "ORCH_KWORKER_PRIORITY";
	if (!may_realtime()) {   /* no privilege: nothing held */
		boost_during(f->b, v, NULL, "ordinary scheduling", FIFO_1);
		return;
	}
	if (geteuid() != 0) {
		boost_during(f->b, v, NULL, "CPU idle states left alone (/dev/cpu_dma_latency: "
			     "Permission denied), the kernel's tty workers left alone "
			     "(sched_setscheduler: Operation not permitted)", FIFO_1);
		return;
	}
	bool qos = access("/dev/cpu_dma_latency", F_OK) == 0;   /* a kernel with PM QoS */
	int32_t before = cpu_latency_now();
	assert_true(!qos || before > 15);
	/* the kernel's own at each priority */
	int fifo = kworkers_at(FIFO_1), high = kworkers_at(-20), nice5 = kworkers_at(-5);
	struct boost_seen seen = boost_during(
		f->b, v, NULL, qos ? ", CPUs kept from idle states deeper than 0 us "
				     "(/dev/cpu_dma_latency), the kernel's tty workers at SCHED_FIFO 1"
				   : "(/dev/cpu_dma_latency: No such file or directory), the "
				     "kernel's tty workers at SCHED_FIFO 1", FIFO_1);
	assert_int_equal(seen.latency, qos ? 0 : -1);
	assert_true(seen.kworkers > fifo);
	assert_int_equal(cpu_latency_now(), before);   /* put back at the stop */
	assert_int_equal(kworkers_at(FIFO_1), fifo);
	if (qos)
		assert_int_equal(boost_during(f->b, v, "15", "deeper than 15 us", FIFO_1).latency,
				 15);
	seen = boost_during(f->b, v, "off", "CPU idle states left alone (ORCH_CPU_DMA_LATENCY=off)",
			    FIFO_1);
	assert_int_equal(seen.latency, before);
	assert_true(seen.kworkers > fifo);
	assert_int_equal(boost_during(f->b, v, "soon", "is not a number", FIFO_1).latency, before);
	assert_true(boost_during(f->b, k, "fifo", "the kernel's tty workers at SCHED_FIFO 1",
				 FIFO_1).kworkers > fifo);
	assert_true(boost_during(f->b, k, "-20", "the kernel's tty workers at nice -20", -20)
			    .kworkers > high);
	seen = boost_during(f->b, k, "-5", "the kernel's tty workers at nice -5", -5);
	assert_true(seen.kworkers > nice5);
	assert_int_equal(boost_during(f->b, k, "off", "the kernel's tty workers left alone "
				      "(ORCH_KWORKER_PRIORITY=off)", FIFO_1).kworkers, fifo);
	assert_int_equal(boost_during(f->b, k, "3", "is not fifo, a nice value from -20 to -1, "
				      "or off", FIFO_1).kworkers, fifo);
	/* the setting's name before the tenth landing, read when the new one is unset */
	assert_int_equal(boost_during(f->b, "ORCH_KWORKER_NICE", "off", "the kernel's tty workers "
				      "left alone (ORCH_KWORKER_NICE=off)", FIFO_1).kworkers, fifo);
	assert_int_equal(kworkers_at(FIFO_1), fifo);
	assert_int_equal(kworkers_at(-20), high);
	assert_int_equal(kworkers_at(-5), nice5);
	assert_int_equal(cpu_latency_now(), before);
}

static void *drain(void *arg)
{
	int fd = *(int *)arg;
	char buf[65536];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

static void test_slow_writer_bounded(void **state)
{
	struct fx *f = *state;
	char *fifo = xasprintf("%s/slow.fifo", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* held open read-write so the writer can open it; nobody reads yet, so
	 * the writer thread blocks once the pipe is full */
	int hold = open(fifo, O_RDWR);
	assert_true(hold >= 0);
	struct serial_target t = { .port = f->b };
	char err[256];
	struct serial_port *p = serial_port_open(&t, err, sizeof(err));
	assert_non_null(p);
	struct seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct serial_capture_options o = { .log = out_file(fifo), .queue_max = 64 * 1024,
					    .on_line = seen_line, .ctx = &s };
	struct serial_capture *c = serial_capture_start(p, &o, err, sizeof(err));
	assert_non_null(c);
	int board = open_board(f->a);
	char line[101];
	memset(line, 'y', 99);
	line[99] = '\n';
	line[100] = '\0';
	const int n = 20000;   /* 2 MB through a writer stuck after 64 KiB */
	for (int i = 0; i < n; i++)
		put(board, line);
	wait_bytes(c, (uint64_t)n * 100);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	fcntl(rd, F_SETFL, 0);
	pthread_t th;
	pthread_create(&th, NULL, drain, &rd);
	struct serial_capture_stats st;
	assert_int_equal(serial_capture_stop(c, &st, err, sizeof(err)), 0);
	close(hold);
	pthread_join(th, NULL);
	close(rd);
	assert_int_equal(st.bytes, (uint64_t)n * 100);
	assert_true(st.dropped_bytes > 0);
	assert_true(st.dropped_bytes < st.bytes);
	assert_int_equal(s.count, (uint64_t)n);
	close(board);
	serial_port_close(p);
	seen_free(&s);
	free(fifo);
}

static void test_port_vanishes(void **state)
{
	struct fx *f = *state;
	struct serial_target t = { .port = f->b };
	char err[256];
	struct serial_port *p = serial_port_open(&t, err, sizeof(err));
	assert_non_null(p);
	char *log = xasprintf("%s/lost.log", f->dir);
	struct serial_capture_options o = { .log = out_file(log) };
	struct serial_capture *c = serial_capture_start(p, &o, err, sizeof(err));
	assert_non_null(c);
	int board = open_board(f->a);
	put(board, "kept line\n");
	wait_bytes(c, 10);
	close(board);
	ts_stop(&f->socat);
	bool lost = false;
	for (int i = 0; i < 500 && !lost; i++) {
		lost = serial_capture_port_lost(c, err, sizeof(err));
		usleep(10000);
	}
	assert_true(lost);
	TS_ASSERT_HAS(err, "hung up");
	struct serial_capture_stats st;
	serial_capture_stop(c, &st, err, sizeof(err));
	assert_true(st.port_lost);
	assert_non_null(strstr(st.error, f->b));
	char *text = ts_read_file(log);
	TS_ASSERT_HAS(text, "] kept line\n");
	free(text);
	serial_port_close(p);
	free(log);
	/* the next test gets a new pair */
	unlink(f->a);
	unlink(f->b);
	assert_int_equal(start_pair(f), 0);
}

static void test_missing_port(void **state)
{
	struct fx *f = *state;
	char *path = xasprintf("%s/nothing-here", f->dir);
	struct serial_target t = { .port = path };
	char err[256];
	assert_int_equal(serial_port_probe(&t, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "nothing-here", "No such file");
	struct serial_target u = { .usb = "dead:beef" };
	assert_int_equal(serial_port_probe(&u, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "no USB serial adapter dead:beef");
	struct serial_target n = { .url = "tcp://127.0.0.1:1" };
	assert_int_equal(serial_port_probe(&n, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "refused");
	free(path);
}

static int start_ser2net(struct fx *f)
{
	if (ts_run(NULL, "command -v ser2net >/dev/null") != 0)
		return -1;
	char *cfg = xasprintf(
		"connection: &raw\n"
		"  accepter: tcp,127.0.0.1,%d\n"
		"  connector: serialdev,%s,115200n81,local\n"
		"  options:\n    kickolduser: true\n"
		"connection: &tel\n"
		"  accepter: telnet(rfc2217),tcp,127.0.0.1,%d\n"
		"  connector: serialdev,%s,115200n81,local\n"
		"  options:\n    kickolduser: true\n",
		f->tcp_port, f->b, f->telnet_port, f->b);
	char *path = ts_write_file(f->dir, "ser2net.yaml", cfg);
	char *cmd = xasprintf("exec ser2net -n -d -c %s", path);
	char *log = xasprintf("%s/ser2net.log", f->dir);
	f->ser2net = ts_spawn(cmd, log);
	TS_FREE(cfg, path, cmd, log);
	return wait_listen(f->telnet_port, 5000) ? 0 : -1;
}

static bool contains(const struct strbuf *sb, const char *want, size_t len)
{
	for (size_t i = 0; i + len <= sb->len; i++)
		if (memcmp(sb->buf + i, want, len) == 0)
			return true;
	return false;
}

/* Reads from fd until want has been seen (or 5 s). */
static bool board_reads(int fd, const char *want, size_t len)
{
	struct strbuf got = STRBUF_INIT;
	int64_t deadline = deadline_in_ms(5000);
	while (!deadline_expired(deadline)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		char buf[256];
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0)
			strbuf_append(&got, buf, (size_t)n);
		if (contains(&got, want, len))
			break;
	}
	bool ok = contains(&got, want, len);
	if (!ok) {
		print_message("board read %zu bytes:", got.len);
		for (size_t i = 0; i < got.len; i++)
			print_message(" %02x", (unsigned char)got.buf[i]);
		print_message("\n");
	}
	strbuf_release(&got);
	return ok;
}

static void network_roundtrip(struct fx *f, const char *url, int baud)
{
	if (ts_run(NULL, "command -v ser2net >/dev/null") != 0)
		ts_skip("needs ser2net (apt-get install ser2net)");
	if (!f->ser2net && start_ser2net(f) < 0)
		fail_msg("ser2net did not start (see its log under %s)", f->dir);
	struct serial_target t = { .url = url, .baud = baud };
	char err[256];
	/* ser2net lets the device go a moment after the previous client left */
	struct serial_port *p = NULL;
	for (int i = 0; i < 30 && !p; i++) {
		p = serial_port_open(&t, err, sizeof(err));
		if (!p)
			usleep(100000);
	}
	if (!p)
		fail_msg("%s", err);
	struct seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	char *raw = xasprintf("%s/net.raw", f->dir);
	struct serial_capture_options o = { .raw = out_file(raw), .on_line = seen_line, .ctx = &s };
	int board = open_board(f->a);
	/* orch -> board, with a 0xFF that telnet must escape */
	const char out[] = "ping \xff pong\n";
	assert_int_equal(serial_port_write(p, out, sizeof(out) - 1, 5000, err, sizeof(err)), 0);
	assert_true(board_reads(board, out, sizeof(out) - 1));
	struct serial_capture *c = serial_capture_start(p, &o, err, sizeof(err));
	assert_non_null(c);
	put(board, "over the network \xff\r\n");
	wait_bytes(c, 20);
	struct serial_capture_stats st;
	assert_int_equal(serial_capture_stop(c, &st, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.text[0], "over the network \xff");
	char *text = ts_read_file(raw);
	assert_string_equal(text, "over the network \xff\r\n");
	free(text);
	if (baud != 115200) {
		char *speed = NULL;
		ts_run(&speed, "stty -F %s speed", f->b);
		assert_non_null(speed);
		assert_int_equal(atoi(speed), baud);
		free(speed);
	}
	close(board);
	serial_port_close(p);
	seen_free(&s);
	free(raw);
}

static void test_tcp_ser2net(void **state)
{
	struct fx *f = *state;
	char *url = xasprintf("tcp://127.0.0.1:%d", f->tcp_port);
	network_roundtrip(f, url, 115200);
	free(url);
}

static void test_rfc2217_ser2net(void **state)
{
	struct fx *f = *state;
	char *url = xasprintf("rfc2217://127.0.0.1:%d", f->telnet_port);
	network_roundtrip(f, url, 9600);
	free(url);
}

TS_MAIN(setup, teardown, test_first_byte_stamp, test_blocked_callback_delays_no_stamp,
	test_held_line_thread_many_reads, test_reader_waits_reported, test_sched_reported,
	test_console_boost, test_slow_writer_bounded, test_missing_port, test_port_vanishes,
	test_tcp_ser2net, test_rfc2217_ser2net)
