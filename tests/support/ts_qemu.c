#include "ts_qemu.h"
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ts_qemu_start(struct ts_qemu *q, const char *prefix, const char *opts_fmt, ...)
{
	memset(q, 0, sizeof(*q));
	q->script = xasprintf("%s/tests/lab/qemu-board.sh", ORCH_SOURCE_DIR);
	struct strbuf opts = STRBUF_INIT;
	va_list ap;
	va_start(ap, opts_fmt);
	strbuf_vprintf(&opts, opts_fmt, ap);
	va_end(ap);
	char *why = NULL;
	if (ts_run(&why, "%s check %s", q->script, strbuf_str(&opts)) != 0) {
		ts_skip_file("the qemu lab board cannot run here: %s", why ? why : "?");
	}
	free(why);
	q->dir = ts_mkdtemp(prefix);
	q->state = xasprintf("%s/board", q->dir);
	char *out = NULL;
	int rc = ts_run(&out, "%s start --state %s %s", q->script, q->state, strbuf_str(&opts));
	strbuf_release(&opts);
	if (rc != 0) {
		print_message("qemu board did not start: %s\n", out ? out : "");
		ts_qemu_stop(q);
	}
	free(out);
	return rc != 0 ? -1 : 0;
}

char *ts_qemu_board_yaml(const struct ts_qemu *q, const char *addr, int port,
			 const char *connect_timeout)
{
	const char *s = q->state;
	return xasprintf("    ssh: { host: %s, port: %d, user: root, identity: %s/id_ed25519,\n"
			 "           known_hosts: %s/known_hosts, host_key: accept-new, "
			 "connect_timeout: %s }\n"
			 "    serial: { port: %s/console, baud: 115200 }\n"
			 "    power:\n"
			 "      on: %s power on --state %s\n"
			 "      off: %s power off --state %s\n"
			 "      cycle: %s power cycle --state %s\n",
			 addr, port, s, s, connect_timeout, s, q->script, s, q->script, s, q->script, s);
}

void ts_qemu_write_inventory(struct ts_qemu *q, const char *text)
{
	free(q->inventory);
	q->inventory = ts_write_file(q->dir, "rack.yaml", text);
}

int ts_qemu_group_down(void **state)
{
	ts_qemu_stop(*state);
	return 0;
}

void ts_qemu_stop(struct ts_qemu *q)
{
	if (q->state)
		ts_run(NULL, "%s stop --state %s", q->script, q->state);
	if (q->dir)
		ts_rmrf(q->dir);
	TS_FREE(q->dir, q->state, q->script, q->inventory);
	memset(q, 0, sizeof(*q));
}
