/* The metric table of an example scenario's top comment (ts_example.h). */
#include "testsupport.h"
#include "ts_example.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* "#   TEST METRIC <- ..." -> test and metric; false for any other line. */
static bool parse_row(const char *line, char **test, char **metric)
{
	char t[128], m[128], arrow[8];
	if (strncmp(line, "#   ", 4) != 0)
		return false;
	if (sscanf(line + 1, "%127s %127s %7s", t, m, arrow) != 3 || strcmp(arrow, "<-") != 0)
		return false;
	*test = xstrdup(t);
	*metric = xstrdup(m);
	return true;
}

size_t ts_example_metrics(const char *path, struct ts_example_metric **rows)
{
	char *text = ts_read_file(path);
	if (!text)
		fail_msg("cannot read %s", path);
	size_t n = 0, cap = 0;
	struct ts_example_metric *out = NULL;
	bool in_table = false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!in_table) {
			in_table = !strncmp(line, "# Metrics (", 11);
			continue;
		}
		char *test, *metric;
		if (!parse_row(line, &test, &metric))
			break;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			out = realloc(out, cap * sizeof(*out));
			assert_non_null(out);
		}
		out[n].test = test;
		out[n].metric = metric;
		n++;
	}
	free(text);
	if (n == 0)
		fail_msg("%s: no '# Metrics (' table in its top comment", path);
	*rows = out;
	return n;
}

void ts_example_free(struct ts_example_metric *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		TS_FREE(rows[i].test, rows[i].metric);
	}
	free(rows);
}

size_t ts_example_check(json_t *root, const char *board, const struct ts_example_metric *rows,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *r = ts_json_result(root, board, rows[i].test);
		if (!r)
			fail_msg("%s: no result for test '%s'", board, rows[i].test);
		const char *status = ts_json_str(r, "status");
		if (strcmp(status, "pass") != 0)
			fail_msg("%s %s: status %s (%s)", board, rows[i].test, status,
				 ts_json_str(r, "message"));
		json_t *m = json_object_get(json_object_get(r, "metrics"), rows[i].metric);
		if (!json_is_number(json_object_get(m, "median")))
			fail_msg("%s %s: metric '%s' is not in results.json", board, rows[i].test,
				 rows[i].metric);
	}
	return n;
}
