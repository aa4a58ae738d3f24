/*
 * orch power through Debian's pdudaemon, as docs/orch-inventory.5.md POWER
 * writes it: one group's commands, each board's outlet a var;
 * pdudaemon's localcmdline driver appends "OUTLET on|off" to a file.
 *   - curl against its HTTP listener (127.0.50.1:2650): on, off, and cycle
 *     as its reboot request (off, the delay, on);
 *   - socat against its TCP listener (127.10.5.1:16422), which answers
 *     "ack" or "nack": a PDU it does not have fails the power command.
 * Debian's pdudaemon answers a request once the driver's command has run,
 * as the manual says, so each line is in the file when orch power returns
 * (checked at once, not polled).
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "ts_pdud.h"

#include <stdlib.h>
#include <string.h>

#define PDUD "http://127.0.50.1:2650"

static void has_now(const char *path, const char *want)
{
	char *text = ts_read_file(path);
	if (!text || !strstr(text, want))
		fail_msg("%s: no \"%s\" when orch power returned: %s", path, want, text ? text : "");
	free(text);
}

struct pdu_fx {
	struct ts_orch_cli cli;
	char *log;
	struct ts_pdud pd;
};

static void pdu_up(struct pdu_fx *f, const char *name, const char *listener, const char *host,
		   int port)
{
	ts_orch_cli_init(&f->cli, name, "");
	f->log = xasprintf("%s/pdu.log", f->cli.tmp);
	char *on = xasprintf("echo '%%s on' >> %s", f->log);
	char *off = xasprintf("echo '%%s off' >> %s", f->log);
	ts_pdud_start(&f->pd, f->cli.tmp, listener, host, port, "pdu1", on, off);
	TS_FREE(on, off);
}

static void pdu_down(struct pdu_fx *f)
{
	ts_pdud_stop(&f->pd);
	free(f->log);
	ts_orch_cli_release(&f->cli);
}

static int power(struct pdu_fx *f, const char *args)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power -i inv.yaml %s", f->cli.env, ORCH_BIN, args);
	print_message("orch power %s: %s", args, out ? out : "");
	free(out);
	return rc;
}

static void test_power_through_pdudaemon_http(void **state)
{
	struct pdu_fx f;
	pdu_up(&f, "power-pdud", "http", "127.0.50.1", 2650);
	free(ts_write_file(f.cli.tmp, "inv.yaml",
		"groups:\n"
		"  pdu1:\n"
		"    boards: [p1, p2]\n"
		"    vars: { pdu: pdu1, pdud: \"" PDUD "\" }\n"
		"    power:\n"
		"      on:  curl -fsS \"{vars.pdud}/power/control/on?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"      off: curl -fsS \"{vars.pdud}/power/control/off?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"      cycle: curl -fsS \"{vars.pdud}/power/control/reboot?hostname={vars.pdu}&port={vars.outlet}&delay=1\"\n"
		"boards:\n"
		"  p1: { local: true, vars: { outlet: 1 } }\n"
		"  p2: { local: true, vars: { outlet: 2 } }\n"));
	assert_int_equal(power(&f, "p1 p2 on"), 0);
	has_now(f.log, "1 on\n");
	has_now(f.log, "2 on\n");
	assert_int_equal(power(&f, "p2 off"), 0);
	has_now(f.log, "2 off\n");
	char *text = ts_read_file(f.log);
	TS_ASSERT_LACKS(text, "1 off");
	free(text);
	assert_int_equal(power(&f, "p1 cycle"), 0);
	has_now(f.log, "1 on\n2 on\n2 off\n1 off\n1 on\n");
	pdu_down(&f);
}

static void test_power_through_pdudaemon_tcp(void **state)
{
	struct pdu_fx f;
	pdu_up(&f, "power-pdud-tcp", "tcp", "127.10.5.1", 16422);
	free(ts_write_file(f.cli.tmp, "inv.yaml",
		"groups:\n"
		"  pdu1:\n"
		"    boards: [t1, nopdu]\n"
		"    vars: { pdu: pdu1, pdud: \"127.10.5.1:16422\" }\n"
		"    power:\n"
		"      on:  printf '%s' \"{vars.pdu} {vars.outlet} on\" | socat -t 60 - TCP:{vars.pdud} | grep -qx ack\n"
		"      off: printf '%s' \"{vars.pdu} {vars.outlet} off\" | socat -t 60 - TCP:{vars.pdud} | grep -qx ack\n"
		"boards:\n"
		"  t1: { local: true, vars: { outlet: 4 } }\n"
		"  nopdu: { local: true, vars: { pdu: pdu9, outlet: 1 } }\n"));
	assert_int_equal(power(&f, "t1 on"), 0);
	has_now(f.log, "4 on\n");
	assert_int_equal(power(&f, "t1 off"), 0);
	has_now(f.log, "4 on\n4 off\n");
	assert_int_not_equal(power(&f, "nopdu on"), 0);   /* pdudaemon's nack */
	pdu_down(&f);
}

TS_MAIN(NULL, NULL, test_power_through_pdudaemon_http, test_power_through_pdudaemon_tcp)
