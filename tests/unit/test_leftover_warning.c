/* A check for processes left running that gets no answer (a loaded
 * controller, a board gone quiet): every test run keeps its reason in its
 * result, but the log says it once a run, shortly, naming the board and
 * test, never orch's own script. A rack where every timeout's check fails
 * would otherwise print a long line per test run. */
#include "testsupport.h"
#include "execute/command.h"
#include "transport/transport_local.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static struct strbuf logged = STRBUF_INIT;
static size_t messages;

static void keep(void *ctx, const char *msg, size_t len)
{
	(void)ctx;
	strbuf_append(&logged, msg, len);
	messages++;
}

/* orch's own cleanup command timed out: the reason is short and does not
 * quote the script. */
static void test_cleanup_timeout_names_no_script(void **state)
{
	struct transport *t = transport_local_new();
	char *out = NULL, err[512] = "";
	int code = 0;
	assert_int_equal(transport_capture_cleanup(t, "sleep 5; : long-orch-script", 300, 1024, &out,
						   &code, err, sizeof(err)), -1);
	assert_null(out);
	if (strstr(err, "long-orch-script") || !strstr(err, "timed out after 300 ms") ||
	    strlen(err) > 60)
		fail_msg("reason: '%s'", err);
	transport_free(t);
}

static void test_warned_once_a_run(void **state)
{
	log_set_sink(keep, NULL);
	struct command_outcome out = { .ret = 0 };
	out.st.leftovers.unconfirmed = true;
	snprintf(out.st.leftovers.list, sizeof(out.st.leftovers.list), "timed out after 5s on local");
	enum { N = 130 };
	for (int i = 0; i < N; i++) {
		struct test_result tr = { 0 };
		tr.test = xstrdup(i % 2 ? "t17" : "t05");
		char *board = xasprintf("b%d", i / 2 + 1);
		command_leftovers(&out, board, NULL, &tr);
		assert_int_equal(tr.n_leftovers, 1);
		assert_string_equal(tr.leftovers[0], "not checked: timed out after 5s on local");
		free(board);
		test_result_release(&tr);
	}
	log_set_sink(NULL, NULL);
	if (messages != 1 || !strstr(logged.buf, "b1 t05: ") ||
	    !strstr(logged.buf, "timed out after 5s on local") || logged.len > 200)
		fail_msg("%zu messages for %d unchecked test runs:\n%s", messages, N, logged.buf);
	strbuf_release(&logged);
}

TS_MAIN(NULL, NULL, test_cleanup_timeout_names_no_script, test_warned_once_a_run)
