#include "config/vars.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const board_fields[] = { "name", "host", "port", "user", "arch", "workdir",
					    NULL };

static const struct var *find(const struct var *v, size_t n, const char *name, int level)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0 && (level < 0 || v[i].test_level == (level > 0)))
			return &v[i];
	return NULL;
}

static int lookup_var(const struct vars_ctx *vc, const char *name, const char **val, char *err,
		      size_t errlen)
{
	const struct var *v = vc->test ? find(vc->test->vars, vc->test->n_vars, name, 1) : NULL;
	if (!v && vc->board)
		v = find(vc->board->vars, vc->board->n_vars, name, -1);
	if (!v && vc->test)
		v = find(vc->test->vars, vc->test->n_vars, name, 0);
	if (!v && !vc->test) {
		snprintf(err, errlen, "unknown variable in {vars.%s}: not in the vars: of board '%s'",
			 name, vc->board ? vc->board->name : "?");
		return -1;
	}
	if (!v) {
		snprintf(err, errlen, "unknown variable in {vars.%s}: not in the vars: of test '%s', "
			 "of board '%s' or of the scenario", name,
			 vc->test && vc->test->name ? vc->test->name : "?",
			 vc->board ? vc->board->name : "?");
		return -1;
	}
	*val = v->value;
	return 1;
}

int vars_lookup(void *ctx, const char *ns, const char *field, const struct board *b,
		const char **val, char *err, size_t errlen)
{
	const struct vars_ctx *vc = ctx;
	if (strcmp(ns, "vars") == 0)
		return lookup_var(vc, field, val, err, errlen);
	if (strcmp(ns, "env") == 0) {
		*val = getenv(field);
		if (*val)
			return 1;
		snprintf(err, errlen, "{env.%s}: %s is not set in orch's environment", field, field);
		return -1;
	}
	if (!b)
		return 0;
	for (size_t i = 0; board_fields[i]; i++)
		if (strcmp(board_fields[i], field) == 0)
			return 0;
	const struct var *v = find(b->vars, b->n_vars, field, -1);
	if (!v)
		return 0;
	*val = v->value;
	return 1;
}

static void put_export(struct strbuf *sb, const struct var *v)
{
	strbuf_puts(sb, "export ");
	strbuf_puts(sb, v->name);
	strbuf_putc(sb, '=');
	strbuf_shquote(sb, v->value);
	strbuf_puts(sb, "; ");
}

char *vars_env_prefix(const struct var *a, size_t n_a, const struct var *b, size_t n_b,
		      const char *command)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n_a; i++)
		put_export(&sb, &a[i]);
	for (size_t i = 0; i < n_b; i++)
		put_export(&sb, &b[i]);
	strbuf_puts(&sb, command);
	return strbuf_detach(&sb);
}
