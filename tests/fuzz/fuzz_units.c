/*
 * Fuzz target for numbers with units and user regexes, as written in YAML.
 * The input is split at its first NUL: the first part is parsed as a
 * duration, a size and a quantity, compiled as a regex and used as the
 * source unit of a conversion; the second part is the target unit and the
 * text the regex is matched against. Never a crash, a leak or UB.
 */
#include "util/regex.h"
#include "util/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], group[16], buf[32];

	if (size > 4096)
		return 0;
	char *a = malloc(size + 2);
	if (!a)
		return 0;
	memcpy(a, data, size);
	a[size] = a[size + 1] = '\0';
	const char *b = a + strlen(a) + 1;
	if (b > a + size)
		b = a + size;

	int64_t ms;
	if (units_parse_duration_ms(a, &ms) == 0)
		units_format_duration(ms, buf, sizeof(buf));
	uint64_t bytes;
	(void)units_parse_size(a, &bytes);
	struct quantity q;
	double out;
	if (units_parse_quantity(a, &q) == 0) {
		(void)units_convert(q.value, q.unit, b, &out);
		(void)units_convert(q.value, b, q.unit, &out);
	}
	(void)units_convert(1.5, a, b, &out);

	/* glibc's regcomp is exponential in nested bounded repeats: keep
	 * patterns to the size people write */
	if (strlen(a) <= 200) {
		struct orch_regex rx;
		memset(&rx, 0, sizeof(rx));
		if (orch_regex_compile(&rx, a, err, sizeof(err)) == 0) {
			(void)orch_regex_match(&rx, b, group, sizeof(group));
			(void)orch_regex_match(&rx, b, NULL, 0);
			(void)orch_regex_match(&rx, b, group, 1);
		}
		orch_regex_free(&rx);
	}
	free(a);
	return 0;
}
