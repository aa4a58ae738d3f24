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
 * is `kill -0 -$$` (one system call: a process group with the shell's
 * own id exists only if the shell leads it; reading /proc/$$/stat took
 * 300 one-byte reads in dash), and a wrapper shell that is /bin/sh runs
 * the command itself with eval instead of exec'ing another /bin/sh. Each
 * fork or exec saved is about a millisecond of a small board's CPU, on
 * every command. */
/* The trap the wrapper shell sets when leftovers are reaped: as it exits
 * (also by `exit` in the command) it stops what the command left running
 * and prints the reap line (transport/reap.h) on the channel's stdout,
 * saved as fd 7 before the command could redirect it; not when fd 7 was
 * taken over by the command (no longer a pipe or socket): orch then asks
 * again with a second command. */
static char *reap_trap(const char *token, bool grace)
{
	char *script = reap_script(token, "$$", grace);
	char *body = xasprintf("orch_r=$?; trap - EXIT; if [ -p /proc/$$/fd/7 ] || "
			       "[ -S /proc/$$/fd/7 ]; then { %s; } >&7 2>/dev/null; fi; "
			       "exit $orch_r", script);
	free(script);
	return body;
}

/* The command and the trap are set once, in orch_c and orch_r, and used
 * from there by whichever way the command then runs (a command sent to
 * dropbear must stay under its length limit of about 9 KB); the command
 * unsets them before it runs. */
char *ssh_wrap_command(const char *command, const char *reap_token, bool grace)
{
	struct strbuf out = STRBUF_INIT;
	char *trap = reap_token && reap_token_ok(reap_token) ? reap_trap(reap_token, grace) : NULL;
	strbuf_puts(&out, "orch_c=");
	strbuf_shquote(&out, command);
	strbuf_puts(&out, "; orch_r=");
	strbuf_shquote(&out, trap ? trap : "");
	strbuf_puts(&out, "; if ! kill -0 -$$ 2>/dev/null && command -v setsid >/dev/null 2>&1; "
		    "then exec setsid /bin/sh -c 'echo $$; [ -n \"$1\" ] && "
		    "{ exec 7>&1; trap \"$1\" EXIT; }; eval \"set --; $2\"' sh \"$orch_r\" \"$orch_c\"; "
		    "fi; echo $$; case ${0##*/} in sh) [ -n \"$orch_r\" ] && "
		    "{ exec 7>&1; trap \"$orch_r\" EXIT; }; eval \"unset orch_c orch_r; $orch_c\"; "
		    "exit;; esac; exec /bin/sh -c \"$orch_c\"");
	free(trap);
	return strbuf_detach(&out);
}
