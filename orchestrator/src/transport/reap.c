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

char *reap_script(const char *token, const char *pgid_expr, bool grace)
{
	return xasprintf(
		"T=%s; P=%s; L=; C=; N=; "
		"if [ -r /proc/self/environ ]; then lp=0; "
		"{ read -r x x x x lp </proc/loadavg; } 2>/dev/null; "
		"if [ \"$P\" -gt 0 ] && [ \"${lp:-0}\" -ge \"$P\" ] 2>/dev/null; then "
		"for f in /proc/[0-9]*; do p=${f#/proc/}; "
		"[ \"$p\" -gt \"$P\" ] && [ \"$p\" != $$ ] && C=\"$C $f/environ\"; done; "
		"else C='/proc/[0-9]*/environ'; fi; "
		"[ -n \"$C\" ] && for f in $(unset ORCH_STEP_ID; grep -l \"ORCH_STEP_ID=$T\" $C "
		"2>/dev/null); do p=${f#/proc/}; p=${p%%/environ}; [ \"$p\" != $$ ] && L=\"$L $p\"; "
		"done; "
		"elif [ \"$P\" -gt 0 ] && kill -0 -$P 2>/dev/null; then L=-$P; fi; "
		"for p in $L; do n=; case $p in -*) n='(process group)';; "
		"*) { read -r n </proc/$p/comm; } 2>/dev/null;; esac; N=\"$N, $p $n\"; done; "
		"if [ -n \"$L\" ]; then if [ %d = 1 ]; then kill -TERM $L 2>/dev/null; i=0; "
		"while [ $i -lt 10 ]; do a=; for p in $L; do kill -0 $p 2>/dev/null && a=1; done; "
		"[ -z \"$a\" ] && break; sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); done; fi; "
		"kill -KILL $L 2>/dev/null; fi; printf '\\036orch-reap%%s\\036\\n' \"$N\"",
		token, pgid_expr, grace ? 1 : 0);
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
