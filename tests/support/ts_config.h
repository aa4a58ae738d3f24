#ifndef ORCH_TS_CONFIG_H
#define ORCH_TS_CONFIG_H
/*
 * Loading an inventory or a scenario from text in the config tests, and
 * finding one diagnostic among those a load left: what fails the current
 * test prints every diagnostic first.
 */
#include "config/config.h"

/* The inventory TEXT loads as if read from PATH (caller frees); fails the
 * current test, with the diagnostics, when it does not. */
struct inventory *ts_inventory_ok(const char *path, const char *text);
/* TEXT as the inventory at PATH must not load: the diagnostics (caller
 * releases). */
struct diag_list ts_inventory_bad(const char *path, const char *text);
/* The scenario TEXT loads as if read from PATH (caller frees); fails the
 * current test, with the diagnostics, when it does not. */
struct scenario *ts_scenario_ok(const char *path, const char *text);
/* Fails the current test unless DL has a diagnostic at LINE:COL whose
 * message is MSG exactly. */
void ts_diag_exact(const struct diag_list *dl, int line, int col, const char *msg);

#endif
