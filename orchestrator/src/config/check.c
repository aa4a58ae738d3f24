/*
 * scenario_check_against(): what needs both files. Selectors in 'boards:'
 * and in roles must name boards and tags the inventory has; a non-each
 * role must select at least one board. A {vars.X} that neither the test
 * nor the scenario defines must be in the vars: of every board the
 * scenario selects.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/selector.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* Reports the {vars.X} in text that a selected board lacks. */
static void check_board_vars(const struct scenario *sc, const struct inventory *inv,
			     const bool *selected, const struct test *t, const char *text,
			     const struct src_pos *pos, struct diag_list *diags)
{
	for (const char *p = text ? strstr(text, "{vars.") : NULL; p; p = strstr(p + 1, "{vars.")) {
		const char *name = p + 6;
		size_t len = strcspn(name, "}");
		if (name[len] != '}' || len == 0 || len > 100)
			continue;
		char var[101];
		memcpy(var, name, len);
		var[len] = '\0';
		if (cfg_var_find(t->vars, t->n_vars, var))
			continue;
		for (size_t b = 0; b < inv->n_boards; b++) {
			const struct board *bd = &inv->boards[b];
			if (!selected[b] || cfg_var_find(bd->vars, bd->n_vars, var))
				continue;
			diag_add(diags, pos->file ? pos->file : sc->path, pos->line, pos->col,
				 "{vars.%s} in test '%s' is not defined: not in the test's or the "
				 "scenario's vars:, nor in the vars: of board '%s'", var,
				 t->name ? t->name : "?", bd->name);
			break;
		}
	}
}

static void check_vars(const struct scenario *sc, const struct inventory *inv,
		       struct diag_list *diags)
{
	char err[256];
	bool *sel = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	if (selector_resolve(inv, (const char *const *)sc->board_selectors, sc->n_board_selectors,
			     NULL, 0, sel, err, sizeof(err)) < 0) {
		free(sel);
		return;
	}
	for (size_t i = 0; i < sc->n_tests; i++) {
		const struct test *t = &sc->tests[i];
		check_board_vars(sc, inv, sel, t, t->run, &t->pos, diags);
		for (size_t a = 0; a < t->n_args; a++)
			check_board_vars(sc, inv, sel, t, t->args[a], &t->pos, diags);
		for (size_t e = 0; e < t->n_env; e++)
			check_board_vars(sc, inv, sel, t, t->env[e].value, &t->env[e].pos, diags);
		for (size_t s = 0; s < t->n_steps; s++) {
			const struct step *st = &t->steps[s];
			check_board_vars(sc, inv, sel, t, st->run, &st->pos, diags);
			for (size_t a = 0; a < st->n_args; a++)
				check_board_vars(sc, inv, sel, t, st->args[a], &st->pos, diags);
			for (size_t e = 0; e < st->n_env; e++)
				check_board_vars(sc, inv, sel, t, st->env[e].value, &st->env[e].pos,
						 diags);
		}
	}
	free(sel);
}

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
	check_vars(sc, inv, diags);
	return diags->n > n_start ? -1 : 0;
}
