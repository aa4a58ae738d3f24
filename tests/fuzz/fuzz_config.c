/*
 * Fuzz target for the config stage: any bytes, read as an inventory and as
 * a scenario, must give a model or diagnostics, never a crash or a leak.
 * When both load, the cross-check and the run.json export run too.
 */
#include "config/config.h"
#include "config/selector.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list diags = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	struct scenario *sc = NULL;
	char err[256];

	if (size > 64 * 1024)
		return 0;
	inventory_load_buffer("/fuzz/boards/x.yaml", (const char *)data, size, &inv, &diags);
	scenario_load_buffer("/fuzz/scenarios/x.yaml", (const char *)data, size, &sc, &diags);
	if (inv) {
		bool *sel = calloc(inv->n_boards + 1, sizeof(bool));
		const char *all[] = { "all", "!tag:x" };
		if (sel)
			selector_resolve(inv, all, 2, NULL, 0, sel, err, sizeof(err));
		if (sc) {
			scenario_check_against(sc, inv, &diags);
			if (sel)
				selector_resolve(inv, (const char *const *)sc->board_selectors,
						 sc->n_board_selectors, NULL, 0, sel, err, sizeof(err));
		}
		json_t *j = config_to_json(sc, inv, sel);
		char *text = json_dumps(j, JSON_COMPACT);
		free(text);
		json_decref(j);
		free(sel);
	}
	scenario_free(sc);
	inventory_free(inv);
	diag_list_release(&diags);
	return 0;
}
