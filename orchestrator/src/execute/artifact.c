#include "execute/artifact.h"
#include "util/fsutil.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The board's SHA-256 of the file on stdin into $h; "size:N" when it has
 * no sha256sum. */
#define REMOTE_HASH(file)                                                              \
	"if command -v sha256sum >/dev/null 2>&1; then h=$(sha256sum < " file "); "      \
	"elif busybox sha256sum </dev/null >/dev/null 2>&1; then "                      \
	"h=$(busybox sha256sum < " file "); else h=size:$(($(wc -c < " file "))); fi; " \
	"h=${h%%%% *}; "

static void to_hex(const unsigned char *d, unsigned n, char *hex)
{
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int artifact_sha256_file(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ret = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 ? 0 : -1;
	char *buf = xmalloc(1 << 20);
	ssize_t n;
	while (ret == 0 && (n = read(fd, buf, 1 << 20)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || EVP_DigestUpdate(ctx, buf, (size_t)n) != 1)
			ret = -1;
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	if (ret == 0 && EVP_DigestFinal_ex(ctx, md, &len) == 1 && len == 32)
		to_hex(md, len, hex);
	else
		ret = -1;
	free(buf);
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ret;
}

/* A path on the board as the test's commands see it: a relative one is
 * where they start (the login's home over SSH). */
static char *board_path(const struct board *b, const char *path)
{
	(void)b;
	return xstrdup(path);
}

static int outcome_error(int rc, const struct transport_status *st, const char *what,
			 const char *why, bool *infra, char *err, size_t errlen)
{
	if (rc < 0) {
		*infra = true;
		snprintf(err, errlen, "%s: %s", what, why);
	} else if (st->timed_out) {
		snprintf(err, errlen, "%s: timed out", what);
	} else if (st->interrupted) {
		snprintf(err, errlen, "%s: interrupted", what);
	} else if (st->exit_code != 0) {
		snprintf(err, errlen, "%s: %s", what, *why ? why : "the board's command failed");
	} else {
		return 0;
	}
	return -1;
}

struct capture {
	struct strbuf out;
	struct strbuf errtext;
	FILE *file;                /* fetch: stdout goes here */
	EVP_MD_CTX *md;
	bool write_failed;
};

static int capture_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct capture *c = ctx;
	if (stream == TRANSPORT_STDERR) {
		if (c->errtext.len < 4096)
			strbuf_append(&c->errtext, data, len);
		return 0;
	}
	if (!c->file) {
		if (c->out.len < 4096)
			strbuf_append(&c->out, data, len);
		return 0;
	}
	if (fwrite(data, 1, len, c->file) != len) {
		c->write_failed = true;
		return -1;
	}
	EVP_DigestUpdate(c->md, data, len);
	return 0;
}

static void trim_line(struct strbuf *sb)
{
	if (!sb->buf)
		return;
	size_t n = strcspn(sb->buf, "\r\n");
	sb->buf[n] = '\0';
	sb->len = n;
}

/* The board's checksum of path: "" when absent, "size:N" without sha256sum. */
static int remote_hash(struct transport *t, const char *qpath, int64_t timeout_ms,
		       struct strbuf *hash, bool *infra, char *err, size_t errlen)
{
	char *cmd = xasprintf("f=%s; [ -f \"$f\" ] || exit 0; " REMOTE_HASH("\"$f\"")
			      "echo \"$h\"", qpath);
	struct capture c = { STRBUF_INIT, STRBUF_INIT, NULL, NULL, false };
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .on_output = capture_output, .ctx = &c };
	struct transport_status st;
	char why[256] = "";
	int rc = transport_exec(t, &req, &st, why, sizeof(why));
	int ret = outcome_error(rc, &st, "checksum on the board", why, infra, err, errlen);
	trim_line(&c.out);
	strbuf_reset(hash);
	strbuf_puts(hash, strbuf_str(&c.out));
	strbuf_release(&c.out);
	strbuf_release(&c.errtext);
	free(cmd);
	return ret;
}

static bool same_file(const char *have, const char *want, long long size)
{
	char sz[40];
	snprintf(sz, sizeof(sz), "size:%lld", size);
	return strcmp(have, want) == 0 || strcmp(have, sz) == 0;
}

int artifact_push(struct transport *t, const struct board *b, const struct artifact *a,
		  int64_t timeout_ms, bool *infra, double *secs, char *err, size_t errlen)
{
	char want[65];
	struct stat st;
	*infra = false;
	if (stat(a->src, &st) < 0 || artifact_sha256_file(a->src, want) < 0) {
		snprintf(err, errlen, "push: cannot read '%s': %s", a->src, strerror(errno));
		return -1;
	}
	char *dest = board_path(b, a->dest);
	char *qdest = shquote(dest);
	struct strbuf have = STRBUF_INIT;
	int ret = remote_hash(t, qdest, timeout_ms, &have, infra, err, errlen);
	int mode = a->mode >= 0 ? a->mode : (int)(st.st_mode & 07777);
	if (ret == 0 && same_file(strbuf_str(&have), want, (long long)st.st_size)) {
		/* the checksum matched: only the mode may differ */
		char *cmd = xasprintf("chmod %o %s", (unsigned)mode, qdest);
		int code = 0;
		char *out = NULL;
		if (transport_capture(t, cmd, timeout_ms, 1024, &out, &code, err, errlen) < 0)
			*infra = true, ret = -1;
		free(out);
		free(cmd);
		ret = ret < 0 ? -1 : 1;
		goto out;
	}
	if (ret < 0)
		goto out;
	int fd = open(a->src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "push: cannot open '%s': %s", a->src, strerror(errno));
		ret = -1;
		goto out;
	}
	/* the board hashes the stream as it writes it (tee), so the check
	 * costs no second pass; the size then proves the file got it all */
	char *cmd = xasprintf(
		"d=%s; p=\"$d.part.$$\"; trap 'rm -f \"$p\"' EXIT; "
		"trap 'rm -f \"$p\"; exit 1' HUP INT TERM PIPE; "
		"mkdir -p \"$(dirname \"$d\")\" || exit 1; "
		"if command -v sha256sum >/dev/null 2>&1; then H=sha256sum; "
		"elif busybox sha256sum </dev/null >/dev/null 2>&1; then H='busybox sha256sum'; "
		"else H=; fi; "
		"if [ -n \"$H\" ]; then h=$(tee \"$p\" | $H) || exit 1; h=${h%%%% *}; "
		"else cat > \"$p\" || exit 1; h=size:%lld; fi; "
		"n=$(($(wc -c < \"$p\"))); [ \"$n\" = %lld ] || "
		"{ echo \"size differs after the transfer: $n bytes\" >&2; exit 9; }; "
		"[ \"$h\" = %s ] || [ \"$h\" = size:%lld ] || "
		"{ echo \"checksum differs after the transfer: $h\" >&2; exit 9; }; "
		"chmod %o \"$p\" && mv -f \"$p\" \"$d\" && trap - EXIT",
		qdest, (long long)st.st_size, (long long)st.st_size, want, (long long)st.st_size,
		(unsigned)mode);
	struct capture c = { STRBUF_INIT, STRBUF_INIT, NULL, NULL, false };
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = fd,
				      .on_output = capture_output, .ctx = &c };
	struct transport_status ts;
	char why[256] = "";
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = transport_exec(t, &req, &ts, why, sizeof(why));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (secs)
		*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (rc == 0 && !*why) {
		trim_line(&c.errtext);
		snprintf(why, sizeof(why), "%s", strbuf_str(&c.errtext));
	}
	char what[512];
	snprintf(what, sizeof(what), "push of %s to %s:%s", a->src, b->name, dest);
	ret = outcome_error(rc, &ts, what, why, infra, err, errlen);
	close(fd);
	free(cmd);
	strbuf_release(&c.out);
	strbuf_release(&c.errtext);
out:
	strbuf_release(&have);
	free(qdest);
	free(dest);
	return ret;
}

/* Opens test_dir/dest.part for writing, making its folders. */
static FILE *open_local(const char *test_dir, const char *dest, char **path, char **part,
			char *err, size_t errlen)
{
	*path = xasprintf("%s/%s", test_dir, dest);
	*part = xasprintf("%s.part", *path);
	char *dir = fs_dirname(*path);
	FILE *f = NULL;
	if (fs_mkdir_p(dir, err, errlen) == 0) {
		f = fopen(*part, "wbe");
		if (!f)
			snprintf(err, errlen, "fetch: cannot write '%s': %s", *part, strerror(errno));
	}
	free(dir);
	return f;
}

int artifact_fetch(struct transport *t, const struct board *b, const struct artifact *a,
		   const char *test_dir, int64_t timeout_ms, bool *infra, char *err, size_t errlen)
{
	char *src = board_path(b, a->src), *qsrc = shquote(src), *path = NULL, *part = NULL;
	*infra = false;
	int ret = -1;
	struct capture c = { STRBUF_INIT, STRBUF_INIT, NULL, EVP_MD_CTX_new(), false };
	c.file = open_local(test_dir, a->dest, &path, &part, err, errlen);
	if (!c.file || !c.md || EVP_DigestInit_ex(c.md, EVP_sha256(), NULL) != 1)
		goto out;
	char *cmd = xasprintf("f=%s; [ -f \"$f\" ] || { echo \"no such file\" >&2; exit 2; }; "
			      "cat \"$f\" || exit 1; " REMOTE_HASH("\"$f\"")
			      "echo \"ORCH-SHA256 $h\" >&2", qsrc);
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .on_output = capture_output, .ctx = &c };
	struct transport_status st;
	char why[256] = "";
	int rc = transport_exec(t, &req, &st, why, sizeof(why));
	free(cmd);
	bool closed = fclose(c.file) == 0 && !c.write_failed;
	c.file = NULL;
	const char *tag = strstr(strbuf_str(&c.errtext), "ORCH-SHA256 ");
	if (rc == 0 && !*why && !tag) {
		trim_line(&c.errtext);
		snprintf(why, sizeof(why), "%s", strbuf_str(&c.errtext));
	}
	char what[512];
	snprintf(what, sizeof(what), "fetch of %s:%s", b->name, src);
	if (outcome_error(rc, &st, what, why, infra, err, errlen) < 0)
		goto out;
	if (!closed) {
		snprintf(err, errlen, "%s: cannot write '%s'", what, part);
		goto out;
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	char hex[65] = "";
	if (EVP_DigestFinal_ex(c.md, md, &len) == 1 && len == 32)
		to_hex(md, len, hex);
	char have[80] = "";
	if (tag)
		sscanf(tag + 12, "%79s", have);
	struct stat sb;
	long long size = stat(part, &sb) == 0 ? (long long)sb.st_size : -1;
	if (!same_file(have, hex, size)) {
		snprintf(err, errlen, "%s: checksum differs after the transfer (board %s, here %s)",
			 what, have, hex);
		goto out;
	}
	if (rename(part, path) < 0) {
		snprintf(err, errlen, "%s: cannot rename '%s': %s", what, part, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (c.file)
		fclose(c.file);
	if (ret < 0 && part)
		unlink(part);
	EVP_MD_CTX_free(c.md);
	strbuf_release(&c.out);
	strbuf_release(&c.errtext);
	free(path);
	free(part);
	free(qsrc);
	free(src);
	return ret;
}

int artifact_push_all(struct transport *t, const struct board *b, const struct test *test,
		      struct test_result *tr)
{
	char err[1024];
	for (size_t i = 0; i < test->n_push; i++) {
		bool infra = false;
		if (artifact_push(t, b, &test->push[i], test->timeout_ms, &infra, NULL, err,
				  sizeof(err)) < 0) {
			tr->status = infra ? STATUS_ERROR : STATUS_FAIL;
			test_result_set_message(tr, "%s", err);
			return -1;
		}
	}
	return 0;
}

int artifact_fetch_all(struct transport *t, const struct board *b, const struct test *test,
		       const char *test_dir, struct test_result *tr)
{
	char err[1024];
	int ret = 0;
	for (size_t i = 0; i < test->n_fetch; i++) {
		bool infra = false;
		if (artifact_fetch(t, b, &test->fetch[i], test_dir, test->timeout_ms, &infra, err,
				   sizeof(err)) == 0) {
			test_result_add_artifact(tr, test->fetch[i].dest);
			continue;
		}
		if (tr->status == STATUS_PASS) {
			tr->status = infra ? STATUS_ERROR : STATUS_FAIL;
			test_result_set_message(tr, "%s", err);
		}
		ret = -1;
	}
	return ret;
}
