/*
 * Power commands and reboots through the board link: the only place that
 * runs a board's power: commands. Each is a shell command run on the
 * controller in the inventory's folder, bounded by the asking test's
 * timeout (at most POWER_MAX_MS). A command's {board.*}, {vars.*} and
 * {env.*} are substituted as in a run: command (config/substitute.h), from
 * the board's own fields and vars:, so one command in defaults: or a group
 * serves every outlet.
 */
#include "link/board_link.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "link/link_internal.h"
#include "transport/transport_local.h"
#include "util/deadline.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POWER_MAX_MS 60000
#define REBOOT_TIMEOUT_MS 5000

struct collect {
	struct strbuf text;
};

static int collect_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct collect *c = ctx;
	(void)stream;
	if (c->text.len < 2048)
		strbuf_append(&c->text, data, len);
	return 0;
}

/* "power cycle command 'X' failed: <last output line> (exit status N)". */
static void power_error(const char *what, const char *cmd, const struct transport_status *st,
			struct strbuf *text, char *err, size_t errlen)
{
	char *out = strbuf_detach(text);
	size_t n = strlen(out);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	char *last = strrchr(out, '\n');
	snprintf(err, errlen, "power %s command '%s' %s%s%s", what, cmd,
		 st->timed_out ? "timed out" : st->interrupted ? "interrupted" : "failed",
		 *out ? ": " : "", last ? last + 1 : out);
	if (!st->timed_out && !st->interrupted && st->exit_code > 0) {
		size_t l = strlen(err);
		snprintf(err + l, errlen - l, " (exit status %d)", st->exit_code);
	}
	free(out);
}

/* cmd as written is what messages quote; the shell gets it substituted. */
static int run_power(const struct board *b, const char *what, const char *cmd, const char *dir,
		     int64_t timeout_ms, char *err, size_t errlen)
{
	struct vars_ctx vc = { NULL, b };
	struct subst_env env = { .board = b, .lookup = vars_lookup, .lookup_ctx = &vc };
	char serr[256];
	char *expanded = substitute(cmd, &env, serr, sizeof(serr));
	if (!expanded) {
		snprintf(err, errlen, "power %s command '%s': %s", what, cmd, serr);
		return -1;
	}
	struct transport *local = transport_local_new();
	struct strbuf line = STRBUF_INIT;
	if (dir) {
		strbuf_puts(&line, "cd ");
		strbuf_shquote(&line, dir);
		strbuf_puts(&line, " && ");
	}
	strbuf_puts(&line, expanded);
	free(expanded);
	struct collect c = { STRBUF_INIT };
	struct transport_exec req = {
		.command = strbuf_str(&line), .timeout_ms = timeout_ms, .stdin_fd = -1,
		.on_output = collect_output, .ctx = &c,
	};
	struct transport_status st;
	char terr[256];
	int ret = -1;
	if (transport_exec(local, &req, &st, terr, sizeof(terr)) < 0)
		snprintf(err, errlen, "power %s command '%s': %s", what, cmd, terr);
	else if (st.timed_out || st.interrupted || st.exit_code != 0)
		power_error(what, cmd, &st, &c.text, err, errlen);
	else
		ret = 0;
	strbuf_release(&c.text);
	strbuf_release(&line);
	transport_free(local);
	return ret;
}

static void link_booting(struct board_link *bl)
{
	link_drop_transport(bl);
	bl->state = BOARD_BOOTING;
	bl->booting_since_ms = clock_mono_ms();
	free(bl->down_reason);
	bl->down_reason = NULL;
}

void board_link_mark_booting(struct board_link *bl)
{
	link_booting(bl);
}

int board_link_power(struct board_link *bl, enum power_action action, int64_t timeout_ms,
		     char *err, size_t errlen)
{
	const struct board *b = bl->board;
	const char *dir = bl->power_dir;
	int64_t ms = timeout_ms > 0 && timeout_ms < POWER_MAX_MS ? timeout_ms : POWER_MAX_MS;
	int ret = -1;
	if (action == POWER_OFF) {
		if (!b->power.off) {
			snprintf(err, errlen, "%s has no power off command", b->name);
			return -1;
		}
		link_drop_transport(bl);
		ret = run_power(b, "off", b->power.off, dir, ms, err, errlen);
		if (ret == 0) {
			bl->state = BOARD_DOWN;
			free(bl->down_reason);
			bl->down_reason = xasprintf("%s was powered off", b->name);
		}
		return ret;
	}
	if (!b->power.cycle && !b->power.on) {
		snprintf(err, errlen, "%s has no power commands (power: cycle, or off and on)",
			 b->name);
		return -1;
	}
	/* whatever happens now, the session in hand is stale */
	link_booting(bl);
	if (action == POWER_CYCLE && b->power.cycle)
		return run_power(b, "cycle", b->power.cycle, dir, ms, err, errlen);
	if (action == POWER_CYCLE && b->power.off &&
	    run_power(b, "off", b->power.off, dir, ms, err, errlen) < 0)
		return -1;
	if (!b->power.on) {
		snprintf(err, errlen, "%s has no power on command", b->name);
		return -1;
	}
	return run_power(b, "on", b->power.on, dir, ms, err, errlen);
}

int board_link_reboot(struct board_link *bl, char *err, size_t errlen)
{
	struct transport *t;
	if (board_link_get(bl, 0, &t, err, errlen) < 0)
		return -1;
	struct transport_status st;
	struct transport_exec req = {
		.command = "(sleep 1; reboot || busybox reboot) >/dev/null 2>&1 </dev/null &",
		.timeout_ms = REBOOT_TIMEOUT_MS, .stdin_fd = -1,
	};
	char terr[256];
	/* losing the connection on the way is expected: reaching the board counts */
	transport_exec(t, &req, &st, terr, sizeof(terr));
	link_booting(bl);
	return 0;
}
