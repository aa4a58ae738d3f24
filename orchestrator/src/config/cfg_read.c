#include "config/cfg_read.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cfg_error(struct cfg *c, const struct ynode *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_add(c->diags, at && at->file ? at->file : c->file, at ? at->line : 0, at ? at->col : 0,
		 "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Files in the order their first error came, then line:col. */
static bool diag_before(const struct diag *a, const struct diag *b)
{
	int f = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (f != 0)
		return false;
	return a->line < b->line || (a->line == b->line && a->col < b->col);
}

void cfg_sort_errors(struct cfg *c)
{
	struct diag *d = c->diags->items;
	size_t n = c->diags->n;
	/* insertion sort: stable, and lists are short; a flood stays in file order */
	if (n - c->n_start > 2000)
		return;
	for (size_t i = c->n_start + 1; i < n; i++) {
		struct diag cur = d[i];
		size_t j = i;
		while (j > c->n_start && diag_before(&cur, &d[j - 1])) {
			d[j] = d[j - 1];
			j--;
		}
		d[j] = cur;
	}
}

bool cfg_failed(const struct cfg *c)
{
	return c->diags->n > c->n_start;
}

struct src_pos cfg_pos(const struct cfg *c, const struct ynode *n)
{
	struct src_pos p = { n && n->file ? n->file : c->file, n ? n->line : 0, n ? n->col : 0 };
	return p;
}

const char *cfg_found(const struct ynode *n, char *buf, size_t len)
{
	if (!n || ynode_is_null(n)) {
		snprintf(buf, len, "nothing");
	} else if (n->kind == YNODE_SEQ) {
		snprintf(buf, len, "a list");
	} else if (n->kind == YNODE_MAP) {
		snprintf(buf, len, "a mapping");
	} else {
		struct strbuf sb = STRBUF_INIT;
		strbuf_putc(&sb, '\'');
		size_t i;
		for (i = 0; n->value[i] && i < 60; i++) {
			unsigned char ch = (unsigned char)n->value[i];
			if (ch == '\n')
				strbuf_puts(&sb, "\\n");
			else if (ch < 0x20 || ch == 0x7f)
				strbuf_printf(&sb, "\\x%02x", ch);
			else
				strbuf_putc(&sb, (char)ch);
		}
		if (n->value[i])
			strbuf_puts(&sb, "...");
		strbuf_putc(&sb, '\'');
		snprintf(buf, len, "%s", strbuf_str(&sb));
		strbuf_release(&sb);
	}
	return buf;
}

/* True if n is of kind; else reports "WHAT must be NOUN, found ..." and returns false. */
static bool want_kind(struct cfg *c, const struct ynode *n, enum ynode_kind kind, const char *what,
		      const char *noun)
{
	char f[96];
	if (n && n->kind == kind)
		return true;
	cfg_error(c, n, "%s must be %s, found %s", what, noun, cfg_found(n, f, sizeof(f)));
	return false;
}

bool cfg_want_map(struct cfg *c, const struct ynode *n, const char *what)
{
	return want_kind(c, n, YNODE_MAP, what, "a mapping");
}

bool cfg_want_seq(struct cfg *c, const struct ynode *n, const char *what)
{
	return want_kind(c, n, YNODE_SEQ, what, "a list");
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *cfg_suggest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = 3;
	size_t len = strlen(word);
	for (size_t i = 0; candidates && candidates[i]; i++) {
		size_t d = edit_distance(word, candidates[i]);
		size_t limit = len <= 3 ? 1 : 2;
		if (d <= limit && d < best_d) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}

void cfg_check_keys(struct cfg *c, const struct ynode *map, const char *const *known,
		    const char *where)
{
	if (!map || map->kind != YNODE_MAP)
		return;
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->pairs[i].key;
		bool ok = strncmp(k->value, "x-", 2) == 0;   /* a place for anchors */
		for (size_t j = 0; known[j]; j++)
			if (strcmp(known[j], k->value) == 0)
				ok = true;
		if (ok)
			continue;
		const char *s = cfg_suggest(k->value, known);
		char f[96];
		cfg_found(k, f, sizeof(f));
		if (s)
			cfg_error(c, k, "unknown key %s in %s (did you mean '%s'?)", f, where, s);
		else
			cfg_error(c, k, "unknown key %s in %s", f, where);
	}
}

/* The scalar text of n, or NULL after reporting "expected WHAT for 'key'". */
static const char *scalar(struct cfg *c, const struct ynode *n, const char *key, const char *what)
{
	char f[96];
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n))
		return n->value;
	cfg_error(c, n, "expected %s for '%s', found %s", what, key, cfg_found(n, f, sizeof(f)));
	return NULL;
}

int cfg_str(struct cfg *c, const struct ynode *n, const char *key, char **out)
{
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a string");
	if (!s)
		return -1;
	free(*out);
	*out = xstrdup(s);
	return 1;
}

int cfg_int(struct cfg *c, const struct ynode *n, const char *key, long min, long max, int *out)
{
	char f[96];
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a number");
	if (!s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || !isdigit((unsigned char)s[*s == '-' || *s == '+'])) {
		cfg_error(c, n, "invalid number for '%s', found %s (use %ld..%ld)", key,
			  cfg_found(n, f, sizeof(f)), min, max);
		return -1;
	}
	if (v < min || v > max) {
		cfg_error(c, n, "'%s' out of range, found %s (use %ld..%ld)", key,
			  cfg_found(n, f, sizeof(f)), min, max);
		return -1;
	}
	*out = (int)v;
	return 1;
}

int cfg_bool(struct cfg *c, const struct ynode *n, const char *key, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", NULL };
	char f[96];
	if (!n)
		return 0;
	if (n->kind == YNODE_SCALAR && n->plain) {
		for (size_t i = 0; yes[i]; i++)
			if (strcmp(n->value, yes[i]) == 0) {
				*out = true;
				return 1;
			}
		for (size_t i = 0; no[i]; i++)
			if (strcmp(n->value, no[i]) == 0) {
				*out = false;
				return 1;
			}
	}
	cfg_error(c, n, "expected true or false for '%s', found %s", key, cfg_found(n, f, sizeof(f)));
	return -1;
}

int cfg_number(struct cfg *c, const struct ynode *n, const char *key, double *out)
{
	char f[96];
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a number");
	if (!s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) ||
	    !(isdigit((unsigned char)*s) || *s == '-' || *s == '.')) {
		cfg_error(c, n, "invalid number for '%s', found %s", key, cfg_found(n, f, sizeof(f)));
		return -1;
	}
	*out = v;
	return 1;
}

int cfg_duration(struct cfg *c, const struct ynode *n, const char *key, int64_t *ms)
{
	char f[96];
	int64_t v;
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a duration");
	if (!s)
		return -1;
	if (units_parse_duration_ms(s, &v) < 0 || v <= 0) {
		cfg_error(c, n, "invalid duration for '%s', found %s (use 30s, 5m, 1h)", key,
			  cfg_found(n, f, sizeof(f)));
		return -1;
	}
	*ms = v;
	return 1;
}

int cfg_size(struct cfg *c, const struct ynode *n, const char *key, uint64_t *bytes)
{
	char f[96];
	uint64_t v;
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a size");
	if (!s)
		return -1;
	if (units_parse_size(s, &v) < 0 || v == 0) {
		cfg_error(c, n, "invalid size for '%s', found %s (use 64MiB, 1GiB, 500kB)", key,
			  cfg_found(n, f, sizeof(f)));
		return -1;
	}
	*bytes = v;
	return 1;
}

int cfg_enum(struct cfg *c, const struct ynode *n, const char *key, const char *const *names,
	     int *out)
{
	char f[96];
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a word");
	if (!s)
		return -1;
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0) {
			*out = i;
			return 1;
		}
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; names[i]; i++) {
		if (i > 0)
			strbuf_puts(&sb, names[i + 1] ? ", " : " or ");
		strbuf_puts(&sb, names[i]);
	}
	cfg_error(c, n, "invalid value for '%s', found %s (use %s)", key, cfg_found(n, f, sizeof(f)),
		  strbuf_str(&sb));
	strbuf_release(&sb);
	return -1;
}

void cfg_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Replaces *out (and *pos if given) with copies of the count scalars in items. */
static void str_list_set(struct cfg *c, const struct ynode *const *items, size_t count, char ***out,
			 size_t *n_out, struct src_pos **pos)
{
	cfg_strv_free(*out, *n_out);
	*out = xcalloc(count ? count : 1, sizeof(char *));
	for (size_t i = 0; i < count; i++)
		(*out)[i] = xstrdup(items[i]->value);
	*n_out = count;
	if (pos) {
		free(*pos);
		*pos = xcalloc(count ? count : 1, sizeof(**pos));
		for (size_t i = 0; i < count; i++)
			(*pos)[i] = cfg_pos(c, items[i]);
	}
}

int cfg_str_list(struct cfg *c, const struct ynode *n, const char *key, char ***out, size_t *n_out,
		 struct src_pos **pos)
{
	char f[96];
	if (!n)
		return 0;
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n)) {
		str_list_set(c, &n, 1, out, n_out, pos);
		return 1;
	}
	if (n->kind != YNODE_SEQ) {
		cfg_error(c, n, "expected a list for '%s', found %s", key, cfg_found(n, f, sizeof(f)));
		return -1;
	}
	bool bad = false;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *it = n->items[i];
		if (it->kind != YNODE_SCALAR || ynode_is_null(it)) {
			cfg_error(c, it, "expected a string in '%s', found %s", key,
				  cfg_found(it, f, sizeof(f)));
			bad = true;
		}
	}
	if (bad)
		return -1;
	str_list_set(c, (const struct ynode *const *)n->items, n->n, out, n_out, pos);
	return 1;
}

int cfg_regex(struct cfg *c, const struct ynode *n, const char *key, char **src,
	      struct orch_regex *rx)
{
	char f[96];
	char err[160];
	if (!n)
		return 0;
	const char *s = scalar(c, n, key, "a regular expression");
	if (!s)
		return -1;
	if (orch_regex_compile(rx, s, err, sizeof(err)) < 0) {
		/* the caret at the offset PCRE2 names, where the source is the
		 * value as written: one line, no escapes (plain, or quoted once) */
		struct ynode at = *n;
		const char *o = strstr(err, " at offset ");
		size_t off = o ? strtoul(o + 11, NULL, 10) : 0;
		bool verbatim = !strchr(s, '\n') && off <= strlen(s) &&
				(n->plain || (n->single_quoted && !strchr(s, '\'')) ||
				 (!n->single_quoted && !strpbrk(s, "\\\"")));
		if (o && verbatim)
			at.col = n->col + (int)off + (n->plain ? 0 : 1);
		cfg_error(c, &at, "invalid regex for '%s', found %s: %s", key,
			  cfg_found(n, f, sizeof(f)), err);
		return -1;
	}
	free(*src);
	*src = xstrdup(s);
	return 1;
}

bool cfg_safe_name(const char *s)
{
	if (!s || !*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

static bool var_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static void var_set(struct var **out, size_t *n_out, const char *name, const char *value,
		    bool test_level, struct src_pos pos)
{
	for (size_t i = 0; i < *n_out; i++) {
		if (strcmp((*out)[i].name, name) == 0) {
			free((*out)[i].value);
			(*out)[i].value = xstrdup(value);
			(*out)[i].test_level = test_level;
			(*out)[i].pos = pos;
			return;
		}
	}
	*out = xrealloc(*out, (*n_out + 1) * sizeof(**out));
	(*out)[(*n_out)++] = (struct var){ xstrdup(name), xstrdup(value), test_level, pos };
}

/* A var of v named like name but for case, or NULL. */
static const char *var_case_twin(const struct var *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(v[i].name, name) == 0 && strcmp(v[i].name, name) != 0)
			return v[i].name;
	return NULL;
}

int cfg_vars(struct cfg *c, const struct ynode *n, const char *key, bool test_level,
	     struct var **out, size_t *n_out)
{
	char f[96], what[32];
	const char *other;
	if (!n || ynode_is_null(n))
		return 0;
	snprintf(what, sizeof(what), "'%s'", key);
	if (!cfg_want_map(c, n, what))
		return -1;
	int ret = 1;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->pairs[i].key, *v = n->pairs[i].value;
		if (!var_name_ok(k->value)) {
			cfg_error(c, k, "invalid name in '%s', found %s (use letters, digits and '_', "
				  "not starting with a digit)", key, cfg_found(k, f, sizeof(f)));
			ret = -1;
		} else if (v->kind != YNODE_SCALAR) {
			cfg_error(c, v, "'%s.%s' must be a plain value, found %s", key, k->value,
				  cfg_found(v, f, sizeof(f)));
			ret = -1;
		} else if ((other = var_case_twin(*out, *n_out, k->value)) != NULL) {
			/* commands see {vars.X} as $ORCH_VARS_X (upper case) */
			cfg_error(c, k, "'%s.%s' and '%s.%s' differ only in case; both would reach "
				  "commands as the same ORCH_VARS_ variable", key, other, key,
				  k->value);
			ret = -1;
		} else {
			var_set(out, n_out, k->value, ynode_is_null(v) ? "" : v->value, test_level,
				cfg_pos(c, k));
		}
	}
	return ret;
}

void cfg_vars_copy(struct var **out, size_t *n_out, const struct var *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		var_set(out, n_out, src[i].name, src[i].value, src[i].test_level, src[i].pos);
}

void cfg_vars_free(struct var *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

const struct var *cfg_var_find(const struct var *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}
