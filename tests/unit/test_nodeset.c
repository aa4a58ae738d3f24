/* Node sets (util/nodeset.h) and groups of identical outcomes
 * (util/fold.h): natural order, expanding clush's notation, folding back
 * with the padding kept, and the round trip. */
#include "testsupport.h"
#include "util/fold.h"
#include "util/nodeset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_natural_order(void **state)
{
	const char *names[] = { "b10", "b2", "a", "b1", "b02", "rack2-b3", "rack10-b1", "rack2-b10",
				"B1", "b" };
	nodeset_sort(names, sizeof(names) / sizeof(*names));
	const char *want[] = { "B1", "a", "b", "b1", "b2", "b02", "b10", "rack2-b3", "rack2-b10",
			       "rack10-b1" };
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		assert_string_equal(names[i], want[i]);
	assert_true(nodeset_cmp("b2", "b10") < 0);
	assert_true(nodeset_cmp("b10", "b2") > 0);
	assert_int_equal(nodeset_cmp("b7", "b7"), 0);
	assert_true(nodeset_cmp("b7", "b07") < 0);
	assert_true(nodeset_cmp("b99999999999999999999", "b100000000000000000000") < 0);
}

static char *expand_joined(const char *s)
{
	char **names;
	size_t n;
	char err[200];
	if (nodeset_expand(s, &names, &n, err, sizeof(err)) < 0)
		return xasprintf("error: %s", err);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? " " : "", names[i]);
	nodeset_names_free(names);
	return strbuf_detach(&sb);
}

static void test_expand(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "b1", "b1" },
		{ "b[1-3]", "b1 b2 b3" },
		{ "b[01-03,07]", "b01 b02 b03 b07" },
		{ "b[8-11]", "b8 b9 b10 b11" },
		{ "b[098-101]", "b098 b099 b100 b101" },
		{ "r[1-2]b[1-2]", "r1b1 r1b2 r2b1 r2b2" },
		{ "b[1-2]-eth", "b1-eth b2-eth" },
		{ "b[1-2],sw1,c[3]", "b1 b2 sw1 c3" },
		{ "rb[ab]", "rb[ab]" },
		{ "b[5-2]", "error: range 5-2 goes down in 'b[5-2]'" },
		{ "b[1-2],", "error: empty name in 'b[1-2],'" },
		{ "b[1-999999999]", "error: 'b[1-999999999]' names more than 100000 boards" },
		{ "b[1-1000]c[1-1000]", "error: 'b[1-1000]c[1-1000]' names more than 100000 boards" },
		{ "b1]", "error: ']' without '[' in 'b1]'" },
		{ "b[1234567890123456789]", "error: number too long in 'b[1234567890123456789]'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = expand_joined(cases[i].in);
		if (strcmp(got, cases[i].want))
			fail_msg("'%s': got '%s', want '%s'", cases[i].in, got, cases[i].want);
		free(got);
	}
	assert_true(nodeset_is_pattern("b[1-3]"));
	assert_true(nodeset_is_pattern("x,b[7]"));
	assert_false(nodeset_is_pattern("rb[ab]"));
	assert_false(nodeset_is_pattern("rb*"));
	assert_false(nodeset_is_pattern("b[]"));
	assert_false(nodeset_is_pattern("b[-1]"));
}

static char *fold_words(const char *words)
{
	char *copy = xstrdup(words);
	const char *v[64];
	size_t n = 0;
	for (char *t = strtok(copy, " "); t && n < 64; t = strtok(NULL, " "))
		v[n++] = t;
	char *out = nodeset_fold_str(v, n);
	free(copy);
	return out;
}

static void test_fold(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "b1", "b1" },
		{ "b1 b2", "b[1-2]" },
		{ "b3 b1 b2 b7", "b[1-3,7]" },
		{ "b01 b02 b03 b07", "b[01-03,07]" },
		{ "b09 b10 b11", "b[09-11]" },
		{ "b1 b01", "b1,b01" },
		{ "b2 b10 b1", "b[1-2,10]" },
		{ "sw1 b2 b1 vm", "b[1-2],sw1,vm" },
		{ "b1-eth b2-eth b3-eth", "b[1-3]-eth" },
		{ "r1b1 r1b2 r2b1", "r1b[1-2],r2b1" },
		{ "b2 b2 b1", "b[1-2]" },
		{ "vm", "vm" },
		{ "client1 client5", "client[1,5]" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = fold_words(cases[i].in);
		if (strcmp(got, cases[i].want))
			fail_msg("'%s': got '%s', want '%s'", cases[i].in, got, cases[i].want);
		free(got);
	}
	char *none = nodeset_fold_str(NULL, 0);
	assert_string_equal(none, "");
	free(none);
}

/* Every folded set expands back to exactly the names folded, sorted. */
static void test_round_trip(void **state)
{
	srand(7);
	for (int round = 0; round < 300; round++) {
		char *names[40];
		size_t n = (size_t)(rand() % 40) + 1;
		for (size_t i = 0; i < n; i++) {
			int num = rand() % 120;
			switch (rand() % 3) {
			case 0: names[i] = xasprintf("b%d", num); break;
			case 1: names[i] = xasprintf("b%03d", num); break;
			default: names[i] = xasprintf("r%dn%d", num % 3, num); break;
			}
		}
		char *folded = nodeset_fold_str((const char *const *)names, n);
		char **back;
		size_t nb;
		char err[200];
		assert_int_equal(nodeset_expand(folded, &back, &nb, err, sizeof(err)), 0);
		const char *want[40];
		size_t nw = 0;
		for (size_t i = 0; i < n; i++) {
			bool dup = false;
			for (size_t k = 0; k < nw; k++)
				dup = dup || !strcmp(want[k], names[i]);
			if (!dup)
				want[nw++] = names[i];
		}
		nodeset_sort(want, nw);
		if (nb != nw)
			fail_msg("'%s' expands to %zu names, folded %zu", folded, nb, nw);
		const char *got[40];
		for (size_t i = 0; i < nb; i++)
			got[i] = back[i];
		nodeset_sort(got, nb);
		for (size_t i = 0; i < nw; i++)
			assert_string_equal(got[i], want[i]);
		nodeset_names_free(back);
		free(folded);
		for (size_t i = 0; i < n; i++)
			free(names[i]);
	}
}

static void test_split_list(void **state)
{
	size_t n;
	char **v = nodeset_split_list("b[1,3],!c[2-4],tag:x", &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "b[1,3]");
	assert_string_equal(v[1], "!c[2-4]");
	assert_string_equal(v[2], "tag:x");
	assert_null(v[3]);
	nodeset_names_free(v);
}

static void test_fold_groups(void **state)
{
	struct fold f = FOLD_INIT;
	const char *boards[] = { "b10", "b2", "b3", "b1", "b11", "vm" };
	const char *outs[] = { "5.10\n", "6.1\n", "6.1\n", "6.1\n", "5.10\n", "unreachable" };
	int marks[6];
	for (int i = 0; i < 6; i++) {
		marks[i] = i;
		fold_add(&f, outs[i], boards[i], &marks[i]);
	}
	assert_int_equal(f.n, 3);
	fold_sort(&f, FOLD_LARGEST_FIRST);
	char *a = fold_nodeset(&f.groups[0]), *b = fold_nodeset(&f.groups[1]),
	     *c = fold_nodeset(&f.groups[2]);
	assert_string_equal(a, "b[1-3]");
	assert_string_equal(f.groups[0].key, "6.1\n");
	assert_int_equal(*(int *)f.groups[0].data, 1);   /* data of its first member, b2 */
	assert_string_equal(b, "b[10-11]");
	assert_string_equal(c, "vm");
	TS_FREE(a, b, c);
	fold_sort(&f, FOLD_AS_ADDED);
	assert_string_equal(f.groups[0].key, "5.10\n");
	fold_sort(&f, FOLD_BY_MEMBER);
	assert_string_equal(f.groups[0].members[0], "b1");
	assert_string_equal(f.groups[1].members[0], "b10");
	assert_non_null(fold_find(&f, "unreachable"));
	assert_null(fold_find(&f, "nothing"));
	fold_release(&f);
	assert_int_equal(f.n, 0);
}

TS_MAIN(NULL, NULL, test_natural_order, test_expand, test_fold, test_round_trip, test_split_list,
	test_fold_groups)
