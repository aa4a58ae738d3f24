/*
 * A real USB serial adapter: orch runs on a controller VM
 * (tests/lab/usb-serial-vm.sh: qemu with an emulated FTDI FT232, 0403:6001,
 * that the guest's ftdi_sio drives as /dev/ttyUSB0; this machine's / shared
 * in read-only over 9p), while a feeder here plays the board's console into
 * the adapter's other end:
 *   - `orch ports` lists /dev/ttyUSB0 as usb 0403:6001;
 *   - `orch boot` against `usb: 0403:6001` times the phases from it;
 *   - while it holds the adapter, a second orch (another board name, same
 *     adapter) is refused, naming it (libserialport's path takes the lock).
 * Where the VM cannot run (no qemu, kernel modules or usb-serial), it says
 * why and is skipped, not passed.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char script[] =
	"%s ports > ports.txt 2>&1; echo $? > ports.rc\n"
	"%s boot dut -i inv.yaml --trigger none --timeout 90s -o boot > boot.txt 2>&1 &\n"
	"first=$!\n"
	"i=0; while [ ! -e /var/lock/LCK..ttyUSB0 ] && [ $i -lt 100 ]; do sleep 0.2; "
	"i=$((i + 1)); done\n"
	"echo $first > first.pid\n"
	"%s boot twin -i inv.yaml --trigger none --timeout 2s -o boot2 > second.txt 2>&1\n"
	"echo $? > second.rc\n"
	"wait $first; echo $? > boot.rc\n";

static void test_usb_adapter(void **state)
{
	char *lab = xasprintf("%s/tests/lab/usb-serial-vm.sh", ORCH_SOURCE_DIR);
	char *why = NULL;
	if (ts_run(&why, "%s check", lab) != 0) {
		ts_skip("the USB serial VM cannot run here: %s", why ? why : "?");
	}
	free(why);
	char *dir = ts_mkdtemp_with("usb-serial-vm", "inv.yaml",
				    "boards:\n"
				    "  dut:\n"
				    "    serial: { usb: \"0403:6001\", baud: 115200 }\n"
				    "  twin:\n"
				    "    serial: { usb: \"0403:6001\" }\n");
	/* the guest sees the host's / read-only with a tmpfs over /tmp, and this
	 * folder bound in: a copy of orch here runs wherever the tree lives */
	char *bin = xasprintf("%s/orch", dir);
	assert_int_equal(ts_run(NULL, "cp '%s' '%s'", ORCH_BIN, bin), 0);
	char *text = xasprintf(script, bin, bin, bin);
	free(bin);
	char *sh = ts_write_file(dir, "script.sh", text);
	/* connected from the start (qemu attaches the adapter only while its
	 * chardev has a peer); the board speaks once the second orch has been
	 * turned away */
	char *feed = xasprintf(
		"{ while [ ! -f %s/second.rc ]; do sleep 0.3; done; "
		"while :; do printf 'Linux version 6.1.0\\r\\nRun /init\\r\\norch-lab login: \\r\\n'; "
		"sleep 1; done; } | exec socat -u - UNIX-CONNECT:%s/c0.sock,retry=300,interval=0.2",
		dir, dir);
	pid_t feeder = ts_spawn(feed, NULL);
	char *out = NULL;
	int rc = ts_run(&out, "%s run --out %s --sock %s/c0.sock --script %s --timeout 170", lab, dir,
			dir, sh);
	ts_stop(&feeder);
	print_message("usb-serial-vm.sh: rc %d %s\n", rc, out ? out : "");
	free(out);
	const char *files[] = { "ports.txt", "boot.txt", "second.txt" };
	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		char *t = ts_read_file(p);
		print_message("--- %s\n%s\n", files[i], t ? t : "(none)");
		TS_FREE(t, p);
	}
	assert_int_equal(rc, 0);

	char *p = xasprintf("%s/ports.txt", dir);
	char *ports = ts_read_file(p);
	assert_non_null(ports);
	char *line = strstr(ports, "/dev/ttyUSB0");
	assert_non_null(line);
	TS_ASSERT_HAS(line, "0403:6001");
	TS_FREE(ports, p);

	p = xasprintf("%s/boot.rc", dir);
	char *brc = ts_read_file(p);
	assert_non_null(brc);
	assert_int_equal(atoi(brc), 0);
	TS_FREE(brc, p);
	p = xasprintf("%s/boot.txt", dir);
	char *boot = ts_read_file(p);
	assert_non_null(boot);
	TS_ASSERT_HAS(boot, "kernel ", "Run /init", "login ");
	TS_ASSERT_LACKS(boot, "not reached");
	TS_FREE(boot, p);

	p = xasprintf("%s/first.pid", dir);
	char *first = ts_read_file(p);
	assert_non_null(first);
	free(p);
	p = xasprintf("%s/second.txt", dir);
	char *second = ts_read_file(p);
	assert_non_null(second);
	char want[64];
	snprintf(want, sizeof(want), "is in use by pid %d (", atoi(first));
	assert_non_null(strstr(second, want));
	TS_ASSERT_HAS(second, "LCK..ttyUSB0");
	TS_FREE(second, first, p);

	ts_rmrf(dir);
	TS_FREE(dir, feed, sh, text, lab);
}

TS_MAIN(NULL, NULL, test_usb_adapter)
