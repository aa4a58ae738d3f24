/*
 * `bench:` tests: pick the remote-bench binary for the board's arch, push
 * it unless the board already has the same file (by SHA-256), run it, and
 * read its JSON metric lines. The push is a `push:` file's
 * (execute/artifact.h: a part file, the board's check, then the rename); it
 * needs nothing on the board but a POSIX shell and cat: no SFTP, no scp.
 */
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/bench.h"
#include "execute/context.h"
#include "execute/executors.h"
#include "execute/metrics.h"
#include "execute/push_console.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "util/log.h"
#include "util/log_dir.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (exec_machine(bt->t, PROBE_TIMEOUT_MS, bt->machine, err, errlen) < 0)
		return -1;
	*arch = bench_arch_name(*bt->machine);
	if (!*arch) {
		snprintf(err, errlen, "%s: no remote-bench build for arch '%s'", bt->board->name,
			 *bt->machine);
		return -1;
	}
	return 0;
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
	char err[512];
	FILE *f = line ? log_dir_fopen(bt->log_dir, LOG_DIR_PUSH_LOG, LOG_DIR_APPEND, err,
				       sizeof(err))
		       : NULL;
	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	} else if (line) {
		log_warn("cannot record the push: %s", err);
	}
	free(line);
	json_decref(rec);
}

/* What a push did, for people (stderr), in tr and in push.log. */
static void push_report(const struct bench_target *bt, const struct file_push *fp,
			struct test_result *tr)
{
	if (!fp->board_sha256)
		log_warn("%s has no sha256sum: %s is checked by cksum or its size only, and it is "
			 "pushed every run", bt->board->name, fp->dest);
	push_record(bt, fp->dest, fp->bytes, fp->secs, tr);
	if (!fp->console)
		return;
	const struct console_push_stats *st = &fp->cs;
	log_info("%s: pushed %s over the console: %zu bytes (%s%s, %u chunks) in %.1fs",
		 bt->board->name, fp->dest, st->file_bytes, st->gzip ? "gzip+" : "",
		 st->encoding == CONSOLE_ENC_BASE64 ? "base64" : "printf escapes", st->chunks,
		 (double)st->duration_us / 1e6);
	if (tr && st->duration_us > 0)
		test_result_add_sample(tr, "console.push", "KiB/s", true,
				       (double)st->file_bytes / 1024.0 / ((double)st->duration_us / 1e6));
}

char *bench_ensure(const struct bench_target *bt, const char *name, struct test_result *tr,
		   char *err, size_t errlen)
{
	const char *arch;
	if (board_arch(bt, &arch, err, errlen) < 0)
		return NULL;
	char *local = xasprintf("%s/%s/remote-bench-%s", bt->bench_dir, arch, name);
	char *remote = xasprintf("%s/bin/remote-bench-%s", bt->board->workdir, name);
	struct file_push fp = {
		.src = local, .dest = remote, .mode = 0755, .probe_timeout_ms = PROBE_TIMEOUT_MS,
		.timeout_ms = PUSH_TIMEOUT_MS, .sha256_only = true,
	};
	bool infra;
	int rc = -1;
	if (access(local, R_OK) < 0)
		snprintf(err, errlen, "no remote-bench program '%s' for %s: cannot read '%s' "
			 "(build it with scripts/build-remote-bench.sh)", name, arch, local);
	else
		rc = artifact_push_file(bt->t, bt->board, &fp, &infra, err, errlen);
	if (rc == 0)
		push_report(bt, &fp, tr);
	free(local);
	if (rc < 0) {
		free(remote);
		return NULL;
	}
	return remote;
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
		.dir = ctx->test_dir, .stdout_name = LOG_DIR_STDOUT,
		.stderr_name = LOG_DIR_STDERR,
		.line_fn = metric_collector_line, .line_ctx = &mc,
		.long_fn = metric_collector_long, .reap = true,
	};
	struct command_outcome out;
	int ran = command_run(t, &spec, &out);
	if (exec_conclude(ctx, t, ran, &out, test->bench, &mc, tr) && !mc.n_values) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "remote-bench %s printed no metric lines", test->bench);
	}
	metric_collector_release(&mc);
	if (tr->status == STATUS_PASS)
		kernel_bogomips(t, tr);
	free(command);
	free(remote);
	return 0;
}
