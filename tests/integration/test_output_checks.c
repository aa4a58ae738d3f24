/*
 * Output checks (expect: stdout:/stderr:/exit_code:) through `orch run` on
 * local boards, plain tests and multi-host steps: each failing check fails
 * its test with the check, the stream and the line in results.json's
 * message and in the JUnit <failure message>; the passing ones pass.
 */
#include "testsupport.h"
#include "ts_json.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_mkdtemp_with("output-checks", "inventory.yaml",
			      "boards:\n"
			      "  l1: { local: true, tags: [embedded] }\n"
			      "  srv: { local: true }\n");
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

static const char scenario[] =
	"name: checks\n"
	"inventory: inventory.yaml\n"
	"boards: [l1]\n"
	"tests:\n"
	"  - name: good\n"
	"    run: \"echo Linux version 6.1; echo booted ok; echo 'warn: x' >&2\"\n"
	"    expect:\n"
	"      stdout: { contains: [Linux, booted], matches: '^booted \\w+$', lines: 2 }\n"
	"      stderr: { not_contains: panic, lines: { max: 1 } }\n"
	"  - name: contains\n"
	"    run: \"echo hello; echo Linus vershun 6.1; echo bye\"\n"
	"    expect: { stdout: { contains: 'Linux version' } }\n"
	"  - name: not-contains\n"
	"    run: \"echo ok; echo fine >&2; echo 'Kernel panic - not syncing' >&2\"\n"
	"    expect: { stderr: { not_contains: [Oops, panic] } }\n"
	"  - name: exit-listed\n"
	"    run: \"echo oops >&2; exit 3\"\n"
	"    expect: { exit_code: [0, 3] }\n"
	"  - name: exit-other\n"
	"    run: \"echo oops >&2; exit 4\"\n"
	"    expect: { exit_code: [0, 3] }\n"
	"  - name: lines\n"
	"    run: \"echo a\"\n"
	"    expect: { stdout: { lines: { min: 3 } } }\n"
	"  - name: matches\n"
	"    run: \"echo 'x'; echo 'speed 12 MB/s'\"\n"
	"    expect: { stdout: { matches: 'speed \\d+ GB/s' } }\n"
	"  - name: empty\n"
	"    run: \"true\"\n"
	"    expect: { stdout: { contains: ready } }\n"
	"  - name: cut\n"
	"    run: \"head -c 3145728 /dev/zero | tr '\\\\000' x; echo; echo after\"\n"
	"    expect: { stdout: { contains: ready } }\n"
	"  - name: cut-head\n"
	"    run: \"printf ready; head -c 3145728 /dev/zero | tr '\\\\000' x; echo\"\n"
	"    expect: { stdout: { contains: ready, lines: 1 } }\n"
	"  - name: multi\n"
	"    roles: { server: srv, client: each }\n"
	"    steps:\n"
	"      - { on: server, run: 'echo serving', expect: { stdout: { contains: serving } } }\n"
	"      - on: client\n"
	"        run: 'echo connected to nothing'\n"
	"        expect: { stdout: { contains: 'connected to server' }, exit_code: 0 }\n";

static json_t *result_of(json_t *results, const char *test)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(results, "results"), i, r)
		if (strcmp(ts_json_str(r, "test"), test) == 0)
			return r;
	fail_msg("no result for %s", test);
	return NULL;
}

static void want(json_t *results, const char *test, const char *status, const char *msg)
{
	json_t *r = result_of(results, test);
	const char *m = ts_json_str(r, "message");
	if (strcmp(ts_json_str(r, "status"), status) != 0 || (msg && !strstr(m, msg)))
		fail_msg("%s: status %s, message '%s'; wanted %s with '%s'", test,
			 ts_json_str(r, "status"), m, status, msg ? msg : "");
}

static void test_output_checks(void **state)
{
	char *sc = ts_write_file(tmp, "checks.yaml", scenario);
	char *out = NULL;
	int rc = ts_run(&out, "%s run %s -o %s/runs 2>&1", ORCH_BIN, sc, tmp);
	if (rc != 1)
		fail_msg("orch run exited %d, wanted 1:\n%s", rc, out);
	char *dir = xasprintf("%s/runs/checks/latest", tmp);
	json_t *res = ts_json_load_in(dir, "results.json");
	assert_non_null(res);
	want(res, "good", "pass", NULL);
	want(res, "contains", "fail", "expect stdout contains 'Linux version': no line of stdout "
	     "contains it; closest, line 2: 'Linus vershun 6.1'");
	want(res, "not-contains", "fail", "expect stderr not_contains 'panic': line 2 of stderr "
	     "has it: 'Kernel panic - not syncing'");
	want(res, "exit-listed", "pass", NULL);
	want(res, "exit-other", "fail", "expect exit_code 0 or 3: command exited with status 4; "
	     "last stderr: oops");
	want(res, "lines", "fail", "expect stdout lines: stdout printed 1 line, expected at least 3");
	want(res, "matches", "fail", "expect stdout matches 'speed \\d+ GB/s': no line of stdout "
	     "matches it; closest, line 2: 'speed 12 MB/s'");
	want(res, "empty", "fail", "no line of stdout contains it (it printed nothing)");
	/* a line over the cap is said to be cut, never "printed nothing" */
	want(res, "cut", "fail", "no line of stdout contains it; stdout's line 1 is 3 MiB, cut at "
	     "1 MiB: checked the first 1 MiB");
	want(res, "cut-head", "pass", NULL);
	want(res, "multi", "fail", "client step 'echo connected to nothing' on l1: expect stdout "
	     "contains 'connected to server': no line of stdout contains it; closest, line 1: "
	     "'connected to nothing'");
	char *junit = xasprintf("%s/junit.xml", dir);
	char *xml = ts_read_file(junit);
	assert_non_null(xml);
	if (!strstr(xml, "<failure message=\"expect stderr not_contains &#39;panic&#39;: line 2 of "
			 "stderr has it: &#39;Kernel panic - not syncing&#39;\""))
		fail_msg("junit.xml lacks the not_contains failure:\n%s", xml);
	TS_FREE(xml, junit);
	json_decref(res);
	TS_FREE(dir, out, sc);
}

TS_MAIN(group_setup, group_teardown, test_output_checks)
