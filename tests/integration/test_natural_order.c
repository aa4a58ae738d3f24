/*
 * Boards and tests in natural order (b2 before b10) wherever orch prints a
 * list of them, whatever order the inventory and the scenario give: orch
 * boards (text and JSON), orch report --full and orch compare (its table
 * and JSON), for an inventory written b10, b2, b1 and a scenario t10, t2.
 * results.json keeps the run's own order (the finish stage's).
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("natural-order", "inventory.yaml",
			      "boards:\n"
			      "  b10: { local: true, tags: [rack] }\n"
			      "  b2: { local: true, tags: [rack] }\n"
			      "  b1: { local: true, tags: [rack] }\n");
	free(ts_write_file(tmp, "rack.yaml",
			   "name: rack\ninventory: inventory.yaml\nboards: [tag:rack]\n"
			   "defaults: { timeout: 60s }\ntests:\n"
			   "  - { name: t10, run: \"true\" }\n"
			   "  - name: t2\n    run: \"echo speed 100\"\n"
			   "    metrics: [ { name: rate, regex: 'speed (\\d+)', unit: MB/s, "
			   "better: higher } ]\n"));
	char *in_tmp = xasprintf("cd %s &&", tmp);
	free(ts_orch_want(0, in_tmp, "run rack.yaml -q -o runs1"));
	free(ts_orch_want(0, in_tmp, "run rack.yaml -q -o runs2"));
	free(in_tmp);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

/* Fails unless the words appear in out in the order given (NULL-ended). */
static void assert_in_order(const char *what, const char *out, const char *const *words)
{
	const char *at = out;
	for (size_t i = 0; words[i]; i++) {
		const char *p = strstr(at, words[i]);
		if (!p)
			fail_msg("%s: '%s' missing or out of order:\n%s", what, words[i], out);
		at = p + strlen(words[i]);
	}
}

/* orch's output, a newline before it: every line starts after one. */
static char *orch(const char *args)
{
	char *out = NULL;
	int rc = ts_run(&out, "cd %s && %s %s", tmp, ORCH_BIN, args);
	if (rc != 0 && rc != 1)
		fail_msg("orch %s: exit %d\n%s", args, rc, out);
	char *lines = xasprintf("\n%s", out);   /* each line after a newline */
	free(out);
	return lines;
}

static void test_boards(void **state)
{
	char *out = orch("boards -i inventory.yaml 2>&1");
	assert_in_order("orch boards", out, (const char *[]){ "\nb1\t", "\nb2\t", "\nb10\t", NULL });
	free(out);
	out = orch("boards -i inventory.yaml --format json 2>/dev/null");
	assert_in_order("orch boards --format json", out,
			(const char *[]){ "\"b1\"", "\"b2\"", "\"b10\"", NULL });
	free(out);
}

static void test_report_full(void **state)
{
	char *out = orch("report --full runs1/rack/latest 2>&1");
	assert_in_order("orch report --full", out,
			(const char *[]){ "\nb1 ", " t2 ", "\nb1 ", " t10 ", "\nb2 ", " t2 ",
					  "\nb2 ", " t10 ", "\nb10 ", " t2 ", "\nb10 ", " t10 ",
					  NULL });
	free(out);
	/* the run's own order stays in results.json: the inventory's */
	char *json = ts_read_in(tmp, "runs1/rack/latest/results.json");
	assert_non_null(json);
	assert_in_order("results.json", json,
			(const char *[]){ "\"b10\"", "\"b2\"", "\"b1\"", NULL });
	free(json);
}

static void test_compare(void **state)
{
	char *out = orch("compare runs1/rack/latest runs2/rack/latest 2>/dev/null");
	assert_in_order("orch compare", out,
			(const char *[]){ "\nb1 ", "\nb2 ", "\nb10 ", NULL });
	free(out);
	out = orch("compare runs1/rack/latest runs2/rack/latest --format json 2>/dev/null");
	assert_in_order("orch compare --format json", out,
			(const char *[]){ "\"board\": \"b1\"", "\"board\": \"b2\"",
					  "\"board\": \"b10\"", NULL });
	free(out);
}

TS_MAIN(group_setup, group_teardown, test_boards, test_report_full, test_compare)
