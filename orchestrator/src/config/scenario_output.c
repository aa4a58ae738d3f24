/*
 * Output checks in expect: (orch-scenario(5) "Output checks"): stdout: and
 * stderr: with contains, not_contains, matches and lines, and exit_code:.
 * They sit in the same expect: mapping as the metric bounds, under names a
 * metric can never take (output_expect_reserved).
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "util/strbuf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const output_expect_reserved[] = { "stdout", "stderr", "exit_code", NULL };

static const char *const stream_keys[] = { "contains", "not_contains", "matches", "lines", NULL };
static const char *const lines_keys[] = { "min", "max", NULL };

bool scenario_output_reserved(const char *name)
{
	for (int i = 0; output_expect_reserved[i]; i++)
		if (strcmp(name, output_expect_reserved[i]) == 0)
			return true;
	return false;
}

/* contains: TEXT or [TEXT, ...] (and matches:, compiled). */
static void read_patterns(struct cfg *c, const struct ynode *n, const char *key, bool regex,
			  struct output_pattern **out, size_t *n_out)
{
	char f[96];
	if (!n)
		return;
	size_t count = n->kind == YNODE_SEQ ? n->n : 1;
	if (n->kind == YNODE_MAP || (n->kind == YNODE_SEQ && !n->n) || ynode_is_null(n)) {
		cfg_error(c, n, "invalid value for '%s', found %s (use a text or a list of texts)", key,
			  cfg_found(n, f, sizeof(f)));
		return;
	}
	*out = xcalloc(count, sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		const struct ynode *it = n->kind == YNODE_SEQ ? n->items[i] : n;
		struct output_pattern *p = &(*out)[*n_out];
		p->pos = cfg_pos(c, it);
		if (regex) {
			if (cfg_regex(c, it, key, &p->src, &p->regex) > 0)
				(*n_out)++;
		} else if (cfg_str(c, it, key, &p->src) > 0) {
			if (!p->src[0]) {
				cfg_error(c, it, "'%s' is empty (every line contains the empty text)", key);
				free(p->src);
				p->src = NULL;
			} else if (strpbrk(p->src, "\r\n")) {
				cfg_error(c, it, "'%s' holds a line break; output is checked line by "
					  "line (write one text per line)", key);
				free(p->src);
				p->src = NULL;
			} else {
				(*n_out)++;
			}
		}
	}
}

/* lines: N (exactly) or { min: N, max: M }. */
static void read_lines(struct cfg *c, const struct ynode *n, struct stream_expect *se)
{
	int v;
	if (!n)
		return;
	if (n->kind != YNODE_MAP) {
		if (cfg_int(c, n, "lines", 0, INT_MAX, &v) > 0) {
			se->has_lines_min = se->has_lines_max = true;
			se->lines_min = se->lines_max = (uint64_t)v;
		}
		return;
	}
	cfg_check_keys(c, n, lines_keys, "lines");
	if (cfg_int(c, ymap_get(n, "min"), "min", 0, INT_MAX, &v) > 0) {
		se->has_lines_min = true;
		se->lines_min = (uint64_t)v;
	}
	if (cfg_int(c, ymap_get(n, "max"), "max", 0, INT_MAX, &v) > 0) {
		se->has_lines_max = true;
		se->lines_max = (uint64_t)v;
	}
	if (!ymap_get(n, "min") && !ymap_get(n, "max"))
		cfg_error(c, n, "'lines' needs 'min' or 'max' (or a count)");
	else if (se->has_lines_min && se->has_lines_max && se->lines_min > se->lines_max)
		cfg_error(c, ymap_get(n, "min"), "'min' is above 'max' in 'lines'");
}

static void read_stream(struct cfg *c, const struct ynode *n, const char *name,
			struct stream_expect *se)
{
	se->present = true;
	se->pos = cfg_pos(c, n);
	char what[32];
	snprintf(what, sizeof(what), "expect for '%s'", name);
	if (!cfg_want_map(c, n, what))
		return;
	cfg_check_keys(c, n, stream_keys, what);
	if (!n->n)
		cfg_error(c, n, "%s needs 'contains', 'not_contains', 'matches' or 'lines'", what);
	read_patterns(c, ymap_get(n, "contains"), "contains", false, &se->contains, &se->n_contains);
	read_patterns(c, ymap_get(n, "not_contains"), "not_contains", false, &se->not_contains,
		      &se->n_not_contains);
	read_patterns(c, ymap_get(n, "matches"), "matches", true, &se->matches, &se->n_matches);
	read_lines(c, ymap_get(n, "lines"), se);
}

static void read_exit_code(struct cfg *c, const struct ynode *n, struct output_expect *ox)
{
	char f[96];
	size_t count = n->kind == YNODE_SEQ ? n->n : 1;
	ox->exit_code_pos = cfg_pos(c, n);
	if (n->kind == YNODE_MAP || (n->kind == YNODE_SEQ && !n->n)) {
		cfg_error(c, n, "invalid value for 'exit_code', found %s (use 0..255 or a list)",
			  cfg_found(n, f, sizeof(f)));
		return;
	}
	ox->exit_codes = xcalloc(count, sizeof(int));
	for (size_t i = 0; i < count; i++) {
		const struct ynode *it = n->kind == YNODE_SEQ ? n->items[i] : n;
		int v;
		if (cfg_int(c, it, "exit_code", 0, 255, &v) > 0)
			ox->exit_codes[ox->n_exit_codes++] = v;
	}
}

void scenario_read_output_expect(struct cfg *c, const struct ynode *expect,
				 struct output_expect *ox)
{
	const struct ynode *n;
	if ((n = ymap_get(expect, "stdout")))
		read_stream(c, n, "stdout", &ox->streams[0]);
	if ((n = ymap_get(expect, "stderr")))
		read_stream(c, n, "stderr", &ox->streams[1]);
	if ((n = ymap_get(expect, "exit_code")))
		read_exit_code(c, n, ox);
}

bool scenario_output_expect_any(const struct output_expect *ox)
{
	return ox->streams[0].present || ox->streams[1].present || ox->n_exit_codes;
}

static void patterns_free(struct output_pattern *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].src);
		orch_regex_free(&p[i].regex);
	}
	free(p);
}

void scenario_output_expect_release(struct output_expect *ox)
{
	for (int s = 0; s < 2; s++) {
		struct stream_expect *se = &ox->streams[s];
		patterns_free(se->contains, se->n_contains);
		patterns_free(se->not_contains, se->n_not_contains);
		patterns_free(se->matches, se->n_matches);
	}
	free(ox->exit_codes);
	memset(ox, 0, sizeof(*ox));
}
