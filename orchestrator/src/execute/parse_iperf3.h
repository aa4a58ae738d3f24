#ifndef ORCH_EXECUTE_PARSE_IPERF3_H
#define ORCH_EXECUTE_PARSE_IPERF3_H
/*
 * `parse: iperf3-json`: the summary of an `iperf3 -c ... -J` run turned into
 * metrics on a test result, one sample per call (so repeats add samples):
 *
 *   iperf3.sender_bps     Mbit/s, higher is better (end.sum_sent)
 *   iperf3.receiver_bps   Mbit/s, higher is better (end.sum_received)
 *   iperf3.retransmits    count, lower is better (TCP only)
 *   iperf3.jitter_ms      ms, lower is better (UDP only)
 *   iperf3.lost_percent   %, lower is better (UDP only)
 *
 * Output that is not iperf3 JSON (iperf3 run without -J, or its plain
 * "iperf3: error - unable to connect" line) and JSON carrying iperf3's own
 * "error" member are errors whose message quotes what iperf3 said.
 */
#include <stddef.h>

#include "result/result.h"

/* Parses len bytes of iperf3 -J output and adds its metrics to tr.
 * Returns 0, or -1 with the reason in err (tr is then left unchanged). */
int parse_iperf3_text(const char *text, size_t len, struct test_result *tr,
		      char *err, size_t errlen);

/* The same for the file at path (a step's stdout.log). */
int parse_iperf3_file(const char *path, struct test_result *tr, char *err, size_t errlen);

#endif
