#include "testsupport.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* At most this much of a haystack goes into a failure message. */
#define TS_CHECK_SHOW_MAX 16384

void ts_free_all(void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
}

void ts_assert_has(const char *hay, bool want, const char *const *needles, const char *file,
		   int line)
{
	for (size_t i = 0; needles[i]; i++) {
		if (hay && (strstr(hay, needles[i]) != NULL) == want)
			continue;
		if (!hay) {
			print_error("no text to look for \"%s\" in (NULL)\n", needles[i]);
		} else {
			size_t len = strlen(hay);
			print_error("%s \"%s\" in:\n%.*s%s\n", want ? "missing" : "unwanted", needles[i],
				    (int)(len < TS_CHECK_SHOW_MAX ? len : TS_CHECK_SHOW_MAX), hay,
				    len > TS_CHECK_SHOW_MAX ? "\n[...]" : "");
		}
		_fail(file, line);
	}
}

/* Splits NAMES ("test_a, test_b", a macro's list as text) in place into
 * N names; false when the count differs. */
static bool ts_check_split(char *names, const char **out, size_t n)
{
	size_t k = 0;
	for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		char *e = t + strlen(t);
		while (e > t && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (k < n)
			out[k] = t;
		k++;
	}
	return k == n;
}

int ts_run_tests(const char *names, const CMUnitTestFunction *fns, size_t n,
		 CMFixtureFunction gsetup, CMFixtureFunction gteardown, CMFixtureFunction setup,
		 CMFixtureFunction teardown)
{
	int rc = 1;
	char *copy = strdup(names);
	const char **name = calloc(n, sizeof(*name));
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	if (!copy || !name || !tests || !ts_check_split(copy, name, n)) {
		fprintf(stderr, "ts_run_tests: cannot list the tests \"%s\"\n", names);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ .name = name[i], .test_func = fns[i],
						.setup_func = setup, .teardown_func = teardown };
	rc = ts_exit_code(_cmocka_run_group_tests("tests", tests, n, gsetup, gteardown));
out:
	TS_FREE(tests, name, copy);
	return rc;
}
