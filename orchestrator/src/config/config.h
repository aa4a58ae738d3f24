#ifndef ORCH_CONFIG_CONFIG_H
#define ORCH_CONFIG_CONFIG_H
/*
 * Loading and validating inventories and scenarios. A loader reads the whole
 * file, reports every problem it finds into diags ("unknown key 'hots' in
 * ssh", "invalid duration '5 minutes'", ...) with the place it was written,
 * and returns a model only when there were none.
 */
#include "config/model.h"
#include "util/diag.h"

/* 0 and *out (caller frees with inventory_free), or -1 with diags filled. */
int inventory_load(const char *path, struct inventory **out, struct diag_list *diags);
void inventory_free(struct inventory *inv);
const struct board *inventory_find(const struct inventory *inv, const char *name);

/* 0 and *out (caller frees with scenario_free), or -1 with diags filled.
 * Board selectors are checked later, against the inventory (selector.h). */
int scenario_load(const char *path, struct scenario **out, struct diag_list *diags);
void scenario_free(struct scenario *sc);

/* Checks what needs both files: selectors name existing boards and tags,
 * roles refer to boards that exist, steps name roles that exist. */
int scenario_check_against(const struct scenario *sc, const struct inventory *inv,
			   struct diag_list *diags);

#endif
