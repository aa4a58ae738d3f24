#include "transport/reap.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool reap_token_ok(const char *id)
{
	if (!id || !*id)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return false;
	return true;
}

/* PPid of /proc/$a (its status file: about 80 one-byte reads in dash,
 * against 300 for the stat line) into q, empty when it is gone. */
#define REAP_PPID \
	"q=; { while read -r k v; do case $k in PPid:) q=$v; break;; esac; done " \
	"</proc/$a/status; } 2>/dev/null; "

/* The walk from $a up to 1, each pid appended to X. */
#define REAP_WALK \
	"i=0; while [ \"$a\" -gt 0 ] && [ $i -lt 64 ]; do X=\"$X $a\"; [ \"$a\" = 1 ] && break; " \
	REAP_PPID "[ -n \"$q\" ] || break; a=$q; i=$((i+1)); done; "

/* X: P, or this shell when P is gone, and its ancestors up to 1; P and
 * A when A (P's parent and up, read once by a long-lived parent) is set. */
#define REAP_ANCESTORS \
	"X=; a=$P; if [ -r /proc/$a/status ] && [ -n \"$A\" ]; then X=\" $P $A\"; else " \
	"[ -r /proc/$a/status ] || a=$$; " REAP_WALK "fi; "

/* Start time (clock ticks since boot, /proc/$a/stat field 22) into t;
 * REAP_START_P: P's into u (0 when P is gone: nothing is then too old). */
#define REAP_START \
	"t=0; s=; { read -r s </proc/$a/stat; } 2>/dev/null; [ -n \"$s\" ] && st \"$s\"; "
#define REAP_START_P \
	"st() { set -- ${1##*) }; t=${20:-0}; }; a=$P; " REAP_START "u=$t; "

/* With /proc/PID/task/TID/children, only when some process newer than P
 * has an environ this user may read: P's children; the children of the
 * rest of X (an orphan is handed to the main thread of the nearest
 * subreaper above P, or of 1) that this user may read, with a pid above
 * P and, as pids wrap, started no earlier than P; then everything below
 * them, walked down over every thread. S holds the pids seen. */
#define REAP_TREE \
	"K=; for f in $Z; do a=${f#/proc/}; case $a in *[!0-9]*) continue;; esac; " \
	"[ \"$a\" -gt \"$P\" ] && [ \"$a\" -le \"$lp\" ] && [ \"$a\" != $$ ] && [ -r $f/environ ] " \
	"&& { K=1; break; }; done; if [ -n \"$K\" ]; then " \
	REAP_ANCESTORS \
	"D=; O=; for r in $X; do if [ \"$r\" = \"$P\" ]; then for f in /proc/$r/task/*/children; do " \
	"k=; { read -r k <$f; } 2>/dev/null; D=\"$D $k\"; done; else k=; " \
	"{ read -r k </proc/$r/task/$r/children; } 2>/dev/null; for c in $k; do " \
	"case \" $X $$ \" in *\" $c \"*) ;; *) [ \"$c\" -gt \"$P\" ] && [ \"$c\" -le \"$lp\" ] && [ -r /proc/$c/environ ] && " \
	"O=\"$O $c\";; esac; done; fi; done; if [ -n \"$O\" ]; then " \
	REAP_START_P "for a in $O; do " REAP_START "[ \"$t\" -ge \"$u\" ] && D=\"$D $a\"; done; fi; " \
	"S=' '; " \
	"while [ -n \"$D\" ]; do E=$D; D=; for c in $E; do case $S in *\" $c \"*) continue;; esac; " \
	"S=\"$S$c \"; [ -r /proc/$c/environ ] && C=\"$C /proc/$c/environ\"; " \
	"for f in /proc/$c/task/*/children; do k=; { read -r k <$f; } 2>/dev/null; D=\"$D $k\"; " \
	"done; done; done; fi; "

/* Without: W, "pid/ppid" of each live process in the window whose environ
 * this user may read; o: one of them has a parent outside the window
 * (not P, not 1), so X is read. Then the candidates are the closure: a process whose
 * parent is P or a candidate, or is in X or 1 and that started no earlier
 * than P. */
#define REAP_PPIDS \
	"W=; o=; for f in $Z; do a=${f#/proc/}; case $a in *[!0-9]*) continue;; esac; " \
	"[ \"$a\" -gt \"$P\" ] && [ \"$a\" -le \"$lp\" ] && [ \"$a\" != $$ ] && [ -r $f/environ ] || " \
	"continue; " \
	REAP_PPID "[ -n \"$q\" ] || continue; W=\"$W $a/$q\"; " \
	"case $q in \"$P\"|1) ;; *) { [ \"$q\" -gt \"$P\" ] && [ \"$q\" -le \"$lp\" ]; } || o=1;; " \
	"esac; done; X=; " \
	"[ -n \"$o\" ] && { " REAP_ANCESTORS "}; R=\" $P \"; Y=\" $X 1 \"; u=; " \
	"n=1; while [ $n = 1 ]; do n=0; w=; for e in $W; do a=${e%%/*}; case $R in " \
	"*\" ${e#*/} \"*) ;; *) case $Y in *\" ${e#*/} \"*) [ -n \"$u\" ] || { " REAP_START_P \
	"}; a=${e%%/*}; " REAP_START "[ \"$t\" -ge \"$u\" ] || continue;; *) w=\"$w $e\"; continue;; esac;; " \
	"esac; C=\"$C /proc/$a/environ\"; R=\"$R$a \"; n=1; done; W=$w; done; "

/* Z: a glob for the window's pids, so the shell's loops see only those
 * (the kernel's /proc holds every process): the digits P and lp share,
 * then one [0-9] per digit left; all pids when their lengths differ. */
#define REAP_GLOB \
	"Z=/proc/; c=$P; d=$lp; if [ ${#c} = ${#d} ]; then while [ -n \"$c\" ]; do " \
	"x=${c%%\"${c#?}\"}; [ \"$x\" = \"${d%%\"${d#?}\"}\" ] || break; Z=$Z$x; c=${c#?}; d=${d#?}; " \
	"done; while [ -n \"$c\" ]; do Z=\"$Z[0-9]\"; c=${c#?}; done; else Z='/proc/[0-9]*'; fi; "

#define REAP_WINDOW \
	REAP_GLOB "if [ -r /proc/$$/task/$$/children ]; then " REAP_TREE "else " REAP_PPIDS "fi; "

/* The walk of REAP_WALK in the shell that runs it, from $PPID (known
 * without a read), its variables named after var ("@" below). */
static const char ANCESTORS_WALK[] =
	"@=$$; @_x=${PPID:-0}; @_i=0; "
	"while [ \"$@_x\" -gt 1 ] && [ $@_i -lt 64 ]; do @=\"$@ $@_x\"; @_q=; "
	"{ while read -r @_k @_v; do case $@_k in PPid:) @_q=$@_v; break;; esac; done "
	"</proc/$@_x/status; } 2>/dev/null; [ -n \"$@_q\" ] || break; @_x=$@_q; "
	"@_i=$((@_i + 1)); done; [ \"$@_x\" = 1 ] && @=\"$@ 1\"; unset @_x @_q @_i @_k @_v";

char *reap_ancestors_script(const char *var)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = ANCESTORS_WALK; *p; p++) {
		if (*p == '@')
			strbuf_puts(&sb, var);
		else
			strbuf_putc(&sb, *p);
	}
	return strbuf_detach(&sb);
}

char *reap_script(const char *token, const char *pid_expr, bool grace)
{
	return reap_script_under(token, pid_expr, "", grace ? "1" : "0");
}

char *reap_script_under(const char *token, const char *pid_expr, const char *anc_expr,
			const char *grace_expr)
{
	char *quiet = reap_script_quiet(token, pid_expr, anc_expr, grace_expr);
	char *s = xasprintf("%s; printf '\\036orch-reap%%s\\036\\n' \"$N\"", quiet);
	free(quiet);
	return s;
}

char *reap_script_quiet(const char *token, const char *pid_expr, const char *anc_expr,
			const char *grace_expr)
{
	return xasprintf(
		"T=%s; P=%s; A=%s; g=%s; N=; M=' '; J=0; while [ $J -lt 3 ]; do J=$((J+1)); L=; C=; "
		"if [ -r /proc/self/environ ]; then lp=0; "
		"{ read -r x x x x lp </proc/loadavg; } 2>/dev/null; "
		"if [ \"$P\" -gt 0 ] && [ \"${lp:-0}\" -ge \"$P\" ] 2>/dev/null; then "
		REAP_WINDOW
		"else C='/proc/[0-9]*/environ'; fi; "
		"[ -n \"$C\" ] && for f in $(unset ORCH_STEP_ID; grep -l \"ORCH_STEP_ID=$T\" $C "
		"2>/dev/null); do p=${f#/proc/}; p=${p%%/environ}; case $M in *\" $p \"*) continue;; esac; "
		"[ \"$p\" != $$ ] && L=\"$L $p\"; done; "
		"elif [ $J = 1 ] && [ \"$P\" -gt 0 ] && kill -0 -$P 2>/dev/null; then L=-$P; fi; "
		"[ -n \"$L\" ] || break; "
		"for p in $L; do n=; case $p in -*) n='(process group)';; "
		"*) { read -r n </proc/$p/comm; } 2>/dev/null;; esac; N=\"$N, $p $n\"; M=\"$M$p \"; done; "
		"if [ \"$g\" = 1 ]; then kill -TERM $L 2>/dev/null; i=0; "
		"while [ $i -lt 10 ]; do a=; for p in $L; do kill -0 $p 2>/dev/null && a=1; done; "
		"[ -z \"$a\" ] && break; sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); done; fi; "
		"kill -KILL $L 2>/dev/null; done",
		token, pid_expr, anc_expr, grace_expr);
}

int reap_parse(const char *text, size_t len, struct transport_leftovers *out)
{
	memset(out, 0, sizeof(*out));
	const char *mark = REAP_MARK;
	size_t ml = strlen(mark);
	const char *p = text;
	const char *end = text + len;
	while ((p = memchr(p, '\036', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) >= ml && memcmp(p, mark, ml) == 0)
			break;
		p++;
	}
	if (!p)
		return -1;
	const char *body = p + ml;
	const char *close = memchr(body, '\036', (size_t)(end - body));
	if (!close)
		return -1;
	struct strbuf list = STRBUF_INIT;
	for (const char *q = body; q < close;) {
		if (q + 2 <= close && q[0] == ',' && q[1] == ' ') {
			q += 2;
			out->n++;
			if (list.len)
				strbuf_puts(&list, ", ");
			continue;
		}
		strbuf_putc(&list, *q++);
	}
	const char *s = strbuf_str(&list);
	if (strlen(s) >= sizeof(out->list))
		snprintf(out->list, sizeof(out->list), "%.*s...", (int)sizeof(out->list) - 4, s);
	else
		snprintf(out->list, sizeof(out->list), "%s", s);
	strbuf_release(&list);
	return 0;
}
