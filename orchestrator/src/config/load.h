#ifndef ORCH_CONFIG_LOAD_H
#define ORCH_CONFIG_LOAD_H
/*
 * What a command works on, loaded in one call: the scenario with the -e
 * variables put over its vars, its inventory (-i, else the scenario's
 * inventory:, else $ORCH_INVENTORY), the two checked against each other,
 * and the inventory's secrets (password_env) taken out of the environment
 * before anything can start a child (docs/guarantees.md "Secrets"). Every
 * problem goes into the result's lists; nothing is printed here and nothing
 * is kept between calls, so a test or a new verb gets exactly what orch run
 * and orch validate get.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "util/diag.h"

struct load_request {
	const char *scenario;            /* NULL: the inventory alone */
	const char *inventory;           /* -i, or NULL */
	const char *const *extra_vars;   /* -e arguments as given (borrowed: they
					  * must outlive the scenario) */
	size_t n_extra_vars;
	bool inventory_optional;         /* no inventory named anywhere is no error */
};

struct loaded {
	struct scenario *sc;             /* NULL unless asked for and loaded */
	struct inventory *inv;           /* NULL when none was named (optional) */
	struct diag_list errors;         /* sorted by place */
	struct diag_list warnings;       /* sorted by place; loading still succeeds */
};

/* Loads what rq names into *out (zeroed first). 0, or -1 with *out's
 * errors filled and neither model kept. *out is released with
 * loaded_release in both cases. */
int config_load(const struct load_request *rq, struct loaded *out);
/* Frees the models still held (take them by setting the fields to NULL
 * first) and both lists. */
void loaded_release(struct loaded *l);

/* The first error as "FILE:LINE:COL: MESSAGE" (the order orch validate
 * lists them in), or NULL when there is none; borrowed from l. */
const char *loaded_first_error(const struct loaded *l, char *buf, size_t len);

#endif
