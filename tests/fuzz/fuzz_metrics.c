/*
 * Fuzz target for metrics out of a command's output: the input is cut into
 * lines as the output reader does and each line goes through the
 * remote-bench JSON line parser and a collector (JSON lines on, one
 * `metrics:` regex), whose values are then committed to a result.
 */
#include "execute/metrics.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char name[] = "rate", unit[] = "MB/s";
	static struct metric_spec spec;
	static bool spec_ready;
	struct test test;
	struct metric_collector mc;
	struct test_result tr;
	char err[256];

	if (size > 64 * 1024)
		return 0;
	if (!spec_ready) {
		spec.name = name;
		spec.unit = unit;
		spec.better = BETTER_HIGHER;
		if (orch_regex_compile(&spec.regex, "rate:\\s*([0-9.eE+-]+)", err, sizeof(err)) < 0)
			abort();
		spec_ready = true;
	}
	memset(&test, 0, sizeof(test));
	test.metrics = &spec;
	test.n_metrics = 1;
	metric_collector_init(&mc, &test, true);

	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *line = text;
	for (;;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		struct collected_metric cm;
		if (metrics_parse_json_line(line, &cm) == 0) {
			free(cm.name);
			free(cm.unit);
		}
		metric_collector_line(&mc, TRANSPORT_STDOUT, line);
		metric_collector_line(&mc, TRANSPORT_STDERR, line);
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);

	memset(&tr, 0, sizeof(tr));
	const char *missing;
	(void)metric_collector_commit(&mc, &tr, &missing);
	test_result_release(&tr);
	metric_collector_release(&mc);
	return 0;
}
