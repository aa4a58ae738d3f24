#include "ts_collect.h"
#include "testsupport.h"

#include "util/interrupt.h"

#include <stdio.h>
#include <stdlib.h>

int ts_collect_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct ts_collect *c = ctx;
	if (stream == TRANSPORT_STDOUT) {
		c->out_bytes += len;
		if (!c->count_only)
			strbuf_append(&c->out, data, len);
	} else {
		strbuf_append(&c->err, data, len);
	}
	if (c->interrupt_on_output)
		interrupt_request();
	return c->stop_on_output ? -1 : 0;
}

void ts_collect_release(struct ts_collect *c)
{
	strbuf_release(&c->out);
	strbuf_release(&c->err);
}

int ts_collect_exec(struct transport *t, const char *cmd, int64_t timeout_ms, int stdin_fd,
		    struct ts_collect *c, struct transport_status *st)
{
	char err[512] = "";
	struct transport_exec req = {
		.command = cmd, .timeout_ms = timeout_ms, .stdin_fd = stdin_fd,
		.on_output = ts_collect_output, .ctx = c,
	};
	int rc = transport_exec(t, &req, st, err, sizeof(err));
	if (rc != 0)
		print_error("exec '%s': %s\n", cmd, err);
	return rc;
}

int ts_count_sleepers(struct transport *t, int n)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
		 "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\000' ' ' | grep -o 'sleep %d[%d]' | wc -l",
		 n / 10, n % 10);
	struct ts_collect c = { 0 };
	struct transport_status st;
	assert_int_equal(ts_collect_exec(t, cmd, 10000, -1, &c, &st), 0);
	int count = atoi(strbuf_str(&c.out));
	ts_collect_release(&c);
	return count;
}
