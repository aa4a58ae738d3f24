#include "plan/plan.h"
#include "config/caps.h"
#include "config/selector.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int plan_parse_shard(const char *text, int *k, int *n)
{
	char *end;
	long kk = strtol(text, &end, 10);
	if (end == text || *end != '/')
		return -1;
	const char *ns = end + 1;
	long nn = strtol(ns, &end, 10);
	if (end == ns || *end || nn < 1 || nn > 1000 || kk < 1 || kk > nn)
		return -1;
	*k = (int)kk;
	*n = (int)nn;
	return 0;
}

/* Shards split the selected boards by position in name order, so the same
 * board lands in the same shard whatever the inventory's order. */
static void apply_shard(const struct inventory *inv, bool *selected, int k, int n)
{
	size_t *rank = xcalloc(inv->n_boards + 1, sizeof(*rank));
	for (size_t i = 0; i < inv->n_boards; i++)
		for (size_t j = 0; selected[i] && j < inv->n_boards; j++)
			if (selected[j] && strcmp(inv->boards[j].name, inv->boards[i].name) < 0)
				rank[i]++;
	for (size_t i = 0; i < inv->n_boards; i++)
		if (selected[i] && (int)(rank[i] % (size_t)n) != k - 1)
			selected[i] = false;
	free(rank);
}

static int bind_roles(const struct test *test, const struct inventory *inv,
		      const struct board *each_board, struct plan_item *item, char *err,
		      size_t errlen)
{
	item->roles = xcalloc(test->n_roles, sizeof(*item->roles));
	item->n_roles = test->n_roles;
	bool *match = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	int ret = 0;
	for (size_t r = 0; r < test->n_roles; r++) {
		const struct role *role = &test->roles[r];
		struct role_binding *rb = &item->roles[r];
		rb->role = role;
		rb->boards = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(*rb->boards));
		if (role->each) {
			rb->boards[rb->n_boards++] = each_board;
			continue;
		}
		const char *sel = role->selector;
		if (selector_resolve(inv, &sel, 1, NULL, 0, match, err, errlen) < 0) {
			ret = -1;
			break;
		}
		for (size_t i = 0; i < inv->n_boards; i++)
			if (match[i])
				rb->boards[rb->n_boards++] = &inv->boards[i];
		if (!rb->n_boards) {
			snprintf(err, errlen, "test '%s': role '%s' (%s) matches no board", test->name,
				 role->name, role->selector);
			ret = -1;
			break;
		}
	}
	free(match);
	return ret;
}

/* Whether board i plays a fixed (non-each) role of test: such a board
 * serves the test's clients and gets no item of its own for it. */
static bool plays_fixed_role(const struct test *test, const struct inventory *inv, size_t i)
{
	bool *match = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	bool found = false;
	char err[256];
	for (size_t r = 0; r < test->n_roles && !found; r++) {
		if (test->roles[r].each)
			continue;
		const char *sel = test->roles[r].selector;
		if (selector_resolve(inv, &sel, 1, NULL, 0, match, err, sizeof(err)) == 0 && match[i])
			found = true;
	}
	free(match);
	return found;
}

/* Whether board i is in test's own boards: (all when it has none). */
static int test_selects(const struct test *test, const struct inventory *inv, size_t i,
			bool *yes, char *err, size_t errlen)
{
	*yes = true;
	if (!test->n_board_selectors)
		return 0;
	bool *match = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	int ret = selector_resolve(inv, (const char *const *)test->board_selectors,
				   test->n_board_selectors, NULL, 0, match, err, errlen);
	if (ret < 0) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, " (boards: of test '%s')", test->name);
	}
	*yes = match[i];
	free(match);
	return ret;
}

static bool has_each_role(const struct test *test)
{
	for (size_t r = 0; r < test->n_roles; r++)
		if (test->roles[r].each)
			return true;
	return false;
}

/* A test that got no item anywhere would silently not run: an error naming
 * why. 0 when every test runs somewhere. */
static int check_every_test_runs(const struct scenario *sc, const bool *want,
				 const struct plan *p, char *err, size_t errlen)
{
	for (size_t t = 0; t < sc->n_tests; t++) {
		const struct test *test = &sc->tests[t];
		if (!want[t])
			continue;
		size_t n = 0;
		for (size_t b = 0; b < p->n_boards; b++)
			for (size_t i = 0; i < p->boards[b].n_items; i++)
				n += p->boards[b].items[i].test == test;
		if (n)
			continue;
		const char *why = test->kind == TEST_MULTI && !has_each_role(test)
			? "its roles are all fixed boards; make the role that runs the test "
			  "`each` (roles: { server: vm, client: each })"
			: test->kind == TEST_MULTI
			? "every selected board plays one of its fixed roles, so no board is "
			  "left for its `each` role"
			: "no board selected for it";
		if (test->pos.file)
			snprintf(err, errlen, "%s:%d:%d: test '%s' would run nowhere: %s",
				 test->pos.file, test->pos.line, test->pos.col, test->name, why);
		else
			snprintf(err, errlen, "test '%s' would run nowhere: %s", test->name, why);
		return -1;
	}
	return 0;
}

/* Whether one test selector (NAME or tag:TAG, globs allowed, no '!')
 * selects t. */
static bool test_selector_matches(const char *sel, const struct test *t)
{
	if (strncmp(sel, "tag:", 4) == 0) {
		for (size_t i = 0; i < t->n_tags; i++)
			if (fnmatch(sel + 4, t->tags[i], 0) == 0)
				return true;
		return false;
	}
	return fnmatch(sel, t->name, 0) == 0;
}

/* The closest test name or tag:TAG of sc to sel, or NULL. */
static const char *test_suggest(const struct scenario *sc, const char *sel, char *buf,
				size_t len)
{
	bool tag = strncmp(sel, "tag:", 4) == 0;
	size_t n = 0;
	for (size_t t = 0; t < sc->n_tests; t++)
		n += tag ? sc->tests[t].n_tags : 1;
	const char **cands = xcalloc(n + 1, sizeof(char *));
	n = 0;
	for (size_t t = 0; t < sc->n_tests; t++) {
		if (!tag)
			cands[n++] = sc->tests[t].name;
		for (size_t k = 0; tag && k < sc->tests[t].n_tags; k++)
			cands[n++] = sc->tests[t].tags[k];
	}
	const char *near = selector_suggest(tag ? sel + 4 : sel, cands);
	if (near)
		snprintf(buf, len, "%s%s", tag ? "tag:" : "", near);
	free(cands);
	return near ? buf : NULL;
}

/* Whether the -t argument arg (selectors joined by ',') names some test;
 * each part's test selector goes to sels (positives marked). */
static bool split_test_arg(const struct scenario *sc, const char *arg, char ***sels,
			   size_t *n_sels, bool *any_positive)
{
	bool any = false;
	for (const char *p = arg;;) {
		size_t len = strcspn(p, ",");
		if (len) {
			char *one = xstrndup(p, len);
			*sels = xrealloc(*sels, (*n_sels + 1) * sizeof(**sels));
			(*sels)[(*n_sels)++] = one;
			*any_positive = *any_positive || one[0] != '!';
			for (size_t t = 0; t < sc->n_tests && !any; t++)
				any = test_selector_matches(one + (one[0] == '!'), &sc->tests[t]);
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	return any;
}

/* Marks the tests -t selects, as -l does boards: the union of the
 * positive selectors (every test when there are only exclusions) minus
 * every !NAME and !tag:TAG; "a,b" is a and b. -1 when an argument selects
 * no test at all (with a did-you-mean). */
static int select_tests(const struct scenario *sc, const struct plan_options *opts, bool *want,
			char *err, size_t errlen)
{
	bool any_positive = false;
	char **sels = NULL;
	size_t n_sels = 0;
	int ret = 0;
	for (size_t i = 0; opts && i < opts->n_tests && ret == 0; i++) {
		if (split_test_arg(sc, opts->tests[i], &sels, &n_sels, &any_positive))
			continue;
		const char *sel = sels[n_sels - 1] + (sels[n_sels - 1][0] == '!');
		char near[300];
		struct strbuf names = STRBUF_INIT;
		for (size_t t = 0; t < sc->n_tests && t < 20; t++)
			strbuf_printf(&names, "%s%s", t ? ", " : "", sc->tests[t].name);
		if (test_suggest(sc, sel, near, sizeof(near)))
			snprintf(err, errlen, "no test matches '%s' (-t); did you mean '%s'?",
				 opts->tests[i], near);
		else
			snprintf(err, errlen, "no test matches '%s' (-t); the scenario has: %s",
				 opts->tests[i], strbuf_str(&names));
		strbuf_release(&names);
		ret = -1;
	}
	for (size_t t = 0; t < sc->n_tests; t++)
		want[t] = !any_positive;
	for (size_t i = 0; i < n_sels && ret == 0; i++)
		for (size_t t = 0; t < sc->n_tests; t++)
			if (sels[i][0] != '!' && test_selector_matches(sels[i], &sc->tests[t]))
				want[t] = true;
	for (size_t i = 0; i < n_sels && ret == 0; i++)
		for (size_t t = 0; t < sc->n_tests; t++)
			if (sels[i][0] == '!' && test_selector_matches(sels[i] + 1, &sc->tests[t]))
				want[t] = false;
	for (size_t i = 0; i < n_sels; i++)
		free(sels[i]);
	free(sels);
	return ret;
}

int plan_build(const struct scenario *sc, const struct inventory *inv,
	       const struct plan_options *opts, struct plan **out, char *err, size_t errlen)
{
	*out = NULL;
	bool *selected = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(bool));
	struct plan *p = xcalloc(1, sizeof(*p));
	int ret = -1;
	bool *want = xcalloc(sc->n_tests ? sc->n_tests : 1, sizeof(bool));
	if (select_tests(sc, opts, want, err, errlen) < 0)
		goto out;
	if (selector_resolve(inv, (const char *const *)sc->board_selectors, sc->n_board_selectors,
			     opts ? opts->limits : NULL, opts ? opts->n_limits : 0, selected, err,
			     errlen) < 0)
		goto out;
	if (opts && opts->shard_n > 0)
		apply_shard(inv, selected, opts->shard_k, opts->shard_n);
	p->boards = xcalloc(inv->n_boards ? inv->n_boards : 1, sizeof(*p->boards));
	for (size_t i = 0; i < inv->n_boards; i++) {
		if (!selected[i])
			continue;
		struct plan_board *pb = &p->boards[p->n_boards++];
		pb->board = &inv->boards[i];
		pb->items = xcalloc(sc->n_tests ? sc->n_tests : 1, sizeof(*pb->items));
		for (size_t t = 0; t < sc->n_tests; t++) {
			const struct test *test = &sc->tests[t];
			if (!want[t])
				continue;
			bool mine;
			if (test_selects(test, inv, i, &mine, err, errlen) < 0)
				goto out;
			if (!mine)
				continue;
			if (test->kind == TEST_MULTI &&
			    (plays_fixed_role(test, inv, i) || !has_each_role(test)))
				continue;
			struct plan_item *item = &pb->items[pb->n_items++];
			item->board = pb->board;
			item->test = test;
			item->skip_reason = test_unsupported(pb->board, test);
			if (item->skip_reason)
				p->n_skips++;
			if (test->kind == TEST_MULTI &&
			    bind_roles(test, inv, pb->board, item, err, errlen) < 0)
				goto out;
			p->n_items++;
		}
	}
	if (!p->n_boards) {
		snprintf(err, errlen, "no board selected%s", opts && opts->shard_n > 1 ?
			 " in this shard" : " (check the scenario's boards: and -l)");
		if (!(opts && opts->shard_n > 1))
			goto out;
	}
	if (!(opts && opts->shard_n > 1) && check_every_test_runs(sc, want, p, err, errlen) < 0)
		goto out;
	*out = p;
	p = NULL;
	ret = 0;
out:
	plan_free(p);
	free(selected);
	free(want);
	return ret;
}

static const char *kind_name(enum test_kind k)
{
	switch (k) {
	case TEST_RUN: return "run";
	case TEST_BENCH: return "bench";
	case TEST_BOOT: return "boot";
	case TEST_MULTI: return "multi-host";
	case TEST_TRANSFER: return "transfer";
	}
	return "?";
}

void plan_print(const struct plan *p, FILE *out)
{
	fprintf(out, "plan: %zu board%s, %zu test run%s", p->n_boards, p->n_boards == 1 ? "" : "s",
		p->n_items, p->n_items == 1 ? "" : "s");
	if (p->n_skips)
		fprintf(out, " (%zu skipped: the board lacks what the test needs)", p->n_skips);
	fputc('\n', out);
	for (size_t b = 0; b < p->n_boards; b++) {
		const struct plan_board *pb = &p->boards[b];
		fprintf(out, "  %s\n", pb->board->name);
		for (size_t i = 0; i < pb->n_items; i++) {
			const struct plan_item *it = &pb->items[i];
			const struct test *t = it->test;
			fprintf(out, "    %-20s %-10s", t->name, kind_name(t->kind));
			if (t->repeat_auto)
				fprintf(out, " repeat auto (max %d)", t->repeat_max);
			else if (t->repeat > 1)
				fprintf(out, " repeat %d", t->repeat);
			for (size_t r = 0; r < it->n_roles; r++) {
				const struct role_binding *rb = &it->roles[r];
				fprintf(out, " %s=", rb->role->name);
				for (size_t k = 0; k < rb->n_boards; k++)
					fprintf(out, "%s%s", k ? "," : "", rb->boards[k]->name);
			}
			if (it->skip_reason)
				fprintf(out, " skip: %s", it->skip_reason);
			fputc('\n', out);
		}
	}
}

void plan_print_list(const struct plan *p, FILE *out)
{
	for (size_t b = 0; b < p->n_boards; b++) {
		const struct plan_board *pb = &p->boards[b];
		for (size_t i = 0; i < pb->n_items; i++) {
			const struct plan_item *it = &pb->items[i];
			fprintf(out, "%s\t%s", pb->board->name, it->test->name);
			for (size_t k = 0; k < it->test->n_tags; k++)
				fprintf(out, "%s%s", k ? "," : "\t", it->test->tags[k]);
			if (it->skip_reason)
				fprintf(out, "%sskip: %s", it->test->n_tags ? "\t" : "\t\t",
					it->skip_reason);
			fputc('\n', out);
		}
	}
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t b = 0; b < p->n_boards; b++) {
		struct plan_board *pb = &p->boards[b];
		for (size_t i = 0; i < pb->n_items; i++) {
			for (size_t r = 0; r < pb->items[i].n_roles; r++)
				free(pb->items[i].roles[r].boards);
			free(pb->items[i].roles);
		}
		free(pb->items);
	}
	free(p->boards);
	free(p);
}
