#ifndef ORCH_CONFIG_CONFIG_H
#define ORCH_CONFIG_CONFIG_H
/*
 * Loading and validating inventories and scenarios. A loader reads the whole
 * file, reports every problem it finds into diags ("unknown key 'hots' in
 * ssh", "invalid duration '5 minutes'", ...) with the place it was written,
 * and returns a model only when there were none.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/model.h"
#include "util/diag.h"

/* 0 and *out (caller frees with inventory_free), or -1 with diags filled. */
int inventory_load(const char *path, struct inventory **out, struct diag_list *diags);
void inventory_free(struct inventory *inv);
/* As inventory_load, from len bytes of data; name stands for the file
 * (messages, resolving relative paths). For tests and fuzzing. */
int inventory_load_buffer(const char *name, const char *data, size_t len, struct inventory **out,
			  struct diag_list *diags);
/* The board called name, or NULL; borrowed from inv. */
const struct board *inventory_find(const struct inventory *inv, const char *name);

/* 0 and *out (caller frees with scenario_free), or -1 with diags filled.
 * Board selectors are checked later, against the inventory (selector.h). */
int scenario_load(const char *path, struct scenario **out, struct diag_list *diags);
/* Like scenario_load, but when the YAML parsed and only its contents were
 * wrong, *out is still the partly filled model (caller frees), so that
 * scenario_check_against() can add its errors to the same report. *out is
 * NULL only when the file could not be read or parsed. */
int scenario_load_partial(const char *path, struct scenario **out, struct diag_list *diags);
int scenario_load_buffer(const char *name, const char *data, size_t len, struct scenario **out,
			 struct diag_list *diags);
void scenario_free(struct scenario *sc);

/* A board's health: checks (inventory.c): one test read as a scenario's
 * test is, with the defaults of a scenario that sets none but a 60 s
 * timeout; errors go to c. scenario_test_release frees what it read. */
struct cfg;
struct ynode;
void scenario_read_check(struct cfg *c, const struct ynode *m, struct test *t);
void scenario_test_release(struct test *t);

/* -e NAME=VALUE, or -e @FILE.yaml (a mapping of NAME to a plain value),
 * added to *vars (an entry of the same name is replaced); file_name is
 * where they came from, kept in each var's pos (borrowed: it must outlive
 * the vars). 0, or -1 with diags filled. */
int extra_vars_add(const char *arg, const char *file_name, struct var **vars, size_t *n,
		   struct diag_list *diags);
/* Puts vars over the scenario's vars: and every test's own (they win over
 * a board's too: orch-scenario(5) "Variables"). */
void scenario_apply_extra_vars(struct scenario *sc, const struct var *vars, size_t n);

/* Checks what needs both files: selectors name existing boards and tags,
 * roles refer to boards that exist, steps name roles that exist. */
int scenario_check_against(const struct scenario *sc, const struct inventory *inv,
			   struct diag_list *diags);

/*
 * The scenario and inventory as resolved (defaults applied, paths
 * resolved), for run.json. Holds no secret: password_env is only the name
 * of a variable. selected (may be NULL) marks the boards of inv that run;
 * each board then carries "selected". sc or inv may be NULL. Returns a new
 * reference the caller owns.
 */
json_t *config_to_json(const struct scenario *sc, const struct inventory *inv,
		       const bool *selected);

#endif
