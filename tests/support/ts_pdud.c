#include "ts_pdud.h"
#include "testsupport.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

bool ts_file_has(const char *path, const char *want, int ms)
{
	char *text = NULL;
	bool found = false;
	TS_WAIT_UNTIL(ms, (free(text), text = ts_read_file(path), found = text && strstr(text, want)));
	free(text);
	return found;
}

/* A request for a PDU it does not have: refused (HTTP 500, or "nack" on
 * TCP), which says it is listening. */
static bool answers(const struct ts_pdud *p, bool http)
{
	char *out = NULL;
	if (http)
		ts_run(&out, "curl -s -o /dev/null -w '%%{http_code}' "
		       "'http://%s/power/control/on?hostname=nopdu&port=1'", p->addr);
	else
		ts_run(&out, "(printf 'nopdu 1 on' | socat -t 5 - TCP:%s 2>/dev/null)", p->addr);
	bool up = out && strstr(out, http ? "500" : "nack") != NULL;
	free(out);
	return up;
}

void ts_pdud_start(struct ts_pdud *p, const char *dir, const char *listener, const char *host,
		   int port, const char *pdu, const char *cmd_on, const char *cmd_off)
{
	memset(p, 0, sizeof(*p));
	ts_require_tool("pdudaemon", "apt-get install pdudaemon");
	ts_require_tool("curl", "apt-get install curl");
	ts_require_tool("socat", "apt-get install socat");
	json_t *conf = json_pack("{s:{s:s, s:i, s:s, s:s}, s:{s:{s:s, s:s, s:s}}}",
				 "daemon", "hostname", host, "port", port, "listener", listener,
				 "logging_level", "DEBUG",
				 "pdus", pdu, "driver", "localcmdline", "cmd_on", cmd_on,
				 "cmd_off", cmd_off);
	char *text = json_dumps(conf, JSON_INDENT(1));
	json_decref(conf);
	p->conf = ts_write_file(dir, "pdudaemon.conf", text);
	free(text);
	p->log = xasprintf("%s/pdudaemon.log", dir);
	p->addr = xasprintf("%s:%d", host, port);
	char *cmd = xasprintf("exec pdudaemon --conf %s", p->conf);
	p->pid = ts_spawn(cmd, p->log);
	free(cmd);
	bool http = strcmp(listener, "http") == 0, up = false;
	TS_WAIT_UNTIL(30000, (up = answers(p, http)));
	if (!up) {
		char *log = ts_read_file(p->log);
		print_message("pdudaemon did not answer on %s: %s\n", p->addr, log ? log : "(no log)");
		free(log);
	}
	assert_true(up);
}

void ts_pdud_stop(struct ts_pdud *p)
{
	ts_stop(&p->pid);
	TS_FREE(p->conf, p->log, p->addr);
	memset(p, 0, sizeof(*p));
}
