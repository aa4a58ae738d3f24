#include "execute/output.h"
#include "util/log_dir.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line being gathered: grows with it up to OUTPUT_MAX_LINE. */
struct line_acc {
	char *buf;                 /* NULL until the first byte */
	size_t len;
	size_t cap;                /* allocated, without the NUL */
	uint64_t total;            /* bytes of the line, also those past the cap */
	bool too_long;             /* passed the cap: dropped until its LF */
};

struct stream_state {
	int fd;                    /* -1: discarded */
	uint64_t written;          /* bytes given to the file */
	uint64_t dropped;          /* bytes beyond the limit, not kept */
	struct line_acc acc;
};

struct output_sink {
	struct stream_state streams[2];
	output_line_fn line_fn;
	output_long_fn long_fn;
	void *line_ctx;
	int write_errno;           /* first write error, reported at close */
	uint64_t limit;            /* bytes kept per log file; 0: no limit */
	bool cut;                  /* a log reached the limit */
	uint64_t long_lines;       /* lines over OUTPUT_MAX_LINE, not handed on */
};

/* Adds byte c (a NUL as C0 80) to the line; past the cap the line is only
 * marked too long. */
static void acc_add(struct line_acc *a, char c)
{
	size_t need = c ? 1 : 2;
	a->total++;
	if (a->too_long)
		return;
	if (a->len + need > OUTPUT_MAX_LINE) {
		a->too_long = true;
		return;
	}
	if (a->len + need > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		if (cap > OUTPUT_MAX_LINE)
			cap = OUTPUT_MAX_LINE;
		a->buf = xrealloc(a->buf, cap + 1);
		a->cap = cap;
	}
	if (c) {
		a->buf[a->len++] = c;
	} else {
		a->buf[a->len++] = '\xC0';
		a->buf[a->len++] = '\x80';
	}
}

/* Ends the line: the text (CR dropped) for the callback, or NULL when it
 * was too long (counted in *long_lines; a->buf then holds its first
 * OUTPUT_MAX_LINE bytes, NUL terminated). Resets a for the next line. */
static const char *acc_end(struct line_acc *a, uint64_t *long_lines)
{
	bool too_long = a->too_long;
	size_t len = a->len;
	a->too_long = false;
	a->len = 0;
	a->total = 0;
	if (too_long) {
		(*long_lines)++;
		a->buf[len] = '\0';
		return NULL;
	}
	if (!a->buf)
		return "";
	if (len && a->buf[len - 1] == '\r')
		len--;
	a->buf[len] = '\0';
	return a->buf;
}

static bool acc_open(const struct line_acc *a)
{
	return a->len || a->too_long;
}

uint64_t output_sink_long_lines(const struct output_sink *s)
{
	return s->long_lines;
}

void output_long_lines_text(uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%llu line%s longer than %d MiB %s not matched (too long for matching)",
		 (unsigned long long)n, n == 1 ? "" : "s", OUTPUT_MAX_LINE / (1024 * 1024),
		 n == 1 ? "was" : "were");
}

static int open_log(const char *dir, const char *name, int *fd, char *err, size_t errlen)
{
	*fd = -1;
	if (!name)
		return 0;
	*fd = log_dir_open(dir, name, LOG_DIR_APPEND, err, errlen);
	return *fd < 0 ? -1 : 0;
}

struct output_sink *output_sink_open(const char *dir, const char *stdout_name,
				     const char *stderr_name, char *err, size_t errlen)
{
	struct output_sink *s = xcalloc(1, sizeof(*s));
	if (open_log(dir, stdout_name, &s->streams[0].fd, err, errlen) < 0 ||
	    open_log(dir, stderr_name, &s->streams[1].fd, err, errlen) < 0) {
		if (s->streams[0].fd >= 0)
			close(s->streams[0].fd);
		free(s);
		return NULL;
	}
	return s;
}

void output_sink_set_long_fn(struct output_sink *s, output_long_fn fn)
{
	s->long_fn = fn;
}

void output_sink_set_limit(struct output_sink *s, uint64_t bytes)
{
	s->limit = bytes;
}

bool output_sink_cut(const struct output_sink *s)
{
	return s->cut;
}

void output_sink_set_line_fn(struct output_sink *s, output_line_fn fn, void *ctx)
{
	s->line_fn = fn;
	s->line_ctx = ctx;
}

static void write_all(struct output_sink *s, int fd, const char *data, size_t len)
{
	while (len && fd >= 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (!s->write_errno)
				s->write_errno = errno;
			return;
		}
		data += n;
		len -= (size_t)n;
	}
}

static int emit_line(struct output_sink *s, enum transport_stream stream, struct stream_state *st)
{
	uint64_t total = st->acc.total;
	const char *line = acc_end(&st->acc, &s->long_lines);
	if (line)
		return s->line_fn(s->line_ctx, stream, line);
	if (s->long_fn)
		s->long_fn(s->line_ctx, stream, st->acc.buf, total);
	return 0;
}

int output_sink_write(void *sink, enum transport_stream stream, const char *data, size_t len)
{
	struct output_sink *s = sink;
	struct stream_state *st = &s->streams[stream == TRANSPORT_STDERR];
	size_t keep = len;
	if (s->limit && st->written + len > s->limit) {
		keep = st->written < s->limit ? (size_t)(s->limit - st->written) : 0;
		st->dropped += len - keep;
		s->cut = true;
	}
	write_all(s, st->fd, data, keep);
	st->written += keep;
	if (!s->line_fn)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n') {
			int ret = emit_line(s, stream, st);
			if (ret < 0)
				return ret;
		} else {
			acc_add(&st->acc, data[i]);   /* a NUL is held as C0 80 (util/utf8.h) */
		}
	}
	return 0;
}

int output_sink_close(struct output_sink *s, char *err, size_t errlen)
{
	if (!s)
		return 0;
	int ret = 0;
	for (int i = 0; i < 2; i++) {
		struct stream_state *st = &s->streams[i];
		if (s->line_fn && acc_open(&st->acc))
			emit_line(s, i ? TRANSPORT_STDERR : TRANSPORT_STDOUT, st);
		free(st->acc.buf);
		if (st->dropped && st->fd >= 0) {
			char mark[160];
			int n = snprintf(mark, sizeof(mark), "\n[orch: log limit of %llu bytes reached; "
					 "%llu more bytes of output were not kept]\n",
					 (unsigned long long)s->limit,
					 (unsigned long long)st->dropped);
			write_all(s, st->fd, mark, (size_t)n);
		}
		if (st->fd >= 0 && close(st->fd) < 0 && !s->write_errno)
			s->write_errno = errno;
	}
	if (s->write_errno) {
		snprintf(err, errlen, "cannot write log: %s", strerror(s->write_errno));
		ret = -1;
	}
	free(s);
	return ret;
}

int output_each_line(const char *path, output_line_fn fn, void *ctx, uint64_t *long_lines)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	struct line_acc acc = { 0 };
	uint64_t longs = 0;
	int ret = 0;
	int c;
	while (ret >= 0 && (c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			const char *line = acc_end(&acc, &longs);
			if (line)
				ret = fn(ctx, TRANSPORT_STDOUT, line);
		} else {
			acc_add(&acc, (char)c);
		}
	}
	if (ret >= 0 && acc_open(&acc)) {
		const char *line = acc_end(&acc, &longs);
		if (line)
			ret = fn(ctx, TRANSPORT_STDOUT, line);
	}
	free(acc.buf);
	fclose(f);
	if (long_lines)
		*long_lines += longs;
	return ret < 0 ? ret : 0;
}
