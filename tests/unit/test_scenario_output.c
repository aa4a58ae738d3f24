/*
 * Output checks in a scenario's expect: (config/scenario_output.c): what
 * loads, what is refused and where the error points; and the checker
 * (execute/output_check.c) on lines fed to it.
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "execute/output_check.h"

#include <stdlib.h>
#include <string.h>

#define SC "/lab/sc.yaml"

static struct scenario *load_ok(const char *text)
{
	return ts_scenario_ok(SC, text);
}

static void load_bad(const char *text, int line, int col, const char *want)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	assert_int_equal(scenario_load_buffer(SC, text, strlen(text), &sc, &dl), -1);
	for (size_t i = 0; i < dl.n; i++)
		if (dl.items[i].line == line && dl.items[i].col == col &&
		    strstr(dl.items[i].message, want)) {
			diag_list_release(&dl);
			return;
		}
	diag_print(&dl, stderr);
	fail_msg("no error %d:%d with '%s'", line, col, want);
}

static void test_loads(void **state)
{
	struct scenario *sc = load_ok(
		"tests:\n"
		"  - name: t\n"
		"    run: uname -a\n"
		"    metrics: [{ name: speed, regex: '(\\d+)', unit: MB/s }]\n"
		"    expect:\n"
		"      speed: { min: 1MB/s }\n"
		"      stdout: { contains: [Linux, x86], not_contains: Oops, matches: '^L', lines: 3 }\n"
		"      stderr: { lines: { min: 0, max: 2 } }\n"
		"      exit_code: [0, 2]\n");
	const struct test *t = &sc->tests[0];
	assert_int_equal(t->n_expects, 1);
	assert_string_equal(t->expects[0].metric, "speed");
	const struct stream_expect *o = &t->output.streams[0], *e = &t->output.streams[1];
	assert_true(o->present && e->present);
	assert_int_equal(o->n_contains, 2);
	assert_string_equal(o->contains[1].src, "x86");
	assert_int_equal(o->n_not_contains, 1);
	assert_int_equal(o->n_matches, 1);
	assert_true(o->has_lines_min && o->has_lines_max && o->lines_min == 3 && o->lines_max == 3);
	assert_true(!e->has_lines_min || e->lines_min == 0);
	assert_true(e->has_lines_max && e->lines_max == 2);
	assert_int_equal(t->output.n_exit_codes, 2);
	assert_int_equal(t->output.exit_codes[1], 2);
	scenario_free(sc);
}

static void test_refused(void **state)
{
	load_bad("tests:\n  - name: t\n    run: x\n    expect: { stdout: { contain: x } }\n", 4,
		 25, "unknown key 'contain'");
	load_bad("tests:\n  - name: t\n    run: x\n    expect: { stdout: { matches: '(a' } }\n", 4,
		 37, "invalid regex for 'matches'");   /* at PCRE2's offset */
	load_bad("tests:\n  - name: t\n    run: x\n    expect: { exit_code: 256 }\n", 4, 26,
		 "'exit_code' out of range");
	load_bad("tests:\n  - name: t\n    run: x\n    expect: { stdout: { lines: { min: 3, max: 1 } } }\n",
		 4, 39, "'min' is above 'max' in 'lines'");
	load_bad("tests:\n  - name: t\n    run: x\n    metrics: [{ name: stdout, regex: x }]\n", 4,
		 23, "metric name 'stdout' is reserved");
	load_bad("tests:\n  - name: t\n    boot: { phases: [{ name: a, until: x }] }\n"
		 "    expect: { stdout: { contains: x } }\n", 4, 15, "goes with 'run' and 'bench'");
	load_bad("tests:\n  - name: t\n    roles: { a: x }\n    steps:\n"
		 "      - { on: a, run: x, expect: { speed: { min: 1 } } }\n", 5, 36,
		 "a step's expect takes 'stdout'");
}

static void feed(struct output_checker *oc, int stream, const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++)
		output_checker_line(oc, stream ? TRANSPORT_STDERR : TRANSPORT_STDOUT, lines[i]);
}

static void test_checker(void **state)
{
	struct scenario *sc = load_ok(
		"tests:\n"
		"  - name: t\n"
		"    run: x\n"
		"    expect:\n"
		"      stdout: { contains: 'ready to serve', matches: '^rate [0-9]+ MB/s$' }\n");
	const struct test *t = &sc->tests[0];
	struct output_checker oc;
	char why[512];
	static const char *const one[] = { "starting", "rady to sevre clients", "rate 12 MB/s",
					   "bye", NULL };
	output_checker_init(&oc, &t->output);
	feed(&oc, 0, one);
	assert_int_equal(output_checker_verdict(&oc, why, sizeof(why)), -1);
	assert_string_equal(why, "expect stdout contains 'ready to serve': no line of stdout "
			    "contains it; closest, line 2: 'rady to sevre clients'");
	output_checker_release(&oc);

	static const char *const two[] = { "ready to serve", "rate 12 MB/s (avg)", NULL };
	output_checker_init(&oc, &t->output);
	feed(&oc, 0, two);
	assert_int_equal(output_checker_verdict(&oc, why, sizeof(why)), -1);
	assert_string_equal(why, "expect stdout matches '^rate [0-9]+ MB/s$': no line of stdout "
			    "matches it; closest, line 2: 'rate 12 MB/s (avg)'");
	output_checker_release(&oc);

	static const char *const three[] = { "ready to serve", "rate 12 MB/s", NULL };
	output_checker_init(&oc, &t->output);
	feed(&oc, 1, three);          /* on stderr: does not count */
	assert_int_equal(output_checker_verdict(&oc, why, sizeof(why)), -1);
	feed(&oc, 0, three);
	assert_int_equal(output_checker_verdict(&oc, why, sizeof(why)), 0);
	output_checker_release(&oc);
	assert_true(output_expect_exit_ok(&t->output, 0));
	assert_false(output_expect_exit_ok(&t->output, 1));
	scenario_free(sc);
}

TS_MAIN(NULL, NULL, test_loads, test_refused, test_checker)
