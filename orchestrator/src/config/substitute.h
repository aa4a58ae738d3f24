#ifndef ORCH_CONFIG_SUBSTITUTE_H
#define ORCH_CONFIG_SUBSTITUTE_H
/*
 * `{NS.FIELD}` in a command (docs/guarantees.md "Substitution"). A value
 * never becomes shell code: each one is handed to the command as an
 * environment variable (ORCH_SERVER_HOST, ORCH_BOARD_NAME, ...) set by a
 * prefix of `export NAME='value';` words with strict single-quote escaping,
 * and the `{NS.FIELD}` itself becomes a reference to that variable quoted for
 * the shell context it stands in:
 *
 *   unquoted, in $(...) or `...`   ->  "${ORCH_NS_FIELD}"
 *   inside "..."                   ->  ${ORCH_NS_FIELD}
 *   inside '...'                   ->  '"${ORCH_NS_FIELD}"'
 *
 * so the command receives exactly the value, one word where it stood alone,
 * part of the string it was written in otherwise.
 *
 * Namespaces: `board` (the board the command runs on), a role name (the
 * board playing that role; a role bound to several boards is ambiguous
 * unless the command runs on that role, where it means the board at hand),
 * and whatever env->lookup answers for (vars, env, ...). Board fields: name,
 * host (the address orch's SSH connection to the board really reached,
 * after ~/.ssh/config HostName/ProxyJump, when env->host_fn knows it; else
 * the inventory's ssh host, "localhost" for a local board, else the board
 * name, which may be a ~/.ssh/config alias), port (ssh port, 22 by default), user
 * (ssh user, "" when unset), arch, workdir.
 *
 * Only `{WORD.WORD}` (letters, digits, '_' and '-') is a substitution, so
 * shell braces (`${x}`, `awk '{print $1}'`, `a{1,2}`) pass through
 * untouched; `{{` is a literal `{`. An unknown namespace or field is an error.
 * A command without substitutions comes back unchanged.
 */
#include <stddef.h>

#include "config/model.h"
#include "util/strbuf.h"

struct subst_role {
	const char *name;                   /* role name */
	const struct board *const *boards;  /* the boards bound to it */
	size_t n_boards;
};

/* Fills *arch (borrowed) for a board whose inventory has none, e.g. from
 * `uname -m`; 0, or -1 with the reason in err. */
typedef int (*subst_arch_fn)(void *ctx, const struct board *b, const char **arch,
			     char *err, size_t errlen);

/*
 * Asked first for every `{ns.field}`. b is the board ns stands for (`board`
 * or a role), NULL for any other namespace. Returns 1 with *val set
 * (borrowed until substitute returns) to answer, 0 to leave it to the
 * built-in fields (an unknown namespace is then an error), -1 with the
 * reason in err. E.g. {vars.X}, {env.X}, or board.host as the address the
 * ssh session really reached.
 */
typedef int (*subst_lookup_fn)(void *ctx, const char *ns, const char *field,
			       const struct board *b, const char **val, char *err, size_t errlen);

struct subst_env {
	const struct board *board;          /* {board.*}; NULL: not available */
	const struct subst_role *roles;
	size_t n_roles;
	subst_arch_fn arch_fn;              /* NULL: an unset arch is an error */
	void *arch_ctx;
	subst_lookup_fn lookup;             /* NULL: built-in namespaces only */
	void *lookup_ctx;
	/* The address orch connected to for b (board_link_host), or NULL:
	 * then the inventory's host. NULL fn: always the inventory's. */
	const char *(*host_fn)(void *ctx, const struct board *b);
	void *host_ctx;
};

/* The command with every substitution made, prefix included; caller frees.
 * NULL with the reason in err ("unknown field 'hots' in {server.hots}"). */
char *substitute(const char *command, const struct subst_env *env, char *err, size_t errlen);

/*
 * For commands assembled from pieces (a bench program and its arguments):
 * subst_append adds text to *body with its substitutions made as if it
 * stood unquoted, and records the variables in *s; subst_finish returns the
 * prefix followed by body (caller frees) and releases s.
 */
struct subst_vars {
	char **names;
	char **values;
	size_t n;
};
#define SUBST_VARS_INIT { NULL, NULL, 0 }

int subst_append(struct subst_vars *s, struct strbuf *body, const char *text,
		 const struct subst_env *env, char *err, size_t errlen);
char *subst_finish(struct subst_vars *s, const char *body);
void subst_vars_release(struct subst_vars *s);

/* ORCH_NS_FIELD for ns and field (upper case, other than [A-Z0-9] -> '_');
 * caller frees. */
char *subst_var_name(const char *ns, const char *field);

#endif
