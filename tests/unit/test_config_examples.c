/*
 * The example files are documentation that must stay true: the project's first
 * examples (boards/example-rack.yaml, scenarios/example-nightly.yaml) and
 * every other inventory and scenario shipped in boards/ and scenarios/
 * load without errors and agree with their inventory.
 */
#include "testsupport.h"
#include "config/config.h"
#include "config/selector.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

static void test_design_examples(void **state)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	struct scenario *sc = NULL;
	const char *inv_path = ORCH_SOURCE_DIR "/boards/example-rack.yaml";
	const char *sc_path = ORCH_SOURCE_DIR "/scenarios/example-nightly.yaml";

	if (inventory_load(inv_path, &inv, &dl) < 0 || scenario_load(sc_path, &sc, &dl) < 0) {
		diag_print(&dl, stderr);
		fail_msg("an example did not load");
	}
	assert_int_equal(scenario_check_against(sc, inv, &dl), 0);
	assert_string_equal(sc->name, "nightly");
	assert_string_equal(sc->inventory_path, ORCH_SOURCE_DIR "/scenarios/../boards/example-rack.yaml");
	assert_int_equal(inv->n_boards, 6);
	assert_int_equal(inventory_find(inv, "geode")->transport, TRANSPORT_KIND_SERIAL);
	assert_int_equal(inventory_find(inv, "controller")->transport, TRANSPORT_KIND_LOCAL);

	bool selected[6];
	char err[128];
	assert_int_equal(selector_resolve(inv, (const char *const *)sc->board_selectors,
					  sc->n_board_selectors, NULL, 0, selected, err, sizeof(err)),
			 0);
	size_t n = 0;
	for (size_t i = 0; i < inv->n_boards; i++)
		n += selected[i];
	assert_int_equal(n, 3);   /* bifferboard, rpi1, apu2 */
	scenario_free(sc);
	inventory_free(inv);
	diag_list_release(&dl);
}

static void test_shipped_files(void **state)
{
	glob_t g;
	int failures = 0;
	size_t n_files = 0;

	if (glob(ORCH_SOURCE_DIR "/boards/*.yaml", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct diag_list dl = DIAG_LIST_INIT;
			struct inventory *inv = NULL;
			if (inventory_load(g.gl_pathv[i], &inv, &dl) < 0) {
				diag_print(&dl, stderr);
				failures++;
			}
			n_files++;
			inventory_free(inv);
			diag_list_release(&dl);
		}
		globfree(&g);
	}
	if (glob(ORCH_SOURCE_DIR "/scenarios/*.yaml", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct diag_list dl = DIAG_LIST_INIT;
			struct scenario *sc = NULL;
			struct inventory *inv = NULL;
			if (scenario_load(g.gl_pathv[i], &sc, &dl) < 0 ||
			    (sc->inventory_path && (inventory_load(sc->inventory_path, &inv, &dl) < 0 ||
						    scenario_check_against(sc, inv, &dl) < 0))) {
				diag_print(&dl, stderr);
				failures++;
			}
			n_files++;
			inventory_free(inv);
			scenario_free(sc);
			diag_list_release(&dl);
		}
		globfree(&g);
	}
	assert_true(n_files >= 2);
	assert_int_equal(failures, 0);
}

TS_MAIN(NULL, NULL, test_design_examples, test_shipped_files)
