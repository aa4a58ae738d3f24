/* Scenario keys facts:, label: and baseline: history: what loads, and the
 * errors (file:line:col, what was found). */
#include "testsupport.h"
#include "config/config.h"
#include "util/diag.h"

#include <string.h>

#define SC_PATH "/x/sc.yaml"

static struct scenario *load(const char *text, struct diag_list *dl)
{
	struct scenario *sc = NULL;
	scenario_load_buffer(SC_PATH, text, strlen(text), &sc, dl);
	return sc;
}

static bool has(const struct diag_list *dl, int line, int col, const char *want)
{
	for (size_t i = 0; i < dl->n; i++)
		if (dl->items[i].line == line && dl->items[i].col == col &&
		    strstr(dl->items[i].message, want))
			return true;
	diag_print(dl, stderr);
	return false;
}

static void test_facts_and_label(void **state)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = load("name: n\nbaseline: history\n"
				   "facts: { wireguard: \"wg --version\", cjdns: \"git -C ~/cjdns rev-parse HEAD\" }\n"
				   "label: { fact: wireguard }\ntests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_non_null(sc);
	assert_int_equal(sc->n_facts, 2);
	assert_string_equal(sc->facts[0].name, "wireguard");
	assert_string_equal(sc->facts[1].command, "git -C ~/cjdns rev-parse HEAD");
	assert_int_equal(sc->facts[1].pos.line, 3);
	assert_string_equal(sc->label_fact, "wireguard");
	assert_null(sc->label);
	assert_string_equal(sc->baseline, "history");
	scenario_free(sc);
	sc = load("name: n\nlabel: v1.2\ntests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_non_null(sc);
	assert_string_equal(sc->label, "v1.2");
	scenario_free(sc);
	sc = load("name: n\nlabel: { fact: kernel }\ntests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_non_null(sc);
	assert_string_equal(sc->label_fact, "kernel");
	scenario_free(sc);
	assert_int_equal(dl.n, 0);
	diag_list_release(&dl);
}

static void test_errors(void **state)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct scenario *sc = load("name: n\n"
				   "facts: { kernel: \"uname -r\", \"bad name\": x, empty: \"\", list: [a] }\n"
				   "label: { fact: wiregard, extra: 1 }\n"
				   "tests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_null(sc);
	assert_true(has(&dl, 2, 10, "fact 'kernel' is gathered already"));
	assert_true(has(&dl, 2, 30, "invalid fact name, found 'bad name'"));
	assert_true(has(&dl, 2, 52, "empty command for fact 'empty'"));
	assert_true(has(&dl, 2, 62, "list"));
	assert_true(has(&dl, 3, 26, "unknown key 'extra' in label"));
	assert_true(has(&dl, 3, 16, "unknown fact 'wiregard' for 'label'"));
	diag_list_release(&dl);
	dl = (struct diag_list)DIAG_LIST_INIT;
	sc = load("name: n\nfacts: { wireguard: x }\nlabel: { fact: wiregard }\n"
		  "tests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_null(sc);
	assert_true(has(&dl, 3, 16, "did you mean 'wireguard'"));
	diag_list_release(&dl);
	dl = (struct diag_list)DIAG_LIST_INIT;
	sc = load("name: n\nlabel: [a]\nfacts: a\ntests: [{ name: t, run: \"true\" }]\n", &dl);
	assert_null(sc);
	assert_true(has(&dl, 2, 8, "invalid 'label', found a list"));
	assert_true(has(&dl, 3, 8, "facts must be a mapping"));
	diag_list_release(&dl);
}

TS_MAIN(NULL, NULL, test_facts_and_label, test_errors)
