#include "config/substitute.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Length of a WORD at s (0 if none). */
static size_t word_len(const char *s)
{
	size_t n = 0;
	while (word_char(s[n]))
		n++;
	return n;
}

/* Length of a `{WORD.WORD}` or `{env.WORD|DEFAULT}` at p (0 if none); *n1,
 * *n2: the words' lengths; *nd: the default's length, -1 when none. */
static size_t ref_len(const char *p, size_t *n1, size_t *n2, long *nd)
{
	*nd = -1;
	*n1 = p[0] == '{' ? word_len(p + 1) : 0;
	*n2 = *n1 && p[1 + *n1] == '.' ? word_len(p + 2 + *n1) : 0;
	if (!*n2)
		return 0;
	const char *end = p + 2 + *n1 + *n2;
	if (*end == '|' && *n1 == 3 && strncmp(p + 1, "env", 3) == 0) {
		size_t d = strcspn(end + 1, "{}\n");
		if (end[1 + d] != '}')
			return 0;
		*nd = (long)d;
		return *n1 + *n2 + 4 + d;
	}
	if (*end != '}')
		return 0;
	return *n1 + *n2 + 3;
}

char *subst_var_name(const char *ns, const char *field)
{
	char *name = xasprintf("ORCH_%s_%s", ns, field);
	for (char *c = name + 5; *c; c++) {
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
		else if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	}
	return name;
}

static int board_field(const struct board *b, const char *field, const struct subst_env *env,
		       const char *ref, char num[16], const char **val, char *err, size_t errlen)
{
	*val = NULL;
	if (!strcmp(field, "name")) {
		*val = b->name;
	} else if (!strcmp(field, "host")) {
		if (env->host_fn)
			*val = env->host_fn(env->host_ctx, b);
		if (!*val)
			*val = b->ssh.host ? b->ssh.host : b->local ? "localhost" : b->name;
	} else if (!strcmp(field, "port")) {
		snprintf(num, 16, "%d", b->ssh.port > 0 ? b->ssh.port : 22);
		*val = num;
	} else if (!strcmp(field, "user")) {
		*val = b->ssh.user ? b->ssh.user : "";
	} else if (!strcmp(field, "workdir")) {
		*val = b->workdir ? b->workdir : "";
	} else if (!strcmp(field, "arch")) {
		*val = b->arch;
		if (*val)
			return 0;
		char aerr[256] = "";
		if (!env->arch_fn) {
			snprintf(err, errlen, "%s: arch of %s is unknown (set arch: in the inventory)",
				 ref, b->name);
			return -1;
		}
		if (env->arch_fn(env->arch_ctx, b, val, aerr, sizeof(aerr)) < 0 || !*val) {
			snprintf(err, errlen, "%s: cannot tell the arch of %s: %s", ref, b->name, aerr);
			return -1;
		}
	} else {
		snprintf(err, errlen,
			 "unknown field '%s' in %s (known: name, host, port, user, arch, workdir)",
			 field, ref);
		return -1;
	}
	return 0;
}

/* The board ns stands for: 1 (*b set), 0 when ns is no role, -1 on error. */
static int ns_board(const struct subst_env *env, const char *ns, const char *ref,
		    const struct board **b, char *err, size_t errlen)
{
	*b = NULL;
	if (!strcmp(ns, "board")) {
		*b = env->board;
		if (*b)
			return 1;
		snprintf(err, errlen, "%s: no board here", ref);
		return -1;
	}
	for (size_t i = 0; i < env->n_roles; i++) {
		const struct subst_role *r = &env->roles[i];
		if (strcmp(r->name, ns) != 0)
			continue;
		if (r->n_boards == 1) {
			*b = r->boards[0];
			return 1;
		}
		if (r->n_boards == 0)
			snprintf(err, errlen, "%s: role '%s' has no board", ref, ns);
		else
			snprintf(err, errlen, "%s: role '%s' has %zu boards, so its fields are "
				 "ambiguous here", ref, ns, r->n_boards);
		return -1;
	}
	return 0;
}

static void unknown_ns(const struct subst_env *env, const char *ns, const char *ref, char *err,
		       size_t errlen)
{
	struct strbuf known = STRBUF_INIT;
	for (size_t i = 0; i < env->n_roles; i++)
		strbuf_printf(&known, ", %s", env->roles[i].name);
	snprintf(err, errlen, "unknown role '%s' in %s (known: board%s)", ns, ref,
		 strbuf_str(&known));
	strbuf_release(&known);
}

/* The value of {ns.field} (ref), borrowed until the next call; NULL with err. */
static const char *ref_value(const struct subst_env *env, const char *ns, const char *field,
			     const char *ref, char num[16], char *err, size_t errlen)
{
	const struct board *b;
	int found = ns_board(env, ns, ref, &b, err, errlen);
	if (found < 0)
		return NULL;
	const char *val = NULL;
	if (env->lookup) {
		int rc = env->lookup(env->lookup_ctx, ns, field, b, &val, err, errlen);
		if (rc < 0)
			return NULL;
		if (rc > 0) {
			if (!val)
				snprintf(err, errlen, "%s has no value", ref);
			return val;
		}
	}
	if (!found) {
		unknown_ns(env, ns, ref, err, errlen);
		return NULL;
	}
	return board_field(b, field, env, ref, num, &val, err, errlen) < 0 ? NULL : val;
}

/* Records name (taken) = value; its index, or -1 when name already holds
 * another value. */
static int vars_add(struct subst_vars *s, char *name, const char *value, const char *ref,
		    char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->names[i], name) != 0)
			continue;
		if (strcmp(s->values[i], value) != 0) {
			snprintf(err, errlen, "%s and another reference would both be %s", ref,
				 name);
			free(name);
			return -1;
		}
		free(name);
		return (int)i;
	}
	s->names = xrealloc(s->names, (s->n + 1) * sizeof(*s->names));
	s->values = xrealloc(s->values, (s->n + 1) * sizeof(*s->values));
	s->names[s->n] = name;
	s->values[s->n] = xstrdup(value);
	return (int)s->n++;
}

/* ---- where in the shell's quoting a substitution stands ---- */

enum quote_ctx { Q_PLAIN, Q_PAREN, Q_BACKTICK, Q_DOUBLE, Q_SINGLE };

#define QUOTE_DEPTH 64

struct quote_scan {
	enum quote_ctx stack[QUOTE_DEPTH];
	int depth;
	int overflow;                  /* pushes beyond QUOTE_DEPTH, still to pop */
};

static enum quote_ctx qs_top(const struct quote_scan *q)
{
	return q->depth ? q->stack[q->depth - 1] : Q_PLAIN;
}

static void qs_push(struct quote_scan *q, enum quote_ctx c)
{
	if (q->depth < QUOTE_DEPTH && !q->overflow)
		q->stack[q->depth++] = c;
	else
		q->overflow++;
}

static void qs_pop(struct quote_scan *q)
{
	if (q->overflow)
		q->overflow--;
	else if (q->depth)
		q->depth--;
}

static bool starts_word(const char *text, const char *p)
{
	return p == text || strchr(" \t\n;&|()", p[-1]);
}

/* How many bytes at p are plain text for the scanner, updating its state. */
static size_t qs_step(struct quote_scan *q, const char *text, const char *p)
{
	enum quote_ctx c = qs_top(q);
	if (c == Q_SINGLE) {
		if (*p == '\'')
			qs_pop(q);
		return 1;
	}
	if (*p == '\\' && p[1])
		return 2;
	if (*p == '$' && p[1] == '(') {
		qs_push(q, Q_PAREN);
		return 2;
	}
	if (*p == '`') {
		if (c == Q_BACKTICK)
			qs_pop(q);
		else
			qs_push(q, Q_BACKTICK);
		return 1;
	}
	if (c == Q_DOUBLE) {
		if (*p == '"')
			qs_pop(q);
		return 1;
	}
	if (*p == '\'')
		qs_push(q, Q_SINGLE);
	else if (*p == '"')
		qs_push(q, Q_DOUBLE);
	else if (*p == '(')
		qs_push(q, Q_PAREN);
	else if (*p == ')' && c == Q_PAREN)
		qs_pop(q);
	else if (*p == '#' && starts_word(text, p))
		return strcspn(p, "\n");   /* a comment: nothing in it is quoting */
	return 1;
}

static void put_reference(struct strbuf *out, enum quote_ctx c, const char *name)
{
	if (c == Q_DOUBLE)
		strbuf_printf(out, "${%s}", name);
	else if (c == Q_SINGLE)
		strbuf_printf(out, "'\"${%s}\"'", name);
	else
		strbuf_printf(out, "\"${%s}\"", name);
}

static int subst_one(struct subst_vars *s, struct strbuf *body, const char *p, size_t n1,
		     size_t n2, long nd, enum quote_ctx c, const struct subst_env *env, char *err,
		     size_t errlen)
{
	char *ref = xstrndup(p, n1 + n2 + 3);
	char *ns = xstrndup(p + 1, n1);
	char *field = xstrndup(p + 2 + n1, n2);
	char *dflt = nd >= 0 ? xstrndup(p + 3 + n1 + n2, (size_t)nd) : NULL;
	char num[16];
	int rc = -1;
	const char *val = dflt && !getenv(field) ? dflt
			: ref_value(env, ns, field, ref, num, err, errlen);
	if (val) {
		char *name = subst_var_name(ns, field);
		int i = vars_add(s, name, val, ref, err, errlen);
		if (i >= 0)
			put_reference(body, c, s->names[i]);
		rc = i < 0 ? -1 : 0;
	}
	free(ref);
	free(ns);
	free(field);
	free(dflt);
	return rc;
}

int subst_append(struct subst_vars *s, struct strbuf *body, const char *text,
		 const struct subst_env *env, char *err, size_t errlen)
{
	struct quote_scan q = { .depth = 0 };
	const char *p = text;
	while (*p) {
		if (p[0] == '{' && p[1] == '{') {
			strbuf_putc(body, '{');
			p += 2;
			continue;
		}
		size_t n1, n2;
		long nd;
		size_t len = ref_len(p, &n1, &n2, &nd);
		if (len) {
			if (subst_one(s, body, p, n1, n2, nd, qs_top(&q), env, err, errlen) < 0)
				return -1;
			p += len;
			continue;
		}
		size_t n = qs_step(&q, text, p);
		strbuf_append(body, p, n);
		p += n;
	}
	return 0;
}

void subst_vars_release(struct subst_vars *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->names[i]);
		free(s->values[i]);
	}
	free(s->names);
	free(s->values);
	s->names = s->values = NULL;
	s->n = 0;
}

char *subst_finish(struct subst_vars *s, const char *body)
{
	struct strbuf out = STRBUF_INIT;
	for (size_t i = 0; i < s->n; i++) {
		strbuf_printf(&out, "export %s=", s->names[i]);
		strbuf_shquote(&out, s->values[i]);
		strbuf_puts(&out, "; ");
	}
	strbuf_puts(&out, body);
	subst_vars_release(s);
	return strbuf_detach(&out);
}

char *substitute(const char *command, const struct subst_env *env, char *err, size_t errlen)
{
	struct subst_vars s = SUBST_VARS_INIT;
	struct strbuf body = STRBUF_INIT;
	char *ret = NULL;
	if (subst_append(&s, &body, command, env, err, errlen) == 0)
		ret = subst_finish(&s, strbuf_str(&body));
	subst_vars_release(&s);
	strbuf_release(&body);
	return ret;
}
