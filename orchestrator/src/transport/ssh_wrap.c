#include "transport/ssh_wrap.h"
#include "transport/reap.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdlib.h>

/* d: pids of $P and all its descendants, from /proc (no ps on small boards).
 * w: waits up to a second for what TERM was sent to to go away, so a
 * command that exits on TERM is not held up by a fixed sleep. */
#define KILL_TREE_FN \
	"d() { l=\" $P \"; n=1; while [ $n = 1 ]; do n=0; " \
	"for f in /proc/[0-9]*/stat; do read -r s 2>/dev/null <\"$f\" || continue; " \
	"set -- ${s##*) }; p=${f#/proc/}; p=${p%/stat}; " \
	"case \"$l\" in *\" $2 \"*) case \"$l\" in *\" $p \"*) ;; *) l=\"$l$p \"; n=1;; esac;; esac; " \
	"done; done; echo $l; }; "

const char SSH_WRAP_KILL_SCRIPT[] =
	KILL_TREE_FN
	"w() { i=0; while [ $i -lt 10 ] && kill -0 $1 2>/dev/null; do "
	"sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); done; }; "
	"if kill -TERM -$P 2>/dev/null; then w -$P; kill -KILL -$P 2>/dev/null; "
	"else L=$(d); kill -TERM $L 2>/dev/null; sleep 1; kill -KILL $L 2>/dev/null; fi";

const char SSH_WRAP_KILL_NOW_SCRIPT[] =
	KILL_TREE_FN
	"kill -KILL -$P 2>/dev/null || kill -KILL $(d) 2>/dev/null; :";

/* No process is started before the command's own shell: the group check
 * reads /proc/$$/stat with the shell's `read` (field 3 after "comm) " is
 * the pgrp), and a wrapper shell that is /bin/sh runs the command itself
 * with eval instead of exec'ing another /bin/sh. Each fork or exec saved
 * is about a millisecond of a small board's CPU, on every command. */
/* "exec 7>&1; trap '...' EXIT; ": as the wrapper shell exits (also by
 * `exit` in the command), it stops what the command left running and
 * prints the reap line (transport/reap.h) on the channel's stdout, saved as
 * fd 7 before the command could redirect it; not when fd 7 was taken over
 * by the command (no longer a pipe or socket): orch then asks again with a
 * second command. */
static void put_reap_trap(struct strbuf *sb, const char *token, bool grace)
{
	char *script = reap_script(token, "$$", grace);
	char *body = xasprintf("orch_r=$?; trap - EXIT; if [ -p /proc/$$/fd/7 ] || "
			       "[ -S /proc/$$/fd/7 ]; then { %s; } >&7 2>/dev/null; fi; "
			       "exit $orch_r", script);
	strbuf_puts(sb, "exec 7>&1; trap ");
	strbuf_shquote(sb, body);
	strbuf_puts(sb, " EXIT; ");
	free(body);
	free(script);
}

char *ssh_wrap_command(const char *command, const char *reap_token, bool grace)
{
	struct strbuf inner = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	bool reap = reap_token && reap_token_ok(reap_token);
	strbuf_puts(&inner, "echo $$; ");
	if (reap)
		put_reap_trap(&inner, reap_token, grace);
	strbuf_puts(&inner, "eval ");
	strbuf_shquote(&inner, command);
	strbuf_puts(&out, "{ read -r s </proc/$$/stat; } 2>/dev/null; set -- ${s##*) }; "
		    "if [ \"${3:-$$}\" != \"$$\" ] && command -v setsid >/dev/null 2>&1; "
		    "then exec setsid /bin/sh -c ");
	strbuf_shquote(&out, strbuf_str(&inner));
	strbuf_puts(&out, "; fi; unset s; set --; echo $$; case ${0##*/} in sh) ");
	if (reap)
		put_reap_trap(&out, reap_token, grace);
	strbuf_puts(&out, "eval ");
	strbuf_shquote(&out, command);
	strbuf_puts(&out, "; exit;; esac; exec /bin/sh -c ");
	strbuf_shquote(&out, command);
	strbuf_release(&inner);
	return strbuf_detach(&out);
}
