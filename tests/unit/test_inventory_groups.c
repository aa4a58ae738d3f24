/*
 * groups: of an inventory (orch-inventory(5) GROUPS): what a group gives
 * its members and in which order (board > deeper group > parent group,
 * later sibling > earlier > defaults), tags added, health through a
 * group, group selectors, and every mistake at its file:line:col with a
 * did-you-mean (unknown board or group, cycles).
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "config/selector.h"

#include <stdlib.h>
#include <string.h>

#define INV "/lab/boards/rack.yaml"

static const char *var(const struct board *b, const char *name)
{
	for (size_t i = 0; i < b->n_vars; i++)
		if (strcmp(b->vars[i].name, name) == 0)
			return b->vars[i].value;
	return NULL;
}

static const char rack[] =
	"defaults:\n"
	"  ssh: { user: root, port: 2200 }\n"
	"  vars: { site: lab, level: defaults, who: defaults }\n"
	"  workdir: /tmp/d\n"
	"groups:\n"
	"  arm:\n"
	"    children: [rpi]\n"
	"    boards: [imx]\n"
	"    arch: armhf\n"
	"    tags: [arm]\n"
	"    ssh: { user: arm, connect_timeout: 20s }\n"
	"    vars: { level: arm, who: arm }\n"
	"  rpi:\n"
	"    boards: [rpi1, rpi2]\n"
	"    tags: [rpi]\n"
	"    ssh: { user: pi }\n"
	"    vars: { level: rpi }\n"
	"  night:\n"
	"    boards: [rpi1, x86]\n"
	"    vars: { level: night, shift: night }\n"
	"    workdir: /tmp/night\n"
	"boards:\n"
	"  rpi1: { ssh: { host: 10.0.0.1 }, tags: [own] }\n"
	"  rpi2: { ssh: { host: 10.0.0.2, user: admin }, vars: { level: board } }\n"
	"  imx: { ssh: { host: 10.0.0.3 } }\n"
	"  x86: { local: true }\n";

static void test_precedence(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, rack);
	const struct board *rpi1 = inventory_find(inv, "rpi1");
	const struct board *rpi2 = inventory_find(inv, "rpi2");
	const struct board *imx = inventory_find(inv, "imx");
	const struct board *x86 = inventory_find(inv, "x86");
	/* the child (rpi, depth 1) over its parent (arm), over defaults */
	assert_string_equal(rpi1->ssh.user, "pi");
	assert_string_equal(imx->ssh.user, "arm");
	assert_string_equal(rpi2->ssh.user, "admin");       /* the board over every group */
	assert_int_equal(rpi1->ssh.port, 2200);              /* defaults under every group */
	assert_int_equal(rpi1->ssh.connect_timeout_ms, 20000);  /* from the parent */
	assert_string_equal(rpi1->arch, "armhf");
	/* rpi1: arm (depth 0) then night (depth 0, later) then rpi (depth 1) */
	assert_string_equal(var(rpi1, "level"), "rpi");
	assert_string_equal(var(rpi1, "who"), "arm");
	assert_string_equal(var(rpi1, "shift"), "night");
	assert_string_equal(var(rpi1, "site"), "lab");
	assert_string_equal(var(rpi2, "level"), "board");
	assert_string_equal(var(x86, "level"), "night");
	assert_string_equal(rpi1->workdir, "/tmp/night");
	assert_string_equal(imx->workdir, "/tmp/d");
	assert_int_equal(rpi1->n_groups, 3);
	assert_string_equal(rpi1->groups[0], "arm");
	assert_string_equal(rpi1->groups[1], "night");
	assert_string_equal(rpi1->groups[2], "rpi");
	/* tags: the board's own, then its groups' */
	assert_int_equal(rpi1->n_tags, 3);
	assert_string_equal(rpi1->tags[0], "own");
	assert_string_equal(rpi1->tags[1], "arm");
	assert_string_equal(rpi1->tags[2], "rpi");
	/* a group's ssh: gives its members ssh; x86 is in none with ssh */
	assert_int_equal(x86->transport, TRANSPORT_KIND_LOCAL);
	assert_false(x86->ssh.present);
	inventory_free(inv);
}

/* A later sibling over an earlier one, whatever the order of boards:. */
static void test_sibling_order(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, "groups:\n"
						     "  b: { boards: [x], vars: { v: b } }\n"
						     "  a: { boards: [x], vars: { v: a } }\n"
						     "boards:\n  x: { local: true }\n");
	assert_string_equal(var(&inv->boards[0], "v"), "a");
	inventory_free(inv);
}

static void test_health_through_group(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, "defaults:\n"
						     "  health: { name: d, run: 'true' }\n"
						     "groups:\n"
						     "  flaky:\n"
						     "    boards: [b1]\n"
						     "    health: [{ name: up, run: uptime }, { name: tmp, run: 'test -w /tmp' }]\n"
						     "    offline_after: 2\n"
						     "boards:\n  b1: { local: true }\n  b2: { local: true }\n");
	const struct board *b1 = inventory_find(inv, "b1");
	const struct board *b2 = inventory_find(inv, "b2");
	assert_non_null(b1->health);
	assert_int_equal(b1->health->n_checks, 2);
	assert_string_equal(b1->health->checks[0].name, "up");
	assert_int_equal(b1->offline_after, 2);
	assert_int_equal(b2->health->n_checks, 1);
	assert_string_equal(b2->health->checks[0].name, "d");
	assert_int_equal(b2->offline_after, 0);
	inventory_free(inv);
}

static void test_selectors(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, rack);
	bool sel[4];
	char err[256];
	const char *s1[] = { "group:arm" };
	assert_int_equal(selector_resolve(inv, s1, 1, NULL, 0, sel, err, sizeof(err)), 0);
	assert_true(sel[0] && sel[1] && sel[2] && !sel[3]);
	const char *s2[] = { "night", "!rpi" };  /* a bare name is a group's too */
	assert_int_equal(selector_resolve(inv, s2, 2, NULL, 0, sel, err, sizeof(err)), 0);
	assert_true(!sel[0] && !sel[1] && !sel[2] && sel[3]);
	const char *s3[] = { "tag:rpi" };
	assert_int_equal(selector_resolve(inv, s3, 1, NULL, 0, sel, err, sizeof(err)), 0);
	assert_true(sel[0] && sel[1] && !sel[2] && !sel[3]);
	assert_false(selector_valid(inv, "group:nigth", err, sizeof(err)));
	assert_string_equal(err, "no group named 'nigth' in the inventory (did you mean "
			    "'group:night'?)");
	assert_false(selector_valid(inv, "rpii", err, sizeof(err)));
	assert_string_equal(err, "no board named 'rpii' in the inventory (did you mean 'rpi1'?)");
	inventory_free(inv);
}

static void test_errors(void **state)
{
	struct diag_list dl = ts_inventory_bad(INV, "groups:\n"
						    "  arm:\n"
						    "    children: [rpii, x86s]\n"
						    "    boards: [rpi1, imxx]\n"
						    "    ssh: { usr: pi }\n"
						    "  x86s: { children: [arm2] }\n"
						    "  arm2: { children: [arm], colour: red }\n"
						    "  rpi1: {}\n"
						    "boards:\n  rpi1: {}\n  imx: {}\n");
	ts_diag_exact(&dl, 3, 16, "unknown group 'rpii' (did you mean 'rpi1'?)");
	ts_diag_exact(&dl, 4, 20, "unknown board 'imxx' (did you mean 'imx'?)");
	ts_diag_exact(&dl, 5, 12, "unknown key 'usr' in ssh (did you mean 'user'?)");
	ts_diag_exact(&dl, 7, 22, "group 'arm' is its own member: arm -> x86s -> arm2 -> arm");
	ts_diag_exact(&dl, 7, 28, "unknown key 'colour' in a group");
	ts_diag_exact(&dl, 8, 3, "group 'rpi1' has the name of a board");
	/* reported once, not once per member */
	size_t n_usr = 0;
	for (size_t i = 0; i < dl.n; i++)
		n_usr += strstr(dl.items[i].message, "'usr'") != NULL;
	assert_int_equal(n_usr, 1);
	diag_list_release(&dl);
}

/* A group's tag mistake once, at the group, though it has two boards. */
static void test_group_error_once(void **state)
{
	struct diag_list dl = ts_inventory_bad(INV, "groups:\n"
						    "  g: { boards: [a, b], workdir: '' }\n"
						    "boards:\n  a: {}\n  b: {}\n");
	assert_int_equal(dl.n, 1);
	ts_diag_exact(&dl, 2, 33, "'workdir' must not be empty");
	diag_list_release(&dl);
}

TS_MAIN(NULL, NULL, test_precedence, test_sibling_order, test_health_through_group, test_selectors,
	test_errors, test_group_error_once)
