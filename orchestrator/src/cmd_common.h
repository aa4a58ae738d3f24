#ifndef ORCH_CMD_COMMON_H
#define ORCH_CMD_COMMON_H
/*
 * What several subcommands share: loading a scenario with its inventory
 * (printing every diagnostic), and the inventory alone.
 */
#include "config/config.h"

/* Loads SCENARIO and its inventory (-i wins over the scenario's
 * inventory:), checks them against each other. Returns EXIT_OK, or
 * EXIT_USAGE after printing every problem found to stderr. */
int cmd_load_scenario(const char *scenario_path, const char *inventory_path,
		      struct scenario **sc, struct inventory **inv);
/* Loads an inventory: -i, else $ORCH_INVENTORY. EXIT_OK, or EXIT_USAGE
 * after printing what is wrong. */
int cmd_load_inventory(const char *inventory_path, struct inventory **inv);

#endif
