#include "transport/serial_capture.h"
#include "transport/console_boost.h"
#include <stddef.h>
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { ESC_NONE = 0, ESC_START, ESC_CSI, ESC_OSC, ESC_OSC_ESC };

void serial_linebuf_init(struct serial_linebuf *lb)
{
	memset(lb, 0, sizeof(*lb));
}

void serial_linebuf_release(struct serial_linebuf *lb)
{
	free(lb->line);
	lb->line = NULL;
	lb->cap = lb->len = 0;
}

/* partial: shown as it grows; cont: a piece at the cap, the line goes on. */
static void emit(struct serial_linebuf *lb, bool partial, bool cont, serial_line_fn fn, void *ctx)
{
	if (!lb->line)
		lb->line = xcalloc(1, lb->cap = 64);
	lb->line[lb->len] = '\0';
	if (cont && !lb->in_long)
		lb->long_lines++;
	if (cont)
		lb->in_long = true;
	struct serial_line l = { lb->line, lb->len, lb->mono_us, lb->wall_us, partial,
				 lb->in_long, cont };
	if (fn)
		fn(ctx, &l);
	if (cont) {
		lb->len = 0;
	} else if (!partial) {
		lb->lines++;
		lb->len = 0;
		lb->open = false;
		lb->in_long = false;
	}
}

static void put_char(struct serial_linebuf *lb, char c)
{
	if (lb->len + 1 >= lb->cap) {
		size_t cap = lb->cap ? lb->cap * 2 : 256;
		if (cap > SERIAL_CAPTURE_MAX_LINE + 1)
			cap = SERIAL_CAPTURE_MAX_LINE + 1;
		lb->line = xrealloc(lb->line, cap);
		lb->cap = cap;
	}
	lb->line[lb->len++] = c;
}

static void add_char(struct serial_linebuf *lb, unsigned char c)
{
	switch (lb->esc) {
	case ESC_START:
		lb->esc = c == '[' ? ESC_CSI : c == ']' ? ESC_OSC : ESC_NONE;
		return;
	case ESC_CSI:
		if (c >= 0x40 && c <= 0x7e)
			lb->esc = ESC_NONE;
		return;
	case ESC_OSC:
		if (c == 0x07)
			lb->esc = ESC_NONE;
		else if (c == 0x1b)
			lb->esc = ESC_OSC_ESC;
		return;
	case ESC_OSC_ESC:
		lb->esc = c == '\\' ? ESC_NONE : ESC_OSC;
		return;
	default:
		break;
	}
	if (c == 0x1b) {
		lb->esc = ESC_START;
	} else if (c == '\b') {
		if (lb->len > 0)
			lb->len--;
	} else if (c == '\t' || (c >= 0x20 && c != 0x7f)) {
		put_char(lb, (char)c);
	}
}

void serial_linebuf_feed(struct serial_linebuf *lb, const char *data, size_t len,
			 int64_t mono_us, int64_t wall_us, serial_line_fn fn, void *ctx)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		unsigned char prev = lb->prev;
		lb->prev = c;
		/* the LF of a CRLF, and the second CR of CRCR, end nothing new */
		if ((c == '\n' || c == '\r') && prev == '\r')
			continue;
		if (!lb->open) {
			lb->open = true;
			lb->mono_us = mono_us;
			lb->wall_us = wall_us;
			lb->esc = ESC_NONE;
		}
		if (c == '\n' || c == '\r') {
			lb->esc = ESC_NONE;
			emit(lb, false, false, fn, ctx);
			continue;
		}
		add_char(lb, c);
		if (lb->len >= SERIAL_CAPTURE_MAX_LINE)
			emit(lb, false, true, fn, ctx);
	}
	if (lb->open && lb->len > 0 && !lb->in_long && lb->len <= SERIAL_CAPTURE_MAX_PARTIAL)
		emit(lb, true, false, fn, ctx);
}

void serial_linebuf_flush(struct serial_linebuf *lb, serial_line_fn fn, void *ctx)
{
	if (lb->open && (lb->len > 0 || lb->in_long))
		emit(lb, false, false, fn, ctx);
	lb->open = false;
	lb->in_long = false;
	lb->len = 0;
}

void serial_capture_format_stamp(int64_t wall_us, int64_t rel_us, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_us / 1000000);
	struct tm tm;
	localtime_r(&secs, &tm);
	char day[32];
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	int64_t a = rel_us < 0 ? -rel_us : rel_us;
	snprintf(buf, len, "[%s.%06d %s%lld.%06lld] ", day, (int)(wall_us % 1000000),
		 rel_us < 0 ? "-" : "", (long long)(a / 1000000), (long long)(a % 1000000));
}

/* --- the capture --- */

/*
 * Three threads per console. The reader does nothing but wait for bytes,
 * stamp them and append them to two rings held in locked memory: the bytes
 * themselves, and one stamp per read. It runs SCHED_FIFO where the process
 * may (CAP_SYS_NICE, root, or an RLIMIT_RTPRIO), so a busy controller
 * delays a stamp by no more than the kernel's own wake-up. The cutter takes
 * the reads in order, cuts lines and calls the line callback; the writer
 * appends to the files. The rings hold the bytes of 2048 reads or 64 KiB,
 * whichever comes first (over 5 s of a 115200-baud console, a read per
 * line at 100 lines a second for 20 s): only a line thread held up longer
 * makes the reader wait, and that is counted and reported.
 */
enum {
	RING_BYTES = 64 * 1024,
	RING_READS = 2048,
	READ_MAX = 4096,
	READER_STACK = 256 * 1024,
	READER_RT_PRIORITY = 20,
	READER_SLICE_NS = 100 * 1000,
};

struct read_stamp {
	int64_t mono_us;           /* the instant poll said the bytes were there */
	int64_t wall_us;
	size_t len;
};

#define RINGS_LEN (RING_BYTES + RING_READS * sizeof(struct read_stamp))

enum rec_kind { REC_RAW, REC_LINE };

struct rec {
	struct rec *next;
	enum rec_kind kind;
	int64_t wall_us;
	int64_t rel_us;
	size_t len;
	char data[];
};

struct serial_capture {
	struct serial_port *port;
	serial_line_fn user_fn;
	void *user_ctx;
	FILE *log;
	FILE *raw;
	int wake[2];               /* wakes the reader to stop */

	pthread_t reader;
	pthread_t cutter;
	pthread_t writer;

	/* the reader's rings, filled at the heads, emptied at the tails */
	pthread_mutex_t ring_mu;   /* priority-inheriting */
	pthread_cond_t ring_data;
	pthread_cond_t ring_space;
	char *ring;                /* RING_BYTES bytes, in the locked region */
	struct read_stamp *stamps; /* RING_READS stamps, after them */
	void *region;              /* the rings, then the reader's stack */
	size_t region_len;
	uint64_t byte_head, byte_tail; /* byte_head: all the bytes read so far */
	uint64_t read_head, read_tail;
	uint64_t reader_waits;     /* times the rings were full */
	bool boost_held;           /* holds console_boost */
	bool want_slice;           /* the reader is not real-time: ask for a short slice */
	bool slice_done;           /* the reader has asked (under ring_mu, slice_cv) */
	pthread_cond_t slice_cv;
	int slice_errno;           /* 0: granted; else why not (-1: ignored by the kernel) */
	bool reader_stop;
	bool reader_done;
	bool port_lost;
	char error[256];
	char sched[SERIAL_CAPTURE_SCHED_LEN];

	/* the writer's queue */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rec *head;
	struct rec *tail;
	size_t queued;
	size_t queue_max;
	bool cutter_done;
	int64_t base_mono_us;      /* under mu */
	uint64_t dropped;
	char file_error[256];

	struct serial_linebuf lb;  /* the cutter's */
};

static void enqueue(struct serial_capture *c, enum rec_kind kind, const char *data, size_t len,
		    int64_t wall_us, int64_t rel_us)
{
	size_t cost = sizeof(struct rec) + len;
	pthread_mutex_lock(&c->mu);
	if (c->queued + cost > c->queue_max) {
		c->dropped += len;
		pthread_mutex_unlock(&c->mu);
		return;
	}
	pthread_mutex_unlock(&c->mu);
	struct rec *r = xmalloc(cost);
	r->next = NULL;
	r->kind = kind;
	r->wall_us = wall_us;
	r->rel_us = rel_us;
	r->len = len;
	memcpy(r->data, data, len);
	pthread_mutex_lock(&c->mu);
	if (c->tail)
		c->tail->next = r;
	else
		c->head = r;
	c->tail = r;
	c->queued += cost;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void on_cut_line(void *ctx, const struct serial_line *l)
{
	struct serial_capture *c = ctx;
	if (c->user_fn)
		c->user_fn(c->user_ctx, l);
	if (l->partial || !c->log)
		return;
	pthread_mutex_lock(&c->mu);
	int64_t base = c->base_mono_us;
	pthread_mutex_unlock(&c->mu);
	enqueue(c, REC_LINE, l->text, l->len, l->wall_us, l->mono_us - base);
}

static void reader_lost(struct serial_capture *c, const char *why)
{
	pthread_mutex_lock(&c->ring_mu);
	snprintf(c->error, sizeof(c->error), "%s", why);
	c->port_lost = true;
	pthread_mutex_unlock(&c->ring_mu);
}

/* Contiguous room in the byte ring for the next read (at most READ_MAX),
 * 0 when the bytes or the stamps are full. Under ring_mu. */
static size_t ring_room(const struct serial_capture *c)
{
	if (c->read_head - c->read_tail == RING_READS)
		return 0;
	size_t free_bytes = RING_BYTES - (size_t)(c->byte_head - c->byte_tail);
	size_t to_end = RING_BYTES - (size_t)(c->byte_head % RING_BYTES);
	size_t room = free_bytes < to_end ? free_bytes : to_end;
	return room < READ_MAX ? room : READ_MAX;
}

/* Where the next read goes and how much it may take (*room), or NULL once
 * asked to stop. Waits, counted, while the line thread is behind. */
static char *reader_space(struct serial_capture *c, size_t *room)
{
	pthread_mutex_lock(&c->ring_mu);
	if (!ring_room(c) && !c->reader_stop)
		c->reader_waits++;
	while (!(*room = ring_room(c)) && !c->reader_stop)
		pthread_cond_wait(&c->ring_space, &c->ring_mu);
	char *at = c->reader_stop ? NULL : c->ring + c->byte_head % RING_BYTES;
	pthread_mutex_unlock(&c->ring_mu);
	return at;
}

/* sched_setattr(2)'s argument (linux/sched/types.h clashes with sched.h) */
struct kernel_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* Without real-time scheduling, the reader asks for a 0.1 ms time slice
 * (Linux 6.12+, EEVDF; allowed unprivileged): a thread with a shorter slice
 * gets an earlier deadline, so it preempts a CPU-bound thread sooner when
 * its bytes arrive. Returns 0, an errno, or -1 when the kernel took the
 * call but kept its own slice (older kernels ignore the field). */
static int reader_ask_short_slice(void)
{
	struct kernel_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
				       .sched_runtime = READER_SLICE_NS };
	errno = 0;
	a.sched_nice = getpriority(PRIO_PROCESS, 0);   /* this thread's nice, kept */
	if (errno)
		return errno;
	if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
		return errno;
	struct kernel_sched_attr got = { 0 };
	if (syscall(SYS_sched_getattr, 0, &got, sizeof(got), 0) != 0)
		return errno;
	return got.sched_runtime == READER_SLICE_NS ? 0 : -1;
}

static void *reader_main(void *arg)
{
	struct serial_capture *c = arg;
	/* the names top -H, ps -L and perf show (15 bytes at most) */
	pthread_setname_np(pthread_self(), "orch-console");
	if (c->want_slice) {
		int e = reader_ask_short_slice();
		pthread_mutex_lock(&c->ring_mu);
		c->slice_errno = e;
		c->slice_done = true;
		pthread_cond_signal(&c->slice_cv);
		pthread_mutex_unlock(&c->ring_mu);
	}
	char *at;
	size_t room;
	while ((at = reader_space(c, &room))) {
		struct pollfd pfd[2] = {
			{ .fd = serial_port_fd(c->port), .events = POLLIN },
			{ .fd = c->wake[0], .events = POLLIN },
		};
		bool pending = serial_port_pending(c->port);
		int r = poll(pfd, 2, pending ? 0 : -1);
		int64_t mono = clock_mono_us();
		int64_t wall = clock_wall_us();
		if (pending && r >= 0) {
			pfd[0].revents |= POLLIN;
			r++;
		}
		if (pfd[1].revents)
			break;
		if (r < 0 && errno != EINTR) {
			char why[128];
			snprintf(why, sizeof(why), "poll: %s", strerror(errno));
			reader_lost(c, why);
			break;
		}
		if (r <= 0 || !pfd[0].revents)
			continue;
		char err[256] = "";
		ssize_t n = serial_port_read(c->port, at, room, err, sizeof(err));
		if (n < 0) {
			reader_lost(c, err);
			break;
		}
		if (n == 0)
			continue;
		pthread_mutex_lock(&c->ring_mu);
		c->stamps[c->read_head % RING_READS] = (struct read_stamp){ mono, wall, (size_t)n };
		c->read_head++;
		c->byte_head += (uint64_t)n;
		pthread_cond_signal(&c->ring_data);
		pthread_mutex_unlock(&c->ring_mu);
	}
	pthread_mutex_lock(&c->ring_mu);
	c->reader_done = true;
	pthread_cond_signal(&c->ring_data);
	pthread_mutex_unlock(&c->ring_mu);
	return NULL;
}

static void *cutter_main(void *arg)
{
	struct serial_capture *c = arg;
	pthread_setname_np(pthread_self(), "orch-lines");
	pthread_mutex_lock(&c->ring_mu);
	for (;;) {
		while (c->read_head == c->read_tail && !c->reader_done)
			pthread_cond_wait(&c->ring_data, &c->ring_mu);
		if (c->read_head == c->read_tail)
			break;
		/* each read is contiguous: the reader never reads across the end */
		struct read_stamp k = c->stamps[c->read_tail % RING_READS];
		const char *data = c->ring + c->byte_tail % RING_BYTES;
		pthread_mutex_unlock(&c->ring_mu);
		if (c->raw)
			enqueue(c, REC_RAW, data, k.len, k.wall_us, 0);
		serial_linebuf_feed(&c->lb, data, k.len, k.mono_us, k.wall_us, on_cut_line, c);
		pthread_mutex_lock(&c->ring_mu);
		c->read_tail++;
		c->byte_tail += k.len;
		pthread_cond_signal(&c->ring_space);
	}
	pthread_mutex_unlock(&c->ring_mu);
	serial_linebuf_flush(&c->lb, on_cut_line, c);
	pthread_mutex_lock(&c->mu);
	c->cutter_done = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static void write_rec(struct serial_capture *c, const struct rec *r)
{
	FILE *f = r->kind == REC_RAW ? c->raw : c->log;
	int bad = 0;
	if (r->kind == REC_LINE) {
		char stamp[96];
		serial_capture_format_stamp(r->wall_us, r->rel_us, stamp, sizeof(stamp));
		bad = fputs(stamp, f) < 0 || fwrite(r->data, 1, r->len, f) != r->len ||
		      fputc('\n', f) == EOF;
	} else {
		bad = fwrite(r->data, 1, r->len, f) != r->len;
	}
	if (bad && !c->file_error[0])
		snprintf(c->file_error, sizeof(c->file_error), "write %s: %s",
			 r->kind == REC_RAW ? "raw console log" : "console log", strerror(errno));
}

static void *writer_main(void *arg)
{
	struct serial_capture *c = arg;
	pthread_setname_np(pthread_self(), "orch-conlog");
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->head && !c->cutter_done)
			pthread_cond_wait(&c->cv, &c->mu);
		struct rec *batch = c->head;
		if (!batch && c->cutter_done)
			break;
		c->head = c->tail = NULL;
		pthread_mutex_unlock(&c->mu);
		size_t freed = 0;
		while (batch) {
			struct rec *next = batch->next;
			write_rec(c, batch);
			freed += sizeof(struct rec) + batch->len;
			free(batch);
			batch = next;
		}
		if (c->log)
			fflush(c->log);
		if (c->raw)
			fflush(c->raw);
		pthread_mutex_lock(&c->mu);
		c->queued -= freed;
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* The rings and the reader's stack, locked in memory where the process may. */
static void region_alloc(struct serial_capture *c, struct strbuf *how)
{
	c->region_len = RINGS_LEN + READER_STACK;
	void *m = mmap(NULL, c->region_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	c->region = m == MAP_FAILED ? NULL : m;
	if (!c->region) {
		c->ring = xcalloc(1, RINGS_LEN);
		c->stamps = (struct read_stamp *)(c->ring + RING_BYTES);
		strbuf_printf(how, ", buffers not locked (mmap: %s)", strerror(errno));
		return;
	}
	c->ring = c->region;
	c->stamps = (struct read_stamp *)(c->ring + RING_BYTES);
	if (mlock(c->region, c->region_len) == 0)
		strbuf_puts(how, ", buffers locked in memory");
	else
		strbuf_printf(how, ", buffers not locked in memory (mlock: %s)", strerror(errno));
}

/* Waits for the unprivileged reader's slice request and says how it went. */
static void slice_said(struct serial_capture *c, struct strbuf *how)
{
	pthread_mutex_lock(&c->ring_mu);
	while (!c->slice_done)
		pthread_cond_wait(&c->slice_cv, &c->ring_mu);
	int e = c->slice_errno;
	pthread_mutex_unlock(&c->ring_mu);
	if (!e)
		strbuf_printf(how, ", a %g ms time slice for the reader", READER_SLICE_NS / 1e6);
	else if (e < 0)
		strbuf_puts(how, ", no short time slice for the reader (this kernel keeps its own; "
			    "Linux 6.12 or later)");
	else
		strbuf_printf(how, ", no short time slice for the reader (%s)", strerror(e));
}

/* Starts the reader SCHED_FIFO, or with ordinary scheduling when refused;
 * says which in c->sched. With the privilege, what a real-time reader
 * still waits for is held ready too (transport/console_boost.h): idle
 * CPUs, and the kernel workers that hand a tty's bytes over. */
static int reader_start(struct serial_capture *c)
{
	struct strbuf how = STRBUF_INIT;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (c->region)
		pthread_attr_setstack(&attr, (char *)c->region + RINGS_LEN, READER_STACK);
	struct sched_param sp = { .sched_priority = READER_RT_PRIORITY };
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	int e = pthread_create(&c->reader, &attr, reader_main, c);
	bool fifo = e == 0;
	if (fifo) {
		strbuf_printf(&how, "SCHED_FIFO priority %d", READER_RT_PRIORITY);
	} else {
		strbuf_printf(&how, "ordinary scheduling, SCHED_FIFO refused (%s): the process "
			      "has neither CAP_SYS_NICE nor an rtprio limit", strerror(e));
		pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
		c->want_slice = true;
		e = pthread_create(&c->reader, &attr, reader_main, c);
	}
	pthread_attr_destroy(&attr);
	strbuf_puts(&how, c->sched);
	if (!fifo && !e)
		slice_said(c, &how);
	if (fifo) {
		char boost[320];
		console_boost_hold(boost, sizeof(boost));
		c->boost_held = true;
		strbuf_puts(&how, boost);
	}
	snprintf(c->sched, sizeof(c->sched), "%s", strbuf_str(&how));
	strbuf_release(&how);
	return e ? -1 : 0;
}

static void ring_mutex_init(pthread_mutex_t *mu)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
}

static void capture_free(struct serial_capture *c)
{
	if (c->boost_held)
		console_boost_release();
	if (c->log)
		fclose(c->log);
	if (c->raw)
		fclose(c->raw);
	if (c->wake[0] >= 0) {
		close(c->wake[0]);
		close(c->wake[1]);
	}
	if (c->region)
		munmap(c->region, c->region_len);
	else
		free(c->ring);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->ring_mu);
	pthread_cond_destroy(&c->ring_data);
	pthread_cond_destroy(&c->slice_cv);
	pthread_cond_destroy(&c->ring_space);
	serial_linebuf_release(&c->lb);
	free(c);
}

/* Ends the cutter and the writer (the reader has stopped or never ran). */
static void join_cutter_writer(struct serial_capture *c)
{
	pthread_mutex_lock(&c->ring_mu);
	c->reader_done = true;
	pthread_cond_signal(&c->ring_data);
	pthread_mutex_unlock(&c->ring_mu);
	pthread_join(c->cutter, NULL);
	pthread_join(c->writer, NULL);
}

struct serial_capture *serial_capture_start(struct serial_port *port,
					    const struct serial_capture_options *opt,
					    char *err, size_t errlen)
{
	struct serial_capture *c = xcalloc(1, sizeof(*c));
	c->port = port;
	c->log = opt->log;
	c->raw = opt->raw;
	c->user_fn = opt->on_line;
	c->user_ctx = opt->ctx;
	c->queue_max = opt->queue_max ? opt->queue_max : 4u << 20;
	c->base_mono_us = opt->base_mono_us ? opt->base_mono_us : clock_mono_us();
	c->wake[0] = c->wake[1] = -1;
	serial_linebuf_init(&c->lb);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	ring_mutex_init(&c->ring_mu);
	pthread_cond_init(&c->ring_data, NULL);
	pthread_cond_init(&c->slice_cv, NULL);
	pthread_cond_init(&c->ring_space, NULL);
	struct strbuf how = STRBUF_INIT;
	region_alloc(c, &how);
	snprintf(c->sched, sizeof(c->sched), "%s", strbuf_str(&how));
	strbuf_release(&how);
	if (pipe(c->wake) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	fcntl(c->wake[0], F_SETFD, FD_CLOEXEC);
	fcntl(c->wake[1], F_SETFD, FD_CLOEXEC);
	if (pthread_create(&c->writer, NULL, writer_main, c) != 0) {
		snprintf(err, errlen, "cannot start the console writer thread");
		goto fail;
	}
	if (pthread_create(&c->cutter, NULL, cutter_main, c) != 0) {
		snprintf(err, errlen, "cannot start the console line thread");
		pthread_mutex_lock(&c->mu);
		c->cutter_done = true;
		pthread_cond_signal(&c->cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->writer, NULL);
		goto fail;
	}
	if (reader_start(c) < 0) {
		snprintf(err, errlen, "cannot start the console reader thread");
		join_cutter_writer(c);
		goto fail;
	}
	return c;
fail:
	capture_free(c);
	return NULL;
}

void serial_capture_set_base(struct serial_capture *c, int64_t mono_us)
{
	pthread_mutex_lock(&c->mu);
	c->base_mono_us = mono_us;
	pthread_mutex_unlock(&c->mu);
}

bool serial_capture_port_lost(struct serial_capture *c, char *err, size_t errlen)
{
	pthread_mutex_lock(&c->ring_mu);
	bool lost = c->port_lost;
	if (lost && err)
		snprintf(err, errlen, "%s", c->error);
	pthread_mutex_unlock(&c->ring_mu);
	return lost;
}

uint64_t serial_capture_bytes(struct serial_capture *c)
{
	pthread_mutex_lock(&c->ring_mu);
	uint64_t n = c->byte_head;
	pthread_mutex_unlock(&c->ring_mu);
	return n;
}

const char *serial_capture_sched(const struct serial_capture *c)
{
	return c->sched;
}

int serial_capture_stop(struct serial_capture *c, struct serial_capture_stats *st,
			char *err, size_t errlen)
{
	if (!c)
		return 0;
	pthread_mutex_lock(&c->ring_mu);
	c->reader_stop = true;
	pthread_cond_signal(&c->ring_space);
	pthread_mutex_unlock(&c->ring_mu);
	char one = 1;
	ssize_t w = write(c->wake[1], &one, 1);
	(void)w;
	pthread_join(c->reader, NULL);
	join_cutter_writer(c);
	int ret = 0;
	if (c->log && fclose(c->log) != 0 && !c->file_error[0])
		snprintf(c->file_error, sizeof(c->file_error), "close console log: %s",
			 strerror(errno));
	if (c->raw && fclose(c->raw) != 0 && !c->file_error[0])
		snprintf(c->file_error, sizeof(c->file_error), "close raw console log: %s",
			 strerror(errno));
	c->log = c->raw = NULL;
	if (c->file_error[0]) {
		snprintf(err, errlen, "%s", c->file_error);
		ret = -1;
	}
	if (st) {
		memset(st, 0, sizeof(*st));
		st->bytes = c->byte_head;
		st->lines = c->lb.lines;
		st->long_lines = c->lb.long_lines;
		st->dropped_bytes = c->dropped;
		st->port_lost = c->port_lost;
		snprintf(st->error, sizeof(st->error), "%s",
			 c->error[0] ? c->error : c->file_error);
		if (c->reader_waits)
			snprintf(st->sched, sizeof(st->sched), "%s; the reader waited %llu time%s for "
				 "the line thread (the stamps of those reads may be late)", c->sched,
				 (unsigned long long)c->reader_waits, c->reader_waits == 1 ? "" : "s");
		else
			snprintf(st->sched, sizeof(st->sched), "%s", c->sched);
	}
	capture_free(c);
	return ret;
}
