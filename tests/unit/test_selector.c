/* config/selector: names, tags, all, exclusions, -l limits. */
#include "testsupport.h"
#include "config/config.h"
#include "config/selector.h"

#include <string.h>

/* The inventory TEXT, loaded as if from PATH. */
static struct inventory *load(const char *path, const char *text)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct inventory *inv = NULL;
	assert_int_equal(inventory_load_buffer(path, text, strlen(text), &inv, &dl), 0);
	diag_list_release(&dl);
	return inv;
}

static struct inventory *rack(void)
{
	return load("/r/rack.yaml", "boards:\n"
		    "  rpi1: { tags: [embedded, arm] }\n"
		    "  biff: { tags: [embedded, x86] }\n"
		    "  apu2: { tags: [x86] }\n"
		    "  vm:   { tags: [server] }\n");
}

/* The selection as "name name ...", for readable asserts. */
static void sel(const struct inventory *inv, const char *const *s, size_t n, const char *const *l,
		size_t nl, const char *want)
{
	bool selected[8];
	char err[128];
	char got[128] = "";
	if (selector_resolve(inv, s, n, l, nl, selected, err, sizeof(err)) < 0)
		fail_msg("selector_resolve failed: %s", err);
	for (size_t i = 0; i < inv->n_boards; i++) {
		if (!selected[i])
			continue;
		if (got[0])
			strcat(got, " ");
		strcat(got, inv->boards[i].name);
	}
	assert_string_equal(got, want);
}

#define S(...) ((const char *const[]){ __VA_ARGS__ })
#define N(...) (sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void test_resolve(void **state)
{
	struct inventory *inv = rack();
	sel(inv, S("all"), 1, NULL, 0, "rpi1 biff apu2 vm");
	sel(inv, NULL, 0, NULL, 0, "rpi1 biff apu2 vm");
	sel(inv, S("vm"), 1, NULL, 0, "vm");
	sel(inv, S("tag:embedded"), 1, NULL, 0, "rpi1 biff");
	sel(inv, S("tag:embedded", "vm"), 2, NULL, 0, "rpi1 biff vm");
	sel(inv, S("tag:x86", "!biff"), 2, NULL, 0, "apu2");
	sel(inv, S("!tag:x86"), 1, NULL, 0, "rpi1 vm");
	sel(inv, S("!vm", "!rpi1"), 2, NULL, 0, "biff apu2");
	sel(inv, S("all", "!tag:embedded"), 2, NULL, 0, "apu2 vm");
	/* -l narrows the scenario's selection, never widens it */
	sel(inv, S("tag:embedded"), 1, S("tag:x86"), 1, "biff");
	sel(inv, S("tag:embedded"), 1, S("vm"), 1, "");
	sel(inv, S("all"), 1, S("!vm"), 1, "rpi1 biff apu2");
	sel(inv, S("all"), 1, S("rpi1", "apu2"), 2, "rpi1 apu2");
	(void)N("x");
	inventory_free(inv);
}

static void test_invalid(void **state)
{
	struct inventory *inv = rack();
	char err[128];
	bool selected[8];
	assert_true(selector_valid(inv, "rpi1", err, sizeof(err)));
	assert_true(selector_valid(inv, "!tag:arm", err, sizeof(err)));
	assert_true(selector_valid(inv, "all", err, sizeof(err)));
	assert_false(selector_valid(inv, "odroid", err, sizeof(err)));
	assert_string_equal(err, "no board named 'odroid' in the inventory");
	assert_false(selector_valid(inv, "tag:mips", err, sizeof(err)));
	assert_string_equal(err, "no board has tag 'mips'");
	assert_false(selector_valid(inv, "rpi2", err, sizeof(err)));
	assert_string_equal(err, "no board named 'rpi2' in the inventory (did you mean 'rpi1'?)");
	assert_false(selector_valid(inv, "!tag:embeded", err, sizeof(err)));
	assert_string_equal(err, "no board has tag 'embeded' (did you mean 'tag:embedded'?)");
	assert_false(selector_valid(inv, "!all", err, sizeof(err)));
	assert_false(selector_valid(inv, "", err, sizeof(err)));
	assert_false(selector_valid(inv, "tag:", err, sizeof(err)));
	assert_false(selector_valid(inv, "a b", err, sizeof(err)));
	assert_false(selector_valid(inv, "!!vm", err, sizeof(err)));
	assert_true(selector_well_formed("rpi9", err, sizeof(err)));
	assert_false(selector_well_formed("tag:a:b", err, sizeof(err)));

	assert_int_equal(selector_resolve(inv, S("vm", "nope"), 2, NULL, 0, selected, err, sizeof(err)), -1);
	assert_string_equal(err, "no board named 'nope' in the inventory");
	assert_int_equal(selector_resolve(inv, S("vm"), 1, S("tag:nope"), 1, selected, err, sizeof(err)), -1);
	assert_string_equal(err, "no board has tag 'nope'");
	inventory_free(inv);
}

/* Node sets (clush's notation) select the boards of their names. */
static void test_nodeset(void **state)
{
	struct inventory *inv =
		load("/r/b.yaml", "boards:\n  b01: {}\n  b02: {}\n  b03: {}\n  b10: {}\n  sw1: {}\n");
	char err[128];
	sel(inv, S("b[01-02]"), 1, NULL, 0, "b01 b02");
	sel(inv, S("b[01,03],sw1"), 1, NULL, 0, "b01 b03 sw1");
	sel(inv, S("all"), 1, S("!b[02-10]"), 1, "b01 sw1");
	/* names the rack lacks are passed over (a gap in a rack) */
	sel(inv, S("b[01-12]"), 1, NULL, 0, "b01 b02 b03 b10");
	assert_false(selector_valid(inv, "c[1-4]", err, sizeof(err)));
	assert_string_equal(err, "node set 'c[1-4]' names no board of the inventory");
	assert_false(selector_well_formed("b[5-2]", err, sizeof(err)));
	TS_ASSERT_HAS(err, "5-2");
	inventory_free(inv);
}

TS_MAIN(NULL, NULL, test_resolve, test_invalid, test_nodeset)
