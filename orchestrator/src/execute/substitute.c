#include "execute/substitute.h"
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

static int field_value(const struct board *b, const char *field, const struct subst_env *env,
		       struct strbuf *out, const char *ref, char *err, size_t errlen)
{
	char num[16];
	const char *val = NULL;
	if (!strcmp(field, "name")) {
		val = b->name;
	} else if (!strcmp(field, "host")) {
		val = b->ssh.host ? b->ssh.host : b->local ? "localhost" : b->name;
	} else if (!strcmp(field, "port")) {
		snprintf(num, sizeof(num), "%d", b->ssh.port > 0 ? b->ssh.port : 22);
		val = num;
	} else if (!strcmp(field, "user")) {
		val = b->ssh.user ? b->ssh.user : "";
	} else if (!strcmp(field, "workdir")) {
		val = b->workdir ? b->workdir : "";
	} else if (!strcmp(field, "arch")) {
		val = b->arch;
		if (!val) {
			char aerr[256] = "";
			if (!env->arch_fn) {
				snprintf(err, errlen, "%s: arch of %s is unknown (set arch: in the inventory)",
					 ref, b->name);
				return -1;
			}
			if (env->arch_fn(env->arch_ctx, b, &val, aerr, sizeof(aerr)) < 0 || !val) {
				snprintf(err, errlen, "%s: cannot tell the arch of %s: %s", ref, b->name,
					 aerr);
				return -1;
			}
		}
	} else {
		snprintf(err, errlen,
			 "unknown field '%s' in %s (known: name, host, port, user, arch, workdir)",
			 field, ref);
		return -1;
	}
	strbuf_shquote(out, val);
	return 0;
}

static const struct board *role_board(const struct subst_env *env, const char *role,
				      const char *ref, char *err, size_t errlen)
{
	for (size_t i = 0; i < env->n_roles; i++) {
		const struct subst_role *r = &env->roles[i];
		if (strcmp(r->name, role) != 0)
			continue;
		if (r->n_boards == 1)
			return r->boards[0];
		if (r->n_boards == 0)
			snprintf(err, errlen, "%s: role '%s' has no board", ref, role);
		else
			snprintf(err, errlen, "%s: role '%s' has %zu boards, so its fields are "
				 "ambiguous here", ref, role, r->n_boards);
		return NULL;
	}
	struct strbuf known = STRBUF_INIT;
	for (size_t i = 0; i < env->n_roles; i++)
		strbuf_printf(&known, ", %s", env->roles[i].name);
	snprintf(err, errlen, "unknown role '%s' in %s (known: board%s)", role, ref,
		 strbuf_str(&known));
	strbuf_release(&known);
	return NULL;
}

char *substitute(const char *command, const struct subst_env *env, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = command;
	while (*p) {
		if (p[0] == '{' && p[1] == '{') {
			strbuf_putc(&out, '{');
			p += 2;
			continue;
		}
		size_t n1 = p[0] == '{' ? word_len(p + 1) : 0;
		size_t n2 = n1 && p[1 + n1] == '.' ? word_len(p + 2 + n1) : 0;
		if (!n2 || p[2 + n1 + n2] != '}') {
			strbuf_putc(&out, *p++);
			continue;
		}
		size_t reflen = n1 + n2 + 3;
		char *ref = xstrndup(p, reflen);
		char *role = xstrndup(p + 1, n1);
		char *field = xstrndup(p + 2 + n1, n2);
		const struct board *b;
		if (!strcmp(role, "board")) {
			b = env->board;
			if (!b)
				snprintf(err, errlen, "%s: no board here", ref);
		} else {
			b = role_board(env, role, ref, err, errlen);
		}
		int rc = b ? field_value(b, field, env, &out, ref, err, errlen) : -1;
		free(ref);
		free(role);
		free(field);
		if (rc < 0) {
			strbuf_release(&out);
			return NULL;
		}
		p += reflen;
	}
	return strbuf_detach(&out);
}
