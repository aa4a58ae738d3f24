#ifndef ORCH_EXECUTE_METRICS_H
#define ORCH_EXECUTE_METRICS_H
/*
 * Metrics out of a command's output, line by line as it arrives: the
 * test's `metrics:` regexes (the first matching line of the metric's
 * stream -- stdout, stderr, or a file fetched into the test's folder --
 * gives the value, with its unit from the output when unit_group is set)
 * and, for remote-bench programs and `parse: remote-bench`, JSON lines
 * {"metric","value","unit","better"}, and the note on stderr in which a
 * remote-bench program names the implementation that ran
 * ("remote-bench-crypto: implementation: ..."). One collector per run of a command;
 * metric_collector_commit() adds its values to the result as one sample
 * and records the declared metrics the output did not give (no matching
 * line, or a value printed as "+++++" as bonnie++ does) as missing: that
 * fails the test only when an expectation needs the metric. Then
 * expectations are checked against the samples' medians. The test's output
 * checks (output_check.h) see the same lines.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"
#include "execute/output_check.h"
#include "result/result.h"
#include "link/board_link.h"

struct collected_metric {
	char *name;
	char *unit;
	bool higher_is_better;
	double value;
	bool better_guessed;  /* JSON line: no "better", unit and name say nothing */
};

struct metric_collector {
	const struct metric_spec *specs;
	size_t n_specs;
	bool *spec_seen;
	bool *spec_placeholder;        /* seen, but printed as +++++ or - */
	bool *spec_too_fast;           /* that placeholder was +++++ (too fast to measure) */
	bool json_lines;               /* parse remote-bench JSON lines */
	struct collected_metric *values;
	size_t n_values;
	char last_stderr[256];         /* for failure messages */
	char error[256];               /* first metric that could not be read (regex limit, unit) */
	int bad_json_lines;            /* lines that looked like JSON but were not metrics */
	uint64_t long_lines;           /* lines of fetched files over the matching cap */
	char *implementation;          /* a remote-bench program's "implementation:" note */
	bool has_checks;               /* the test's output checks (expect: stdout:, ...) */
	struct output_checker checks;  /* fed the same lines; judged by exec_conclude */
};

void metric_collector_init(struct metric_collector *mc, const struct test *test, bool json_lines);
/* An output_line_fn (ctx is the collector). */
int metric_collector_line(void *ctx, enum transport_stream stream, const char *line);
/* An output_long_fn: a line too long for metrics; only the output checks
 * look at its head. */
void metric_collector_long(void *ctx, enum transport_stream stream, const char *head,
			   uint64_t len);
/* Reads the metrics declared `from: file:PATH` out of dir/PATH (files a
 * fetch brought into the test's folder); an unreadable file leaves them
 * missing. */
void metric_collector_files(struct metric_collector *mc, const char *dir);
/* Whether the test has rate_of: metrics (its command is to be timed). */
bool metric_collector_timed(const struct metric_collector *mc);
/* The rate_of: metrics' values: their sizes over seconds, which clock
 * (timing_source_name) timed them; a time that is not positive is an
 * error of commit. */
void metric_collector_rates(struct metric_collector *mc, double seconds, const char *clock);
/* Adds every collected value as a sample to tr (and the implementation
 * note, when tr has none yet) and records the declared
 * metrics not seen as missing. Returns 0, or -1 when a metric could not be
 * read (its regex hit PCRE2's match limit, its unit does not convert),
 * with the reason set as tr's message. */
int metric_collector_commit(struct metric_collector *mc, struct test_result *tr);
void metric_collector_release(struct metric_collector *mc);

/* Checks test->expects against tr's metrics (medians; summarized first).
 * Returns the number of missed expectations; the first is described in tr's
 * message. */
size_t metrics_check_expectations(const struct test *test, struct test_result *tr);

/* A remote-bench metric whose direction was guessed (higher) gets the
 * warning a scenario metric gets, on stderr, once per metric name per
 * process (one orch run). */
void metrics_warn_guessed(const char *name, const char *unit);

/* Parses one remote-bench JSON line; 0 and *out (caller releases the
 * strings), or -1 when the line is not one. */
int metrics_parse_json_line(const char *line, struct collected_metric *out);

#endif
