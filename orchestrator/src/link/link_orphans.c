/*
 * Stopping what runs that died holding a board left running on it
 * (board_link.h, board_link_set_orphans), before the board's first command.
 */
#include "link/board_link.h"
#include "link/link_internal.h"
#include "util/board_token.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void board_link_set_orphans(struct board_link *bl, const char *tokens, const char *from)
{
	free(bl->orphans);
	free(bl->orphans_from);
	bl->orphans = xstrdup(tokens);
	bl->orphans_from = xstrdup(from ? from : "?");
}

char *board_link_take_orphans_note(struct board_link *bl)
{
	char *note = bl->orphans_note;
	bl->orphans_note = NULL;
	return note;
}

/* Stops token's processes, then searches again: 0 with what was stopped
 * added to found, or -1 with err when the board could not be asked or
 * some are still there. */
static int stop_token(struct board_link *bl, struct transport *t, const char *token,
		      struct strbuf *found, char *err, size_t errlen)
{
	struct transport_leftovers lo, again;
	char e[256];
	if (transport_reap(t, token, 0, &lo, e, sizeof(e)) < 0 || lo.unconfirmed ||
	    transport_reap(t, token, 0, &again, e, sizeof(e)) < 0 || again.unconfirmed) {
		snprintf(err, errlen, "%s: an earlier run (%s) may still run commands on it, and "
			 "they could not be stopped: %s", bl->board->name, bl->orphans_from,
			 lo.unconfirmed || again.unconfirmed ? "the board did not confirm it" : e);
		return -1;
	}
	if (again.n > 0) {
		snprintf(err, errlen, "%s: an earlier run (%s) left processes running on it that "
			 "are still there after TERM and KILL: %s", bl->board->name,
			 bl->orphans_from, again.list);
		return -1;
	}
	if (lo.n > 0)
		strbuf_printf(found, "%s%s", found->len ? ", " : "", lo.list);
	return 0;
}

int link_stop_orphans(struct board_link *bl, struct transport *t, char *err, size_t errlen)
{
	if (!bl->orphans)
		return 0;
	if (!t->ops->reaps) {
		log_warn("%s: an earlier run (%s) ended without releasing the board; its commands "
			 "cannot be searched for over a serial console", bl->board->name,
			 bl->orphans_from);
		goto done;
	}
	struct strbuf found = STRBUF_INIT;
	char *list = xstrdup(bl->orphans);
	int ret = 0;
	for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok && ret == 0;
	     tok = strtok_r(NULL, " ", &save)) {
		/* what a lock record or the database handed on: only a token made
		 * for this board stops anything (never a prefix, never another
		 * board's live run) */
		if (board_token_of(tok, bl->board->name))
			ret = stop_token(bl, t, tok, &found, err, errlen);
		else
			log_warn("%s: the record of an earlier run (%s) carries a token that is not "
				 "one made for this board: nothing is stopped for it",
				 bl->board->name, bl->orphans_from);
	}
	free(list);
	if (ret == 0 && found.len) {
		free(bl->orphans_note);
		bl->orphans_note = xasprintf("an earlier run (%s) ended without releasing the board "
					     "and left processes running on it; stopped before "
					     "this run used it (verified gone): %s",
					     bl->orphans_from, strbuf_str(&found));
		log_warn("%s: %s", bl->board->name, bl->orphans_note);
	} else if (ret == 0) {
		log_debug("%s: an earlier run (%s) left nothing running on it", bl->board->name,
			  bl->orphans_from);
	}
	strbuf_release(&found);
	if (ret < 0)
		return -1;
done:
	free(bl->orphans);
	free(bl->orphans_from);
	bl->orphans = bl->orphans_from = NULL;
	return 0;
}
