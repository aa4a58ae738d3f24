/*
 * scenarios/cjdns-rpi.yaml (the cjdns-on-Raspberry-Pi report redone) run as
 * it is on the emulated ARM board (tests/lab/arm-board.sh: an sshd on
 * 127.0.174.2:42620 whose private binfmt_misc runs ARM programs through
 * qemu-arm-static as an ARM1176), with the armv5 remote-bench built here
 * and small counts set by the board's vars in this test's inventory.
 * Checked: exit 0; every metric the scenario's top comment lists is in
 * results.json; the programs orch pushed are ARM ones; the fact `commit` is
 * the HEAD of the board's ~/cjdns and is the run's label.
 * Skipped, saying why, without root, qemu-user-static, a kernel with
 * private binfmt_misc (>= 6.7) or the armv5 cross toolchain.
 */
#include "testsupport.h"
#include "ts_example.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SSH_ADDR "127.0.174.2"
#define SSH_PORT 42620
#define SCENARIO ORCH_SOURCE_DIR "/scenarios/cjdns-rpi.yaml"
#define LAB ORCH_SOURCE_DIR "/tests/lab/arm-board.sh"

static char *dir, *lab, *inventory;
static bool lab_up;

static int setup(void **state)
{
	char *why = NULL;
	if (ts_run(&why, LAB " check") != 0) {
		ts_skip_file("no emulated ARM board here: %s", why ? why : "?");
	}
	free(why);
	dir = ts_mkdtemp("example-cjdns");
	char *out = NULL;
	if (ts_run(&out, "%s/scripts/build-remote-bench.sh %s/bench armv5 2>&1", ORCH_SOURCE_DIR,
		   dir) != 0) {
		print_message("armv5 remote-bench did not build: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	lab = xasprintf("%s/arm", dir);
	if (ts_run(&out, LAB " up --dir %s --addr " SSH_ADDR " --port %d 2>&1", lab, SSH_PORT) !=
	    0) {
		print_message("arm-board.sh up failed: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	lab_up = true;
	/* The lab's own inventory (boards/rpi-lab.yaml at this test's place)
	 * with 20 hellos, 2000 packets and 0.2 s runs. */
	char *path = xasprintf("%s/inventory.yaml", lab);
	char *inv = ts_read_file(path);
	free(path);
	if (!inv)
		return -1;
	char *text = xasprintf("%s    vars: { crypto_time: 0.1, hellos: 20, packets: 2000 }\n", inv);
	inventory = ts_write_file(dir, "rack.yaml", text);
	TS_FREE(text, inv);
	return 0;
}

static int teardown(void **state)
{
	if (lab_up)
		ts_run(NULL, LAB " down --dir %s", lab);
	if (dir)
		ts_rmrf(dir);
	TS_FREE(dir, lab, inventory);
	return 0;
}

static void test_cjdns_example(void **state)
{
	char *out = NULL;
	int code = ts_run(&out, "cd %s && %s run %s -i %s -o runs --no-history --bench-dir %s/bench 2>&1",
			  dir, ORCH_BIN, SCENARIO, inventory, dir);
	print_message("%s\n", out ? out : "");
	free(out);
	char *run = xasprintf("%s/runs/cjdns-rpi/latest", dir);
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	struct ts_example_metric *rows;
	size_t n = ts_example_metrics(SCENARIO, &rows);
	ts_example_check(res, "rpi", rows, n);
	assert_int_equal(code, 0);

	/* what ran on the board was ARM code: ELF, 32-bit, e_machine 40 (EM_ARM) */
	char *bin = xasprintf("%s/work/bin/remote-bench-crypto", lab);
	unsigned char elf[20] = { 0 };
	FILE *f = fopen(bin, "rb");
	assert_non_null(f);
	assert_int_equal(fread(elf, 1, sizeof(elf), f), sizeof(elf));
	fclose(f);
	assert_memory_equal(elf, "\177ELF\1", 5);
	assert_int_equal(elf[18] | elf[19] << 8, 40);
	free(bin);

	/* the commit under test: the fact and the label */
	char *head = NULL;
	assert_int_equal(ts_run(&head, "git -C %s/home/cjdns rev-parse HEAD", lab), 0);
	head[strcspn(head, "\n")] = '\0';
	json_t *facts = json_object_get(json_object_get(json_object_get(res, "boards"), "rpi"), "facts");
	assert_string_equal(ts_json_str(facts, "commit"), head);
	assert_string_equal(ts_json_str(res, "label"), head);
	free(head);
	ts_example_free(rows, n);
	json_decref(res);
	free(run);
}

TS_MAIN(setup, teardown, test_cjdns_example)
