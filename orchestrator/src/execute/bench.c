/*
 * `bench:` tests: pick the remote-bench binary for the board's arch, push
 * it unless the board already has the same file, run it, and read its JSON
 * metric lines. The push needs nothing on the board but a POSIX shell and
 * cat: no SFTP, no scp.
 */
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/execute.h"
#include "execute/metrics.h"
#include "execute/push_console.h"
#include "execute/substitute.h"
#include "execute/vars.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_TIMEOUT_MS 30000
#define PUSH_TIMEOUT_MS 300000

const char *bench_arch_name(const char *m)
{
	if (!strcmp(m, "x86_64") || !strcmp(m, "amd64"))
		return "x86_64";
	if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
		return "aarch64";
	if ((m[0] == 'i' && strlen(m) == 4 && m[2] == '8' && m[3] == '6') || !strcmp(m, "x86"))
		return "i586";
	if (!strncmp(m, "armv5", 5) || !strncmp(m, "armv6", 5) || !strcmp(m, "armel") ||
	    !strcmp(m, "arm"))
		return "armv5";
	if (!strncmp(m, "armv7", 5) || !strcmp(m, "armhf") || !strncmp(m, "armv8l", 6))
		return "armhf";
	return NULL;
}

/* The remote-bench arch of the board: the inventory's, else `uname -m`
 * asked once and kept in *machine. */
static int board_arch(const struct bench_target *bt, const char **arch, char *err, size_t errlen)
{
	if (!*bt->machine) {
		char *out = NULL;
		int code;
		if (transport_capture(bt->t, "uname -m", PROBE_TIMEOUT_MS, 64, &out, &code, err,
				      errlen) < 0)
			return -1;
		out[strcspn(out, "\r\n")] = '\0';
		*bt->machine = out;
	}
	*arch = bench_arch_name(*bt->machine);
	if (!*arch) {
		snprintf(err, errlen, "%s: no remote-bench build for arch '%s'", bt->board->name,
			 *bt->machine);
		return -1;
	}
	return 0;
}

/* The board's SHA-256 of path: "" when the file is absent, "?" when the
 * board has no sha256sum. */
static int remote_sha256(struct transport *t, const char *path, char hex[65], char *err,
			 size_t errlen)
{
	char *q = shquote(path);
	char *cmd = xasprintf("f=%s; if [ ! -f \"$f\" ]; then echo none; "
			      "elif command -v sha256sum >/dev/null 2>&1; then sha256sum \"$f\"; "
			      "elif busybox sha256sum \"$f\" 2>/dev/null; then :; "
			      "else echo unknown; fi", q);
	char *out = NULL;
	int code;
	int ret = transport_capture(t, cmd, PROBE_TIMEOUT_MS, 256, &out, &code, err, errlen);
	if (ret == 0) {
		if (!strncmp(out, "none", 4))
			hex[0] = '\0';
		else if (strlen(out) >= 64 && strspn(out, "0123456789abcdef") >= 64)
			snprintf(hex, 65, "%.64s", out);
		else
			strcpy(hex, "?");
	}
	free(out);
	free(cmd);
	free(q);
	return ret;
}

/* The push's raw record, one JSON line appended to push.log, and its entry
 * in tr->pushes: a transfer, not a figure of the board. */
static void push_record(const struct bench_target *bt, const char *remote, uint64_t bytes,
			double secs, struct test_result *tr)
{
	const char *slash = strrchr(remote, '/');
	const char *base = slash ? slash + 1 : remote;
	if (tr)
		test_result_add_push(tr, base, bytes, secs);
	json_t *rec = json_pack("{s:s, s:s, s:s, s:I, s:f, s:f}", "push", base,
				"board", bt->board->name, "to", remote, "bytes", (json_int_t)bytes,
				"seconds", secs, "kib_per_s", secs > 0 ? (double)bytes / 1024.0 / secs : 0.0);
	char *line = rec ? json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	char *path = fs_path_join(bt->log_dir, "push.log");
	FILE *f = line ? fopen(path, "ae") : NULL;
	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	} else if (line) {
		log_warn("cannot record the push in %s: %s", path, strerror(errno));
	}
	free(path);
	free(line);
	json_decref(rec);
}

/* Through a console shell: typed chunks (execute/push_console.h). */
static int push_console_file(const struct bench_target *bt, const char *local,
			     const char *remote, struct test_result *tr, char *err, size_t errlen)
{
	struct console_push_stats st;
	char perr[384];
	if (console_push(bt->t, local, remote, -1, &st, perr, sizeof(perr)) < 0) {
		snprintf(err, errlen, "push of %s to %s:%s over the console failed: %s", local,
			 bt->board->name, remote, perr);
		return -1;
	}
	log_info("%s: pushed %s over the console: %zu bytes (%s%s, %u chunks) in %.1fs",
		 bt->board->name, remote, st.file_bytes, st.gzip ? "gzip+" : "",
		 st.encoding == CONSOLE_ENC_BASE64 ? "base64" : "printf escapes", st.chunks,
		 (double)st.duration_us / 1e6);
	push_record(bt, remote, st.file_bytes, (double)st.duration_us / 1e6, tr);
	if (tr && st.duration_us > 0)
		test_result_add_sample(tr, "console.push", "KiB/s", true,
				       (double)st.file_bytes / 1024.0 / ((double)st.duration_us / 1e6));
	return 0;
}

static int push_file(const struct bench_target *bt, const char *local, const char *remote,
		     struct test_result *tr, char *err, size_t errlen)
{
	if (bt->t->ops->no_stdin)
		return push_console_file(bt, local, remote, tr, err, errlen);
	int fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", local, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "cannot stat '%s': %s", local, strerror(errno));
		close(fd);
		return -1;
	}
	char *dir = fs_dirname(remote);
	char *qdir = shquote(dir), *qfile = shquote(remote);
	/* A part file per push ($$): boards sharing a file system never mix bytes. */
	char *qpart = xasprintf("%s.part.$$", qfile);
	/* A cut connection ends cat's input as EOF, so cat alone would "succeed"
	 * with a truncated program: only a part file of the whole size is moved. */
	char *cmd = xasprintf("mkdir -p %s && { cat > %s && n=$(wc -c < %s) && [ $n -eq %lld ] && "
			      "chmod 755 %s && mv -f %s %s || { rm -f %s; exit 1; }; }", qdir, qpart,
			      qpart, (long long)st.st_size, qpart, qpart, qfile, qpart);
	struct command_spec spec = {
		.command = cmd, .timeout_ms = PUSH_TIMEOUT_MS, .stdin_fd = fd,
		.dir = bt->log_dir, .stdout_name = NULL, .stderr_name = "push.log",
	};
	struct command_outcome out;
	int64_t start = clock_mono_us();
	int ret = command_run(bt->t, &spec, &out);
	double secs = (double)(clock_mono_us() - start) / 1e6;
	if (ret < 0)
		snprintf(err, errlen, "push to %s failed: %s", bt->board->name, out.err);
	else if (out.st.timed_out || out.st.interrupted || out.st.exit_code != 0) {
		snprintf(err, errlen, "push of %s to %s:%s failed (%s; see push.log)", local,
			 bt->board->name, remote,
			 out.st.timed_out ? "timed out" : out.st.interrupted ? "interrupted"
						       : "remote command failed");
		ret = -1;
	} else {
		push_record(bt, remote, (uint64_t)st.st_size, secs, tr);
	}
	close(fd);
	free(cmd);
	free(qfile);
	free(qpart);
	free(qdir);
	free(dir);
	return ret;
}

/* The size of path on the board, or -1. */
static long remote_size(struct transport *t, const char *path, char *err, size_t errlen)
{
	char *q = shquote(path);
	char *cmd = xasprintf("wc -c < %s", q);
	char *out = NULL;
	int code;
	long size = -1;
	if (transport_capture(t, cmd, PROBE_TIMEOUT_MS, 64, &out, &code, err, errlen) == 0 &&
	    code == 0)
		size = strtol(out, NULL, 10);
	free(out);
	free(cmd);
	free(q);
	return size;
}

char *bench_ensure(const struct bench_target *bt, const char *name, struct test_result *tr,
		   char *err, size_t errlen)
{
	const char *arch;
	if (board_arch(bt, &arch, err, errlen) < 0)
		return NULL;
	char *local = xasprintf("%s/%s/remote-bench-%s", bt->bench_dir, arch, name);
	char *remote = xasprintf("%s/bin/remote-bench-%s", bt->board->workdir, name);
	char want[65], have[65];
	struct stat st;
	if (sha256_file_hex(local, want) < 0 || stat(local, &st) < 0) {
		snprintf(err, errlen, "no remote-bench program '%s' for %s: cannot read '%s' "
			 "(build it with scripts/build-remote-bench.sh)", name, arch, local);
		goto fail;
	}
	if (remote_sha256(bt->t, remote, have, err, errlen) < 0)
		goto fail;
	if (!strcmp(want, have))
		goto out;   /* the board already has this exact binary */
	if (push_file(bt, local, remote, tr, err, errlen) < 0 ||
	    remote_sha256(bt->t, remote, have, err, errlen) < 0)
		goto fail;
	if (!strcmp(have, "?")) {
		/* no sha256sum on the board: the size is all that can be checked */
		log_warn("%s has no sha256sum: checked the size of %s only, and it is pushed "
			 "every run", bt->board->name, remote);
		if (remote_size(bt->t, remote, err, errlen) != (long)st.st_size) {
			snprintf(err, errlen, "push of %s to %s: size differs after transfer", local,
				 bt->board->name);
			goto fail;
		}
	} else if (strcmp(want, have)) {
		snprintf(err, errlen, "push of %s to %s: checksum mismatch after transfer "
			 "(local %.12s, board %.12s)", local, bt->board->name, want, have);
		goto fail;
	}
out:
	free(local);
	return remote;
fail:
	free(local);
	free(remote);
	return NULL;
}

/* The test's env: exported, the program, its arguments as words with their
 * {ns.field} substituted; caller frees. NULL with err set. */
static char *bench_test_command(struct exec_context *ctx, const char *remote, char *err,
				size_t errlen)
{
	const struct test *test = ctx->item->test;
	struct vars_ctx vc = { test, ctx->item->board };
	struct subst_env env = { .board = ctx->item->board, .lookup = vars_lookup, .lookup_ctx = &vc };
	struct subst_vars vars = SUBST_VARS_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *exports = vars_env_prefix(test->env, test->n_env, NULL, 0, "");
	char *cmd = NULL;
	int rc = subst_append(&vars, &sb, exports, &env, err, errlen);
	free(exports);
	strbuf_shquote(&sb, remote);
	for (size_t i = 0; rc == 0 && i < test->n_args; i++) {
		char *q = shquote(test->args[i]);
		strbuf_putc(&sb, ' ');
		rc = subst_append(&vars, &sb, q, &env, err, errlen);
		free(q);
	}
	if (rc == 0)
		cmd = subst_finish(&vars, strbuf_str(&sb));
	subst_vars_release(&vars);
	strbuf_release(&sb);
	return cmd;
}

/* Next to remote-bench's cpu.bogomips (its own loop), the kernel's
 * BogoMIPS from /proc/cpuinfo as cpu.bogomips_kernel, so the two are read
 * side by side (they differ: kernels that calibrate from the TSC report
 * another figure). Boards whose kernel gives none get nothing. */
static void kernel_bogomips(struct transport *t, struct test_result *tr)
{
	if (!test_result_find_metric(tr, "cpu.bogomips"))
		return;
	char *out = NULL, err[256];
	int code;
	if (transport_capture(t, "sed -n '/^[Bb][Oo][Gg][Oo][Mm][Ii][Pp][Ss]/{p;q;}' /proc/cpuinfo",
			      PROBE_TIMEOUT_MS, 256, &out, &code, err, sizeof(err)) == 0 &&
	    code == 0 && out) {
		const char *colon = strchr(out, ':');
		char *end;
		double v = colon ? strtod(colon + 1, &end) : 0;
		if (colon && end != colon + 1 && v > 0)
			test_result_add_sample(tr, "cpu.bogomips_kernel", "BogoMIPS", true, v);
	}
	free(out);
}

int execute_bench(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	struct transport *t;
	char err[512];
	char *remote = NULL;
	if (exec_transport(ctx, tr, &t, err, sizeof(err)) == 0) {
		struct bench_target bt = {
			ctx->link->board, t, &ctx->link->arch, ctx->bench_dir, ctx->test_dir };
		remote = bench_ensure(&bt, test->bench, tr, err, sizeof(err));
	}
	if (!remote) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", err);
		return 0;
	}
	char *command = bench_test_command(ctx, remote, err, sizeof(err));
	if (!command) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s", err);
		free(remote);
		return 0;
	}
	if (artifact_push_all(t, ctx->item->board, test, tr) < 0) {
		free(command);
		free(remote);
		return 0;
	}
	struct metric_collector mc;
	metric_collector_init(&mc, test, true);
	struct command_spec spec = {
		.command = command, .timeout_ms = test->timeout_ms, .stdin_fd = -1,
		.dir = ctx->test_dir, .stdout_name = "stdout.log", .stderr_name = "stderr.log",
		.line_fn = metric_collector_line, .line_ctx = &mc, .reap = true,
	};
	struct command_outcome out;
	int ran = command_run(t, &spec, &out);
	if (ran < 0)
		board_link_reset(ctx->link);
	bool passed = command_judge(&out, test->timeout_ms, test->bench, mc.last_stderr, tr);
	command_leftovers(&out, ctx->item->board->name, NULL, tr);
	if (ran == 0)
		artifact_fetch_all(t, ctx->item->board, test, ctx->test_dir, tr);
	if (passed && tr->status == STATUS_PASS) {
		metric_collector_files(&mc, ctx->test_dir);
		if (metric_collector_commit(&mc, tr) < 0) {
			tr->status = STATUS_FAIL;
		} else if (!mc.n_values) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "remote-bench %s printed no metric lines",
						test->bench);
		}
	}
	metric_collector_release(&mc);
	if (tr->status == STATUS_PASS)
		kernel_bogomips(t, tr);
	free(command);
	free(remote);
	return 0;
}
