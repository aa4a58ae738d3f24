#ifndef ORCH_CLI_RUN_H
#define ORCH_CLI_RUN_H
/* orch run's options, as its command line gave them (cli/run_options.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_options {
	const char *scenario;
	const char *inventory;
	const char **limits;
	size_t n_limits;
	const char **tests;
	size_t n_tests;
	int jobs;
	const char *runs_dir;
	int repeat;
	int retry_infra;          /* -1: the scenario's */
	const char *rerun;        /* --rerun RUN_DIR */
	const char *only;         /* --only failed|error|both */
	int max_fail;
	const char *baseline;
	double threshold;
	bool has_threshold;
	bool judge_single;
	int settle;                /* --settle N; 0 none */
	int shard_k, shard_n;
	const char *bench_dir;
	bool dry_run;
	bool list;
	int64_t wait_ms;
	const char *db_url;
	const char *join;
	const char *controller;
	int64_t join_wait_ms;
	bool json;
	bool quiet;
	const char *label;
	bool no_history;
	bool allow_empty;
	const char *junit;
	const char **extra_vars;  /* -e, as given */
	size_t n_extra_vars;
};

/* Parses orch run's command line into o (zeroed by the caller; strings
 * borrowed from argv). 0, -1 after --help was printed, else a usage error
 * (printed). */
int run_parse_options(int argc, char **argv, struct run_options *o);

#endif
