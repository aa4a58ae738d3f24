/*
 * Fuzz target for metrics out of a command's output: the input is cut into
 * lines as the output reader does and each line goes through the
 * remote-bench JSON line parser and a collector (JSON lines on; `metrics:`
 * regexes on stdout and stderr, one taking its unit from the output, one
 * with a backreference that backtracks hard on long lines), whose values
 * are then committed to a result. Run by the corpus runner with a time
 * limit per input (8 KB lines in the corpus), so a regex that hangs fails.
 */
#include "execute/metrics.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct metric_spec spec[3];
	static bool spec_ready;
	static const char *const src[3][4] = {
		{ "rate", "rate:\\s*([0-9.eE+-]+)", "MB/s", "stdout" },
		{ "speed", "(?i)speed\\s*(?<value>[0-9.]+|\\++)\\s*(?<unit>[kMGT]i?B/s|[KMG]bit/s)?", "MB/s",
		  "stderr" },
		{ "echo", "^(\\w+\\s?)*\\1$", "", "stdout" },
	};
	struct test test;
	struct metric_collector mc;
	struct test_result tr;
	char err[256];

	if (size > 64 * 1024)
		return 0;
	if (!spec_ready) {
		for (int i = 0; i < 3; i++) {
			spec[i].name = strdup(src[i][0]);   /* kept for the process */
			spec[i].unit = strdup(src[i][2]);
			spec[i].from = strcmp(src[i][3], "stderr") == 0 ? METRIC_FROM_STDERR
									: METRIC_FROM_STDOUT;
			if (orch_regex_compile(&spec[i].regex, src[i][1], err, sizeof(err)) < 0)
				abort();
			int vg = orch_regex_group_number(&spec[i].regex, "value");
			spec[i].value_group = vg > 0 ? vg : 1;
			int ug = orch_regex_group_number(&spec[i].regex, "unit");
			spec[i].unit_group = ug > 0 ? ug : 0;
		}
		spec_ready = true;
	}
	memset(&test, 0, sizeof(test));
	test.metrics = spec;
	test.n_metrics = 3;
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
	(void)metric_collector_commit(&mc, &tr);
	test_result_release(&tr);
	metric_collector_release(&mc);
	return 0;
}
