#include "execute/facts.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* POSIX sh and the tools busybox has; stderr is dropped (a missing file or
 * tool just leaves its fact out). The first value printed for a name wins. */
static const char facts_builtin_script[] =
	"exec 2>/dev/null </dev/null\n"
	"echo \"kernel=$(uname -r)\"\n"
	"echo \"arch=$(uname -m)\"\n"
	"[ -r /etc/os-release ] && awk -F= '$1==\"NAME\"{n=$2} $1==\"VERSION\"{v=$2} "
	"$1==\"VERSION_ID\"{i=$2} END{if(n!=\"\")print \"os=\" n; if(v==\"\")v=i; "
	"if(v!=\"\")print \"os_version=\" v}' /etc/os-release | tr -d \"\\\"'\"\n"
	"c=$(getconf _NPROCESSORS_ONLN) && [ -n \"$c\" ] && echo \"cores=$c\"\n"
	"[ -r /proc/cpuinfo ] && awk -F': *' "
	"'/^(model name|Processor|cpu model|cpu)[ \\t]*:/ && m==\"\" {m=$2} "
	"/^[Hh]ardware[ \\t]*:/ && h==\"\" {h=$2} /^cpu MHz[ \\t]*:/ && z==\"\" {z=$2} "
	"/^[Bb]ogo[Mm][Ii][Pp][Ss][ \\t]*:/ && b==\"\" {b=$2} /^processor[ \\t]*:/ {n++} "
	"END {if(m==\"\")m=h; if(m!=\"\")print \"cpu=\" m; if(z!=\"\")print \"mhz=\" z; "
	"if(b!=\"\")print \"bogomips=\" b; if(n)print \"cores=\" n}' /proc/cpuinfo\n"
	"[ -r /proc/meminfo ] && awk '/^MemTotal:/ {printf \"memory=%d MiB\\n\", $2/1024}' /proc/meminfo\n"
	"if v=$(getconf GNU_LIBC_VERSION) && [ -n \"$v\" ]; then echo \"libc=$v\"\n"
	"elif ls /lib/ld-musl-* >/dev/null; then\n"
	"  v=$(for l in /lib/ld-musl-*; do \"$l\"; done 2>&1 | awk '/^Version/ {print $2; exit}')\n"
	"  echo \"libc=musl${v:+ $v}\"\n"
	"elif ls /lib/ld-uClibc* /lib/libuClibc-* >/dev/null; then echo \"libc=uClibc\"\n"
	"elif command -v ldd >/dev/null; then echo \"libc=$(ldd --version 2>&1 | head -n 1)\"\n"
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
