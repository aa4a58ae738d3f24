#include "execute/output.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct stream_state {
	int fd;                    /* -1: discarded */
	uint64_t written;          /* bytes given to the file */
	uint64_t dropped;          /* bytes beyond the limit, not kept */
	char line[OUTPUT_MAX_LINE + 1];
	size_t line_len;
};

struct output_sink {
	struct stream_state streams[2];
	output_line_fn line_fn;
	void *line_ctx;
	int write_errno;           /* first write error, reported at close */
	uint64_t limit;            /* bytes kept per log file; 0: no limit */
	bool cut;                  /* a log reached the limit */
};

static int open_log(const char *dir, const char *name, int *fd, char *err, size_t errlen)
{
	*fd = -1;
	if (!name)
		return 0;
	char *path = fs_path_join(dir, name);
	*fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (*fd < 0)
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
	free(path);
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
	st->line[st->line_len] = '\0';
	if (st->line_len && st->line[st->line_len - 1] == '\r')
		st->line[st->line_len - 1] = '\0';
	st->line_len = 0;
	return s->line_fn(s->line_ctx, stream, st->line);
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
		size_t need = data[i] ? 1 : 2;   /* a NUL is held as C0 80 (util/utf8.h) */
		if (data[i] == '\n' || st->line_len + need > OUTPUT_MAX_LINE) {
			int ret = emit_line(s, stream, st);
			if (ret < 0)
				return ret;
			if (data[i] == '\n')
				continue;
		}
		if (data[i]) {
			st->line[st->line_len++] = data[i];
		} else {
			st->line[st->line_len++] = '\xC0';
			st->line[st->line_len++] = '\x80';
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
		if (s->line_fn && st->line_len)
			emit_line(s, i ? TRANSPORT_STDERR : TRANSPORT_STDOUT, st);
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

int output_each_line(const char *path, output_line_fn fn, void *ctx)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *line = xmalloc(OUTPUT_MAX_LINE + 1);
	size_t len = 0;
	int ret = 0;
	int c;
	while (ret >= 0 && (c = getc_unlocked(f)) != EOF) {
		if (c == '\n' || len + (c ? 1 : 2) > OUTPUT_MAX_LINE) {
			if (len && line[len - 1] == '\r')
				len--;
			line[len] = '\0';
			len = 0;
			ret = fn(ctx, TRANSPORT_STDOUT, line);
			if (c == '\n')
				continue;
		}
		if (c) {
			line[len++] = (char)c;
		} else {
			line[len++] = '\xC0';
			line[len++] = '\x80';
		}
	}
	if (ret >= 0 && len) {
		line[len] = '\0';
		ret = fn(ctx, TRANSPORT_STDOUT, line);
	}
	free(line);
	fclose(f);
	return ret < 0 ? ret : 0;
}
