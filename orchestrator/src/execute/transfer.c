/*
 * `transfer:` tests: the board's SSH transfer rate, built in. N bytes go
 * from the controller to the board over the board's session (stdin of
 * `wc -c`, which counts them) and N bytes come back (`dd` from /dev/zero),
 * each timed as one command; the rates are the metrics transfer.up and
 * transfer.down in MiB/s. Nothing is written on the board and nothing is
 * needed there but a POSIX shell, wc and dd (no scp, no SFTP server).
 */
#include "execute/execute.h"
#include "util/deadline.h"
#include "util/fsutil.h"
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

/* One direction: command on t (stdin_fd feeding it when >= 0), timed.
 * 0 with *secs, or -1 with tr's status and message set. */
static int transfer_once(struct transport *t, const char *what, const char *command,
			 int stdin_fd, uint64_t bytes, int64_t dl, int64_t timeout_ms,
			 struct transport_output *io, double *secs, struct test_result *tr)
{
	struct transport_exec req = { .command = command, .stdin_fd = stdin_fd, .own_channel = true,
				      .stdin_limit = stdin_fd >= 0 ? (int64_t)bytes : 0,
				      .timeout_ms = dl == DEADLINE_NONE ? 0 : dl - clock_mono_ms(),
				      .on_output = transport_output_keep, .ctx = io };
	if (dl != DEADLINE_NONE && req.timeout_ms <= 0)
		req.timeout_ms = 1;
	struct transport_status st;
	char err[512] = "";
	int64_t t0 = clock_mono_us();
	int rc = transport_exec(t, &req, &st, err, sizeof(err));
	*secs = (double)(clock_mono_us() - t0) / 1e6;
	char units[32];
	units_format_duration(timeout_ms, units, sizeof(units));
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

static void transfer_log(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line for people in the test's stdout.log. */
static void transfer_log(const char *dir, const char *fmt, ...)
{
	char *path = fs_path_join(dir, "stdout.log");
	FILE *f = fopen(path, "ae");
	if (f) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fclose(f);
	}
	free(path);
}

static double mib_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1048576.0 / secs : 0;
}

static int transfer_up(struct exec_context *ctx, struct transport *t, uint64_t bytes, int64_t dl,
		       struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "transfer: cannot open /dev/zero: %s", strerror(errno));
		return -1;
	}
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	double secs = 0;
	int ret = transfer_once(t, "transfer to the board", "exec wc -c", zero, bytes, dl,
				test->timeout_ms, &io, &secs, tr);
	close(zero);
	if (ret == 0) {
		char *end;
		unsigned long long got = strtoull(strbuf_str(&io.out), &end, 10);
		if (end == strbuf_str(&io.out) || got != bytes) {
			tr->status = STATUS_FAIL;
			test_result_set_message(tr, "transfer to the board: it counted %llu bytes of "
						"%llu", end == strbuf_str(&io.out) ? 0ull : got,
						(unsigned long long)bytes);
			ret = -1;
		} else {
			test_result_add_sample(tr, "transfer.up", "MiB/s", true, mib_per_s(bytes, secs));
			transfer_log(ctx->test_dir, "up: %llu bytes in %.3f s, %.2f MiB/s\n",
				     (unsigned long long)bytes, secs, mib_per_s(bytes, secs));
		}
	}
	transport_output_release(&io);
	return ret;
}

static int transfer_down(struct exec_context *ctx, struct transport *t, uint64_t bytes,
			 int64_t dl, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	uint64_t q = bytes / TRANSFER_BLOCK, r = bytes % TRANSFER_BLOCK;
	char *cmd = r ? xasprintf("dd if=/dev/zero bs=%d count=%llu 2>/dev/null && "
				  "dd if=/dev/zero bs=%llu count=1 2>/dev/null", TRANSFER_BLOCK,
				  (unsigned long long)q, (unsigned long long)r)
		      : xasprintf("dd if=/dev/zero bs=%d count=%llu 2>/dev/null", TRANSFER_BLOCK,
				  (unsigned long long)q);
	struct transport_output io = TRANSPORT_OUTPUT_INIT(256, 1024);
	double secs = 0;
	int ret = transfer_once(t, "transfer from the board", cmd, -1, bytes, dl,
				test->timeout_ms, &io, &secs, tr);
	if (ret == 0 && io.out_bytes != bytes) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "transfer from the board: %llu bytes came of %llu",
					(unsigned long long)io.out_bytes, (unsigned long long)bytes);
		ret = -1;
	} else if (ret == 0) {
		test_result_add_sample(tr, "transfer.down", "MiB/s", true, mib_per_s(bytes, secs));
		transfer_log(ctx->test_dir, "down: %llu bytes in %.3f s, %.2f MiB/s\n",
			     (unsigned long long)bytes, secs, mib_per_s(bytes, secs));
	}
	transport_output_release(&io);
	free(cmd);
	return ret;
}

int execute_transfer(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	struct transport *t;
	char err[512];
	if (exec_transport(ctx, tr, &t, err, sizeof(err)) < 0) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", err);
		return 0;
	}
	int64_t dl = deadline_in_ms(test->timeout_ms);
	tr->status = STATUS_PASS;
	int ret = 0;
	if (test->transfer.up)
		ret = transfer_up(ctx, t, test->transfer.bytes, dl, tr);
	if (ret == 0 && test->transfer.down)
		ret = transfer_down(ctx, t, test->transfer.bytes, dl, tr);
	if (ret < 0 && tr->status == STATUS_ERROR)
		board_link_reset(ctx->link);
	return 0;
}
