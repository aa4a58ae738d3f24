/*
 * `transfer:` tests: the board's SSH transfer rate, built in. N bytes go
 * from the controller to the board over the board's session and N bytes
 * come back, each timed as one command; the rates are the metrics
 * transfer.up and transfer.down in MiB/s.
 *
 * Without a path nothing is written on the board: the bytes go to the
 * stdin of `wc -c`, which counts them, and come back from `dd` of
 * /dev/zero. With a path they go through the board's file system: up
 * writes the file and syncs (the sync inside the time), down reads it
 * (written untimed first when up did not run, the page cache dropped when
 * the board lets orch), and the file is removed after, also on failure;
 * stdout.log names it. A file that was there before is never touched:
 * the test fails instead.
 *
 * Beside each rate, the board's CPU shares meanwhile from two samples of
 * its /proc/stat (transfer_cpu.c). With ciphers: or macs: the test runs
 * over an SSH connection of its own that offers those; the algorithms the
 * session agreed on are the result's implementation.
 */
#include "execute/context.h"
#include "execute/executors.h"
#include "config/substitute.h"
#include "execute/transfer_cpu.h"
#include "config/vars.h"
#include "util/deadline.h"
#include "util/log_dir.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRANSFER_BLOCK 65536
/* the file's removal gets this long even when the test's time is up */
#define TRANSFER_CLEANUP_MS 10000
/* exit status of the up command when the file was there before */
#define TRANSFER_EXISTS 97

struct transfer_run {
	struct exec_context *ctx;
	struct transport *t;
	struct test_result *tr;
	int64_t dl;
	char *qfile;              /* the board's file, shell-quoted; NULL: no path */
	bool created;             /* orch made the file: remove it at the end */
	bool written;             /* it holds the bytes up sent */
};

/* One command on r's transport (stdin_fd feeding it when >= 0), timed,
 * bounded by dl. 0 with *secs, or -1 with tr's status and message set;
 * *exit_code is the command's exit status when it ran. */
static int transfer_cmd(struct transfer_run *r, const char *what, const char *command,
			int stdin_fd, uint64_t bytes, int64_t dl, struct transport_output *io,
			double *secs, int *exit_code)
{
	struct test_result *tr = r->tr;
	struct transport_exec req = { .command = command, .stdin_fd = stdin_fd, .own_channel = true,
				      .stdin_limit = stdin_fd >= 0 ? (int64_t)bytes : 0,
				      .timeout_ms = dl == DEADLINE_NONE ? 0 : dl - clock_mono_ms(),
				      .on_output = transport_output_keep, .ctx = io };
	if (dl != DEADLINE_NONE && req.timeout_ms <= 0)
		req.timeout_ms = 1;
	struct transport_status st;
	char err[512] = "";
	int64_t t0 = clock_mono_us();
	int rc = transport_exec(r->t, &req, &st, err, sizeof(err));
	*secs = (double)(clock_mono_us() - t0) / 1e6;
	*exit_code = rc < 0 || st.timed_out || st.interrupted ? -1 : st.exit_code;
	char units[32];
	units_format_duration(r->ctx->item->test->timeout_ms, units, sizeof(units));
	if (rc < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s: %s", what, err);
	} else if (st.timed_out) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s timed out after %s; its process group was killed",
					what, units);
	} else if (st.interrupted) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s: interrupted", what);
	} else if (st.exit_code != 0) {
		io->err.len = strcspn(strbuf_str(&io->err), "\r\n");
		if (io->err.buf)
			io->err.buf[io->err.len] = '\0';
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s: exit status %d%s%s", what, st.exit_code,
					io->err.len ? ": " : "", strbuf_str(&io->err));
	} else {
		return 0;
	}
	return -1;
}

/* An untimed helper command whose stdout is kept in io. 0 or -1 (tr set). */
static int transfer_aside(struct transfer_run *r, const char *what, const char *command,
			  int64_t dl, struct transport_output *io, int *exit_code)
{
	double secs;
	return transfer_cmd(r, what, command, -1, 0, dl, io, &secs, exit_code);
}

static void transfer_log(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line for people in the test's stdout.log. */
static void transfer_log(const char *dir, const char *fmt, ...)
{
	char err[512];
	FILE *f = log_dir_fopen(dir, LOG_DIR_STDOUT, LOG_DIR_APPEND, err, sizeof(err));
	if (f) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fclose(f);
	}
}

static double mib_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1048576.0 / secs : 0;
}

/* The rate and the board's CPU shares of one direction, in tr and stdout.log. */
static void transfer_record(struct transfer_run *r, const char *metric, uint64_t bytes,
			    double secs, const struct board_cpu *c0, const struct board_cpu *c1)
{
	test_result_add_sample(r->tr, metric, "MiB/s", true, mib_per_s(bytes, secs));
	transfer_log(r->ctx->test_dir, "%s: %llu bytes in %.3f s, %.2f MiB/s\n",
		     strchr(metric, '.') + 1, (unsigned long long)bytes, secs,
		     mib_per_s(bytes, secs));
	board_cpu_record(r->tr, metric, c0, c1);
}

/* "dd of /dev/zero: bytes in all", as one command (two dd when bytes is
 * not a whole number of blocks). Caller frees. */
static char *zeros_command(uint64_t bytes)
{
	uint64_t q = bytes / TRANSFER_BLOCK, r = bytes % TRANSFER_BLOCK;
	return r ? xasprintf("{ dd if=/dev/zero bs=%d count=%llu 2>/dev/null && "
			     "dd if=/dev/zero bs=%llu count=1 2>/dev/null; }", TRANSFER_BLOCK,
			     (unsigned long long)q, (unsigned long long)r)
		 : xasprintf("dd if=/dev/zero bs=%d count=%llu 2>/dev/null", TRANSFER_BLOCK,
			     (unsigned long long)q);
}

/* The board's file appeared between orch's check and its write: not
 * orch's, so left alone. */
static void transfer_refuse_existing(struct transfer_run *r)
{
	r->tr->status = STATUS_FAIL;
	test_result_set_message(r->tr, "transfer: %s appeared on the board before orch wrote it; "
				"left as it is", r->qfile);
}

/* path (its {ns.field} substituted): the file itself, or in an existing
 * folder a file of orch's own; one that exists is refused. Sets r->qfile.
 * 0 or -1 (tr set). */
static int transfer_resolve(struct transfer_run *r, const char *path)
{
	char *q = shquote(path);
	char *text = xasprintf("p=%s; if [ -d \"$p\" ]; then p=\"${p%%/}/orch-transfer.$$\"; fi; "
			       "if [ -e \"$p\" ] || [ -h \"$p\" ]; then echo \"$p\"; exit %d; fi; "
			       "echo \"$p\"", q, TRANSFER_EXISTS);
	const struct test *test = r->ctx->item->test;
	struct vars_ctx vc = { test, r->ctx->item->board };
	struct subst_env env = { .board = r->ctx->item->board, .lookup = vars_lookup,
				 .lookup_ctx = &vc };
	char err[256];
	char *cmd = substitute(text, &env, err, sizeof(err));
	free(text);
	free(q);
	if (!cmd) {
		r->tr->status = STATUS_ERROR;
		test_result_set_message(r->tr, "transfer path: %s", err);
		return -1;
	}
	struct transport_output io = TRANSPORT_OUTPUT_INIT(4096, 1024);
	int code, ret = transfer_aside(r, "transfer: the board's file", cmd, r->dl, &io, &code);
	char *file = xstrdup(strbuf_str(&io.out));
	file[strcspn(file, "\n")] = '\0';
	if (ret < 0 && code == TRANSFER_EXISTS)
		test_result_set_message(r->tr, "transfer: '%s' exists on the board; orch writes "
					"only a file it makes (remove it or name another)", file);
	else if (ret == 0) {
		r->qfile = shquote(file);
		transfer_log(r->ctx->test_dir, "file: %s\n", file);
	}
	transport_output_release(&io);
	free(file);
	free(cmd);
	return ret;
}

/* The file's size on the board, untimed, against bytes. 0 or -1 (tr set). */
static int transfer_check_size(struct transfer_run *r, uint64_t bytes)
{
	char *cmd = xasprintf("wc -c < %s", r->qfile);
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	int code, ret = transfer_aside(r, "transfer: the file's size", cmd, r->dl, &io, &code);
	unsigned long long got = ret == 0 ? strtoull(strbuf_str(&io.out), NULL, 10) : 0;
	if (ret == 0 && got != bytes) {
		r->tr->status = STATUS_FAIL;
		test_result_set_message(r->tr, "transfer to the board: the file holds %llu bytes "
					"of %llu", got, (unsigned long long)bytes);
		ret = -1;
	}
	transport_output_release(&io);
	free(cmd);
	return ret;
}

static int transfer_up(struct transfer_run *r, uint64_t bytes)
{
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero < 0) {
		r->tr->status = STATUS_ERROR;
		test_result_set_message(r->tr, "transfer: cannot open /dev/zero: %s",
					strerror(errno));
		return -1;
	}
	/* noclobber: the file is made here or the command stops, so a file
	 * orch did not make is never written */
	char *cmd = r->qfile ? xasprintf("set -C; : > %s || exit %d; cat >> %s && sync", r->qfile,
					 TRANSFER_EXISTS, r->qfile)
			     : xstrdup("exec wc -c");
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	struct board_cpu c0, c1;
	board_cpu_sample(r->t, r->dl, &c0);
	double secs = 0;
	int code, ret = transfer_cmd(r, "transfer to the board", cmd, zero, bytes, r->dl, &io,
				     &secs, &code);
	close(zero);
	board_cpu_sample(r->t, r->dl, &c1);
	r->created = r->qfile && code != TRANSFER_EXISTS;
	if (r->qfile && code == TRANSFER_EXISTS)
		transfer_refuse_existing(r);
	if (ret == 0 && !r->qfile) {
		char *end;
		unsigned long long got = strtoull(strbuf_str(&io.out), &end, 10);
		if (end == strbuf_str(&io.out) || got != bytes) {
			r->tr->status = STATUS_FAIL;
			test_result_set_message(r->tr, "transfer to the board: it counted %llu "
						"bytes of %llu", end == strbuf_str(&io.out) ? 0ull
						: got, (unsigned long long)bytes);
			ret = -1;
		}
	} else if (ret == 0) {
		ret = transfer_check_size(r, bytes);
	}
	if (ret == 0) {
		r->written = r->qfile != NULL;
		transfer_record(r, "transfer.up", bytes, secs, &c0, &c1);
	}
	transport_output_release(&io);
	free(cmd);
	return ret;
}

/* Before a timed read of the file: written untimed when up did not, synced,
 * and the page cache dropped where orch may (root), so the read goes
 * through the file system. 0 or -1 (tr set). */
static int transfer_prepare_read(struct transfer_run *r, uint64_t bytes)
{
	int code, ret = 0;
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	if (!r->written) {
		char *zeros = zeros_command(bytes);
		char *cmd = xasprintf("set -C; : > %s || exit %d; %s >> %s && sync", r->qfile,
				      TRANSFER_EXISTS, zeros, r->qfile);
		ret = transfer_aside(r, "transfer: writing the file to read", cmd, r->dl, &io,
				     &code);
		r->created = code != TRANSFER_EXISTS;
		if (code == TRANSFER_EXISTS)
			transfer_refuse_existing(r);
		free(cmd);
		free(zeros);
		if (ret == 0)
			ret = transfer_check_size(r, bytes);
	}
	if (ret == 0) {
		strbuf_reset(&io.out);
		ret = transfer_aside(r, "transfer: dropping the page cache",
				     "sync; if [ -w /proc/sys/vm/drop_caches ] && "
				     "echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then echo dropped; "
				     "fi", r->dl, &io, &code);
		bool dropped = ret == 0 && strstr(strbuf_str(&io.out), "dropped");
		transfer_log(r->ctx->test_dir, "%s\n", dropped
			     ? "down: the board's page cache dropped before the read"
			     : "down: the page cache could not be dropped (not root): the read "
			       "may come from memory");
	}
	transport_output_release(&io);
	return ret;
}

static int transfer_down(struct transfer_run *r, uint64_t bytes)
{
	if (r->qfile && transfer_prepare_read(r, bytes) < 0)
		return -1;
	char *cmd = r->qfile ? xasprintf("cat %s", r->qfile) : zeros_command(bytes);
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	struct board_cpu c0, c1;
	board_cpu_sample(r->t, r->dl, &c0);
	double secs = 0;
	int code, ret = transfer_cmd(r, "transfer from the board", cmd, -1, bytes, r->dl, &io,
				     &secs, &code);
	board_cpu_sample(r->t, r->dl, &c1);
	if (ret == 0 && io.out_bytes != bytes) {
		r->tr->status = STATUS_FAIL;
		test_result_set_message(r->tr, "transfer from the board: %llu bytes came of %llu",
					(unsigned long long)io.out_bytes, (unsigned long long)bytes);
		ret = -1;
	} else if (ret == 0) {
		transfer_record(r, "transfer.down", bytes, secs, &c0, &c1);
	}
	transport_output_release(&io);
	free(cmd);
	return ret;
}

/* Removes the file orch made, bounded on its own: a test whose time is up
 * still cleans up. A failure to remove it fails a passing test. */
static void transfer_cleanup(struct transfer_run *r)
{
	if (!r->created)
		return;
	char *cmd = xasprintf("rm -f %s", r->qfile);
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	struct test_result keep = { 0 };
	struct test_result *tr = r->tr;
	r->tr = &keep;
	int code;
	int ret = transfer_aside(r, "transfer: removing the file", cmd,
				 deadline_in_ms(TRANSFER_CLEANUP_MS), &io, &code);
	r->tr = tr;
	if (ret < 0 && tr->status == STATUS_PASS) {
		tr->status = keep.status;
		test_result_set_message(tr, "%s", keep.message ? keep.message : "?");
	}
	test_result_release(&keep);
	transport_output_release(&io);
	free(cmd);
}

/* The test's transport: the board's session, or with ciphers:/macs: one
 * of its own (*own set). 0, or -1 with tr set. */
static int transfer_transport(struct exec_context *ctx, struct test_result *tr,
			      struct transport **t, bool *own)
{
	const struct transfer_spec *x = &ctx->item->test->transfer;
	char err[512];
	*own = false;
	if (exec_transport(ctx, tr, t, err, sizeof(err)) < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", err);
		return -1;
	}
	if (!x->ciphers && !x->macs)
		return 0;
	struct link_ssh_algos algos = { x->ciphers, x->macs };
	*t = board_link_get_ssh(ctx->link, &algos, ctx->item->test->timeout_ms, err, sizeof(err));
	if (!*t) {
		tr->status = ctx->link->board->transport == TRANSPORT_KIND_SSH ? STATUS_ERROR
										: STATUS_SKIP;
		test_result_set_message(tr, "%s", err);
		return -1;
	}
	*own = true;
	return 0;
}

int execute_transfer(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	struct transfer_run r = { .ctx = ctx, .tr = tr };
	bool own;
	if (transfer_transport(ctx, tr, &r.t, &own) < 0)
		return 0;
	char algos[160];
	if (board_link_ssh_algorithms(r.t, algos, sizeof(algos)) == 0) {
		free(tr->implementation);
		tr->implementation = xasprintf("SSH %s", algos);
		transfer_log(ctx->test_dir, "ssh: %s\n", algos);
	}
	r.dl = deadline_in_ms(test->timeout_ms);
	tr->status = STATUS_PASS;
	int ret = test->transfer.path ? transfer_resolve(&r, test->transfer.path) : 0;
	if (ret == 0 && test->transfer.up)
		ret = transfer_up(&r, test->transfer.bytes);
	if (ret == 0 && test->transfer.down)
		ret = transfer_down(&r, test->transfer.bytes);
	transfer_cleanup(&r);
	if (own)
		board_link_put_extra(ctx->link, r.t);
	else if (ret < 0 && tr->status == STATUS_ERROR)
		board_link_reset(ctx->link);
	free(r.qfile);
	return 0;
}
