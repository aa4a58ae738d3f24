#include "execute/artifact.h"
#include "execute/artifact_sums.h"
#include "execute/fetch_console.h"
#include "execute/push_console.h"
#include "util/cksum.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/log_dir.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The board's checking tools into $C (cksum) and $S (a sha256sum). */
#define REMOTE_TOOLS                                                                   \
	"C=; S=; command -v cksum >/dev/null 2>&1 && C=cksum; "                        \
	"if command -v sha256sum >/dev/null 2>&1; then S=sha256sum; "                  \
	"elif busybox sha256sum </dev/null >/dev/null 2>&1; then S='busybox sha256sum'; fi; "

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
		*infra = true;   /* not the test's doing: an error, like any interrupted step */
		snprintf(err, errlen, "%s: interrupted", what);
	} else if (st->exit_code != 0) {
		snprintf(err, errlen, "%s: %s", what, *why ? why : "the board's command failed");
	} else {
		return 0;
	}
	return -1;
}

/* A fetch's output: stdout into file, summed; stderr kept in o.err. */
struct fetch_capture {
	struct transport_output o;
	FILE *file;
	struct cksum ck;           /* of what went into file */
	bool write_failed;
	int write_errno;
	uint64_t max, got;         /* the cap (0: none), and what came */
};

static int fetch_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct fetch_capture *c = ctx;
	if (stream == TRANSPORT_STDERR)
		return transport_output_keep(&c->o, stream, data, len);
	c->got += len;
	if (c->max && c->got > c->max)
		return -1;   /* it grew past the cap after the board's check */
	if (fwrite(data, 1, len, c->file) != len) {
		c->write_failed = true;
		c->write_errno = errno;
		return -1;
	}
	cksum_update(&c->ck, data, len);
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

/* What the board has at a push's destination, and how it can check a file. */
struct board_copy {
	bool cksum, sha256;        /* its tools */
	char kind[8];              /* "" no file, "size", "sha256" or "cksum" */
	char value[80];
};

/* The board's tools, and whether it has a file $f. */
#define PROBE_HEAD                                                                     \
	"f=%s; " REMOTE_TOOLS "echo \"tools ${C:-none} ${S:+sha256}\"; [ -f \"$f\" ] || exit 0; "

/* One exec: the board's tools, and its copy's size or (the same size as
 * ours) its checksum; sha256_only: its SHA-256 straight away (no size
 * first: for small files), or nothing without a sha256sum. */
static int probe_board(struct transport *t, const char *qpath, long long size, bool sha256_only,
		       int64_t timeout_ms, struct board_copy *bc, bool *infra, char *err,
		       size_t errlen)
{
	char *cmd = sha256_only
		? xasprintf(PROBE_HEAD "[ -z \"$S\" ] || { h=$($S < \"$f\") && "
			    "echo \"sha256 ${h%%%% *}\"; }", qpath)
		: xasprintf(PROBE_HEAD "m=$(($(wc -c < \"$f\"))); "
			    "if [ \"$m\" != %lld ]; then echo \"size $m\"; "
			    "elif [ -n \"$S\" ]; then h=$($S < \"$f\") && echo \"sha256 ${h%%%% *}\"; "
			    "elif [ -n \"$C\" ]; then set -- $($C < \"$f\") && echo \"cksum $1\"; "
			    "else echo \"size $m\"; fi", qpath, size);
	struct transport_output c = TRANSPORT_OUTPUT_INIT(4096, 4096);
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .own_channel = true,
				      .on_output = transport_output_keep, .ctx = &c };
	struct transport_status st;
	char why[256] = "";
	int rc = transport_exec(t, &req, &st, why, sizeof(why));
	int ret = outcome_error(rc, &st, "checking the board's copy", why, infra, err, errlen);
	memset(bc, 0, sizeof(*bc));
	const char *out = strbuf_str(&c.out);
	char tool[16] = "", sha[16] = "";
	if (ret == 0 && sscanf(out, "tools %15s %15s", tool, sha) >= 1) {
		bc->cksum = strcmp(tool, "cksum") == 0;
		bc->sha256 = strcmp(sha, "sha256") == 0;
		const char *nl = strchr(out, '\n');
		if (nl && sscanf(nl + 1, "%7s %79s", bc->kind, bc->value) != 2)
			bc->kind[0] = '\0';
	} else if (ret == 0) {
		snprintf(err, errlen, "checking the board's copy: no answer from its shell");
		ret = -1;
	}
	transport_output_release(&c);
	free(cmd);
	return ret;
}

/* Whether the board's copy is ours (size, then SHA-256 or cksum); the
 * local sums stop at deadline_ms (then it is not known to be ours). */
static bool board_has_it(const struct board_copy *bc, const char *src, long long size,
			 int64_t deadline_ms)
{
	char want[65];
	uint32_t crc;
	if (strcmp(bc->kind, "size") == 0)
		return bc->value[0] && strtoll(bc->value, NULL, 10) == size && !bc->sha256 &&
		       !bc->cksum;
	if (strcmp(bc->kind, "sha256") == 0)
		return artifact_file_sums_within(src, want, NULL, deadline_ms) == 0 &&
		       strcmp(bc->value, want) == 0;
	if (strcmp(bc->kind, "cksum") == 0)
		return artifact_file_crc_within(src, &crc, deadline_ms) == 0 &&
		       strtoul(bc->value, NULL, 10) == crc;
	return false;
}

/* The board's check line after writing a file ("ORCH-CHECK KIND VALUE
 * SIZE": POSIX cksum, else its sha256sum, else the size alone), as shell
 * for the file $f, written to stream fd. */
#define REMOTE_CHECK(fd)                                                                   \
	REMOTE_TOOLS "n=$(($(wc -c < \"$f\"))); "                                           \
	"if [ -n \"$C\" ]; then set -- $($C < \"$f\"); k=\"cksum $1\"; "                    \
	"elif [ -n \"$S\" ]; then h=$($S < \"$f\"); k=\"sha256 ${h%%%% *}\"; "              \
	"else k=\"size $n\"; fi; echo \"ORCH-CHECK $k $n\" >&" fd

/* Whether a board's "ORCH-CHECK KIND VALUE SIZE" line (tag) matches the
 * local file: size, then cksum (crc) or SHA-256 (sha, computed from path
 * when NULL). Sets err (prefixed by what) when not. */
static bool check_matches(const char *tag, long long size, uint32_t crc, const char *sha,
			  const char *path, const char *what, char *err, size_t errlen)
{
	char kind[8] = "", value[80] = "", here[80] = "";
	long long n = -1;
	if (!tag || sscanf(tag, "ORCH-CHECK %7s %79s %lld", kind, value, &n) != 3) {
		snprintf(err, errlen, "%s: the board did not say what it got", what);
		return false;
	}
	if (n != size) {
		snprintf(err, errlen, "%s: size differs after the transfer (board %lld, here %lld)",
			 what, n, size);
		return false;
	}
	if (strcmp(kind, "cksum") == 0)
		snprintf(here, sizeof(here), "%u", (unsigned)crc);
	else if (strcmp(kind, "sha256") == 0 && sha)
		snprintf(here, sizeof(here), "%s", sha);
	else if (strcmp(kind, "sha256") == 0 && artifact_file_sums(path, here, NULL) < 0)
		snprintf(here, sizeof(here), "unreadable");
	else if (strcmp(kind, "size") == 0)
		snprintf(here, sizeof(here), "%s", value);
	if (strcmp(value, here) != 0) {
		snprintf(err, errlen, "%s: checksum differs after the transfer (board %s %s, here "
			 "%s)", what, kind, value, here);
		return false;
	}
	return true;
}

/* Streams src into the part file "DEST.orch-part.BOARD" (per board: boards
 * that share a file system, as lab boards on one host do, never write the
 * same part file; a part left by a controller that died is replaced by the
 * board's next push to dest), made with the mode
 * where the umask can give it) and has the board check it; its check line
 * lands in c->out. 0, or -1 with err set. */
static int push_stream(struct transport *t, const struct board *b, int fd,
		       const char *qdest, int mode, int64_t timeout_ms, struct transport_output *c, bool *infra,
		       const char *what, char *err, size_t errlen)
{
	char *umask_sh = mode & 07111 ? xstrdup("") : xasprintf("umask %o; ", (unsigned)(0777 & ~mode));
	char *cmd = xasprintf(
		"d=%s; f=\"$d.orch-part.%s\"; trap 'rm -f \"$f\"; exit 1' HUP INT TERM PIPE; "
		"case $d in ?*/*) [ -d \"${d%%/*}\" ] || mkdir -p \"${d%%/*}\" || exit 1;; esac; "
		"rm -f \"$f\"; %scat > \"$f\" || { rm -f \"$f\"; exit 1; }; " REMOTE_CHECK("1"),
		qdest, b->name, umask_sh);
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = fd,
				      .on_output = transport_output_keep, .ctx = c };
	struct transport_status ts;
	char why[256] = "";
	int rc = transport_exec(t, &req, &ts, why, sizeof(why));
	if (rc == 0 && !*why) {
		trim_line(&c->err);
		snprintf(why, sizeof(why), "%s", strbuf_str(&c->err));
	}
	int ret = outcome_error(rc, &ts, what, why, infra, err, errlen);
	free(cmd);
	free(umask_sh);
	return ret;
}

/* Gives the checked part file its mode and name (ok), or removes it. */
static int push_commit(struct transport *t, const struct board *b, const char *qdest, int mode,
		       bool ok,
		       int64_t timeout_ms, bool *infra, const char *what, char *err,
		       size_t errlen)
{
	char *mode_sh = mode & 07111 ? xasprintf("chmod %o \"$f\" && ", (unsigned)mode) : xstrdup("");
	char *cmd = ok ? xasprintf("d=%s; f=\"$d.orch-part.%s\"; %smv -f \"$f\" \"$d\"", qdest,
				   b->name, mode_sh)
		       : xasprintf("rm -f %s.orch-part.%s", qdest, b->name);
	struct transport_output c = TRANSPORT_OUTPUT_INIT(4096, 4096);
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .own_channel = true,
				      .on_output = transport_output_keep, .ctx = &c };
	struct transport_status ts;
	char why[256] = "";
	int rc = transport_exec(t, &req, &ts, why, sizeof(why));
	if (rc == 0 && !*why) {
		trim_line(&c.err);
		snprintf(why, sizeof(why), "%s", strbuf_str(&c.err));
	}
	int ret = ok ? outcome_error(rc, &ts, what, why, infra, err, errlen) : 0;
	transport_output_release(&c);
	free(cmd);
	free(mode_sh);
	return ret;
}

/* The transfer, then the local sums (computed beside it) against the
 * board's check, then the rename. */
static int push_file(struct transport *t, const struct board *b, struct file_push *fp, int fd,
		     const struct board_copy *bc, const char *qdest, long long size,
		     int64_t deadline_ms, bool *infra, char *err, size_t errlen)
{
	char what[512];
	snprintf(what, sizeof(what), "push of %s to %s:%s", fp->src, b->name, fp->dest);
	struct sum_job job;
	sum_job_start(&job, fp->src, !bc->cksum && bc->sha256, deadline_ms);
	struct transport_output c = TRANSPORT_OUTPUT_INIT(4096, 4096);
	int64_t t0 = clock_mono_us();
	int ret = push_stream(t, b, fd, qdest, fp->mode, fp->timeout_ms, &c, infra, what, err,
			      errlen);
	fp->secs = (double)(clock_mono_us() - t0) / 1e6;
	int sums = sum_job_wait(&job);
	if (sums < 0 && ret == 0) {
		if (sums == -2 && interrupt_requested()) {
			*infra = true;
			snprintf(err, errlen, "%s: interrupted", what);
		} else if (sums == -2) {
			snprintf(err, errlen, "%s: timed out summing the local file", what);
		} else {
			snprintf(err, errlen, "push: cannot read '%s'", fp->src);
		}
		ret = -1;
	}
	if (ret == 0 && check_matches(strstr(strbuf_str(&c.out), "ORCH-CHECK "), size, job.crc,
				      job.want_sha ? job.sha : NULL, fp->src, what, err, errlen)) {
		ret = push_commit(t, b, qdest, fp->mode, true, fp->timeout_ms, infra, what, err,
				  errlen);
	} else if (ret == 0) {
		char ignored[256];   /* the mismatch is the message */
		push_commit(t, b, qdest, fp->mode, false, fp->timeout_ms, infra, what, ignored,
			    sizeof(ignored));
		ret = -1;
	}
	transport_output_release(&c);
	return ret;
}

/* Over a console shell (no stdin): typed chunks onto the part file
 * (execute/push_console.h), then its mode and the board's check of it, then
 * the rename; all within fp->timeout_ms. */
static int push_file_console(struct transport *t, const struct board *b, struct file_push *fp,
			     const char *qdest, long long size, bool *infra, char *err,
			     size_t errlen)
{
	char what[512], why[384] = "";
	snprintf(what, sizeof(what), "push of %s to %s:%s over the console", fp->src, b->name,
		 fp->dest);
	char *part = xasprintf("%s.orch-part.%s", fp->dest, b->name);
	int64_t timeout_ms = fp->timeout_ms;
	int64_t t0 = clock_mono_ms();
	fp->console = true;
	int rc = console_push_within(t, fp->src, part, -1, timeout_ms, &fp->cs, why, sizeof(why));
	free(part);
	if (rc < 0) {
		*infra = rc == -2 || interrupt_requested();
		snprintf(err, errlen, "%s failed: %s", what, why);
		return -1;
	}
	fp->secs = (double)fp->cs.duration_us / 1e6;
	int64_t left = timeout_ms > 0 ? timeout_ms - (clock_mono_ms() - t0) : 0;
	char *cmd = xasprintf("d=%s; f=\"$d.orch-part.%s\"; chmod %o \"$f\" || exit 1; "
			      REMOTE_CHECK("1"), qdest, b->name, (unsigned)fp->mode);
	char *out = NULL;
	int code = 0;
	uint32_t crc = 0;
	int ret = -1;
	if (timeout_ms > 0 && left <= 0) {
		snprintf(err, errlen, "%s: timed out", what);
	} else if (transport_capture(t, cmd, left, 1024, &out, &code, why, sizeof(why)) < 0) {
		*infra = true;
		snprintf(err, errlen, "%s: %s", what, why);
	} else if (artifact_file_crc_within(fp->src, &crc, deadline_in_ms(left)) < 0) {
		*infra = interrupt_requested();
		snprintf(err, errlen, "push: cannot read '%s'%s", fp->src,
			 *infra ? ": interrupted" : " within the test's timeout");
	} else if (check_matches(strstr(out, "ORCH-CHECK "), size, crc, NULL, fp->src, what, err,
			       errlen)) {
		ret = push_commit(t, b, qdest, fp->mode, true, timeout_ms, infra, what, err, errlen);
	}
	if (ret < 0 && !*infra)
		push_commit(t, b, qdest, fp->mode, false, timeout_ms, infra, what, why, sizeof(why));
	free(out);
	free(cmd);
	return ret;
}

int artifact_push_file(struct transport *t, const struct board *b, struct file_push *fp,
		       bool *infra, char *err, size_t errlen)
{
	struct stat st;
	char why[384];
	*infra = false;
	fp->secs = 0;
	fp->console = false;
	int64_t deadline_ms = deadline_in_ms(fp->timeout_ms);
	int fd = fs_open_regular(fp->src, &st, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "push: %s", why);
		return -1;
	}
	long long size = (long long)st.st_size;
	fp->bytes = (uint64_t)size;
	char *dest = board_path(b, fp->dest);
	char *qdest = shquote(dest);
	struct board_copy bc;
	int64_t probe_ms = fp->probe_timeout_ms ? fp->probe_timeout_ms : fp->timeout_ms;
	int ret = probe_board(t, qdest, size, fp->sha256_only, probe_ms, &bc, infra, err, errlen);
	fp->board_sha256 = bc.sha256;
	bool has_it = ret == 0 && (!fp->sha256_only || strcmp(bc.kind, "sha256") == 0) &&
		      board_has_it(&bc, fp->src, size, deadline_ms);
	if (has_it && fp->sha256_only) {
		ret = 1;   /* its mode is left as it is */
	} else if (has_it) {
		/* the checksum matched: only the mode may differ */
		char *cmd = xasprintf("chmod %o %s", (unsigned)fp->mode, qdest);
		int code = 0;
		char *out = NULL;
		ret = transport_capture(t, cmd, fp->timeout_ms, 1024, &out, &code, err, errlen) < 0
			      ? (*infra = true, -1) : 1;
		free(out);
		free(cmd);
	} else if (ret == 0 && t->ops->no_stdin) {
		ret = push_file_console(t, b, fp, qdest, size, infra, err, errlen);
	} else if (ret == 0) {
		ret = push_file(t, b, fp, fd, &bc, qdest, size, deadline_ms, infra, err, errlen);
	}
	close(fd);
	if (ret != 0)
		fp->bytes = 0;
	free(qdest);
	free(dest);
	return ret;
}

int artifact_push(struct transport *t, const struct board *b, const struct artifact *a,
		  int64_t timeout_ms, bool *infra, double *secs, char *err, size_t errlen)
{
	struct stat st;
	int mode = a->mode;
	if (mode < 0 && stat(a->src, &st) == 0)
		mode = (int)(st.st_mode & 07777);
	struct file_push fp = { .src = a->src, .dest = a->dest, .mode = mode,
				.timeout_ms = timeout_ms };
	int ret = artifact_push_file(t, b, &fp, infra, err, errlen);
	if (secs)
		*secs = fp.secs;
	return ret;
}

/* Opens test_dir/dest.part for writing (0600 until the board's mode is
 * known), making its folders. */
static FILE *open_local(const char *test_dir, const char *dest, char **path, char **part,
			char *err, size_t errlen)
{
	char *part_name = log_dir_part(dest);
	*path = fs_path_join(test_dir, dest);
	*part = fs_path_join(test_dir, part_name);
	char *dir = fs_dirname(*path);
	char why[512];
	FILE *f = NULL;
	if (fs_mkdir_p(dir, err, errlen) == 0) {
		f = log_dir_fopen(test_dir, part_name, LOG_DIR_PRIVATE, why, sizeof(why));
		if (!f)
			snprintf(err, errlen, "fetch: %s", why);
	}
	free(dir);
	free(part_name);
	return f;
}

/* The permission bits of an `ls -l` mode ("-rw-r-----" after "ORCH-MODE "
 * in text), without set-id bits; -1 when there is none. */
static int board_mode(const char *text)
{
	const char *m = text ? strstr(text, "ORCH-MODE ") : NULL;
	if (!m || strlen(m += 10) < 10)
		return -1;
	int mode = 0;
	for (int i = 0; i < 9; i++) {
		char c = m[1 + i], want = "rwxrwxrwx"[i];
		bool exec_like = i % 3 == 2 && (c == 's' || c == 't');
		if (c == want || exec_like)
			mode |= 1 << (8 - i);
		else if (c != '-' && !(i % 3 == 2 && (c == 'S' || c == 'T')))
			return -1;
	}
	return mode;
}

int artifact_fetch(struct transport *t, const struct board *b, const struct artifact *a,
		   const char *test_dir, int64_t timeout_ms, bool *infra, char *err, size_t errlen)
{
	return artifact_fetch_max(t, b, a, test_dir, timeout_ms, 0, infra, err, errlen);
}

int artifact_fetch_max(struct transport *t, const struct board *b, const struct artifact *a,
		       const char *test_dir, int64_t timeout_ms, uint64_t max, bool *infra,
		       char *err, size_t errlen)
{
	char *src = board_path(b, a->src), *qsrc = shquote(src), *path = NULL, *part = NULL;
	*infra = false;
	int ret = -1;
	struct fetch_capture c = { .o = TRANSPORT_OUTPUT_INIT(0, 4096), .max = max };
	cksum_init(&c.ck);
	if (log_dir_reserved(a->dest) || a->dest[0] == '/' || strstr(a->dest, "..")) {
		snprintf(err, errlen, "fetch of %s:%s: '%s' is not a name for a fetched file "
			 "(one of orch's own, or outside the test's folder)", b->name, src, a->dest);
		goto out;
	}
	c.file = open_local(test_dir, a->dest, &path, &part, err, errlen);
	if (!c.file) {
		*infra = true;   /* the controller's disk, not the board */
		goto out;
	}
	bool console = t->ops->no_stdin;   /* text lines only: the board prints a dump */
	struct console_fetch cf;
	console_fetch_init(&cf, c.file, &c.ck, &c.o.err);
	uint64_t cap = console && (!max || max > console_fetch_max()) ? console_fetch_max() : max;
	char *cmd = console ? console_fetch_command(qsrc, cap)
			    : xasprintf("f=%s; [ -f \"$f\" ] || { echo \"no such file\" >&2; "
					"exit 2; }; m=%llu; n=$(($(wc -c < \"$f\"))); "
					"[ \"$m\" = 0 ] || [ \"$n\" -le \"$m\" ] || { echo \"$n bytes, "
					"over the cap of $m\" >&2; exit 2; }; "
					"cat \"$f\" || exit 1; set -- $(ls -ld \"$f\"); "
					"echo \"ORCH-MODE $1\" >&2; " REMOTE_CHECK("2"),
					qsrc, (unsigned long long)max);
	struct transport_exec req = { .command = cmd, .timeout_ms = timeout_ms, .stdin_fd = -1,
				      .own_channel = true,
				      .on_output = console ? console_fetch_output : fetch_output,
				      .ctx = console ? (void *)&cf : (void *)&c };
	struct transport_status st;
	char why[256] = "";
	int rc = transport_exec(t, &req, &st, why, sizeof(why));
	free(cmd);
	char dump_err[128];
	bool dump_bad = console && console_fetch_finish(&cf, dump_err, sizeof(dump_err)) < 0;
	int close_errno = 0;
	bool closed = fclose(c.file) == 0 && !c.write_failed;
	if (!closed)
		close_errno = c.write_failed ? c.write_errno : errno;
	c.file = NULL;
	const char *tag = strstr(strbuf_str(&c.o.err), "ORCH-CHECK ");
	if (rc == 0 && !*why && !tag) {
		trim_line(&c.o.err);
		snprintf(why, sizeof(why), "%s", strbuf_str(&c.o.err));
	}
	char what[512];
	snprintf(what, sizeof(what), "fetch of %s:%s", b->name, src);
	if (!closed) {
		/* the controller's disk (full, read-only): an infrastructure error,
		 * whatever the board's command said after its output was refused */
		*infra = true;
		snprintf(err, errlen, "%s: cannot write '%s' on the controller: %s", what, part,
			 strerror(close_errno ? close_errno : EIO));
		goto out;
	}
	if (c.max && c.got > c.max) {
		snprintf(err, errlen, "%s: more than %llu bytes, over the cap of %llu", what,
			 (unsigned long long)c.max, (unsigned long long)c.max);
		goto out;
	}
	if (outcome_error(rc, &st, what, why, infra, err, errlen) < 0)
		goto out;
	if (dump_bad) {
		snprintf(err, errlen, "%s: %s", what, dump_err);
		goto out;
	}
	struct stat sb;
	long long got = stat(part, &sb) == 0 ? (long long)sb.st_size : -1;
	if (!check_matches(tag, got, cksum_final(&c.ck), NULL, part, what, err, errlen))
		goto out;
	int mode = board_mode(strbuf_str(&c.o.err));
	/* the board's mode, never looser than it; unknown (no ls): 0644 */
	if (chmod(part, mode >= 0 ? (mode_t)mode : 0644) < 0) {
		*infra = true;
		snprintf(err, errlen, "%s: cannot set the mode of '%s': %s", what, part,
			 strerror(errno));
		goto out;
	}
	if (rename(part, path) < 0) {
		*infra = true;
		snprintf(err, errlen, "%s: cannot rename '%s': %s", what, part, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (c.file)
		fclose(c.file);
	if (ret < 0 && part)
		unlink(part);
	transport_output_release(&c.o);
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
