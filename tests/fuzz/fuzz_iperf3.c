/*
 * Fuzz target for `parse: iperf3-json`: any bytes as a step's stdout must
 * add iperf3 metrics to the result or give an error, never a crash or a
 * leak. The input is parsed twice into the same result, as repeats are.
 */
#include "execute/parse_iperf3.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct test_result tr;
	char err[256];

	if (size > 256 * 1024)
		return 0;
	memset(&tr, 0, sizeof(tr));
	if (parse_iperf3_text((const char *)data, size, &tr, err, sizeof(err)) == 0)
		(void)parse_iperf3_text((const char *)data, size, &tr, err, sizeof(err));
	test_result_release(&tr);
	return 0;
}
