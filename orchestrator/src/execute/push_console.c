#include "execute/push_console.h"
#include "util/base64.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PROBE_TIMEOUT_MS 30000
#define CHUNK_TIMEOUT_MS 60000
#define FINISH_TIMEOUT_MS 120000
#define MAX_FILE (64u << 20)

/* What the probe may answer; the board's answer only picks an index. */
static const char *const decoders[] = { "base64 -d", "busybox base64 -d" };
static const char *const unzippers[] = { "gzip -dc", "gunzip -c", "busybox gunzip -c", "zcat",
					 "busybox zcat" };
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* "hi" in base64, and gzipped (mtime 0) as printf escapes. */
static const char probe_script[] =
	"t() { [ \"$(printf \"$2\" | $1 2>/dev/null)\" = hi ]; }; "
	"for d in 'base64 -d' 'busybox base64 -d'; do "
	"t \"$d\" aGk= && { echo \"d=$d\"; break; }; done; "
	"for z in 'gzip -dc' 'gunzip -c' 'busybox gunzip -c' zcat 'busybox zcat'; do "
	"t \"$z\" '\\037\\213\\010\\000\\000\\000\\000\\000\\002\\377\\313\\310\\004\\000"
	"\\254\\052\\223\\330\\002\\000\\000\\000' && { echo \"z=$z\"; break; }; done; true";

struct board_tools {
	int decoder;               /* index in decoders, or -1 */
	int unzipper;              /* index in unzippers, or -1 */
};

static int pick(const char *out, const char *key, const char *const *names, size_t n)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\r\n");
		if (strncmp(l, key, 2) != 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (len - 2 == strlen(names[i]) && !strncmp(l + 2, names[i], len - 2))
				return (int)i;
	}
	return -1;
}

/* A command's timeout: its own, cut to what is left before deadline (ms,
 * monotonic; DEADLINE_NONE: none); 0 once the deadline has passed. */
static int64_t step_ms(int64_t deadline, int64_t own)
{
	if (deadline == DEADLINE_NONE)
		return own;
	int64_t left = deadline - clock_mono_ms();
	return left <= 0 ? 0 : left < own ? left : own;
}

static int probe_tools(struct transport *t, int64_t deadline, struct board_tools *bt, char *err,
		       size_t errlen)
{
	char *out = NULL;
	int code;
	if (transport_capture(t, probe_script, step_ms(deadline, PROBE_TIMEOUT_MS), 1024, &out,
			      &code, err, errlen) < 0)
		return -1;
	bt->decoder = pick(out, "d=", decoders, N_OF(decoders));
	bt->unzipper = pick(out, "z=", unzippers, N_OF(unzippers));
	free(out);
	return 0;
}

static int read_file(const char *path, unsigned char **data, size_t *len, char *err,
		     size_t errlen)
{
	int fd = fs_open_regular(path, NULL, err, errlen);   /* never a FIFO's blocking read */
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	struct strbuf sb = STRBUF_INIT;
	if (!f) {
		if (fd >= 0) {
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
			close(fd);
		}
		return -1;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len <= MAX_FILE)
		strbuf_append(&sb, buf, n);
	bool bad = ferror(f) || sb.len > MAX_FILE;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "cannot read '%s'%s", path,
			 sb.len > MAX_FILE ? ": too big for a console push" : "");
		strbuf_release(&sb);
		return -1;
	}
	*len = sb.len;
	*data = (unsigned char *)strbuf_detach(&sb);
	return 0;
}

/* gzip (RFC 1952) of data at level 9; caller frees. */
static unsigned char *gzip_data(const unsigned char *data, size_t len, size_t *out_len)
{
	z_stream zs = { 0 };
	if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&zs, (uLong)len) + 64;
	unsigned char *out = xmalloc(cap);
	union { const unsigned char *c; Bytef *m; } in = { data };   /* zlib never writes it */
	zs.next_in = in.m;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	int r = deflate(&zs, Z_FINISH);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

void console_push_printf_escape(struct strbuf *out, const unsigned char *data, size_t len,
				int next)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = data[i];
		bool first = out->len == 0;
		if (c == '%') {
			strbuf_puts(out, "%%");
		} else if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'' && !(first && c == '-')) {
			strbuf_putc(out, (char)c);
		} else {
			/* the shortest octal escape, unless a literal digit follows */
			int after = i + 1 < len ? data[i + 1] : next;
			bool digit_next = after >= '0' && after <= '7';
			if (digit_next || c >= 64)
				strbuf_printf(out, "\\%03o", c);
			else
				strbuf_printf(out, "\\%o", c);
		}
	}
}

/* Runs cmd, expecting exit 0 and no output: 0, -1 (failed, err, or the
 * deadline passed before it started), -2 (transport). */
static int run_quiet(struct transport *t, const char *cmd, int64_t deadline, int64_t own_ms,
		     char *err, size_t errlen)
{
	char *out = NULL;
	int code;
	int64_t timeout_ms = step_ms(deadline, own_ms);
	if (timeout_ms <= 0) {
		snprintf(err, errlen, "timed out");
		return -1;
	}
	if (transport_capture(t, cmd, timeout_ms, 512, &out, &code, err, errlen) < 0) {
		free(out);
		return -2;
	}
	int ret = 0;
	if (code != 0) {
		out[strcspn(out, "\r\n")] = '\0';
		snprintf(err, errlen, "exit status %d%s%s", code, *out ? ": " : "", out);
		ret = -1;
	}
	free(out);
	return ret;
}

struct push_job {
	struct transport *t;
	const struct board_tools *tools;
	enum console_encoding enc;
	const char *qpart;         /* quoted part file (the .gz one with gzip) */
	struct console_push_stats *st;
	int64_t deadline;          /* ms, monotonic; DEADLINE_NONE: none */
};

/* Sends payload chunk by chunk onto the part file. */
static int send_chunks(struct push_job *j, const unsigned char *p, size_t len, char *err,
		       size_t errlen)
{
	struct strbuf text = STRBUF_INIT, cmd = STRBUF_INIT;
	const char *dec = j->enc == CONSOLE_ENC_BASE64 ? decoders[j->tools->decoder] : NULL;
	size_t room = CONSOLE_PUSH_LINE - strlen(j->qpart) - 40;
	size_t off = 0;
	int ret = 0;
	while (off < len && ret == 0) {
		strbuf_reset(&text);
		strbuf_reset(&cmd);
		if (dec) {
			size_t n = room / 4 * 3;
			n = n < len - off ? n : len - off;
			base64_encode(&text, p + off, n);
			off += n;
			strbuf_printf(&cmd, "printf %%s %s|%s>>%s", strbuf_str(&text), dec, j->qpart);
		} else {
			/* grow the escaped text a block at a time up to the room */
			while (off < len && text.len + 64 < room) {
				size_t n = len - off < 16 ? len - off : 16;
				console_push_printf_escape(&text, p + off, n,
							   off + n < len ? p[off + n] : -1);
				off += n;
			}
			strbuf_printf(&cmd, "printf '%s'>>%s", strbuf_str(&text), j->qpart);
		}
		j->st->typed_chars += cmd.len;
		j->st->chunks++;
		ret = run_quiet(j->t, strbuf_str(&cmd), j->deadline, CHUNK_TIMEOUT_MS, err, errlen);
	}
	strbuf_release(&text);
	strbuf_release(&cmd);
	return ret;
}

static char *part_name(const char *remote)
{
	static atomic_uint counter;
	return xasprintf("%s.part.%lx%x", remote, (unsigned long)getpid(),
			 atomic_fetch_add(&counter, 1));
}

/* Sends the payload and turns it into remote: 0, -1 or -2. */
static int push_payload(struct push_job *j, const unsigned char *p, size_t len,
			const char *qpart, const char *qremote, const char *qdir, char *err,
			size_t errlen)
{
	char *cmd = xasprintf("mkdir -p %s && : > %s", qdir, j->qpart);
	int ret = run_quiet(j->t, cmd, j->deadline, CHUNK_TIMEOUT_MS, err, errlen);
	free(cmd);
	if (ret == 0)
		ret = send_chunks(j, p, len, err, errlen);
	if (ret < 0)
		return ret;
	if (j->st->gzip)
		cmd = xasprintf("%s < %s > %s && rm -f %s && chmod 755 %s && mv -f %s %s",
				unzippers[j->tools->unzipper], j->qpart, qpart, j->qpart, qpart,
				qpart, qremote);
	else
		cmd = xasprintf("chmod 755 %s && mv -f %s %s", qpart, qpart, qremote);
	ret = run_quiet(j->t, cmd, j->deadline, FINISH_TIMEOUT_MS, err, errlen);
	free(cmd);
	return ret;
}

int console_push_within(struct transport *t, const char *local, const char *remote,
			int force_encoding, int64_t timeout_ms, struct console_push_stats *st,
			char *err, size_t errlen)
{
	int64_t deadline = deadline_in_ms(timeout_ms);
	struct console_push_stats local_st;
	struct board_tools tools;
	unsigned char *data = NULL, *gz = NULL;
	size_t len = 0, gz_len = 0;
	if (!st)
		st = &local_st;
	memset(st, 0, sizeof(*st));
	if (read_file(local, &data, &len, err, errlen) < 0)
		return -1;
	if (probe_tools(t, deadline, &tools, err, errlen) < 0) {
		free(data);
		return -2;
	}
	st->encoding = tools.decoder >= 0 ? CONSOLE_ENC_BASE64 : CONSOLE_ENC_PRINTF;
	if (force_encoding == CONSOLE_ENC_PRINTF || force_encoding == CONSOLE_ENC_BASE64)
		st->encoding = (enum console_encoding)force_encoding;
	if (st->encoding == CONSOLE_ENC_BASE64 && tools.decoder < 0)
		tools.decoder = 0;
	if (tools.unzipper >= 0)
		gz = gzip_data(data, len, &gz_len);
	st->gzip = gz != NULL;
	st->file_bytes = len;
	st->payload_bytes = gz ? gz_len : len;

	char *dir = fs_dirname(remote);
	char *part = part_name(remote);
	char *part_gz = xasprintf("%s.gz", part);
	char *qdir = shquote(dir), *qremote = shquote(remote), *qpart = shquote(part);
	char *qpart_gz = shquote(part_gz);
	struct push_job job = { t, &tools, st->encoding, gz ? qpart_gz : qpart, st, deadline };
	int64_t start = clock_mono_us();
	int ret = push_payload(&job, gz ? gz : data, st->payload_bytes, qpart, qremote, qdir, err,
			       errlen);
	st->duration_us = clock_mono_us() - start;
	if (ret < 0) {
		/* leave no part file behind (fails fast when the console is gone) */
		char *rm = xasprintf("rm -f %s %s", qpart, qpart_gz);
		char e2[128];
		run_quiet(t, rm, DEADLINE_NONE, 10000, e2, sizeof(e2));
		free(rm);
	}
	free(qdir);
	free(qremote);
	free(qpart);
	free(qpart_gz);
	free(part_gz);
	free(part);
	free(dir);
	free(gz);
	free(data);
	return ret;
}
