/*
 * The bash completion (completions/orch.bash), run by bash against the
 * built orch and an inventory with groups: where it offers board names as
 * selectors (-l, orch lock, orch power, orch exec -l) it offers every group's name too,
 * bare, as group:NAME and with '!' before either; orch boot, which takes a
 * board's name only, offers board names only.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static int setup(void **state)
{
	ts_require_tool("bash", "apt-get install bash");
	tmp = ts_mkdtemp_with("completion", "inv.yaml",
			      "groups:\n"
			      "  rack: { boards: [b1], children: [lab] }\n"
			      "  lab: { boards: [b2] }\n"
			      "boards:\n  b1: { local: true, tags: [fast] }\n  b2: { local: true }\n");
	/* bash's completion call: COMP_WORDS from the arguments, the last one
	 * being completed; COMPREPLY one a line */
	free(ts_write_file(tmp, "comp.sh",
			   ". \"$1\"; shift\n"
			   "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1))\n"
			   "_orch\n"
			   "printf '%s\\n' \"${COMPREPLY[@]}\"\n"));
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

/* The words the completion offers for WORDS (shell words, the last one
 * the word being completed), one a line between newlines. */
static char *offered(const char *words)
{
	char *bin = xstrdup(ORCH_BIN);
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && export ORCH_CONFIG_SYSTEM=/nonexistent/config.yaml "
			"XDG_CONFIG_HOME='%s/xdg' ORCH_INVENTORY=inv.yaml PATH='%s':\"$PATH\"; "
			"bash comp.sh '%s/completions/orch.bash' %s", tmp, tmp, dirname(bin),
			ORCH_SOURCE_DIR, words);
	free(bin);
	if (rc != 0)
		fail_msg("completion of '%s': exit %d:\n%s", words, rc, out);
	char *lines = xasprintf("\n%s", out ? out : "");
	free(out);
	return lines;
}

static void want(const char *lines, const char *words, const char *word, bool present)
{
	char *needle = xasprintf("\n%s\n", word);
	if ((strstr(lines, needle) != NULL) != present)
		fail_msg("completion of '%s' %s '%s':%s", words, present ? "lacks" : "offers", word,
			 lines);
	free(needle);
}

static void test_groups_where_boards(void **state)
{
	static const char *const cases[] = {
		"orch run x.yaml -i inv.yaml -l ''",
		"orch lock ''",
		"orch power ''",
		"orch exec -l ''",
	};
	static const char *const words[] = {
		"b1", "!b2", "tag:fast", "all",
		"rack", "lab", "!rack", "group:rack", "group:lab", "!group:lab",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *lines = offered(cases[i]);
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			want(lines, cases[i], words[k], true);
		free(lines);
	}
	/* a prefix narrows them as bash does */
	char *lines = offered("orch power gr");
	want(lines, "orch power gr", "group:rack", true);
	want(lines, "orch power gr", "rack", false);
	free(lines);
}

static void test_boot_names_boards_only(void **state)
{
	char *lines = offered("orch boot ''");
	want(lines, "orch boot ''", "b1", true);
	want(lines, "orch boot ''", "rack", false);
	free(lines);
}

/* orch exec: its verb, its options from its --help, a command after them;
 * orch copy and fetch: files, and their options */
static void test_exec(void **state)
{
	char *lines = offered("orch ex");
	want(lines, "orch ex", "exec", true);
	free(lines);
	lines = offered("orch exec --no");
	want(lines, "orch exec --no", "--no-fold", true);
	free(lines);
	lines = offered("orch exec -l b1 unam");
	want(lines, "orch exec -l b1 unam", "uname", true);
	free(lines);
	lines = offered("orch copy -l b1 in");
	want(lines, "orch copy -l b1 in", "inv.yaml", true);
	free(lines);
	lines = offered("orch fetch --max");
	want(lines, "orch fetch --max", "--max-size", true);
	free(lines);
}

/* orch history: --per-board from its --help, every --format it takes */
static void test_history(void **state)
{
	char *lines = offered("orch history nightly --per");
	want(lines, "orch history nightly --per", "--per-board", true);
	free(lines);
	lines = offered("orch history nightly --format ''");
	static const char *const formats[] = { "text", "runs", "csv", "json", "html" };
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		want(lines, "orch history nightly --format ''", formats[i], true);
	free(lines);
}

TS_MAIN(setup, teardown, test_groups_where_boards, test_boot_names_boards_only, test_exec,
	test_history)
