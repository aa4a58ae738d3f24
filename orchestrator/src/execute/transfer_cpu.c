/*
 * The board's CPU shares from /proc/stat (transfer_cpu.h).
 */
#include "execute/transfer_cpu.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOARD_CPU_TIMEOUT_MS 5000

int board_cpu_parse(const char *line, struct board_cpu *c)
{
	unsigned long long v[8] = { 0 };
	memset(c, 0, sizeof(*c));
	if (strncmp(line, "cpu ", 4) != 0)
		return -1;
	const char *p = line + 4;
	for (int i = 0; i < 8; i++) {
		char *end;
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno) {
			if (i < 5)
				return -1;
			break;
		}
		p = end;
	}
	/* guest time is already inside user and nice */
	c->user = v[0] + v[1];
	c->sys = v[2] + v[5] + v[6];
	c->iowait = v[4];
	c->busy = c->user + c->sys + v[7];
	c->total = c->busy + v[3] + v[4];
	c->ok = true;
	return 0;
}

void board_cpu_sample(struct transport *t, int64_t dl, struct board_cpu *c)
{
	memset(c, 0, sizeof(*c));
	int64_t timeout = dl == DEADLINE_NONE ? BOARD_CPU_TIMEOUT_MS : dl - clock_mono_ms();
	if (timeout <= 0)
		return;
	if (timeout > BOARD_CPU_TIMEOUT_MS)
		timeout = BOARD_CPU_TIMEOUT_MS;
	struct transport_output io = TRANSPORT_OUTPUT_INIT(1024, 256);
	struct transport_exec req = { .command = "head -n 1 /proc/stat", .stdin_fd = -1,
				      .timeout_ms = timeout, .on_output = transport_output_keep,
				      .ctx = &io };
	struct transport_status st;
	char err[256];
	if (transport_exec(t, &req, &st, err, sizeof(err)) == 0 && !st.timed_out &&
	    !st.interrupted && st.exit_code == 0)
		board_cpu_parse(strbuf_str(&io.out), c);
	transport_output_release(&io);
}

/* b less a, in % of span jiffies (0 when a counter went back, as iowait
 * may). */
static double part(unsigned long long a, unsigned long long b, unsigned long long span)
{
	return b >= a ? 100.0 * (double)(b - a) / (double)span : 0;
}

void board_cpu_record(struct test_result *tr, const char *metric, const struct board_cpu *c0,
		      const struct board_cpu *c1)
{
	if (!c0->ok || !c1->ok || c1->total <= c0->total || c1->busy < c0->busy)
		return;
	unsigned long long span = c1->total - c0->total;
	static const char *const suffix[] = { "_syscpu", "_cpu_user", "_cpu_sys", "_cpu_iowait" };
	double v[4] = { part(c0->busy, c1->busy, span), part(c0->user, c1->user, span),
			part(c0->sys, c1->sys, span), part(c0->iowait, c1->iowait, span) };
	for (int i = 0; i < 4; i++) {
		char *name = xasprintf("%s%s", metric, suffix[i]);
		test_result_add_sample(tr, name, "%", false, v[i]);
		free(name);
	}
}
