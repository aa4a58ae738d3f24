#include "execute/facts.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* POSIX sh and the tools busybox has; stderr is dropped (a missing file or
 * tool just leaves its fact out). The first value printed for a name wins.
 * Every board runs this once per run, 64 at a time on a rack, and in a
 * board's small shell each read(2), write(2), fork and exec counts:
 *   - files are read with the shell's own `read` (one read(2) per byte in
 *     dash and busybox ash) and cut with parameter expansion, each only as
 *     far as its facts go: os-release to NAME and VERSION, cpuinfo to the
 *     end of its first block once it has a model and bogomips (x86 has
 *     them all before then; Hardware, at the end on ARM, only counts
 *     without a model);
 *   - the lines are collected and written at once (each write is a wake-up
 *     and a packet of the board's sshd), before the first program starts;
 *   - the libc: glibc before 2.34 from its file name (libc-2.31.so, in
 *     /lib or /lib64; a multiarch folder is too big to list), else glibc's
 *     own loader asked for its version (one small program, where getconf
 *     links the whole libc); getconf, the musl loader and ldd only when
 *     that gives nothing (glibc before 2.33, whose loader has no --version,
 *     in a multiarch folder: one program more than before).
 * uname is the fallback for kernels without /proc/sys/kernel/arch. */
static const char facts_builtin_script[] =
	"exec 2>/dev/null </dev/null\n"
	"r=\n"
	"p() { r=\"$r$1\n\"; }\n"
	"if read -r v </proc/sys/kernel/osrelease; then p \"kernel=$v\"; else p \"kernel=$(uname -r)\"; fi\n"
	"if read -r v </proc/sys/kernel/arch; then p \"arch=$v\"; else p \"arch=$(uname -m)\"; fi\n"
	"q() { while :; do case $v in *[\\\"\\']*) v=${v%%[\\\"\\']*}${v#*[\\\"\\']};; *) break;; esac; done; }\n"
	"if [ -r /etc/os-release ]; then\n"
	"  n= o= i=\n"
	"  while IFS== read -r k v; do case $k in NAME) q; n=$v;; VERSION) q; o=$v;; VERSION_ID) q; i=$v;; esac\n"
	"    [ -n \"$n\" ] && [ -n \"$o\" ] && break; done </etc/os-release\n"
	"  [ -n \"$n\" ] && p \"os=$n\"; [ -z \"$o\" ] && o=$i; [ -n \"$o\" ] && p \"os_version=$o\"\n"
	"fi\n"
	"c=\n"
	"if read -r v </sys/devices/system/cpu/online && [ -n \"$v\" ]; then\n"
	"  c=0; f=$IFS; IFS=,; for r2 in $v; do case $r2 in *-*) c=$((c + ${r2#*-} - ${r2%-*} + 1));; *) c=$((c + 1));; esac; done; IFS=$f\n"
	"  p \"cores=$c\"\n"
	"fi\n"
	"if [ -r /proc/cpuinfo ]; then\n"
	"  m= h= z= b= n=0\n"
	"  while IFS= read -r l; do\n"
	"    case $l in *:*) ;; '') [ -n \"$c\" ] && [ -n \"$m\" ] && [ -n \"$b\" ] && break; continue;; *) continue;; esac\n"
	"    k=${l%%:*}; v=${l#*:}\n"
	"    while :; do case $k in *[\\ \\\t]) k=${k%?};; *) break;; esac; done\n"
	"    while :; do case $v in [\\ \\\t]*) v=${v#?};; *) break;; esac; done\n"
	"    case $k in\n"
	"    \"model name\"|Processor|\"cpu model\"|cpu) [ -z \"$m\" ] && m=$v;;\n"
	"    [Hh]ardware) [ -z \"$h\" ] && h=$v;;\n"
	"    \"cpu MHz\") [ -z \"$z\" ] && z=$v;;\n"
	"    [Bb]ogo[Mm][Ii][Pp][Ss]) [ -z \"$b\" ] && b=$v;;\n"
	"    processor) n=$((n + 1));;\n"
	"    esac\n"
	"    [ -n \"$c\" ] && [ -n \"$m\" ] && [ -n \"$z\" ] && [ -n \"$b\" ] && break\n"
	"  done </proc/cpuinfo\n"
	"  [ -z \"$m\" ] && m=$h; [ -n \"$m\" ] && p \"cpu=$m\"; [ -n \"$z\" ] && p \"mhz=$z\"\n"
	"  [ -n \"$b\" ] && p \"bogomips=$b\"; [ -z \"$c\" ] && [ \"$n\" -gt 0 ] && p \"cores=$n\"\n"
	"fi\n"
	"[ -r /proc/meminfo ] && while read -r k v u; do [ \"$k\" = MemTotal: ] && { p \"memory=$((v / 1024)) MiB\"; break; }; done </proc/meminfo\n"
	"v=; for l in /lib/libc-[0-9]*.so /lib64/libc-[0-9]*.so; do [ -e \"$l\" ] && v=${l##*/libc-} && v=${v%.so} && break; done\n"
	"[ -n \"$v\" ] && p \"libc=glibc $v\"\n"
	"printf %s \"$r\"\n"
	"if [ -z \"$v\" ]; then\n"
	"  for l in /lib64/ld-linux*.so.[0-9] /lib/ld-linux*.so.[0-9] /lib/ld.so.1 /lib64/ld64.so.[12] /lib/ld64.so.1 /lib64/ld.so.1 /lib32/ld.so.1 /libx32/ld-linux*.so.[0-9]; do\n"
	"    [ -x \"$l\" ] || continue; v=$(\"$l\" --version)\n"
	"    case $v in *\"release version \"[0-9]*) v=${v#*release version }; v=${v%%[!0-9A-Za-z._+-]*}; v=${v%.}; break;; esac; v=\n"
	"  done\n"
	"  if [ -n \"$v\" ]; then echo \"libc=glibc $v\"\n"
	"  elif v=$(getconf GNU_LIBC_VERSION) && [ -n \"$v\" ]; then echo \"libc=$v\"\n"
	"  else\n"
	"    u=; for l in /lib/ld-musl-*; do [ -e \"$l\" ] && u=$l && break; done\n"
	"    w=; for l in /lib/ld-uClibc* /lib/libuClibc-*; do [ -e \"$l\" ] && w=$l && break; done\n"
	"    if [ -n \"$u\" ]; then\n"
	"      v=$(\"$u\" 2>&1); case $v in *\"Version \"*) v=${v#*Version }; v=${v%%[!0-9A-Za-z._+-]*};; *) v=;; esac\n"
	"      echo \"libc=musl${v:+ $v}\"\n"
	"    elif [ -n \"$w\" ]; then echo \"libc=uClibc\"\n"
	"    elif command -v ldd >/dev/null; then echo \"libc=$(ldd --version 2>&1 | head -n 1)\"\n"
	"    fi\n"
	"  fi\n"
	"fi\n";

char *facts_command(const struct fact_spec *extra, size_t n_extra)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, facts_builtin_script);
	for (size_t i = 0; i < n_extra; i++)
		strbuf_printf(&sb, "v=$( (\n%s\n) | head -n 1); printf '%%s=%%s\\n' '%s' \"$v\"\n",
			      extra[i].command, extra[i].name);
	strbuf_puts(&sb, "exit 0\n");
	return strbuf_detach(&sb);
}

static bool facts_wanted(const char *name, const struct fact_spec *extra, size_t n_extra)
{
	for (size_t i = 0; scenario_builtin_facts[i]; i++)
		if (strcmp(scenario_builtin_facts[i], name) == 0)
			return true;
	for (size_t i = 0; i < n_extra; i++)
		if (strcmp(extra[i].name, name) == 0)
			return true;
	return false;
}

static char *facts_trim(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (len > FACTS_VALUE_MAX)
		len = FACTS_VALUE_MAX;
	return xstrndup(s, len);
}

void facts_parse(const char *output, const struct fact_spec *extra, size_t n_extra,
		 struct board_facts *bf)
{
	const char *line = output;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *eq = memchr(line, '=', len);
		if (eq) {
			char *name = xstrndup(line, (size_t)(eq - line));
			char *value = facts_trim(eq + 1, len - (size_t)(eq + 1 - line));
			if (*value && facts_wanted(name, extra, n_extra) && !board_facts_get(bf, name))
				board_facts_set(bf, name, value);
			free(name);
			free(value);
		}
		line = nl ? nl + 1 : NULL;
	}
}

int facts_gather(struct transport *t, const struct fact_spec *extra, size_t n_extra,
		 struct board_facts *bf, char *err, size_t errlen)
{
	char *cmd = facts_command(extra, n_extra);
	char *out = NULL;
	int code = -1;
	int rc = transport_capture(t, cmd, FACTS_TIMEOUT_MS, 64 * 1024, &out, &code, err, errlen);
	if (out)
		facts_parse(out, extra, n_extra, bf);
	free(out);
	free(cmd);
	return rc < 0 ? -1 : 0;
}
