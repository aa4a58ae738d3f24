#ifndef ORCH_EXECUTE_SUBSTITUTE_H
#define ORCH_EXECUTE_SUBSTITUTE_H
/*
 * `{role.field}` and `{board.field}` in a command (DESIGN.md "Scenario"):
 * each is replaced by the field's value shell-quoted, so a value is always
 * exactly one word whatever it holds. `{board.*}` is the board the command
 * runs on; `{ROLE.*}` the board playing that role (a role bound to several
 * boards is ambiguous unless the command runs on that role, where it means
 * the board at hand).
 *
 * Fields: name, host (ssh host, else "localhost" for a local board, else
 * the board name, which may be a ~/.ssh/config alias), port (ssh port, 22 by
 * default), user (ssh user, "" when unset), arch, workdir.
 *
 * Only `{WORD.WORD}` (letters, digits, '_' and '-') is a substitution, so
 * shell braces (`${x}`, `awk '{print $1}'`, `a{1,2}`) pass through
 * untouched; `{{` is a literal `{`. An unknown role or field is an error.
 */
#include <stddef.h>

#include "config/model.h"

struct subst_role {
	const char *name;                   /* role name */
	const struct board *const *boards;  /* the boards bound to it */
	size_t n_boards;
};

/* Fills *arch (borrowed) for a board whose inventory has none, e.g. from
 * `uname -m`; 0, or -1 with the reason in err. */
typedef int (*subst_arch_fn)(void *ctx, const struct board *b, const char **arch,
			     char *err, size_t errlen);

struct subst_env {
	const struct board *board;          /* {board.*}; NULL: not available */
	const struct subst_role *roles;
	size_t n_roles;
	subst_arch_fn arch_fn;              /* NULL: an unset arch is an error */
	void *arch_ctx;
};

/* The command with every substitution made; caller frees. NULL with the
 * reason in err ("unknown field 'hots' in {server.hots}"). */
char *substitute(const char *command, const struct subst_env *env, char *err, size_t errlen);

#endif
