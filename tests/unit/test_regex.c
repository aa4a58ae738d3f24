/* util/regex: Perl shorthands on POSIX ERE, group 1 extraction. */
#include "testsupport.h"
#include "util/regex.h"

#include <string.h>

/* Compiles pat (must succeed) and returns whether text matches; group 1 to g. */
static bool m(const char *pat, const char *text, char *g, size_t glen)
{
	struct orch_regex rx;
	char err[128];
	if (orch_regex_compile(&rx, pat, err, sizeof(err)) < 0)
		fail_msg("'%s' did not compile: %s", pat, err);
	bool ok = orch_regex_match(&rx, text, g, glen);
	orch_regex_free(&rx);
	return ok;
}

static void test_shorthands(void **state)
{
	(void)state;
	char g[64];
	assert_true(m("BogoMIPS\\s*:\\s*([0-9.]+)", "bogomips\nBogoMIPS\t: 1234.56\n", g, sizeof(g)));
	assert_string_equal(g, "1234.56");
	assert_true(m("(\\d+) ms", "took 42 ms", g, sizeof(g)));
	assert_string_equal(g, "42");
	assert_false(m("^\\d+$", "abc", NULL, 0));
	assert_true(m("^\\D+$", "abc", NULL, 0));
	assert_true(m("^\\w+$", "a_b9", NULL, 0));
	assert_false(m("^\\w+$", "a-b", NULL, 0));
	assert_true(m("\\W", "a-b", NULL, 0));
	assert_true(m("^\\S+$", "x.y", NULL, 0));
	assert_false(m("^\\S+$", "x y", NULL, 0));
	assert_true(m("a\\.b", "a.b", NULL, 0));
	assert_false(m("a\\.b", "axb", NULL, 0));
	assert_true(m("a\\tb", "a\tb", NULL, 0));
	assert_true(m("Run /init|Executing INIT", "[ 6.8] Run /init as init process", NULL, 0));
	assert_true(m("^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
		      "0b5e2f4c-1d2e-4f5a-9b8c-7d6e5f4a3b2c", g, sizeof(g)));
	assert_true(m("((\\d{1,3}\\.){3}\\d{1,3})", "inet 10.0.2.15/24", g, sizeof(g)));
	assert_string_equal(g, "10.0.2.15");
	assert_true(m("^a{2,}$", "aaaa", NULL, 0));
	assert_false(m("^a{2,3}$", "aaaa", NULL, 0));
}

static void test_brackets(void **state)
{
	(void)state;
	char g[64];
	assert_true(m("([\\d.]+)", "v=3.14;", g, sizeof(g)));
	assert_string_equal(g, "3.14");
	assert_true(m("^[\\w-]+$", "my-host_1", NULL, 0));
	assert_false(m("^[\\w-]+$", "my host", NULL, 0));
	assert_true(m("^[\\s]+$", " \t", NULL, 0));
	assert_true(m("^[a\\]]+$", "a]a", NULL, 0));
	assert_true(m("^[\\\\]$", "\\", NULL, 0));
	assert_true(m("^[^\\d]+$", "abc", NULL, 0));
	assert_false(m("^[^\\d]+$", "a1c", NULL, 0));
	assert_true(m("^[-a]+$", "-a-", NULL, 0));
	assert_true(m("^[a-c]+$", "abcab", NULL, 0));
	assert_true(m("^[[:digit:]x]+$", "1x2", NULL, 0));
	assert_true(m("^[\\^]$", "^", NULL, 0));
	assert_true(m("^[]x]+$", "]x", NULL, 0));
}

static void test_groups(void **state)
{
	(void)state;
	char g[8];
	assert_true(m("x=(\\d+)", "x=123456789012", g, sizeof(g)));
	assert_string_equal(g, "1234567");   /* truncated to fit */
	char w[16];
	assert_true(m("\\d+", "abc 77 def", w, sizeof(w)));
	assert_string_equal(w, "77");        /* no group: the whole match */
	assert_true(m("(a)|(b)", "b", w, sizeof(w)));
	assert_string_equal(w, "");          /* group 1 did not take part */
	struct orch_regex rx;
	assert_int_equal(orch_regex_compile(&rx, "(a)(b)", NULL, 0), 0);
	assert_int_equal(rx.n_groups, 2);
	orch_regex_free(&rx);
	orch_regex_free(&rx);   /* twice is harmless */
	assert_false(orch_regex_match(&rx, "ab", NULL, 0));
}

static void test_errors(void **state)
{
	(void)state;
	struct orch_regex rx;
	char err[128];
	const char *bad[] = { "(abc", "[abc", "abc\\", "a{2,1}", "[\\D]", "[[:nope:]]", "*a", NULL };
	for (int i = 0; bad[i]; i++) {
		err[0] = '\0';
		if (orch_regex_compile(&rx, bad[i], err, sizeof(err)) == 0)
			fail_msg("'%s' compiled", bad[i]);
		assert_false(rx.compiled);
		assert_true(strlen(err) > 0);
		orch_regex_free(&rx);
	}
	assert_int_equal(orch_regex_compile(&rx, "a.*?b", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lazy or possessive"));
	assert_int_equal(orch_regex_compile(&rx, "x+++++++++++++++++++++++++++++++++++++++++", err, sizeof(err)), -1);
	assert_int_equal(orch_regex_compile(&rx, "a{2}{3}", err, sizeof(err)), -1);
	assert_int_equal(orch_regex_compile(&rx, "((ab{200}){200}){200}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "repetition counts too large"));
	char longpat[1100];
	memset(longpat, 'a', sizeof(longpat) - 1);
	longpat[sizeof(longpat) - 1] = '\0';
	assert_int_equal(orch_regex_compile(&rx, longpat, err, sizeof(err)), -1);
	assert_int_equal(orch_regex_compile(&rx, "[\\D]", err, sizeof(err)), -1);
	assert_string_equal(err, "\\D is not supported inside [...]");
	assert_int_equal(orch_regex_compile(&rx, "(abc", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unmatched"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shorthands),
		cmocka_unit_test(test_brackets),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
