/*
 * The helpers every executor shares on its context (context.h): the
 * board's transport and facts, and the end of a test's command.
 */
#include "execute/context.h"
#include "execute/artifact.h"
#include "execute/command.h"
#include "execute/facts.h"
#include "execute/metrics.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool exec_conclude(struct exec_context *ctx, struct transport *t, int ran,
		   const struct command_outcome *out, const char *what,
		   struct metric_collector *mc, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	if (ran < 0)
		board_link_reset(ctx->link);
	bool passed = command_judge_expect(out, test->timeout_ms, what, mc->last_stderr,
					   &test->output, tr);
	command_leftovers(out, ctx->item->board->name, NULL, tr);
	if (ran == 0)
		artifact_fetch_all(t, ctx->item->board, test, ctx->test_dir, tr);
	if (!passed || tr->status != STATUS_PASS)
		return false;
	metric_collector_files(mc, ctx->test_dir);
	if (metric_collector_commit(mc, tr) < 0) {
		tr->status = STATUS_FAIL;
		return false;
	}
	char why[512];
	if (mc->has_checks && output_checker_verdict(&mc->checks, why, sizeof(why)) < 0) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "%s", why);
		return false;
	}
	return true;
}

int exec_machine(struct transport *t, int64_t timeout_ms, char **machine, char *err,
		 size_t errlen)
{
	if (*machine)
		return 0;
	char *out = NULL;
	int code = -1;
	if (transport_capture(t, "uname -m", timeout_ms, 256, &out, &code, err, errlen) < 0)
		return -1;
	out[strcspn(out, "\r\n")] = '\0';
	if (code != 0 || !*out) {
		snprintf(err, errlen, "`uname -m` failed (exit status %d)", code);
		free(out);
		return -1;
	}
	*machine = out;
	return 0;
}

static int facts_ask(struct facts_state *fs, const struct board *b, struct transport *t);

void exec_note_orphans(struct board_link *bl, struct test_result *tr)
{
	char *note = board_link_take_orphans_note(bl);
	if (!note)
		return;
	if (tr && !tr->orphans) {
		tr->orphans = note;
		return;
	}
	if (tr) {
		char *both = xasprintf("%s; %s", tr->orphans, note);
		free(tr->orphans);
		tr->orphans = both;
	}
	free(note);
}

int exec_transport(struct exec_context *ctx, struct test_result *tr, struct transport **t,
		   char *err, size_t errlen)
{
	struct board_link *bl = ctx->link;
	struct facts_state *fs = ctx->facts;
	bl->last_reconnect_s = -1;
	int ret = board_link_get(bl, ctx->item->test->timeout_ms, t, err, errlen);
	exec_note_orphans(bl, tr);
	if (bl->last_reconnect_s >= 0 && tr)
		test_result_add_sample(tr, "link.reconnect", "s", false, bl->last_reconnect_s);
	bl->last_reconnect_s = -1;
	if (ret == 0 && fs && fs->want && !fs->done && !fs->riding &&
	    facts_ask(fs, bl->board, *t) < 0) {
		board_link_reset(bl);
		ret = board_link_get(bl, ctx->item->test->timeout_ms, t, err, errlen);
	}
	return ret;
}

int exec_role_facts(struct exec_context *ctx, struct board_link *bl, struct transport **t,
		    char *err, size_t errlen)
{
	struct facts_state *fs = ctx->facts_of ? ctx->facts_of(ctx->links_ctx, bl->board) : NULL;
	if (!fs || !fs->want || fs->done || fs->riding)
		return 0;
	if (facts_ask(fs, bl->board, *t) == 0)
		return 0;
	board_link_reset(bl);
	return board_link_get(bl, ctx->item->test->timeout_ms, t, err, errlen);
}

/* Once, over the first connection: a failure costs the facts only.
 * Returns -1 when the transport failed (the connection may be gone). */
static int facts_ask(struct facts_state *fs, const struct board *b, struct transport *t)
{
	char ferr[512];
	fs->done = true;
	if (!fs->facts.board)
		fs->facts.board = xstrdup(b->name);
	if (facts_gather(t, b->workdir, fs->specs, fs->n_specs, &fs->facts, ferr,
			 sizeof(ferr)) < 0) {
		log_warn("%s: facts not gathered: %s", b->name, ferr);
		return -1;
	}
	return 0;
}

static bool facts_ride_fits(const struct transport *t)
{
	return !strcmp(t->ops->name, "ssh") || !strcmp(t->ops->name, "local");
}

int exec_transport_ride(struct exec_context *ctx, struct test_result *tr, struct transport **t,
			bool *ride, char *err, size_t errlen)
{
	struct facts_state *fs = ctx->facts;
	*ride = fs && fs->want && !fs->done && !fs->n_specs;
	if (*ride)
		fs->riding = true;
	int ret = exec_transport(ctx, tr, t, err, errlen);
	if (*ride && (ret < 0 || !facts_ride_fits(*t))) {
		fs->riding = false;
		*ride = false;
		if (ret == 0)   /* asks for them now */
			ret = exec_transport(ctx, tr, t, err, errlen);
	}
	return ret;
}

void facts_ride_end(struct exec_context *ctx, struct transport *t, int ran, bool prelude_done,
		    const char *prelude_out)
{
	struct facts_state *fs = ctx->facts;
	const char *board = ctx->item->board->name;
	if (!fs || !fs->riding)
		return;
	fs->riding = false;
	if (prelude_done) {
		fs->done = true;
		if (!fs->facts.board)
			fs->facts.board = xstrdup(board);
		facts_parse(prelude_out, NULL, 0, &fs->facts);
	} else if (ran == 0) {
		facts_ask(fs, ctx->item->board, t);
	}
}
