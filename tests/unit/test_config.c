/*
 * config: inventory and scenario loading, defaults, path resolution, and
 * every kind of error with the exact file:line:col it points at.
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "config/selector.h"
#include "util/secret.h"

#include <stdlib.h>
#include <string.h>

#define INV_PATH "/lab/boards/rack.yaml"
#define SC_PATH "/lab/scenarios/nightly.yaml"

static struct inventory *inv_ok(const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	int rc = inventory_load_buffer(INV_PATH, text, strlen(text), &inv, &dl);
	if (rc != 0) {
		diag_print(&dl, stderr);
		fail_msg("inventory did not load");
	}
	assert_int_equal(dl.n, 0);
	diag_list_release(&dl);
	return inv;
}

static struct scenario *sc_ok(const char *text)
{
	return ts_scenario_ok(SC_PATH, text);
}

/* Loads text expecting failure; returns the diagnostics (caller releases). */
static struct diag_list inv_bad(const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	assert_int_equal(inventory_load_buffer(INV_PATH, text, strlen(text), &inv, &dl), -1);
	assert_null(inv);
	assert_true(dl.n > 0);
	return dl;
}

static struct diag_list sc_bad(const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	assert_int_equal(scenario_load_buffer(SC_PATH, text, strlen(text), &sc, &dl), -1);
	assert_null(sc);
	assert_true(dl.n > 0);
	return dl;
}

/* Asserts some diagnostic is at line:col and contains want. */
static void has_diag(const struct diag_list *dl, const char *file, int line, int col, const char *want)
{
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		if (d->line == line && d->col == col && strstr(d->message, want) &&
		    strcmp(d->file, file) == 0)
			return;
	}
	diag_print(dl, stderr);
	fail_msg("no diagnostic %s:%d:%d containing \"%s\"", file, line, col, want);
}

static void has_exact(const struct diag_list *dl, const char *file, int line, int col, const char *msg)
{
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		if (d->line == line && d->col == col && strcmp(d->message, msg) == 0 &&
		    strcmp(d->file, file) == 0)
			return;
	}
	diag_print(dl, stderr);
	fail_msg("no diagnostic %s:%d:%d: %s", file, line, col, msg);
}

static const char design_inventory[] =
	"defaults:\n"
	"  ssh: { user: root, identity: ~/.ssh/id_ed25519, host_key: strict }\n"
	"  workdir: /tmp/orch\n"
	"boards:\n"
	"  bifferboard:\n"
	"    arch: i586\n"
	"    tags: [embedded, x86]\n"
	"    ssh: { host: 192.168.1.50 }\n"
	"    serial: { port: /dev/serial/by-id/usb-FTDI_FT232R_A502-if00-port0, baud: 115200 }\n"
	"    power: { cycle: \"pdu-ctl --outlet 3 cycle\" }\n"
	"  rpi1:\n"
	"    arch: armv6\n"
	"    tags: [embedded, arm]\n"
	"    ssh: { host: rpi1.lab, user: pi, password_env: RPI1_PASSWORD }\n"
	"    serial: { url: \"tcp://lab2:7001\" }        # ser2net, raw TCP or rfc2217://\n"
	"  vm:\n"
	"    arch: x86_64\n"
	"    tags: [server]\n"
	"    ssh: { host: 10.0.0.2 }\n"
	"  controller:\n"
	"    local: true                               # runs on this machine, no SSH\n";

static int set_home(void **state)
{
	setenv("HOME", "/home/tester", 1);
	return 0;
}

static void test_inventory_design(void **state)
{
	struct inventory *inv = inv_ok(design_inventory);
	assert_int_equal(inv->n_boards, 4);
	assert_string_equal(inv->dir, "/lab/boards");

	const struct board *b = inventory_find(inv, "bifferboard");
	assert_non_null(b);
	assert_string_equal(b->arch, "i586");
	assert_int_equal(b->n_tags, 2);
	assert_string_equal(b->tags[1], "x86");
	assert_int_equal(b->transport, TRANSPORT_KIND_SSH);
	assert_true(b->ssh.present);
	assert_string_equal(b->ssh.host, "192.168.1.50");
	assert_string_equal(b->ssh.user, "root");
	assert_string_equal(b->ssh.identity, "/home/tester/.ssh/id_ed25519");
	assert_string_equal(b->ssh.known_hosts, "/home/tester/.ssh/known_hosts");
	assert_int_equal(b->ssh.host_key, HOST_KEY_STRICT);
	assert_int_equal(b->ssh.port, 0);
	assert_int_equal(b->ssh.connect_timeout_ms, 10000);
	assert_true(b->serial.present);
	assert_string_equal(b->serial.port, "/dev/serial/by-id/usb-FTDI_FT232R_A502-if00-port0");
	assert_int_equal(b->serial.baud, 115200);
	assert_int_equal(b->serial.data_bits, 8);
	assert_int_equal(b->serial.stop_bits, 1);
	assert_int_equal(b->serial.parity, PARITY_NONE);
	assert_int_equal(b->serial.flow, FLOW_NONE);
	assert_string_equal(b->serial.login_user, "root");
	assert_string_equal(b->power.cycle, "pdu-ctl --outlet 3 cycle");
	assert_null(b->power.on);
	assert_string_equal(b->workdir, "/tmp/orch");
	assert_string_equal(b->pos.file, INV_PATH);
	assert_int_equal(b->pos.line, 5);
	assert_int_equal(b->pos.col, 3);

	b = inventory_find(inv, "rpi1");
	assert_string_equal(b->ssh.user, "pi");   /* board wins over defaults */
	assert_string_equal(b->ssh.identity, "/home/tester/.ssh/id_ed25519");
	assert_string_equal(b->ssh.password_env, "RPI1_PASSWORD");
	assert_string_equal(b->serial.url, "tcp://lab2:7001");
	assert_null(b->serial.port);

	b = inventory_find(inv, "controller");
	assert_true(b->local);
	assert_false(b->ssh.present);             /* ssh defaults do not create ssh */
	assert_null(b->ssh.user);
	assert_false(b->serial.present);
	assert_int_equal(b->transport, TRANSPORT_KIND_LOCAL);
	assert_string_equal(b->workdir, "/tmp/orch");

	assert_null(inventory_find(inv, "nope"));
	inventory_free(inv);
	inventory_free(NULL);
}

static void test_inventory_merge_and_paths(void **state)
{
	struct inventory *inv = inv_ok(
		"defaults:\n"
		"  workdir: /var/tmp/o\n"
		"  ssh: { port: 2222, identity: keys/id, known_hosts: ~/kh, connect_timeout: 3s }\n"
		"  serial: { baud: 9600, parity: even, flow: rtscts, char_delay: 500us }\n"
		"  power: { on: \"pdu on\", off: \"pdu off\" }\n"
		"boards:\n"
		"  a:\n"
		"    workdir: /opt/a\n"
		"    ssh: { port: 22, identity: /abs/key, host_key: accept-new }\n"
		"    serial: { usb: \"0403:6001:A502\", data_bits: 7, stop_bits: 2 }\n"
		"    power: { off: \"pdu off a\" }\n"
		"  b:\n"
		"    ssh: {}\n"
		"  c:\n"
		"    serial: { port: /dev/ttyUSB0, char_delay: 2ms }\n"
		"  d:\n"
		"    local: true\n"
		"    serial: { url: \"rfc2217://[::1]:7000\" }\n"
		"  e: {}\n"
		"  f:\n"
		"    transport: serial\n"
		"    ssh: { host: f.lab }\n"
		"    serial: { port: /dev/ttyUSB1 }\n");
	const struct board *a = inventory_find(inv, "a");
	assert_string_equal(a->workdir, "/opt/a");
	assert_int_equal(a->ssh.port, 22);
	assert_string_equal(a->ssh.identity, "/abs/key");
	assert_string_equal(a->ssh.known_hosts, "/home/tester/kh");
	assert_int_equal(a->ssh.host_key, HOST_KEY_ACCEPT_NEW);
	assert_int_equal(a->ssh.connect_timeout_ms, 3000);
	assert_null(a->ssh.host);
	assert_string_equal(a->serial.usb, "0403:6001:A502");
	assert_int_equal(a->serial.baud, 9600);
	assert_int_equal(a->serial.data_bits, 7);
	assert_int_equal(a->serial.stop_bits, 2);
	assert_int_equal(a->serial.parity, PARITY_EVEN);
	assert_int_equal(a->serial.flow, FLOW_RTSCTS);
	assert_int_equal(a->serial.char_delay_us, 500);
	assert_string_equal(a->power.on, "pdu on");
	assert_string_equal(a->power.off, "pdu off a");

	const struct board *b = inventory_find(inv, "b");
	assert_string_equal(b->workdir, "/var/tmp/o");
	assert_int_equal(b->ssh.port, 2222);
	assert_string_equal(b->ssh.identity, "/lab/boards/keys/id");
	assert_int_equal(b->transport, TRANSPORT_KIND_SSH);
	assert_null(b->power.on);                 /* no power: section, no power defaults */

	const struct board *c = inventory_find(inv, "c");
	assert_int_equal(c->transport, TRANSPORT_KIND_SERIAL);
	assert_int_equal(c->serial.char_delay_us, 2000);
	assert_int_equal(c->serial.baud, 9600);

	assert_int_equal(inventory_find(inv, "d")->transport, TRANSPORT_KIND_LOCAL);
	assert_string_equal(inventory_find(inv, "d")->serial.url, "rfc2217://[::1]:7000");
	assert_int_equal(inventory_find(inv, "e")->transport, TRANSPORT_KIND_NONE);
	assert_int_equal(inventory_find(inv, "f")->transport, TRANSPORT_KIND_SERIAL);
	inventory_free(inv);
}

/* ssh: ciphers and send_window, their defaults and their errors */
static void test_inventory_ssh_transfer(void **state)
{
	struct inventory *inv = inv_ok(
		"defaults:\n"
		"  ssh: { ciphers: \"chacha20-poly1305@openssh.com, aes128-ctr\" }\n"
		"boards:\n"
		"  a: { ssh: { send_window: 1MiB } }\n"
		"  b: { ssh: { send_window: off, ciphers: [aes256-gcm@openssh.com] } }\n"
		"  c: { ssh: { send_window: 0 } }\n"
		"  d: { local: true }\n");
	const struct board *a = inventory_find(inv, "a");
	assert_string_equal(a->ssh.ciphers, "chacha20-poly1305@openssh.com,aes128-ctr");
	assert_int_equal(a->ssh.send_window, 1 << 20);
	const struct board *b = inventory_find(inv, "b");
	assert_string_equal(b->ssh.ciphers, "aes256-gcm@openssh.com");
	assert_int_equal(b->ssh.send_window, 0);
	assert_int_equal(inventory_find(inv, "c")->ssh.send_window, 0);
	inventory_free(inv);
	inv = inv_ok("boards:\n  a: { ssh: {} }\n");
	assert_null(inv->boards[0].ssh.ciphers);       /* orch's order, by arch (board link) */
	assert_int_equal(inv->boards[0].ssh.send_window, BOARD_SSH_SEND_WINDOW_DEFAULT);
	inventory_free(inv);

	struct diag_list dl = inv_bad(
		"boards:\n"
		"  a: { ssh: { ciphers: \"aes128-gcm@openssh.com,chacha20-poly1305\" } }\n"
		"  b: { ssh: { send_window: 4K } }\n"
		"  c: { ssh: { ciphers: \"\" } }\n");
	has_exact(&dl, INV_PATH, 2, 24,
		  "unknown cipher 'chacha20-poly1305', did you mean "
		  "'chacha20-poly1305@openssh.com'? (orch offers: aes128-gcm@openssh.com, "
		  "aes256-gcm@openssh.com, chacha20-poly1305@openssh.com, aes{128,192,256}-ctr, "
		  "aes{128,192,256}-cbc)");
	has_exact(&dl, INV_PATH, 3, 28,
		  "'send_window' must be a size from 32KiB to 1GiB, or 0 or off, found '4K'");
	has_exact(&dl, INV_PATH, 4, 24, "'ciphers' must name at least one cipher");
	assert_int_equal(dl.n, 3);
	diag_list_release(&dl);
}

/* controllers: which controllers of a joined run may take a board */
static void test_inventory_controllers(void **state)
{
	struct inventory *inv = inv_ok("defaults: { controllers: [labhost1, labhost2] }\n"
				       "boards:\n  a: { local: true }\n"
				       "  b: { local: true, controllers: labhost3 }\n");
	assert_int_equal(inv->boards[0].n_controllers, 2);
	assert_string_equal(inv->boards[0].controllers[1], "labhost2");
	assert_int_equal(inv->boards[1].n_controllers, 1);
	assert_string_equal(inv->boards[1].controllers[0], "labhost3");
	inventory_free(inv);
	struct diag_list dl = inv_bad("boards:\n  a: { local: true, controllers: [\"\"] }\n");
	has_exact(&dl, INV_PATH, 2, 35, "a controller name must not be empty");
	diag_list_release(&dl);
	dl = inv_bad("boards:\n  a: { local: true, controllers: { x: 1 } }\n");
	assert_true(dl.n > 0);
	diag_list_release(&dl);
}

static void test_inventory_errors(void **state)
{
	struct diag_list dl = inv_bad(
		"defaults:\n"                                        /* 1 */
		"  ssh: { port: 70000 }\n"                            /* 2 */
		"boards:\n"                                          /* 3 */
		"  ok:\n"                                            /* 4 */
		"    ssh: { hots: a.lab, host_key: maybe }\n"        /* 5 */
		"  \"bad name\":\n"                                  /* 6 */
		"    serial: { url: \"http://x:1\", usb: \"xyz:1\" }\n" /* 7 */
		"  s2:\n"                                            /* 8 */
		"    transport: ssh\n"                               /* 9 */
		"    serial: { baud: fast }\n"                       /* 10 */
		"  s3:\n"                                            /* 11 */
		"    serial: { port: /dev/x, url: \"tcp://h:99999\", parity: mark }\n" /* 12 */
		"    ssh: { password_env: \"A-B\", connect_timeout: 5 minutes }\n"      /* 13 */
		"    tags: embedded\n"                               /* 14 */
		"    local: maybe\n"                                 /* 15 */
		"    color: red\n");                                 /* 16 */
	has_exact(&dl, INV_PATH, 2, 16, "'port' out of range, found '70000' (use 1..65535)");
	has_exact(&dl, INV_PATH, 5, 12, "unknown key 'hots' in ssh (did you mean 'host'?)");
	has_exact(&dl, INV_PATH, 5, 35,
		  "invalid value for 'host_key', found 'maybe' (use strict, accept-new or off)");
	has_diag(&dl, INV_PATH, 6, 3, "invalid board name, found 'bad name'");
	has_diag(&dl, INV_PATH, 7, 20, "invalid value for 'url', found 'http://x:1' (use tcp://");
	has_diag(&dl, INV_PATH, 7, 39, "invalid value for 'usb', found 'xyz:1'");
	has_exact(&dl, INV_PATH, 9, 16, "board 's2' has transport 'ssh' but no ssh section");
	has_diag(&dl, INV_PATH, 10, 21, "invalid number for 'baud', found 'fast'");
	has_diag(&dl, INV_PATH, 10, 13, "serial of board 's2' needs one of 'port', 'usb' or 'url'");
	has_diag(&dl, INV_PATH, 12, 34, "found 'tcp://h:99999' (port must be 1..65535)");
	has_exact(&dl, INV_PATH, 12, 59,
		  "invalid value for 'parity', found 'mark' (use none, odd or even)");
	has_diag(&dl, INV_PATH, 13, 26, "invalid environment variable name for 'password_env', found 'A-B'");
	has_exact(&dl, INV_PATH, 13, 50,
		  "invalid duration for 'connect_timeout', found '5 minutes' (use 30s, 5m, 1h)");
	has_exact(&dl, INV_PATH, 15, 12, "expected true or false for 'local', found 'maybe'");
	has_exact(&dl, INV_PATH, 16, 5, "unknown key 'color' in a board");
	/* one error per problem, all at once; the defaults' port is reported once */
	size_t n_port = 0;
	for (size_t i = 0; i < dl.n; i++)
		n_port += dl.items[i].line == 2;
	assert_int_equal(n_port, 1);
	assert_int_equal(dl.n, 16);   /* nothing more, nothing twice */
	diag_list_release(&dl);
}

/* A host or user that ssh would read as an option (OpenSSH's "-oProxyCommand=")
 * is refused where it is written, also a board name that stands for the host. */
static void test_inventory_dash_host(void **state)
{
	struct diag_list dl = inv_bad(
		"defaults:\n"                                         /* 1 */
		"  ssh: { user: -lroot }\n"                           /* 2 */
		"boards:\n"                                           /* 3 */
		"  evil: { ssh: { host: -oProxyCommand=touch, user: ok } }\n"  /* 4 */
		"  -named: { ssh: { port: 22 } }\n"                   /* 5 */
		"  -local: { local: true }\n"                         /* 6 */
		"  fine: { ssh: { host: a-b.lab, user: \"x-\" } }\n"); /* 7 */
	has_exact(&dl, INV_PATH, 2, 16, "'user' must not begin with '-' (ssh would take it for "
		  "an option), found '-lroot'");
	has_exact(&dl, INV_PATH, 4, 24, "'host' must not begin with '-' (ssh would take it for "
		  "an option), found '-oProxyCommand=touch'");
	has_exact(&dl, INV_PATH, 5, 3, "board '-named' has no ssh 'host', and its name, the "
		  "host then, begins with '-' (ssh would take it for an option); give 'host'");
	assert_int_equal(dl.n, 3);   /* the default user is reported once; -local needs no host */
	diag_list_release(&dl);
}

static void test_inventory_structure_errors(void **state)
{
	struct diag_list dl = inv_bad("boards:\n  a: {}\n  a: {}\n");
	has_exact(&dl, INV_PATH, 3, 3, "duplicate key 'a' (first at line 2)");
	diag_list_release(&dl);

	dl = inv_bad("boards:\n  a: {ssh: [1, 2}\n");
	assert_int_equal(dl.n, 1);
	assert_int_equal(dl.items[0].line, 2);
	assert_true(dl.items[0].col > 0);
	diag_list_release(&dl);

	dl = inv_bad("boards:\n  a:\n    ssh: {host: x\n  b: 1\n");
	assert_int_equal(dl.items[0].line > 0, 1);
	diag_list_release(&dl);

	dl = inv_bad("boards:\n  a: &x {local: true}\n  b: *y\n");
	has_exact(&dl, INV_PATH, 3, 6,
		  "unknown alias '*y' (no '&y' before it, or it is used inside itself)");
	diag_list_release(&dl);
	struct inventory *shared = inv_ok("boards:\n  a: &x {local: true}\n  b: *x\n");
	assert_int_equal(shared->n_boards, 2);
	assert_true(shared->boards[1].local);
	inventory_free(shared);

	dl = inv_bad("");
	has_diag(&dl, INV_PATH, 0, 0, "empty inventory");
	diag_list_release(&dl);

	dl = inv_bad("- a\n- b\n");
	has_exact(&dl, INV_PATH, 1, 1, "an inventory must be a mapping, found a list");
	diag_list_release(&dl);

	dl = inv_bad("defaults: {}\nboard:\n  a: {}\n");
	has_exact(&dl, INV_PATH, 2, 1, "unknown key 'board' in the inventory (did you mean 'boards'?)");
	has_diag(&dl, INV_PATH, 1, 1, "no boards in the inventory");
	diag_list_release(&dl);

	dl = inv_bad("boards:\n  all: {}\n  x: [1]\n  y: {ssh: 3}\n");
	has_exact(&dl, INV_PATH, 2, 3, "board name 'all' is reserved for selectors");
	has_exact(&dl, INV_PATH, 3, 6, "a board must be a mapping, found a list");
	has_exact(&dl, INV_PATH, 4, 12, "ssh must be a mapping, found '3'");
	diag_list_release(&dl);

	dl = inv_bad("boards:\n  a: {serial: {port: /dev/x, url: 'tcp://h:1'}}\n");
	has_exact(&dl, INV_PATH, 2, 15,
		  "serial of board 'a' has more than one of 'port', 'usb' and 'url'");
	diag_list_release(&dl);

	dl = inv_bad("boards: {a: {}}\n---\nboards: {}\n");
	has_diag(&dl, INV_PATH, 2, 1, "more than one YAML document");
	diag_list_release(&dl);

	struct inventory *inv = NULL;
	dl = (struct diag_list)DIAG_LIST_INIT;
	assert_int_equal(inventory_load("/nonexistent/dir/rack.yaml", &inv, &dl), -1);
	has_diag(&dl, "/nonexistent/dir/rack.yaml", 0, 0, "cannot open");
	diag_list_release(&dl);
}

static const char design_scenario[] =
	"name: nightly\n"
	"inventory: ../boards/rack.yaml     # relative to this file; -i overrides\n"
	"boards: [tag:embedded]\n"
	"defaults: { timeout: 5m, repeat: 1 }\n"
	"\n"
	"tests:\n"
	"  - name: kernel\n"
	"    run: uname -a\n"
	"\n"
	"  - name: memory                    # a remote-bench program, pushed for the board's arch\n"
	"    bench: mem\n"
	"    args: [--size, 4M, --loops, 20]\n"
	"    repeat: 5                       # median and spread are reported\n"
	"    expect: { mem.memcpy: { min: 20MiB/s } }\n"
	"\n"
	"  - name: cpuinfo                   # metrics pulled out of any command's output\n"
	"    run: cat /proc/cpuinfo\n"
	"    metrics:\n"
	"      - { name: bogomips, regex: 'BogoMIPS\\s*:\\s*([0-9.]+)' }\n"
	"\n"
	"  - name: boot\n"
	"    boot:\n"
	"      trigger: power-cycle          # power-cycle | reboot (over ssh) | none (just listen)\n"
	"      timeout: 3m\n"
	"      phases:\n"
	"        - { name: kernel,   until: 'Run /init|Executing INIT', max: 30s }\n"
	"        - { name: udev,     until: 'Entering runlevel' }\n"
	"        - { name: services, until: 'login:' }\n"
	"\n"
	"  - name: wireguard-iperf\n"
	"    roles: { server: vm, client: each }   # each selected board in turn, one at a time\n"
	"    steps:\n"
	"      - { on: server, run: \"iperf3 -s\", background: true, ready: \"Server listening\" }\n"
	"      - { on: client, run: \"iperf3 -c {server.host} -t 30 -J\", parse: iperf3-json }\n";

static void test_scenario_design(void **state)
{
	struct scenario *sc = sc_ok(design_scenario);
	assert_string_equal(sc->name, "nightly");
	assert_string_equal(sc->inventory_path, "/lab/scenarios/../boards/rack.yaml");
	assert_int_equal(sc->n_board_selectors, 1);
	assert_string_equal(sc->board_selectors[0], "tag:embedded");
	assert_int_equal(sc->board_selector_pos[0].line, 3);
	assert_int_equal(sc->board_selector_pos[0].col, 10);
	assert_int_equal(sc->default_timeout_ms, 300000);
	assert_int_equal(sc->default_repeat, 1);
	assert_true(sc->threshold_pct == 5.0);
	assert_null(sc->baseline);
	assert_int_equal(sc->n_tests, 5);

	const struct test *t = &sc->tests[0];
	assert_string_equal(t->name, "kernel");
	assert_int_equal(t->kind, TEST_RUN);
	assert_string_equal(t->run, "uname -a");
	assert_int_equal(t->repeat, 1);
	assert_false(t->repeat_auto);
	assert_int_equal(t->timeout_ms, 300000);
	assert_int_equal(t->pos.line, 7);
	assert_int_equal(t->pos.col, 5);

	t = &sc->tests[1];
	assert_int_equal(t->kind, TEST_BENCH);
	assert_string_equal(t->bench, "mem");
	assert_int_equal(t->n_args, 4);
	assert_string_equal(t->args[1], "4M");
	assert_string_equal(t->args[3], "20");
	assert_int_equal(t->repeat, 5);
	assert_int_equal(t->n_expects, 1);
	assert_string_equal(t->expects[0].metric, "mem.memcpy");
	assert_true(t->expects[0].has_min);
	assert_false(t->expects[0].has_max);
	assert_true(t->expects[0].min == 20.0);
	assert_string_equal(t->expects[0].unit, "MiB/s");

	t = &sc->tests[2];
	assert_int_equal(t->n_metrics, 1);
	assert_string_equal(t->metrics[0].name, "bogomips");
	assert_string_equal(t->metrics[0].unit, "");
	assert_int_equal(t->metrics[0].better, BETTER_HIGHER);
	char g[32];
	assert_true(orch_regex_match(&t->metrics[0].regex, "BogoMIPS\t: 399.36", g, sizeof(g)));
	assert_string_equal(g, "399.36");

	t = &sc->tests[3];
	assert_int_equal(t->kind, TEST_BOOT);
	assert_int_equal(t->boot.trigger, BOOT_TRIGGER_POWER_CYCLE);
	assert_int_equal(t->boot.timeout_ms, 180000);
	assert_int_equal(t->boot.n_phases, 3);
	assert_string_equal(t->boot.phases[0].name, "kernel");
	assert_int_equal(t->boot.phases[0].max_ms, 30000);
	assert_int_equal(t->boot.phases[1].max_ms, 0);
	assert_true(orch_regex_match(&t->boot.phases[2].until, "rack login: ", NULL, 0));
	assert_null(t->boot.base_src);

	t = &sc->tests[4];
	assert_int_equal(t->kind, TEST_MULTI);
	assert_int_equal(t->n_roles, 2);
	assert_string_equal(t->roles[0].name, "server");
	assert_string_equal(t->roles[0].selector, "vm");
	assert_false(t->roles[0].each);
	assert_true(t->roles[1].each);
	assert_int_equal(t->n_steps, 2);
	assert_string_equal(t->steps[0].on, "server");
	assert_true(t->steps[0].background);
	assert_string_equal(t->steps[0].ready_src, "Server listening");
	assert_int_equal(t->steps[0].ready_timeout_ms, 30000);
	assert_int_equal(t->steps[0].timeout_ms, 300000);
	assert_string_equal(t->steps[1].parse, "iperf3-json");
	assert_false(t->steps[1].background);
	assert_null(t->steps[1].ready_src);
	scenario_free(sc);
	scenario_free(NULL);
}

static void test_scenario_defaults(void **state)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	const char *text =
		"boards: rpi1\n"
		"baseline: ../runs/nightly/latest\n"
		"threshold: 2.5%\n"
		"defaults: { timeout: 90s, repeat: 3 }\n"
		"tests:\n"
		"  - { name: a, run: 'true' }\n"
		"  - { name: b, run: 'true', repeat: auto, timeout: 1m }\n"
		"  - { name: c, run: 'true', repeat: auto, repeat_max: 2 }\n"
		"  - name: d\n"
		"    boot: { trigger: none, base: 'U-Boot', phases: [{name: k, until: x}] }\n"
		"    expect: { k: { max: 2s, min: 500ms } }\n"
		"  - name: e\n"
		"    roles: { srv: tag:server, cli: each }\n"
		"    timeout: 2m\n"
		"    steps:\n"
		"      - { on: srv, run: 'x', background: true, ready: 'up', ready_timeout: 5s, timeout: 20s }\n"
		"      - { on: cli, bench: tcp, args: [--to, '{srv.host}'] }\n";
	assert_int_equal(scenario_load_buffer("/x/my-suite.yml", text, strlen(text), &sc, &dl), 0);
	assert_string_equal(sc->name, "my-suite");
	assert_null(sc->inventory_path);
	assert_string_equal(sc->board_selectors[0], "rpi1");
	assert_int_equal(sc->board_selector_pos[0].line, 1);
	assert_int_equal(sc->board_selector_pos[0].col, 9);
	assert_string_equal(sc->baseline, "/x/../runs/nightly/latest");
	assert_true(sc->threshold_pct == 2.5);
	assert_int_equal(sc->tests[0].repeat, 3);
	assert_int_equal(sc->tests[0].timeout_ms, 90000);
	assert_true(sc->tests[1].repeat_auto);
	assert_int_equal(sc->tests[1].repeat_max, 10);
	assert_int_equal(sc->tests[1].repeat, 3);
	assert_int_equal(sc->tests[1].timeout_ms, 60000);
	assert_int_equal(sc->tests[2].repeat_max, 2);
	assert_int_equal(sc->tests[2].repeat, 2);
	const struct test *d = &sc->tests[3];
	assert_int_equal(d->boot.trigger, BOOT_TRIGGER_NONE);
	assert_int_equal(d->boot.timeout_ms, 90000);   /* boot timeout = test timeout */
	assert_string_equal(d->boot.base_src, "U-Boot");
	assert_true(d->expects[0].has_min && d->expects[0].has_max);
	assert_string_equal(d->expects[0].unit, "ms");
	assert_true(d->expects[0].min == 500.0);
	assert_true(d->expects[0].max == 2000.0);      /* converted to min's unit */
	const struct test *e = &sc->tests[4];
	assert_int_equal(e->steps[0].ready_timeout_ms, 5000);
	assert_int_equal(e->steps[0].timeout_ms, 20000);
	assert_int_equal(e->steps[1].timeout_ms, 120000);   /* step timeout = test timeout */
	assert_string_equal(e->steps[1].bench, "tcp");
	assert_string_equal(e->steps[1].args[1], "{srv.host}");
	scenario_free(sc);

	sc = sc_ok("tests: [{name: a, run: x}]\n");
	assert_string_equal(sc->name, "nightly");
	assert_int_equal(sc->n_board_selectors, 1);
	assert_string_equal(sc->board_selectors[0], "all");
	assert_int_equal(sc->tests[0].timeout_ms, 300000);
	scenario_free(sc);
	diag_list_release(&dl);
}

/* transfer: the built-in SSH transfer test */
static void test_scenario_transfer(void **state)
{
	struct scenario *sc = sc_ok("tests:\n"
				    "  - name: a\n    transfer: 16MiB\n"
				    "    expect: { transfer.down: { min: 2MiB/s } }\n"
				    "  - name: b\n    transfer: { size: 1000, direction: up }\n"
				    "  - name: c\n    transfer: {}\n");
	assert_int_equal(sc->tests[0].kind, TEST_TRANSFER);
	assert_int_equal(sc->tests[0].transfer.bytes, 16u << 20);
	assert_true(sc->tests[0].transfer.up && sc->tests[0].transfer.down);
	assert_int_equal(sc->tests[1].transfer.bytes, 1000);
	assert_true(sc->tests[1].transfer.up && !sc->tests[1].transfer.down);
	assert_int_equal(sc->tests[2].transfer.bytes, 64u << 20);   /* the default */
	scenario_free(sc);

	struct diag_list dl = sc_bad(
		"tests:\n"                                                   /* 1 */
		"  - name: a\n    transfer: lots\n"                          /* 2, 3 */
		"  - name: b\n    transfer: { size: 1M, way: up }\n"         /* 4, 5 */
		"  - name: c\n    transfer: { direction: sideways }\n"       /* 6, 7 */
		"  - name: d\n    transfer: 1M\n"                            /* 8, 9 */
		"    expect: { transfer.upp: { min: 1 } }\n"                  /* 10 */
		"  - name: e\n    transfer: 1M\n    run: 'true'\n"          /* 11-13 */
		"  - name: f\n    transfer: 1M\n    push: { src: x, dest: y }\n" /* 14-16 */
		"  - name: g\n    transfer: 1M\n"                            /* 17, 18 */
		"    metrics: [ { name: x, regex: 'x' } ]\n");                /* 19 */
	has_diag(&dl, SC_PATH, 3, 15, "'size'");
	has_diag(&dl, SC_PATH, 5, 27, "unknown key 'way' in transfer");
	has_diag(&dl, SC_PATH, 7, 28, "invalid value for 'direction', found 'sideways'");
	has_diag(&dl, SC_PATH, 10, 15, "expect on metric 'transfer.upp', which transfer test 'd' "
		 "does not produce (it measures transfer.up and transfer.down, each with _syscpu, "
		 "_cpu_user, _cpu_sys and _cpu_iowait); did you mean "
		 "'transfer.up'?");
	has_diag(&dl, SC_PATH, 12, 5, "test 'e' has both 'run' and 'transfer'");
	has_diag(&dl, SC_PATH, 16, 5, "'push' goes with 'run' and 'bench' tests");
	has_diag(&dl, SC_PATH, 19, 5, "'metrics' does not go with 'transfer'");
	diag_list_release(&dl);
}

/* transfer: { path, ciphers, macs }: a file on the board and this test's
 * own SSH algorithms; a name libssh does not know is refused where it is */
static void test_scenario_transfer_path_ciphers(void **state)
{
	struct scenario *sc = sc_ok(
		"tests:\n"
		"  - name: ctr\n"
		"    transfer: { size: 1M, path: /mnt/secret, ciphers: aes128-ctr, macs: hmac-sha1 }\n"
		"    expect: { transfer.up_cpu_sys: { max: 90% } }\n"
		"  - name: chacha\n"
		"    transfer: { size: 1M, ciphers: [chacha20-poly1305@openssh.com, aes256-ctr] }\n");
	assert_string_equal(sc->tests[0].transfer.path, "/mnt/secret");
	assert_string_equal(sc->tests[0].transfer.ciphers, "aes128-ctr");
	assert_string_equal(sc->tests[0].transfer.macs, "hmac-sha1");
	assert_string_equal(sc->tests[1].transfer.ciphers, "chacha20-poly1305@openssh.com,aes256-ctr");
	assert_null(sc->tests[1].transfer.path);
	assert_null(sc->tests[1].transfer.macs);
	scenario_free(sc);

	struct diag_list dl = sc_bad(
		"tests:\n"                                                          /* 1 */
		"  - name: a\n    transfer: { size: 1M, ciphers: blowfish-cbc }\n" /* 2, 3 */
		"  - name: b\n    transfer: { size: 1M, ciphers: [aes128-ctr, chacha20-poly1305] }\n"
		"  - name: c\n    transfer: { size: 1M, macs: hmac-md5 }\n"        /* 6, 7 */
		"  - name: d\n    transfer: { size: 1M, path: '' }\n"              /* 8, 9 */
		"  - name: e\n    transfer: 1M\n"                                  /* 10, 11 */
		"    expect: { transfer.up_cpu_sys: { max: 5 MiB/s } }\n");         /* 12 */
	has_diag(&dl, SC_PATH, 3, 36, "unknown cipher 'blowfish-cbc' (orch offers: ");
	has_diag(&dl, SC_PATH, 5, 49, "unknown cipher 'chacha20-poly1305', did you mean "
		 "'chacha20-poly1305@openssh.com'?");
	has_diag(&dl, SC_PATH, 7, 33, "unknown MAC 'hmac-md5'");
	has_diag(&dl, SC_PATH, 9, 33, "transfer path must be a file name on the board");
	has_diag(&dl, SC_PATH, 12, 43, "the bound on 'transfer.up_cpu_sys' is in 'MiB/s', which "
		 "does not convert to the metric's unit '%'");
	diag_list_release(&dl);
}

static void test_scenario_errors(void **state)
{
	struct diag_list dl = sc_bad(
		"name: nightly\n"                                           /* 1 */
		"boards: [tag:embedded, '!', 'a b']\n"                      /* 2 */
		"defaults: { timeout: 5 minutes, repaet: 2 }\n"             /* 3 */
		"threshold: lots\n"                                         /* 4 */
		"tests:\n"                                                  /* 5 */
		"  - name: kernel\n"                                        /* 6 */
		"    run: uname -a\n"                                       /* 7 */
		"    timeout: 5 minutes\n"                                  /* 8 */
		"  - name: kernel\n"                                        /* 9 */
		"    run: uname -r\n"                                       /* 10 */
		"  - name: nothing\n"                                       /* 11 */
		"  - name: both\n"                                          /* 12 */
		"    run: x\n"                                              /* 13 */
		"    bench: y\n"                                            /* 14 */
		"    repeat: 0\n"                                           /* 15 */
		"  - run: x\n"                                              /* 16 */
		"    metrics: [{ name: m, regex: '([0-9]+' }]\n"            /* 17 */
		"    args: [a]\n"                                           /* 18 */
		"  - name: mh\n"                                            /* 19 */
		"    roles: { server: vm, client: each, other: each }\n"    /* 20 */
		"    steps:\n"                                              /* 21 */
		"      - { on: sever, run: x, ready: up }\n"                /* 22 */
		"      - { on: client, run: 'y {svr.host}', parse: json }\n" /* 23 */
		"  - name: ex\n"                                            /* 24 */
		"    bench: mem\n"                                          /* 25 */
		"    expect: { m: { min: fast }, n: {}, o: { min: 2s, max: 1MiB } }\n" /* 26 */
		"    repeat: sometimes\n"                                   /* 27 */
		"    timout: 5m\n"                                          /* 28 */
		"  - name: bt\n"                                            /* 29 */
		"    boot: { trigger: kick, phases: [{ until: '(' }, { name: p, until: '[z-a]' }] }\n" /* 30 */
		"    metrics: [{ name: bm, regex: 'x', from: stderr }]\n");  /* 31 */
	has_exact(&dl, SC_PATH, 2, 24, "invalid selector in 'boards', found '!': nothing after '!'");
	has_diag(&dl, SC_PATH, 2, 29, "invalid selector in 'boards', found 'a b'");
	has_exact(&dl, SC_PATH, 3, 22, "invalid duration for 'timeout', found '5 minutes' (use 30s, 5m, 1h)");
	has_exact(&dl, SC_PATH, 3, 33, "unknown key 'repaet' in defaults (did you mean 'repeat'?)");
	has_diag(&dl, SC_PATH, 4, 12, "invalid percentage for 'threshold', found 'lots'");
	has_exact(&dl, SC_PATH, 8, 14, "invalid duration for 'timeout', found '5 minutes' (use 30s, 5m, 1h)");
	has_exact(&dl, SC_PATH, 9, 11, "duplicate test name 'kernel' (first at line 6)");
	has_exact(&dl, SC_PATH, 11, 5, "test 'nothing' needs one of 'run', 'bench', 'boot', 'steps' or 'transfer'");
	has_exact(&dl, SC_PATH, 14, 5, "test 'both' has both 'run' and 'bench'; use one");
	has_exact(&dl, SC_PATH, 15, 13, "'repeat' out of range, found '0' (use 1..10000 or auto)");
	has_exact(&dl, SC_PATH, 16, 5, "test needs a 'name'");
	/* the caret at PCRE2's offset (7: the end), not the pattern's start */
	has_diag(&dl, SC_PATH, 17, 41, "invalid regex for 'regex', found '([0-9]+': ");
	has_exact(&dl, SC_PATH, 18, 5, "'args' only goes with 'bench'");
	has_diag(&dl, SC_PATH, 20, 47, "only one role can be 'each' (first at line 20)");
	has_exact(&dl, SC_PATH, 22, 15, "unknown role 'sever' in 'on' (did you mean 'server'?)");
	has_exact(&dl, SC_PATH, 22, 30, "'ready' needs 'background: true'");
	has_exact(&dl, SC_PATH, 23, 28, "unknown role 'svr' in '{svr.host}' of test 'mh'");
	has_exact(&dl, SC_PATH, 23, 51,
		  "invalid value for 'parse', found 'json' (use iperf3-json or remote-bench)");
	has_exact(&dl, SC_PATH, 26, 25,
		  "invalid quantity for 'min', found 'fast' (use 20MiB/s, 1.5 Gbit/s, 300ms, 42)");
	has_exact(&dl, SC_PATH, 26, 36, "expect for 'n' needs 'min' or 'max'");
	has_exact(&dl, SC_PATH, 26, 59, "unit 'MiB' of 'max' does not convert to 's' of 'min'");
	has_exact(&dl, SC_PATH, 27, 13,
		  "invalid value for 'repeat', found 'sometimes' (use a count or auto)");
	has_exact(&dl, SC_PATH, 28, 5, "unknown key 'timout' in a test (did you mean 'timeout'?)");
	has_exact(&dl, SC_PATH, 30, 22,
		  "invalid value for 'trigger', found 'kick' (use power-cycle, reboot or none)");
	has_exact(&dl, SC_PATH, 30, 37, "boot phase needs a 'name'");
	has_diag(&dl, SC_PATH, 30, 48, "invalid regex for 'until', found '(': ");
	has_exact(&dl, SC_PATH, 30, 75,
		  "invalid regex for 'until', found '[z-a]': range out of order in character class "
		  "at offset 3");
	has_exact(&dl, SC_PATH, 31, 45,
		  "'from' does not go with 'boot' (its metrics are read from the console lines)");
	/* and m, n, o are no metrics of remote-bench mem (its declared list) */
	has_diag(&dl, SC_PATH, 26, 15, "expect on metric 'm', which remote-bench mem does not print");
	assert_int_equal(dl.n, 31);
	diag_list_release(&dl);
}

static void test_scenario_structure_errors(void **state)
{
	struct diag_list dl = sc_bad("name: x\n");
	has_exact(&dl, SC_PATH, 1, 1, "scenario has no 'tests'");
	diag_list_release(&dl);

	dl = sc_bad("tests: []\n");
	has_exact(&dl, SC_PATH, 1, 8, "'tests' is empty");
	diag_list_release(&dl);

	dl = sc_bad("tests:\n  - run: x\n    run: y\n");
	has_exact(&dl, SC_PATH, 3, 5, "duplicate key 'run' (first at line 2)");
	diag_list_release(&dl);

	dl = sc_bad("tests:\n  - name: a\n    run: x\n   bad: indent\n");
	assert_int_equal(dl.items[0].line, 4);
	diag_list_release(&dl);

	dl = sc_bad("tests:\n  - name: a\n    steps: [{on: x, run: y}]\n  - name: b\n    run: x\n    roles: {a: b}\n");
	has_exact(&dl, SC_PATH, 3, 5, "test 'a' has 'steps' but no 'roles'");
	has_exact(&dl, SC_PATH, 6, 5, "'roles' only goes with 'steps'");
	diag_list_release(&dl);

	dl = sc_bad("name: 'my nightly'\ntests:\n  - name: 'a/b'\n    run: x\n    parse: iperf3-json\n    repeat_max: 4\n");
	has_diag(&dl, SC_PATH, 1, 7, "invalid scenario name, found 'my nightly'");
	has_diag(&dl, SC_PATH, 3, 11, "invalid test name, found 'a/b'");
	has_exact(&dl, SC_PATH, 6, 5, "'repeat_max' only goes with 'repeat: auto'");
	diag_list_release(&dl);

	/* the runs folder holds the history file: a scenario cannot be named like it */
	dl = sc_bad("name: orch-history.sqlite\ntests:\n  - name: a\n    run: x\n");
	has_diag(&dl, SC_PATH, 1, 7, "scenario name orch-history.sqlite is reserved");
	diag_list_release(&dl);

	dl = sc_bad("tests:\n  - name: m\n    roles: {board: x, c: each}\n    steps:\n      - {on: c}\n      - {on: c, run: x, bench: y}\n      - 3\n");
	has_exact(&dl, SC_PATH, 3, 13, "role name 'board' is reserved for {board.field}");
	has_exact(&dl, SC_PATH, 5, 9, "step needs 'run' or 'bench'");
	has_exact(&dl, SC_PATH, 6, 25, "step has both 'run' and 'bench'; use one");
	has_exact(&dl, SC_PATH, 7, 9, "a step must be a mapping, found '3'");
	diag_list_release(&dl);
}

static struct inventory *small_rack(void)
{
	return inv_ok("boards:\n"
		      "  rpi1: { tags: [embedded, arm], ssh: {} }\n"
		      "  biff: { tags: [embedded, x86], ssh: {} }\n"
		      "  vm: { tags: [server], ssh: {} }\n");
}

static void test_check_against(void **state)
{
	struct inventory *inv = small_rack();
	struct scenario *sc = sc_ok(
		"boards: [tag:embedded, rpi2, '!tag:nope', vm]\n"
		"tests:\n"
		"  - name: mh\n"
		"    roles: { server: vmm, client: each, helper: 'tag:x86', far: 'tag:arm64' }\n"
		"    steps: [{ on: server, run: x }]\n");
	struct diag_list dl = DIAG_LIST_INIT;
	assert_int_equal(scenario_check_against(sc, inv, &dl), -1);
	has_exact(&dl, SC_PATH, 1, 24,
		  "unknown board or tag in 'boards', found 'rpi2': no board named 'rpi2' in the inventory "
		  "(did you mean 'rpi1'?)");
	has_exact(&dl, SC_PATH, 1, 30,
		  "unknown board or tag in 'boards', found '!tag:nope': no board has tag 'nope'");
	has_exact(&dl, SC_PATH, 4, 22,
		  "role 'server' of test 'mh' selects 'vmm': no board named 'vmm' in the inventory "
		  "(did you mean 'vm'?)");
	has_exact(&dl, SC_PATH, 4, 65,
		  "role 'far' of test 'mh' selects 'tag:arm64': no board has tag 'arm64' "
		  "(did you mean 'tag:arm'?)");
	assert_int_equal(dl.n, 4);
	diag_list_release(&dl);
	scenario_free(sc);

	sc = sc_ok("tests:\n  - name: mh\n    roles: { s: '!tag:embedded', c: each }\n"
		   "    steps: [{ on: s, run: x }]\n");
	assert_int_equal(scenario_check_against(sc, inv, &dl), 0);
	assert_int_equal(dl.n, 0);
	scenario_free(sc);
	inventory_free(inv);

	inv = inv_ok(design_inventory);
	sc = sc_ok(design_scenario);
	assert_int_equal(scenario_check_against(sc, inv, &dl), 0);
	scenario_free(sc);
	inventory_free(inv);
	diag_list_release(&dl);
}

static void test_to_json(void **state)
{
	setenv("RPI1_PASSWORD", "hunter2-secret", 1);
	struct inventory *inv = inv_ok(design_inventory);
	struct scenario *sc = sc_ok(design_scenario);
	bool selected[4] = { true, true, false, false };
	json_t *j = config_to_json(sc, inv, selected);
	char *text = json_dumps(j, JSON_SORT_KEYS);
	assert_non_null(text);
	TS_ASSERT_LACKS(text, "hunter2");
	TS_ASSERT_HAS(text, "\"password_env\": \"RPI1_PASSWORD\"", "/home/tester/.ssh/id_ed25519");
	json_t *boards = json_object_get(json_object_get(j, "inventory"), "boards");
	assert_int_equal(json_array_size(boards), 4);
	assert_true(json_is_true(json_object_get(json_array_get(boards, 0), "selected")));
	assert_true(json_is_false(json_object_get(json_array_get(boards, 3), "selected")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(boards, 3), "transport")),
			    "local");
	json_t *tests = json_object_get(json_object_get(j, "scenario"), "tests");
	assert_int_equal(json_array_size(tests), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 4), "kind")), "steps");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(tests, 1), "repeat")), 5);
	free(text);
	json_decref(j);

	j = config_to_json(NULL, inv, NULL);
	assert_null(json_object_get(j, "scenario"));
	assert_null(json_object_get(json_array_get(json_object_get(json_object_get(j, "inventory"),
								   "boards"), 0), "selected"));
	json_decref(j);
	scenario_free(sc);
	inventory_free(inv);
}

/* A scenario may spell a password out (an echo, a login line): run.json's
 * copy of its commands shows *** there, as every report does. */
static void test_to_json_masks_values(void **state)
{
	(void)state;
	secret_known("Qx7-value-in-run");
	struct inventory *inv = inv_ok(design_inventory);
	struct scenario *sc = sc_ok("tests:\n  - name: t\n    run: 'echo Qx7-value-in-run; env'\n"
				    "  - name: s\n    run: 'login Qx7-value-in-run'\n");
	json_t *j = config_to_json(sc, inv, NULL);
	char *text = json_dumps(j, JSON_SORT_KEYS);
	assert_non_null(text);
	TS_ASSERT_LACKS(text, "Qx7");
	TS_ASSERT_HAS(text, "echo ***; env", "login ***");
	free(text);
	json_decref(j);
	scenario_free(sc);
	inventory_free(inv);
}

TS_MAIN(set_home, NULL, test_inventory_design, test_inventory_merge_and_paths,
	test_inventory_controllers, test_inventory_ssh_transfer, test_scenario_transfer,
	test_scenario_transfer_path_ciphers, test_inventory_errors, test_inventory_dash_host,
	test_inventory_structure_errors, test_scenario_design, test_scenario_defaults,
	test_scenario_errors, test_scenario_structure_errors, test_check_against, test_to_json,
	test_to_json_masks_values)
