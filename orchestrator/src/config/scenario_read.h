#ifndef ORCH_CONFIG_SCENARIO_READ_H
#define ORCH_CONFIG_SCENARIO_READ_H
/*
 * The readers of a scenario's parts, one file per part: scenario.c reads
 * the top level and a test's frame (name, kind, repeat, timeout) and calls
 * these for the rest. Each reports its problems through cfg_error() and
 * fills the test it is given. Private to config/.
 *
 *   scenario_steps.c    run:/bench: args, substitutions, env:, push:/fetch:,
 *                       roles: and steps:
 *   scenario_metrics.c  metrics:
 *   scenario_expect.c   expect: (metric bounds)
 *   scenario_output.c   expect: stdout:, stderr:, exit_code: (output checks)
 *   scenario_boot.c     boot: and transfer:
 *   scenario_facts.c    facts: and label: (declared in cfg_read.h)
 *   scenario_values.c   the values several parts read alike (threshold:, unit:)
 *
 * scenario.c calls the part readers; a part reader calls scenario_values.c
 * and never another part or scenario.c.
 */
#include "config/cfg_read.h"

/* threshold: a percentage >= 0 ("5", "2.5%") into *out: 1, 0 when n is
 * NULL, -1 (an error at n) when it is not one (scenario_values.c). */
int scenario_read_threshold(struct cfg *c, const struct ynode *n, double *out);
/* A unit orch converts must be spelled as units.h has it; reports a near
 * miss (scenario_values.c). */
void scenario_check_unit(struct cfg *c, const struct ynode *n, const char *unit);

/* parse: iperf3-json | remote-bench into *out (replacing it). */
void scenario_read_parse(struct cfg *c, const struct ynode *n, char **out);
/* Refuses an args: item that is several options written as one. */
void scenario_check_args(struct cfg *c, const struct ynode *n, char **args, size_t n_args);

/* bench: NAME (a safe file name) into *out. */
void scenario_read_bench(struct cfg *c, const struct ynode *n, char **out);
/* Checks the {NS.FIELD} substitutions of cmd (board, vars, env, or a role of t). */
void scenario_check_substitutions(struct cfg *c, const struct ynode *n, const char *cmd,
				  const struct test *t);
/* env: of a test or a step, appended to *env. */
void scenario_read_env(struct cfg *c, const struct ynode *n, struct var **env, size_t *n_env,
		       const struct test *t);
/* push: (push true) or fetch: entries; *out is allocated, freed with
 * scenario_artifacts_free. */
void scenario_read_artifacts(struct cfg *c, const struct ynode *n, bool push,
			     struct artifact **out, size_t *n_out);
void scenario_artifacts_free(struct artifact *a, size_t n);
void scenario_read_roles(struct cfg *c, const struct ynode *n, struct test *t);
/* steps: of a multi-host test; roles must be read first. */
void scenario_read_steps(struct cfg *c, const struct ynode *n, struct test *t);

void scenario_read_metrics(struct cfg *c, const struct ynode *n, struct test *t);
/* A boot test's metrics take no from: (they read console lines). */
void scenario_check_boot_metrics(struct cfg *c, const struct ynode *metrics);

void scenario_read_expect(struct cfg *c, const struct ynode *n, struct test *t);
/* Each expect: names a metric the test can produce (its kind and metrics:). */
void scenario_check_expects_producible(struct cfg *c, struct test *t);

/* stdout:, stderr: and exit_code: of an expect: mapping into *ox
 * (scenario_output.c); the other keys are left to the caller. */
void scenario_read_output_expect(struct cfg *c, const struct ynode *expect,
				 struct output_expect *ox);
/* Whether name is one of output_expect_reserved. */
bool scenario_output_reserved(const char *name);
/* Whether ox holds any check. */
bool scenario_output_expect_any(const struct output_expect *ox);
void scenario_output_expect_release(struct output_expect *ox);

/* The remote-bench programs and the metrics they print (scenario_bench.c,
 * from remote-bench/README.md): whether program is one; the unit of its
 * metric (NULL: it prints no such metric); its fixed metric names into out
 * (NULL-ended, at most max - 1). */
bool scenario_bench_known(const char *program);
const char *scenario_bench_metric_unit(const char *program, const char *metric);
size_t scenario_bench_metric_names(const char *program, const char **out, size_t max);

void scenario_read_transfer(struct cfg *c, const struct ynode *n, struct transfer_spec *x);
void scenario_read_boot(struct cfg *c, const struct ynode *n, struct test *t);

#endif
