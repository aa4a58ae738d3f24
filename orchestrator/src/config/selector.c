#include "config/selector.h"
#include "config/cfg_read.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names, with the glob characters * ? [ ] allowed. */
static bool name_chars_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("._-*?[]", *s)))
			return false;
	return true;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool name_matches(const char *pat, const char *name)
{
	return is_glob(pat) ? fnmatch(pat, name, 0) == 0 : strcmp(pat, name) == 0;
}

/* A comma list "a,b" as separate selectors (commas inside a node set's
 * brackets, "b[1,3]", stay); caller frees with cfg_strv_free. */
static char **split_list(const char *const *in, size_t n, size_t *n_out)
{
	char **out = NULL;
	*n_out = 0;
	for (size_t i = 0; in && i < n; i++) {
		size_t np;
		char **parts = nodeset_split_list(in[i], &np);
		out = xrealloc(out, (*n_out + np + 1) * sizeof(*out));
		for (size_t j = 0; j < np; j++)
			out[(*n_out)++] = parts[j];
		free(parts);   /* the strings moved to out */
	}
	return out;
}

/* Whether the node set s names board b, or a group of b's. */
static bool nodeset_names(const char *s, const struct board *b)
{
	char **names;
	size_t n;
	char err[128];
	if (nodeset_expand(s, &names, &n, err, sizeof(err)) < 0)
		return false;
	bool found = false;
	for (size_t i = 0; i < n && !found; i++) {
		found = strcmp(names[i], b->name) == 0;
		for (size_t g = 0; g < b->n_groups && !found; g++)
			found = strcmp(names[i], b->groups[g]) == 0;
	}
	nodeset_names_free(names);
	return found;
}

/* A node set is well formed when it expands to names a selector may hold. */
static bool nodeset_well_formed(const char *s, char *err, size_t errlen)
{
	char **names;
	size_t n;
	if (nodeset_expand(s, &names, &n, err, errlen) < 0)
		return false;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		if (!(ok = name_chars_ok(names[i]) && !is_glob(names[i])))
			snprintf(err, errlen, "'%s' in node set '%s' is not a board or group name",
				 names[i], s);
	nodeset_names_free(names);
	return ok;
}

static bool one_well_formed(const char *sel, char *err, size_t errlen);

bool selector_well_formed(const char *sel, char *err, size_t errlen)
{
	if (!sel || !strchr(sel, ','))
		return one_well_formed(sel, err, errlen);
	size_t n;
	char **parts = split_list(&sel, 1, &n);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		ok = one_well_formed(parts[i], err, errlen);
	cfg_strv_free(parts, n);
	return ok;
}

static bool one_well_formed(const char *sel, char *err, size_t errlen)
{
	if (!sel || !*sel) {
		snprintf(err, errlen, "empty selector");
		return false;
	}
	const char *s = sel[0] == '!' ? sel + 1 : sel;
	if (!*s) {
		snprintf(err, errlen, "nothing after '!'");
		return false;
	}
	if (strcmp(s, "all") == 0) {
		if (s != sel) {
			snprintf(err, errlen, "'!all' excludes every board");
			return false;
		}
		return true;
	}
	if (nodeset_is_pattern(s))
		return nodeset_well_formed(s, err, errlen);
	if (strncmp(s, "tag:", 4) == 0 || strncmp(s, "group:", 6) == 0) {
		bool tag = s[0] == 't';
		if (!name_chars_ok(s + (tag ? 4 : 6))) {
			snprintf(err, errlen, "expected %s:NAME with letters, digits, '.', '_', '-'",
				 tag ? "tag" : "group");
			return false;
		}
		return true;
	}
	if (!name_chars_ok(s)) {
		snprintf(err, errlen, "expected a board or group name or glob, tag:NAME, "
			 "group:NAME or all, with '!' to exclude, several joined by ','");
		return false;
	}
	return true;
}

static bool board_has_tag(const struct board *b, const char *tag)
{
	for (size_t i = 0; i < b->n_tags; i++)
		if (name_matches(tag, b->tags[i]))
			return true;
	return false;
}

static bool board_in_group(const struct board *b, const char *group)
{
	for (size_t i = 0; i < b->n_groups; i++)
		if (name_matches(group, b->groups[i]))
			return true;
	return false;
}

/* Whether the positive part of sel (no '!') selects board b: a plain
 * name is a board's or a group's (no group has a board's name). */
static bool matches(const char *s, const struct board *b)
{
	if (strcmp(s, "all") == 0)
		return true;
	if (strncmp(s, "tag:", 4) == 0)
		return board_has_tag(b, s + 4);
	if (strncmp(s, "group:", 6) == 0)
		return board_in_group(b, s + 6);
	if (nodeset_is_pattern(s))
		return nodeset_names(s, b);
	return name_matches(s, b->name) || board_in_group(b, s);
}

static bool group_exists(const struct inventory *inv, const char *pat)
{
	for (size_t i = 0; i < inv->n_groups; i++)
		if (name_matches(pat, inv->groups[i]))
			return true;
	return false;
}

/* "no group named 'X'" with the closest group name. */
static bool unknown_group(const struct inventory *inv, const char *g, char *err, size_t errlen)
{
	const char **names = xcalloc(inv->n_groups + 1, sizeof(char *));
	for (size_t i = 0; i < inv->n_groups; i++)
		names[i] = inv->groups[i];
	const char *sug = cfg_suggest(g, names);
	snprintf(err, errlen, "no group named '%s' in the inventory%s%s%s", g,
		 sug ? " (did you mean 'group:" : "", sug ? sug : "", sug ? "'?)" : "");
	free(names);
	return false;
}

static bool one_valid(const struct inventory *inv, const char *sel, char *err, size_t errlen);

bool selector_valid(const struct inventory *inv, const char *sel, char *err, size_t errlen)
{
	if (!sel || !strchr(sel, ','))
		return one_valid(inv, sel, err, errlen);
	size_t n;
	char **parts = split_list(&sel, 1, &n);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		ok = one_valid(inv, parts[i], err, errlen);
	cfg_strv_free(parts, n);
	return ok;
}

static bool one_valid(const struct inventory *inv, const char *sel, char *err, size_t errlen)
{
	if (!selector_well_formed(sel, err, errlen))
		return false;
	const char *s = sel[0] == '!' ? sel + 1 : sel;
	if (strcmp(s, "all") == 0)
		return true;
	for (size_t i = 0; i < inv->n_boards; i++)
		if (matches(s, &inv->boards[i]))
			return true;
	if (strncmp(s, "group:", 6) == 0)   /* a group with no board selects none */
		return group_exists(inv, s + 6) || unknown_group(inv, s + 6, err, errlen);
	if (group_exists(inv, s))
		return true;
	if (nodeset_is_pattern(s)) {
		snprintf(err, errlen, "node set '%s' names no board of the inventory", s);
		return false;
	}
	bool tag = strncmp(s, "tag:", 4) == 0;
	if (is_glob(tag ? s + 4 : s)) {
		snprintf(err, errlen, "no board %s '%s'", tag ? "has a tag matching" : "matches",
			 tag ? s + 4 : s);
		return false;
	}
	const char **names = xcalloc(tag ? 1 : inv->n_boards + inv->n_groups + 1, sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; !tag && i < inv->n_boards; i++)
		names[n++] = inv->boards[i].name;
	for (size_t i = 0; !tag && i < inv->n_groups; i++)
		names[n++] = inv->groups[i];
	const char *sug = NULL;
	if (tag) {
		for (size_t i = 0; i < inv->n_boards && !sug; i++) {
			const struct board *b = &inv->boards[i];
			const char **tags = xcalloc(b->n_tags + 1, sizeof(char *));
			for (size_t j = 0; j < b->n_tags; j++)
				tags[j] = b->tags[j];
			sug = cfg_suggest(s + 4, tags);
			free(tags);
		}
	} else {
		sug = cfg_suggest(s, names);
	}
	if (tag && sug)
		snprintf(err, errlen, "no board has tag '%s' (did you mean 'tag:%s'?)", s + 4, sug);
	else if (tag)
		snprintf(err, errlen, "no board has tag '%s'", s + 4);
	else if (sug)
		snprintf(err, errlen, "no board named '%s' in the inventory (did you mean '%s'?)", s, sug);
	else
		snprintf(err, errlen, "no board named '%s' in the inventory", s);
	free(names);
	return false;
}

/* Union of the positive selectors (every board when there is none) minus the exclusions. */
static bool selects(const char *const *sels, size_t n, const struct board *b)
{
	bool any_positive = false, in = false;
	for (size_t j = 0; j < n; j++) {
		if (sels[j][0] == '!')
			continue;
		any_positive = true;
		if (matches(sels[j], b))
			in = true;
	}
	if (!any_positive)
		in = true;
	for (size_t j = 0; j < n && in; j++)
		if (sels[j][0] == '!' && matches(sels[j] + 1, b))
			in = false;
	return in;
}

int selector_resolve(const struct inventory *inv,
		     const char *const *sels_in, size_t n_sels_in,
		     const char *const *limits_in, size_t n_limits_in,
		     bool *selected, char *err, size_t errlen)
{
	size_t n_sels, n_limits;
	char **sels = split_list(sels_in, n_sels_in, &n_sels);
	char **limits = split_list(limits_in, n_limits_in, &n_limits);
	int ret = -1;
	for (size_t j = 0; j < n_sels; j++)
		if (!selector_valid(inv, sels[j], err, errlen))
			goto out;
	for (size_t j = 0; j < n_limits; j++)
		if (!selector_valid(inv, limits[j], err, errlen))
			goto out;
	for (size_t i = 0; i < inv->n_boards; i++) {
		const struct board *b = &inv->boards[i];
		selected[i] = selects((const char *const *)sels, n_sels, b) &&
			      (n_limits == 0 || selects((const char *const *)limits, n_limits, b));
	}
	ret = 0;
out:
	cfg_strv_free(sels, n_sels);
	cfg_strv_free(limits, n_limits);
	return ret;
}

const char *selector_suggest(const char *word, const char *const *candidates)
{
	return cfg_suggest(word, candidates);
}
