/*
 * orch run --dry-run -v and orch validate -v: the variables as resolved
 * (with where each came from) and every command as orch would send it,
 * board by board, contacting nothing. A board without arch: in the
 * inventory shows {board.arch} as "(uname -m)": it is asked at run time.
 */
#include "cli/common.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "plan/plan.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dry_arch(void *ctx, const struct board *b, const char **arch, char *err,
		    size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	*arch = b->arch ? b->arch : "(uname -m)";
	return 0;
}

static void print_vars(const struct scenario *sc, FILE *out)
{
	if (!sc->n_vars)
		return;
	fprintf(out, "vars:\n");
	for (size_t i = 0; i < sc->n_vars; i++) {
		const struct var *v = &sc->vars[i];
		fprintf(out, "  %s = '%s'", v->name, v->value);
		if (v->pos.file && v->pos.line)
			fprintf(out, "  (%s:%d)", v->pos.file, v->pos.line);
		else if (v->pos.file)
			fprintf(out, "  (%s)", v->pos.file);
		fputc('\n', out);
	}
}

static void print_one(const char *label, const char *text, const struct subst_env *env,
		      FILE *out)
{
	char err[512];
	char *cmd = substitute(text, env, err, sizeof(err));
	if (cmd)
		fprintf(out, "      %s: %s\n", label, cmd);
	else
		fprintf(out, "      %s: error: %s\n", label, err);
	free(cmd);
}

static void print_item(const struct plan_item *it, FILE *out)
{
	const struct test *t = it->test;
	struct vars_ctx vc = { t, it->board };
	struct subst_role *roles = xcalloc(it->n_roles + 1, sizeof(*roles));
	for (size_t r = 0; r < it->n_roles; r++) {
		roles[r].name = it->roles[r].role->name;
		roles[r].boards = it->roles[r].boards;
		roles[r].n_boards = it->roles[r].n_boards;
	}
	struct subst_env env = { .board = it->board, .roles = roles, .n_roles = it->n_roles,
				 .arch_fn = dry_arch, .lookup = vars_lookup, .lookup_ctx = &vc };
	fprintf(out, "    %s\n", t->name);
	if (it->skip_reason) {
		fprintf(out, "      skip: %s\n", it->skip_reason);
	} else if (t->run) {
		char *with_env = vars_env_prefix(t->env, t->n_env, NULL, 0, t->run);
		print_one("run", with_env, &env, out);
		free(with_env);
	} else if (t->bench) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_printf(&sb, "remote-bench-%s", t->bench);
		for (size_t a = 0; a < t->n_args; a++)
			strbuf_printf(&sb, " %s", t->args[a]);
		print_one("bench", strbuf_str(&sb), &env, out);
		strbuf_release(&sb);
	}
	for (size_t s = 0; s < t->n_steps; s++) {
		const struct step *st = &t->steps[s];
		char label[160];
		const struct board *on = NULL;
		for (size_t r = 0; r < it->n_roles; r++)
			if (strcmp(it->roles[r].role->name, st->on) == 0 && it->roles[r].n_boards)
				on = it->roles[r].boards[0];
		snprintf(label, sizeof(label), "%s step %zu%s", st->on, s + 1,
			 st->background ? " (background)" : "");
		struct subst_env senv = env;
		senv.board = on ? on : it->board;
		struct vars_ctx svc = { t, senv.board };
		senv.lookup_ctx = &svc;
		char *with_env = vars_env_prefix(t->env, t->n_env, st->env, st->n_env,
						 st->run ? st->run : st->bench);
		print_one(label, with_env, &senv, out);
		free(with_env);
	}
	free(roles);
}

void cmd_print_resolved(const struct scenario *sc, const struct plan *plan, FILE *out)
{
	print_vars(sc, out);
	fprintf(out, "commands (as sent; {NS.FIELD} travel as the exported variables):\n");
	for (size_t b = 0; b < plan->n_boards; b++) {
		fprintf(out, "  %s\n", plan->boards[b].board->name);
		for (size_t i = 0; i < plan->boards[b].n_items; i++)
			print_item(&plan->boards[b].items[i], out);
	}
}
