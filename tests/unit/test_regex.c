/* util/regex: PCRE2 syntax, groups, and the limits that keep a match bounded. */
#include "testsupport.h"
#include "util/regex.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* PAT matches TEXT and its first group is WANT. */
static void assert_group(const char *pat, const char *text, const char *want)
{
	char g[64];
	if (!m(pat, text, g, sizeof(g)))
		fail_msg("'%s' does not match '%s'", pat, text);
	assert_string_equal(g, want);
}

static void test_shorthands(void **state)
{
	char g[64];
	assert_group("BogoMIPS\\s*:\\s*([0-9.]+)", "bogomips\nBogoMIPS\t: 1234.56\n", "1234.56");
	assert_group("(\\d+) ms", "took 42 ms", "42");
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
	assert_group("((\\d{1,3}\\.){3}\\d{1,3})", "inet 10.0.2.15/24", "10.0.2.15");
	assert_true(m("^a{2,}$", "aaaa", NULL, 0));
	assert_false(m("^a{2,3}$", "aaaa", NULL, 0));
}

static void test_brackets(void **state)
{
	assert_group("([\\d.]+)", "v=3.14;", "3.14");
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
	struct orch_regex rx;
	char err[128];
	const char *bad[] = { "(abc", "[abc", "abc\\", "a{2,1}", "[[:nope:]]", "*a", "x+++",
			      "(?<n>a)(?<n>b)", "\\k<nope>", NULL };
	for (int i = 0; bad[i]; i++) {
		err[0] = '\0';
		if (orch_regex_compile(&rx, bad[i], err, sizeof(err)) == 0)
			fail_msg("'%s' compiled", bad[i]);
		assert_false(rx.compiled);
		assert_true(strlen(err) > 0);
		orch_regex_free(&rx);
	}
	char longpat[1100];
	memset(longpat, 'a', sizeof(longpat) - 1);
	longpat[sizeof(longpat) - 1] = '\0';
	assert_int_equal(orch_regex_compile(&rx, longpat, err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "longer than");
	assert_int_equal(orch_regex_compile(&rx, "(abc", err, sizeof(err)), -1);
	TS_ASSERT_HAS(err, "missing closing parenthesis at offset 4");
	/* nested fixed repeats are bounded by PCRE2's compiled size, not memory */
	if (orch_regex_compile(&rx, "((ab{200}){200}){200}", err, sizeof(err)) == 0)
		orch_regex_free(&rx);
}

/* What the POSIX translation refused and people type out of habit. */
static void test_perl_features(void **state)
{
	char g[64];
	assert_group("(?i)bogomips\\s*:\\s*([0-9.]+)", "BOGOMIPS : 12.5", "12.5");
	assert_group("(?:copied|written),\\s*([0-9.]+)", "1 bytes written, 3.25 s", "3.25");
	assert_group("<(.*?)>", "<a> <b>", "a");
	assert_group("<(.*)>", "<a> <b>", "a> <b");
	assert_true(m("^(\\w+) \\1$", "abc abc", g, sizeof(g)));
	assert_false(m("^(\\w+) \\1$", "abc abd", NULL, 0));
	assert_true(m("[\\D]+", "ab", g, sizeof(g)));
	assert_true(m("\\bword\\b", "a word here", NULL, 0));
	assert_true(m("a++b", "aaab", NULL, 0));

	struct orch_regex rx;
	char err[128];
	const char *text = "copied 64 MB in 2.0 s, 31.9 MB/s";
	assert_int_equal(orch_regex_compile(&rx, "(?<value>[0-9.]+) (?<unit>[kMG]B/s)", err,
					    sizeof(err)), 0);
	assert_int_equal(rx.n_groups, 2);
	assert_int_equal(orch_regex_group_number(&rx, "value"), 1);
	assert_int_equal(orch_regex_group_number(&rx, "unit"), 2);
	assert_int_equal(orch_regex_group_number(&rx, "nope"), -1);
	struct orch_regex_span sp[4];
	assert_int_equal(orch_regex_exec(&rx, text, strlen(text), sp, 4), ORCH_REGEX_MATCHED);
	orch_regex_copy(text, &sp[2], g, sizeof(g));
	assert_string_equal(g, "MB/s");
	orch_regex_copy(text, &sp[3], g, sizeof(g));   /* beyond the pattern's groups */
	assert_string_equal(g, "");
	orch_regex_free(&rx);

	/* a NUL inside the text is searched past */
	const char nul[] = "a\0rate: 5";
	assert_int_equal(orch_regex_compile(&rx, "rate: (\\d)", err, sizeof(err)), 0);
	assert_int_equal(orch_regex_exec(&rx, nul, sizeof(nul) - 1, sp, 2), ORCH_REGEX_MATCHED);
	orch_regex_free(&rx);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A backreference regex on a 200-byte line took 34 s
 * (glibc), minutes on 8 KB. With PCRE2's limits each ends in well under a
 * second, and the ones that run out say so instead of "no match".
 */
static void test_backtracking_bounded(void **state)
{
	const char *pats[] = { "^(a|aa)*\\1\\1b$", "(a*)*\\1b", "^(\\w+\\s?)*\\1$",
			       "(.*)(.*)(.*)(.*)(.*)\\5\\4\\3x", NULL };
	size_t sizes[] = { 200, 8192 };
	int limited = 0;
	for (size_t si = 0; si < 2; si++) {
		char *line = malloc(sizes[si] + 1);
		memset(line, 'a', sizes[si]);
		line[sizes[si] - 1] = '!';
		line[sizes[si]] = '\0';
		for (int i = 0; pats[i]; i++) {
			struct orch_regex rx;
			char err[128];
			struct orch_regex_span sp[2];
			assert_int_equal(orch_regex_compile(&rx, pats[i], err, sizeof(err)), 0);
			double t0 = now_s();
			int rc = orch_regex_exec(&rx, line, sizes[si], sp, 2);
			double dt = now_s() - t0;
			if (dt > 2.0)
				fail_msg("'%s' on %zu bytes took %.2f s", pats[i], sizes[si], dt);
			assert_true(rc == ORCH_REGEX_NOMATCH || rc == ORCH_REGEX_ELIMIT);
			limited += rc == ORCH_REGEX_ELIMIT;
			assert_false(orch_regex_match(&rx, line, NULL, 0));
			orch_regex_free(&rx);
		}
		free(line);
	}
	assert_true(limited > 0);
	assert_non_null(strstr(orch_regex_strerror(ORCH_REGEX_ELIMIT), "match limit"));
}

TS_MAIN(NULL, NULL, test_shorthands, test_brackets, test_groups, test_errors, test_perl_features,
	test_backtracking_bounded)
