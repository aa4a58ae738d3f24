#ifndef ORCH_TS_EXAMPLE_H
#define ORCH_TS_EXAMPLE_H
/*
 * The example scenarios of scenarios/ (bifferboard.yaml, cjdns-rpi.yaml,
 * wg-matrix.yaml) carry, in their top comment, the table of what they
 * measure: after a line starting "# Metrics (", one line per metric
 *
 *   #   TEST   METRIC   <- the line of the report it stands for
 *
 * up to the first comment line not of that form. The integration tests that
 * run an example read that table here and check that every listed metric is
 * in results.json, so the comment cannot drift from what the file measures.
 */
#include <jansson.h>
#include <stddef.h>

struct ts_example_metric {
	char *test;
	char *metric;
};

/* The table of the scenario file at PATH; fails the current test when the
 * file has none. Returns the number of rows; *rows is freed with
 * ts_example_free(). */
size_t ts_example_metrics(const char *path, struct ts_example_metric **rows);
void ts_example_free(struct ts_example_metric *rows, size_t n);

/* Checks ROOT (results.json) for BOARD: every listed test passed and has
 * every listed metric with a numeric median. Fails the current test naming
 * the first that is not there; returns how many were checked. */
size_t ts_example_check(json_t *root, const char *board, const struct ts_example_metric *rows,
			size_t n);

#endif
