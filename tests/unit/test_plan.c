/* The planner: selection, order, shards, multi-host roles, --dry-run text. */
#include "testsupport.h"
#include "config/config.h"
#include "plan/plan.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char inventory_yaml[] =
	"boards:\n"
	"  vm: { tags: [server], local: true }\n"
	"  pi: { tags: [embedded, arm], local: true }\n"
	"  biff: { tags: [embedded, x86], local: true }\n"
	"  apu: { tags: [embedded, x86], local: true }\n"
	"  geode: { tags: [embedded, x86], local: true }\n";

struct fixture {
	struct inventory *inv;
	struct scenario *sc;
	struct plan *plan;
};

static void load(struct fixture *f, const char *scenario_yaml)
{
	struct diag_list diags = DIAG_LIST_INIT;
	assert_int_equal(inventory_load_buffer("inv.yaml", inventory_yaml, strlen(inventory_yaml),
					       &f->inv, &diags), 0);
	if (scenario_load_buffer("sc.yaml", scenario_yaml, strlen(scenario_yaml), &f->sc, &diags)) {
		diag_print(&diags, stderr);
		fail();
	}
	diag_list_release(&diags);
}

static void release(struct fixture *f)
{
	plan_free(f->plan);
	scenario_free(f->sc);
	inventory_free(f->inv);
}

static char *board_names(const struct plan *p)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->n_boards; i++)
		strbuf_printf(&sb, "%s%s", i ? " " : "", p->boards[i].board->name);
	return strbuf_detach(&sb);
}

static void test_selection_and_order(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [tag:embedded, '!tag:arm']\ntests:\n"
		 "  - { name: a, run: 'true' }\n  - { name: b, run: 'true' }\n");
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), 0);
	char *names = board_names(f.plan);
	assert_string_equal(names, "biff apu geode");   /* inventory order */
	free(names);
	assert_int_equal(f.plan->n_items, 6);
	assert_string_equal(f.plan->boards[0].items[0].test->name, "a");
	assert_string_equal(f.plan->boards[0].items[1].test->name, "b");
	release(&f);
}

static void test_limits_narrow(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [tag:embedded]\ntests:\n  - { name: a, run: 'true' }\n");
	const char *limits[] = { "tag:x86", "!apu" };
	struct plan_options o = { limits, 2, 0, 0, NULL, 0 };
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, &o, &f.plan, err, sizeof(err)), 0);
	char *names = board_names(f.plan);
	assert_string_equal(names, "biff geode");
	free(names);
	release(&f);
}

/* -l with globs and comma lists, -t with names, globs and lists */
static void test_globs_lists_and_test_filter(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: ['b*,a*', 'tag:e*', '!g?ode']\ntests:\n"
		 "  - { name: net-tcp, run: 'true' }\n  - { name: net-udp, run: 'true' }\n"
		 "  - { name: cpu, run: 'true' }\n  - { name: mem, run: 'true' }\n");
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), 0);
	char *names = board_names(f.plan);
	assert_string_equal(names, "pi biff apu");
	free(names);
	plan_free(f.plan);

	const char *limits[] = { "apu,biff" };
	const char *tests[] = { "net-*", "mem,nope-but-listed" };
	struct plan_options o = { limits, 1, 0, 0, tests, 2 };
	assert_int_equal(plan_build(f.sc, f.inv, &o, &f.plan, err, sizeof(err)), 0);
	names = board_names(f.plan);
	assert_string_equal(names, "biff apu");
	free(names);
	assert_int_equal(f.plan->boards[0].n_items, 3);
	assert_string_equal(f.plan->boards[0].items[0].test->name, "net-tcp");
	assert_string_equal(f.plan->boards[0].items[2].test->name, "mem");
	plan_free(f.plan);
	f.plan = NULL;

	const char *none[] = { "disk*" };
	struct plan_options o2 = { NULL, 0, 0, 0, none, 1 };
	assert_int_equal(plan_build(f.sc, f.inv, &o2, &f.plan, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "no test matches 'disk*' (-t); the scenario has: net-tcp, ");
	const char *nob[] = { "rb*" };
	struct plan_options o3 = { nob, 1, 0, 0, NULL, 0 };
	assert_int_equal(plan_build(f.sc, f.inv, &o3, &f.plan, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "no board matches 'rb*'");
	release(&f);
}

static void test_nothing_selected_is_an_error(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [tag:arm]\ntests:\n  - { name: a, run: 'true' }\n");
	const char *limits[] = { "tag:x86" };
	struct plan_options o = { limits, 1, 0, 0, NULL, 0 };
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, &o, &f.plan, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "no board selected");
	release(&f);
}

/* A multi-host test with only fixed roles, or whose `each` role has no
 * board left, runs nowhere: an error at plan time (exit 2), never a run
 * that passes having run nothing. */
static void test_test_running_nowhere_is_an_error(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [all]\ntests:\n"
		 "  - { name: plain, run: 'true' }\n"
		 "  - name: fixed\n    roles: { server: vm, client: pi }\n"
		 "    steps:\n      - { on: client, run: 'ping -c1 {server.host}' }\n");
	char err[512];
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "sc.yaml:", "test 'fixed' would run nowhere: its roles are all fixed");
	release(&f);

	memset(&f, 0, sizeof(f));
	load(&f, "name: s\nboards: [vm]\ntests:\n"
		 "  - name: lonely\n    roles: { server: vm, client: each }\n"
		 "    steps:\n      - { on: client, run: 'ping -c1 {server.host}' }\n");
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "test 'lonely' would run nowhere: every selected board");
	release(&f);
}

static void test_shards_partition_the_boards(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [all]\ntests:\n  - { name: a, run: 'true' }\n");
	int seen[5] = { 0 };
	for (int k = 1; k <= 3; k++) {
		struct plan_options o = { NULL, 0, k, 3, NULL, 0 };
		struct plan *p;
		char err[256];
		assert_int_equal(plan_build(f.sc, f.inv, &o, &p, err, sizeof(err)), 0);
		assert_true(p->n_boards >= 1 && p->n_boards <= 2);
		for (size_t i = 0; i < p->n_boards; i++)
			seen[p->boards[i].board - f.inv->boards]++;
		/* stable: the same shard again gives the same boards */
		struct plan *again;
		assert_int_equal(plan_build(f.sc, f.inv, &o, &again, err, sizeof(err)), 0);
		char *a = board_names(p), *b = board_names(again);
		assert_string_equal(a, b);
		TS_FREE(a, b);
		plan_free(p);
		plan_free(again);
	}
	for (int i = 0; i < 5; i++)
		assert_int_equal(seen[i], 1);   /* every board in exactly one shard */
	release(&f);
}

static void test_parse_shard(void **state)
{
	int k, n;
	assert_int_equal(plan_parse_shard("2/4", &k, &n), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 4);
	assert_int_equal(plan_parse_shard("0/4", &k, &n), -1);
	assert_int_equal(plan_parse_shard("5/4", &k, &n), -1);
	assert_int_equal(plan_parse_shard("1/", &k, &n), -1);
	assert_int_equal(plan_parse_shard("1/2x", &k, &n), -1);
	assert_int_equal(plan_parse_shard("x", &k, &n), -1);
}

static void test_multi_host_roles(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [all]\ntests:\n"
		 "  - name: iperf\n    roles: { server: vm, client: each }\n"
		 "    steps:\n      - { on: server, run: 'iperf3 -s', background: true, ready: listening }\n"
		 "      - { on: client, run: 'iperf3 -c {server.host}' }\n"
		 "  - { name: plain, run: 'true' }\n");
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), 0);
	/* the server board runs only the plain test; every other board is a client */
	for (size_t b = 0; b < f.plan->n_boards; b++) {
		const struct plan_board *pb = &f.plan->boards[b];
		bool is_vm = !strcmp(pb->board->name, "vm");
		assert_int_equal(pb->n_items, is_vm ? 1 : 2);
		if (is_vm)
			continue;
		const struct plan_item *it = &pb->items[0];
		assert_string_equal(it->test->name, "iperf");
		assert_int_equal(it->n_roles, 2);
		for (size_t r = 0; r < 2; r++) {
			const struct role_binding *rb = &it->roles[r];
			assert_int_equal(rb->n_boards, 1);
			if (rb->role->each)
				assert_ptr_equal(rb->boards[0], pb->board);
			else
				assert_string_equal(rb->boards[0]->name, "vm");
		}
	}
	FILE *mem = tmpfile();
	plan_print(f.plan, mem);
	rewind(mem);
	char text[4096] = "";
	size_t n = fread(text, 1, sizeof(text) - 1, mem);
	text[n] = '\0';
	fclose(mem);
	TS_ASSERT_HAS(text, "plan: 5 boards, 9 test runs", "server=vm", "client=pi");
	release(&f);
}

/* A test's own boards: narrow the scenario's; a test a board cannot run
 * (a boot test on boards with no console, here all of them) is planned as
 * a skip with the reason, and the plan text says so. */
static void test_test_boards_and_capability_skips(void **state)
{
	struct fixture f = { 0 };
	load(&f, "name: s\nboards: [tag:embedded]\ntests:\n"
		 "  - { name: a, run: 'true', boards: [tag:x86, '!geode'] }\n"
		 "  - name: boot\n    boot: { trigger: none, phases: [ { name: k, until: x } ] }\n");
	char err[256];
	assert_int_equal(plan_build(f.sc, f.inv, NULL, &f.plan, err, sizeof(err)), 0);
	/* a on biff and apu only; boot on pi, biff, apu, geode: all skips */
	assert_int_equal(f.plan->n_items, 6);
	assert_int_equal(f.plan->n_skips, 4);
	for (size_t b = 0; b < f.plan->n_boards; b++)
		for (size_t i = 0; i < f.plan->boards[b].n_items; i++) {
			const struct plan_item *it = &f.plan->boards[b].items[i];
			if (!strcmp(it->test->name, "a"))
				assert_null(it->skip_reason);
			else
				assert_non_null(strstr(it->skip_reason, "no serial console"));
		}
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	plan_print(f.plan, out);
	fclose(out);
	TS_ASSERT_HAS(buf, "(4 skipped: the board lacks what the test needs)",
		"skip: the board has no serial console");
	free(buf);
	release(&f);
}

TS_MAIN(NULL, NULL, test_selection_and_order, test_test_boards_and_capability_skips,
	test_limits_narrow, test_globs_lists_and_test_filter, test_nothing_selected_is_an_error,
	test_shards_partition_the_boards, test_parse_shard, test_multi_host_roles,
	test_test_running_nowhere_is_an_error)
