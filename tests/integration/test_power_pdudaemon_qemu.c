/*
 * The qemu lab board's power through Debian's pdudaemon: pdudaemon's HTTP
 * listener on 127.10.5.1:16423 with a localcmdline PDU whose on and off
 * run tests/lab/qemu-board.sh power on|off (and log "OUTLET on|off"), the
 * board's power commands the curl recipe of docs/orch-inventory.5.md
 * POWER (cycle: pdudaemon's reboot). Through it:
 *   - orch power on boots the board (its console says "login:"), off
 *     stops it;
 *   - orch run with a health check that is a boot timed from a power
 *     cycle, a boot test (serial boot timing, power-cycle) and a command
 *     over ssh after it (127.10.5.2:42700): all pass, the phases are timed,
 *     and pdudaemon switched the outlet off and on for each power cycle.
 * Skipped, saying why, without qemu, a kernel, pdudaemon, curl or socat.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "ts_orch.h"
#include "ts_pdud.h"
#include "ts_qemu.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define PDU_HOST "127.10.5.1"
#define PDU_PORT 16423
#define SSH_ADDR "127.10.5.2"
#define SSH_PORT 42700

struct fx {
	struct ts_qemu q;
	struct ts_pdud pd;
	struct ts_orch_cli cli;
	char *outlets;   /* what the PDU's commands log */
};

static struct fx F;

static int setup(void **state)
{
	ts_require_tool("pdudaemon", "apt-get install pdudaemon");
	if (ts_qemu_start(&F.q, "pdud-qemu", "--ssh-addr " SSH_ADDR " --ssh-port %d", SSH_PORT) < 0)
		return -1;
	ts_orch_cli_init(&F.cli, "pdud-qemu-cli", "");
	F.outlets = xasprintf("%s/outlets.log", F.cli.tmp);
	char *on = xasprintf("echo '%%s on' >> %s; %s power on --state %s", F.outlets, F.q.script,
			     F.q.state);
	char *off = xasprintf("echo '%%s off' >> %s; %s power off --state %s", F.outlets,
			      F.q.script, F.q.state);
	ts_pdud_start(&F.pd, F.cli.tmp, "http", PDU_HOST, PDU_PORT, "lab-pdu", on, off);
	TS_FREE(on, off);
	char *inv = xasprintf(
		"groups:\n"
		"  lab-pdu:\n"
		"    boards: [qb]\n"
		"    vars: { pdu: lab-pdu, pdud: \"http://%s:%d\" }\n"
		"    power:\n"
		"      on:  curl -fsS \"{vars.pdud}/power/control/on?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"      off: curl -fsS \"{vars.pdud}/power/control/off?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"      cycle: curl -fsS \"{vars.pdud}/power/control/reboot?hostname={vars.pdu}&port={vars.outlet}&delay=1\"\n"
		"boards:\n"
		"  qb:\n"
		"    arch: x86_64\n"
		"    vars: { outlet: 3 }\n"
		"    ssh: { host: %s, port: %d, user: root, identity: %s/id_ed25519,\n"
		"           known_hosts: %s/known_hosts, host_key: accept-new, connect_timeout: 10s }\n"
		"    serial: { port: %s/console, baud: 115200 }\n"
		"    health:\n"
		"      - name: power-cycled\n"
		"        timeout: 3m\n"
		"        boot:\n"
		"          trigger: power-cycle\n"
		"          phases: [{ name: login, until: 'login:' }]\n",
		PDU_HOST, PDU_PORT, SSH_ADDR, SSH_PORT, F.q.state, F.q.state, F.q.state);
	free(ts_write_file(F.cli.tmp, "inv.yaml", inv));
	free(inv);
	return 0;
}

static int teardown(void **state)
{
	ts_pdud_stop(&F.pd);
	ts_qemu_stop(&F.q);
	if (F.cli.tmp)
		ts_orch_cli_release(&F.cli);
	free(F.outlets);
	memset(&F, 0, sizeof(F));
	return 0;
}

static int orch(char **out, const char *args)
{
	int rc = ts_run(out, "%s %s %s 2>&1", F.cli.env, ORCH_BIN, args);
	print_message("orch %s: exit %d\n%s\n", args, rc, *out ? *out : "");
	return rc;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* orch power on boots the board: `orch boot` would power-cycle it, so the
 * console is watched with a plain reader while it comes up. */
static void test_power_on_off(void **state)
{
	char *console = xasprintf("%s/console.log", F.cli.tmp);
	char *cmd = xasprintf("exec socat -u OPEN:%s/console,rawer -", F.q.state);
	pid_t reader = ts_spawn(cmd, console);
	free(cmd);
	char *out = NULL;
	assert_int_equal(orch(&out, "power -i inv.yaml qb on"), 0);
	free(out);
	char *text = ts_read_file(F.outlets);
	assert_non_null(text);
	assert_string_equal(text, "3 on\n");   /* pdudaemon answered after it ran */
	free(text);
	assert_true(ts_file_has(console, "login:", 180000));
	ts_stop(&reader);
	free(console);
	assert_int_equal(orch(&out, "power -i inv.yaml qb off"), 0);
	free(out);
	text = ts_read_file(F.outlets);
	assert_string_equal(text, "3 on\n3 off\n");
	free(text);
}

static void test_boot_and_health_cycle(void **state)
{
	free(ts_write_file(F.cli.tmp, "boot.yaml",
		"name: pdud-boot\n"
		"inventory: inv.yaml\n"
		"boards: [qb]\n"
		"defaults: { timeout: 3m }\n"
		"tests:\n"
		"  - name: boot\n"
		"    boot:\n"
		"      trigger: power-cycle\n"
		"      phases:\n"
		"        - { name: firmware, until: 'Linux version' }\n"
		"        - { name: kernel,   until: 'Run /init|Executing INIT' }\n"
		"        - { name: login,    until: 'login:' }\n"
		"  - name: after\n"
		"    run: cat /proc/uptime\n"));
	char *before = ts_read_file(F.outlets);
	size_t offs = before ? count(before, "3 off\n") : 0;
	free(before);
	char *out = NULL;
	int rc = orch(&out, "run boot.yaml -o runs --no-history");
	free(out);
	assert_int_equal(rc, 0);
	char *run = xasprintf("%s/runs/pdud-boot/latest", F.cli.tmp);
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	json_t *boot = ts_json_result_or_fail(res, "qb", "boot");
	assert_string_equal(ts_json_str(boot, "status"), "pass");
	json_t *phases = json_object_get(boot, "phases");
	assert_int_equal(json_array_size(phases), 3);
	size_t i;
	json_t *ph;
	json_array_foreach(phases, i, ph) {
		json_t *ms = json_object_get(ph, "duration_s");
		if (!json_is_number(ms))
			fail_msg("phase %s untimed", ts_json_str(ph, "name"));
	}
	assert_string_equal(ts_json_str(ts_json_result_or_fail(res, "qb", "after"), "status"),
			    "pass");
	/* the health check ran (its logs are in the folder) and cycled it */
	char *hdir = xasprintf("%s/qb/health.power-cycled", run);
	assert_int_equal(ts_run(NULL, "test -d '%s'", hdir), 0);
	free(hdir);
	char *text = ts_read_file(F.outlets);
	size_t cycles = count(text, "3 off\n3 on\n");
	print_message("outlet log after the run:\n%s", text);
	assert_int_equal(count(text, "3 off\n") - offs, 2);   /* the health check's, the boot's */
	assert_true(cycles >= 2);
	free(text);
	json_decref(res);
	free(run);
}

TS_MAIN(setup, teardown, test_power_on_off, test_boot_and_health_cycle)
