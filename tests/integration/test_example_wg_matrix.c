/*
 * scenarios/wg-matrix.yaml (the WireGuard report redone) run as it is on
 * the network-namespace lab (tests/lab/netns-lab.sh, prefix "ex", plain
 * link 10.174.0.0/24, WireGuard 10.175.0.0/24, wireguard-go), with two
 * boxes instead of six and one-second runs set by this test's inventory
 * vars (iperf3 on port 42630, remote-bench-net on 42631). Checked: exit 0,
 * and for each box every metric the scenario's top comment lists is in
 * results.json, the tunnel's TCP figure below the plain link's.
 * Skipped, saying why, without root, wireguard-go/wg or iperf3.
 */
#include "testsupport.h"
#include "ts_example.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "ex"
#define NET "174"
#define VM_TUNNEL_IP "10.175.0.1"
#define CLIENTS 2
#define LAB ORCH_SOURCE_DIR "/tests/lab/netns-lab.sh"
#define SCENARIO ORCH_SOURCE_DIR "/scenarios/wg-matrix.yaml"

static char *tmp, *lab_dir, *inventory;
static bool lab_up;

static int setup(void **state)
{
	ts_require_root("network namespaces");
	ts_require_tool("wireguard-go", "apt-get install wireguard-go");
	ts_require_tool("wg", "apt-get install wireguard-tools");
	ts_require_tool("iperf3", "apt-get install iperf3");
	tmp = ts_mkdtemp("example-wg");
	lab_dir = xasprintf("%s/lab", tmp);
	char *out = NULL;
	ts_run(NULL, LAB " down --prefix " PREFIX " --dir %s", lab_dir);
	if (ts_run(&out, LAB " up --prefix " PREFIX " --net " NET " --clients %d --dir %s 2>&1",
		   CLIENTS, lab_dir) != 0) {
		print_message("netns-lab.sh up failed: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	lab_up = true;
	/* boards/wg-matrix.yaml at this lab's addresses, two boxes, short runs */
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb,
		      "defaults:\n"
		      "  ssh: { user: root, identity: %s/id_ed25519, known_hosts: %s/known_hosts,"
		      " host_key: strict }\n"
		      "  workdir: %s/work\n"
		      "  vars: { wg_server: " VM_TUNNEL_IP ", iperf_time: 1, iperf_port: 42630,"
		      " net_time: 0.5, net_port: 42631 }\n"
		      "boards:\n"
		      "  vm: { arch: x86_64, tags: [server], ssh: { host: 10." NET ".0.1 } }\n",
		      lab_dir, lab_dir, tmp);
	for (int k = 1; k <= CLIENTS; k++)
		strbuf_printf(&sb, "  client%d: { arch: x86_64, tags: [box], ssh: { host: 10." NET
			      ".0.%d } }\n", k, 10 + k);
	inventory = ts_write_file(tmp, "rack.yaml", sb.buf);
	strbuf_release(&sb);
	return 0;
}

static int teardown(void **state)
{
	if (lab_up)
		ts_run(NULL, LAB " down --prefix " PREFIX " --dir %s", lab_dir);
	if (tmp)
		ts_rmrf(tmp);
	TS_FREE(lab_dir, inventory, tmp);
	return 0;
}

static double median(json_t *root, const char *board, const char *test, const char *metric)
{
	json_t *r = ts_json_result_or_fail(root, board, test);
	json_t *m = json_object_get(json_object_get(r, "metrics"), metric);
	return json_number_value(json_object_get(m, "median"));
}

static void test_wg_matrix_example(void **state)
{
	char *out = NULL;
	int code = ts_run(&out, "cd %s && %s run %s -i %s -o runs --no-history 2>&1", tmp, ORCH_BIN,
			  SCENARIO, inventory);
	print_message("%s\n", out ? out : "");
	free(out);
	char *run = xasprintf("%s/runs/wg-matrix/latest", tmp);
	json_t *res = ts_json_load_in(run, "results.json");
	assert_non_null(res);
	struct ts_example_metric *rows;
	size_t n = ts_example_metrics(SCENARIO, &rows);
	for (int k = 1; k <= CLIENTS; k++) {
		char board[16];
		snprintf(board, sizeof(board), "client%d", k);
		ts_example_check(res, board, rows, n);
		/* the tunnel costs: wireguard-go runs ~20x below a veth here */
		assert_true(median(res, board, "net-wireguard", "net.tcp_stream") <
			    median(res, board, "net-plain", "net.tcp_stream"));
	}
	assert_int_equal(code, 0);
	ts_example_free(rows, n);
	json_decref(res);
	free(run);
}

TS_MAIN(setup, teardown, test_wg_matrix_example)
