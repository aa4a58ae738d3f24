#include "config/load.h"
#include "config/cfg_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A metric whose direction nobody gave: compare would judge it as
 * higher-is-better, which is wrong for a latency without a unit. */
static void warn_metric_directions(const struct scenario *sc, struct diag_list *warnings)
{
	for (size_t i = 0; i < sc->n_tests; i++) {
		const struct test *t = &sc->tests[i];
		for (size_t k = 0; k < t->n_metrics; k++) {
			const struct metric_spec *ms = &t->metrics[k];
			if (!ms->better_guessed)
				continue;
			diag_add(warnings, ms->pos.file ? ms->pos.file : sc->path, ms->pos.line,
				 ms->pos.col, "metric '%s': neither its unit ('%s') nor its name "
				 "says which way is better, and there is no 'better:'; taking higher "
				 "(add better: higher or better: lower)", ms->name ? ms->name : "",
				 ms->unit ? ms->unit : "");
		}
	}
}

static const char *inventory_named(const struct load_request *rq, const struct scenario *sc)
{
	if (rq->inventory)
		return rq->inventory;
	if (sc && sc->inventory_path)
		return sc->inventory_path;
	const char *env = getenv("ORCH_INVENTORY");
	return env && *env ? env : NULL;
}

static void no_inventory(const struct load_request *rq, struct diag_list *errors)
{
	if (rq->scenario)
		diag_add(errors, rq->scenario, 0, 0, "no inventory: add 'inventory: FILE' to the "
			 "scenario, give -i INVENTORY.yaml or set ORCH_INVENTORY");
	else
		diag_add(errors, "orch", 0, 0, "no inventory: give -i INVENTORY.yaml (or set "
			 "ORCH_INVENTORY)");
}

/* The -e variables, read after the inventory so that a file of them is
 * reported with the inventory's secrets already known (masked). */
static int read_extra_vars(const struct load_request *rq, struct var **vars, size_t *n,
			   struct diag_list *errors)
{
	int rc = 0;
	for (size_t i = 0; i < rq->n_extra_vars; i++) {
		const char *arg = rq->extra_vars[i];
		if (extra_vars_add(arg, arg[0] == '@' ? arg + 1 : "-e", vars, n, errors) < 0)
			rc = -1;
	}
	return rc;
}

int config_load(const struct load_request *rq, struct loaded *out)
{
	memset(out, 0, sizeof(*out));
	int rc = 0;
	/* Even a scenario with errors is checked against its inventory, so that
	 * every problem in both files is reported in one pass. */
	if (rq->scenario) {
		rc = scenario_load_partial(rq->scenario, &out->sc, &out->errors);
		if (!out->sc)
			goto out;
	}
	const char *inv_path = inventory_named(rq, out->sc);
	if (!inv_path && !rq->inventory_optional)
		no_inventory(rq, &out->errors);
	if (inv_path)
		inventory_load(inv_path, &out->inv, &out->errors);   /* takes its secrets */
	struct var *extra = NULL;
	size_t n_extra = 0;
	if (read_extra_vars(rq, &extra, &n_extra, &out->errors) < 0)
		rc = -1;
	if (out->sc) {
		scenario_apply_extra_vars(out->sc, extra, n_extra);
		if (out->inv)
			scenario_check_against(out->sc, out->inv, &out->errors);
	}
	cfg_vars_free(extra, n_extra);
	if (out->sc && !out->errors.n)
		warn_metric_directions(out->sc, &out->warnings);
out:
	diag_sort(&out->errors);
	diag_sort(&out->warnings);
	if (rc < 0 || out->errors.n) {
		scenario_free(out->sc);
		inventory_free(out->inv);
		out->sc = NULL;
		out->inv = NULL;
		return -1;
	}
	return 0;
}

void loaded_release(struct loaded *l)
{
	scenario_free(l->sc);
	inventory_free(l->inv);
	diag_list_release(&l->errors);
	diag_list_release(&l->warnings);
	memset(l, 0, sizeof(*l));
}

const char *loaded_first_error(const struct loaded *l, char *buf, size_t len)
{
	if (!l->errors.n)
		return NULL;
	const struct diag *d = &l->errors.items[0];
	snprintf(buf, len, "%s:%d:%d: %s", d->file, d->line, d->col, d->message);
	return buf;
}
