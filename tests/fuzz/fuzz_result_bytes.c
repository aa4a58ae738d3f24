/*
 * Fuzz target: any bytes from a board, as a test's message, last console
 * line, boot phase line and board fact, survive a whole test result's trip
 * through JSON unchanged (docs/results-json.md "Bytes as they came"). The
 * input is split at 0xFF into the fields; a NUL in the input is held as
 * C0 80, as the output path holds it.
 */
#include "result/result_json.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Field k of the input (NUL as C0 80); caller frees. */
static char *field(const uint8_t *data, size_t size, int k)
{
	struct strbuf sb = STRBUF_INIT;
	int at = 0;
	for (size_t i = 0; i < size; i++) {
		if (data[i] == 0xFF) {
			at++;
			continue;
		}
		if (at != k)
			continue;
		if (data[i])
			strbuf_putc(&sb, (char)data[i]);
		else
			strbuf_append(&sb, "\xC0\x80", 2);
	}
	return strbuf_detach(&sb);
}

static void same(const char *what, const char *a, const char *b)
{
	if (!a || !b || strcmp(a, b) != 0) {
		fprintf(stderr, "%s changed in the JSON round trip\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	struct test_result tr;
	memset(&tr, 0, sizeof(tr));
	tr.board = xstrdup("b");
	tr.test = xstrdup("t");
	tr.message = field(data, size, 0);
	tr.last_line = field(data, size, 1);
	tr.n_phases = 1;
	tr.phases = xcalloc(1, sizeof(*tr.phases));
	tr.phases[0].name = xstrdup("kernel");
	tr.phases[0].line = field(data, size, 2);

	json_t *j = test_result_to_json(&tr);
	if (!j)
		abort();   /* nothing may be dropped */
	char *text = result_json_dump(j);
	json_decref(j);
	if (!text)
		abort();
	json_error_t jerr;
	json_t *back = json_loads(text, 0, &jerr);
	if (!back)
		abort();   /* what orch writes is JSON */
	struct test_result again;
	memset(&again, 0, sizeof(again));
	char err[256];
	if (test_result_from_json(back, &again, err, sizeof(err)) < 0) {
		fprintf(stderr, "cannot read back: %s\n", err);
		abort();
	}
	same("message", tr.message, again.message);
	same("last_line", tr.last_line, again.last_line);
	if (again.n_phases != 1)
		abort();
	same("phase line", tr.phases[0].line, again.phases[0].line);
	json_decref(back);
	free(text);
	test_result_release(&again);
	test_result_release(&tr);
	return 0;
}
