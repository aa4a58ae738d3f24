#ifndef ORCH_CONFIG_VARS_H
#define ORCH_CONFIG_VARS_H
/*
 * The user's variables in commands (docs/scenarios.md "Variables"): the
 * lookup that substitute() asks for {vars.X}, {env.X} and the board's own
 * vars as {board.X} / {ROLE.X}, and the `env:` entries of a test and a step
 * exported in front of a command. Precedence for {vars.X}: the test's vars:,
 * then the vars: of the board the command runs on (inventory), then the
 * scenario's vars:. {env.X} is orch's own environment, read only when a
 * command names it.
 */
#include <stddef.h>

#include "config/model.h"

struct vars_ctx {
	const struct test *test;        /* test-level and scenario-level vars; NULL: none
	                                 * (a power command: the board's vars only) */
	const struct board *board;      /* the board the command runs on */
};

/* A subst_lookup_fn; ctx is a struct vars_ctx. */
int vars_lookup(void *ctx, const char *ns, const char *field, const struct board *b,
		const char **val, char *err, size_t errlen);

/* command with "export NAME='value'; " for each entry of a, then of b (a
 * later one of the same name wins), in front; caller frees. The values'
 * own {ns.field} are left for substitute(). */
char *vars_env_prefix(const struct var *a, size_t n_a, const struct var *b, size_t n_b,
		      const char *command);

#endif
