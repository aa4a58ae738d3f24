/*
 * scenario_check_against(): what needs both files. Selectors in 'boards:'
 * and in roles must name boards and tags the inventory has; a non-each
 * role must select at least one board.
 */
#include "config/config.h"
#include "config/selector.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

int scenario_check_against(const struct scenario *sc, const struct inventory *inv,
			   struct diag_list *diags)
{
	char err[256];
	size_t n_start = diags->n;

	for (size_t i = 0; i < sc->n_board_selectors; i++) {
		const char *sel = sc->board_selectors[i];
		if (selector_valid(inv, sel, err, sizeof(err)))
			continue;
		const struct src_pos *p = sc->board_selector_pos ? &sc->board_selector_pos[i] : NULL;
		diag_add(diags, p && p->file ? p->file : sc->path, p ? p->line : 0, p ? p->col : 0,
			 "unknown board or tag in 'boards', found '%s': %s", sel, err);
	}
	bool *sel = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	for (size_t t = 0; t < sc->n_tests; t++) {
		const struct test *test = &sc->tests[t];
		for (size_t r = 0; r < test->n_roles; r++) {
			const struct role *role = &test->roles[r];
			if (role->each || !role->selector)
				continue;
			const char *one[1] = { role->selector };
			if (!selector_valid(inv, role->selector, err, sizeof(err))) {
				diag_add(diags, role->pos.file ? role->pos.file : sc->path, role->pos.line,
					 role->pos.col, "role '%s' of test '%s' selects '%s': %s",
					 role->name, test->name ? test->name : "?", role->selector, err);
				continue;
			}
			if (selector_resolve(inv, one, 1, NULL, 0, sel, err, sizeof(err)) < 0)
				continue;
			bool any = false;
			for (size_t b = 0; b < inv->n_boards; b++)
				any = any || sel[b];
			if (!any)
				diag_add(diags, role->pos.file ? role->pos.file : sc->path, role->pos.line,
					 role->pos.col, "role '%s' of test '%s' selects no board with '%s'",
					 role->name, test->name ? test->name : "?", role->selector);
		}
	}
	free(sel);
	return diags->n > n_start ? -1 : 0;
}
