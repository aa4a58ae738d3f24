/*
 * orch power through Debian's pdudaemon, as docs/orch-inventory.5.md POWER
 * writes it: one group's curl commands against pdudaemon's HTTP listener on
 * loopback (127.0.50.1:2650), each board's outlet a var; pdudaemon's
 * localcmdline driver appends "OUTLET on|off" to a file. pdudaemon queues
 * a request and answers at once, so the file is polled.
 */
#include "testsupport.h"
#include "ts_orch.h"

#include "util/deadline.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PDUD "http://127.0.50.1:2650"

static bool log_has(const char *path, const char *want)
{
	int64_t dl = deadline_in_ms(20000);
	bool found = false;
	while (!found && !deadline_expired(dl)) {
		char *text = ts_read_file(path);
		found = text && strstr(text, want);
		free(text);
		if (!found)
			usleep(50000);
	}
	return found;
}

static void test_power_through_pdudaemon(void **state)
{
	(void)state;
	ts_require_tool("pdudaemon", "apt-get install pdudaemon");
	ts_require_tool("curl", "apt-get install curl");
	struct ts_orch_cli cli;
	ts_orch_cli_init(&cli, "power-pdud", "");
	char *pdu_log = xasprintf("%s/pdu.log", cli.tmp);
	char *conf = xasprintf(
		"{ \"daemon\": { \"hostname\": \"127.0.50.1\", \"port\": 2650, \"listener\": \"http\","
		" \"logging_level\": \"INFO\" },\n"
		"  \"pdus\": { \"pdu1\": { \"driver\": \"localcmdline\","
		" \"cmd_on\": \"echo '%%s on' >> %s\", \"cmd_off\": \"echo '%%s off' >> %s\" } } }\n",
		pdu_log, pdu_log);
	char *conf_path = ts_write_file(cli.tmp, "pdudaemon.conf", conf);
	free(conf);
	char *cmd = xasprintf("exec pdudaemon --conf %s", conf_path);
	char *daemon_log = xasprintf("%s/pdudaemon.log", cli.tmp);
	pid_t pid = ts_spawn(cmd, daemon_log);
	free(cmd);
	/* up when it answers: a request for no PDU is refused with 500 */
	int64_t dl = deadline_in_ms(30000);
	bool up = false;
	while (!up && !deadline_expired(dl)) {
		char *out = NULL;
		ts_run(&out, "curl -s -o /dev/null -w '%%{http_code}' '" PDUD "/power/control/on'");
		up = out && strstr(out, "500");
		free(out);
		if (!up)
			usleep(100000);
	}
	if (!up) {
		char *text = ts_read_file(daemon_log);
		print_message("pdudaemon: %s\n", text ? text : "(no log)");
		free(text);
	}
	assert_true(up);
	free(ts_write_file(cli.tmp, "inv.yaml",
		"groups:\n"
		"  pdu1:\n"
		"    boards: [p1, p2]\n"
		"    vars: { pdu: pdu1, pdud: \"" PDUD "\" }\n"
		"    power:\n"
		"      on:  curl -fsS \"{vars.pdud}/power/control/on?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"      off: curl -fsS \"{vars.pdud}/power/control/off?hostname={vars.pdu}&port={vars.outlet}\"\n"
		"boards:\n"
		"  p1: { local: true, vars: { outlet: 1 } }\n"
		"  p2: { local: true, vars: { outlet: 2 } }\n"));
	char *out = NULL;
	int rc = ts_run(&out, "%s %s power -i inv.yaml p1 p2 on", cli.env, ORCH_BIN);
	print_message("%s", out);
	assert_int_equal(rc, 0);
	free(out);
	assert_true(log_has(pdu_log, "1 on\n"));
	assert_true(log_has(pdu_log, "2 on\n"));
	rc = ts_run(&out, "%s %s power -i inv.yaml p2 off", cli.env, ORCH_BIN);
	assert_int_equal(rc, 0);
	free(out);
	assert_true(log_has(pdu_log, "2 off\n"));
	char *text = ts_read_file(pdu_log);
	assert_null(strstr(text, "1 off"));
	free(text);
	ts_stop(&pid);
	free(daemon_log);
	free(conf_path);
	free(pdu_log);
	ts_orch_cli_release(&cli);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_through_pdudaemon),
	};
	return ts_run_group(tests, NULL, NULL);
}
