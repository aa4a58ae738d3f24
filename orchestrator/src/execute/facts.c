#include "execute/facts.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* POSIX sh and the tools busybox has. The first value printed for a name
 * wins. Every board runs this once per run, 64 at a time on a rack, and in
 * a board's small shell each read(2), write(2), fork and exec counts:
 *   - it runs in the shell that runs the board's first test command
 *     (facts_prelude: no subshell of its own), so it leaves that shell as
 *     it found it: its variables (orch_f*) and functions unset again, no
 *     exec, no exit, IFS set only for one `read`, arithmetic only on
 *     digits (an expansion error would end the shell); its lines are
 *     collected in $orch_o, for the caller to write at once (each write
 *     is a wake-up and a packet of the board's sshd);
 *   - files are read with the shell's own `read` (one read(2) per byte in
 *     dash and busybox ash) and cut with parameter expansion, each only as
 *     far as its facts go: os-release to NAME and VERSION, cpuinfo to the
 *     end of its first block once it has a model and bogomips (x86 has
 *     them all before then; Hardware, at the end on ARM, only counts
 *     without a model);
 *   - the libc: glibc before 2.34 from its file name (libc-2.31.so, in
 *     /lib or /lib64; a multiarch folder is too big to list), else glibc's
 *     own loader asked for its version (one small program, where getconf
 *     links the whole libc; the loader's folders listed one at a time,
 *     until one has it); getconf, the musl loader and ldd only when that
 *     gives nothing (glibc before 2.33, whose loader has no --version, in a
 *     multiarch folder: one program more than before).
 * uname is the fallback for kernels without /proc/sys/kernel/arch. */
static const char facts_builtin_script[] =
	"orch_o=\n"
	"orch_fp() { orch_o=\"$orch_o$1\n"
	"\"; }\n"
	"if read -r orch_fv </proc/sys/kernel/osrelease; then orch_fp \"kernel=$orch_fv\"; else orch_fp \"kernel=$(uname -r)\"; fi\n"
	"if read -r orch_fv </proc/sys/kernel/arch; then orch_fp \"arch=$orch_fv\"; else orch_fp \"arch=$(uname -m)\"; fi\n"
	"orch_fq() { while :; do case $orch_fv in *[\\\"\\']*) orch_fv=${orch_fv%%[\\\"\\']*}${orch_fv#*[\\\"\\']};; *) break;; esac; done; }\n"
	"if [ -r /etc/os-release ]; then\n"
	"  orch_fn= orch_fo= orch_fi=\n"
	"  while IFS== read -r orch_fk orch_fv; do case $orch_fk in NAME) orch_fq; orch_fn=$orch_fv;; VERSION) orch_fq; orch_fo=$orch_fv;; VERSION_ID) orch_fq; orch_fi=$orch_fv;; esac\n"
	"    [ -n \"$orch_fn\" ] && [ -n \"$orch_fo\" ] && break; done </etc/os-release\n"
	"  [ -n \"$orch_fn\" ] && orch_fp \"os=$orch_fn\"; [ -z \"$orch_fo\" ] && orch_fo=$orch_fi; [ -n \"$orch_fo\" ] && orch_fp \"os_version=$orch_fo\"\n"
	"fi\n"
	"orch_fc=\n"
	"if read -r orch_fv </sys/devices/system/cpu/online && [ -n \"$orch_fv\" ]; then\n"
	"  orch_fc=0\n"
	"  while [ -n \"$orch_fv\" ]; do\n"
	"    orch_fr=${orch_fv%%,*}; case $orch_fv in *,*) orch_fv=${orch_fv#*,};; *) orch_fv=;; esac\n"
	"    case $orch_fr in [0-9]*-*[0-9]) orch_fn=${orch_fr#*-}; orch_fr=${orch_fr%-*};; *) orch_fn=$orch_fr;; esac\n"
	"    case $orch_fr$orch_fn in ''|*[!0-9]*) orch_fc=; break;; esac\n"
	"    orch_fc=$((orch_fc + orch_fn - orch_fr + 1))\n"
	"  done\n"
	"  [ -n \"$orch_fc\" ] && orch_fp \"cores=$orch_fc\"\n"
	"fi\n"
	"if [ -r /proc/cpuinfo ]; then\n"
	"  orch_fm= orch_fh= orch_fz= orch_fb= orch_fn=0\n"
	"  while IFS= read -r orch_fl; do\n"
	"    case $orch_fl in *:*) ;; '') [ -n \"$orch_fc\" ] && [ -n \"$orch_fm\" ] && [ -n \"$orch_fb\" ] && break; continue;; *) continue;; esac\n"
	"    orch_fk=${orch_fl%%:*}; orch_fv=${orch_fl#*:}\n"
	"    while :; do case $orch_fk in *[\\ \\\t]) orch_fk=${orch_fk%?};; *) break;; esac; done\n"
	"    while :; do case $orch_fv in [\\ \\\t]*) orch_fv=${orch_fv#?};; *) break;; esac; done\n"
	"    case $orch_fk in\n"
	"    \"model name\"|Processor|\"cpu model\"|cpu) [ -z \"$orch_fm\" ] && orch_fm=$orch_fv;;\n"
	"    [Hh]ardware) [ -z \"$orch_fh\" ] && orch_fh=$orch_fv;;\n"
	"    \"cpu MHz\") [ -z \"$orch_fz\" ] && orch_fz=$orch_fv;;\n"
	"    [Bb]ogo[Mm][Ii][Pp][Ss]) [ -z \"$orch_fb\" ] && orch_fb=$orch_fv;;\n"
	"    processor) orch_fn=$((orch_fn + 1));;\n"
	"    esac\n"
	"    [ -n \"$orch_fc\" ] && [ -n \"$orch_fm\" ] && [ -n \"$orch_fz\" ] && [ -n \"$orch_fb\" ] && break\n"
	"  done </proc/cpuinfo\n"
	"  [ -z \"$orch_fm\" ] && orch_fm=$orch_fh; [ -n \"$orch_fm\" ] && orch_fp \"cpu=$orch_fm\"; [ -n \"$orch_fz\" ] && orch_fp \"mhz=$orch_fz\"\n"
	"  [ -n \"$orch_fb\" ] && orch_fp \"bogomips=$orch_fb\"; [ -z \"$orch_fc\" ] && [ \"$orch_fn\" -gt 0 ] && orch_fp \"cores=$orch_fn\"\n"
	"fi\n"
	"[ -r /proc/meminfo ] && while read -r orch_fk orch_fv orch_fl; do [ \"$orch_fk\" = MemTotal: ] && { case $orch_fv in ''|*[!0-9]*) ;; *) orch_fp \"memory=$((orch_fv / 1024)) MiB\";; esac; break; }; done </proc/meminfo\n";

/* The work folder's file system, after "orch_fw=FOLDER" (its first
 * existing ancestor where it is not made yet): the mount with the longest
 * mount point above it in /proc/mounts gives workdir_fs and
 * workdir_device, and a /dev device's sysfs model (the disk's, for a
 * partition) workdir_model. Only files the shell can read are opened, so
 * nothing reaches stderr. */
static const char facts_workdir_script[] =
	"case $orch_fw in /*) ;; *) orch_fw=$PWD/$orch_fw;; esac\n"
	"while [ ! -e \"$orch_fw\" ]; do orch_fw=${orch_fw%/*}; [ -z \"$orch_fw\" ] && orch_fw=/; done\n"
	"orch_fl=-1 orch_fd= orch_ft=\n"
	"[ -r /proc/mounts ] && while read -r orch_fk orch_fm orch_fv orch_fr; do\n"
	"  case $orch_fw in \"$orch_fm\"|\"${orch_fm%/}\"/*) [ ${#orch_fm} -gt $orch_fl ] && orch_fl=${#orch_fm} && orch_fd=$orch_fk && orch_ft=$orch_fv;; esac\n"
	"done </proc/mounts\n"
	"[ -n \"$orch_ft\" ] && orch_fp \"workdir_fs=$orch_ft\"; [ -n \"$orch_fd\" ] && orch_fp \"workdir_device=$orch_fd\"\n"
	"case $orch_fd in /dev/?*) orch_fk=/sys/class/block/${orch_fd##*/}\n"
	"  for orch_fm in \"$orch_fk/device/model\" \"$orch_fk/../device/model\"; do\n"
	"    [ -r \"$orch_fm\" ] && read -r orch_fv <\"$orch_fm\" && [ -n \"$orch_fv\" ] && { orch_fp \"workdir_model=$orch_fv\"; break; }\n"
	"  done;;\n"
	"esac\n"
	"unset orch_fw orch_fd orch_ft\n";

/* The libc part (a string of its own: C limits a literal's length). */
static const char facts_libc_script[] =
	"orch_fv=; for orch_fl in /lib/libc-[0-9]*.so /lib64/libc-[0-9]*.so; do [ -e \"$orch_fl\" ] && orch_fv=${orch_fl##*/libc-} && orch_fv=${orch_fv%.so} && break; done\n"
	"if [ -n \"$orch_fv\" ]; then orch_fp \"libc=glibc $orch_fv\"\n"
	"else\n"
	"  for orch_fk in '/lib64/ld-linux*.so.[0-9]' '/lib/ld-linux*.so.[0-9]' /lib/ld.so.1 '/lib64/ld64.so.[12]' /lib/ld64.so.1 /lib64/ld.so.1 /lib32/ld.so.1 '/libx32/ld-linux*.so.[0-9]'; do\n"
	"    for orch_fl in $orch_fk; do\n"
	"      [ -x \"$orch_fl\" ] || continue; orch_fv=$(\"$orch_fl\" --version)\n"
	"      case $orch_fv in *\"release version \"[0-9]*) orch_fv=${orch_fv#*release version }; orch_fv=${orch_fv%%[!0-9A-Za-z._+-]*}; orch_fv=${orch_fv%.}; break 2;; esac; orch_fv=\n"
	"    done\n"
	"  done\n"
	"  if [ -n \"$orch_fv\" ]; then orch_fp \"libc=glibc $orch_fv\"\n"
	"  elif orch_fv=$(getconf GNU_LIBC_VERSION) && [ -n \"$orch_fv\" ]; then orch_fp \"libc=$orch_fv\"\n"
	"  else\n"
	"    orch_fm=; for orch_fl in /lib/ld-musl-*; do [ -e \"$orch_fl\" ] && orch_fm=$orch_fl && break; done\n"
	"    orch_fh=; for orch_fl in /lib/ld-uClibc* /lib/libuClibc-*; do [ -e \"$orch_fl\" ] && orch_fh=$orch_fl && break; done\n"
	"    if [ -n \"$orch_fm\" ]; then\n"
	"      orch_fv=$(\"$orch_fm\" 2>&1); case $orch_fv in *\"Version \"*) orch_fv=${orch_fv#*Version }; orch_fv=${orch_fv%%[!0-9A-Za-z._+-]*};; *) orch_fv=;; esac\n"
	"      orch_fp \"libc=musl${orch_fv:+ $orch_fv}\"\n"
	"    elif [ -n \"$orch_fh\" ]; then orch_fp \"libc=uClibc\"\n"
	"    elif command -v ldd >/dev/null; then orch_fp \"libc=$(ldd --version 2>&1 | head -n 1)\"\n"
	"    fi\n"
	"  fi\n"
	"fi\n"
	"unset -f orch_fp orch_fq; unset orch_fv orch_fk orch_fn orch_fo orch_fi orch_fc orch_fr orch_fm orch_fh orch_fz orch_fb orch_fl\n";

/* The built-in facts' script for a board whose work folder is workdir
 * (NULL: no work folder facts). */
static void facts_script(struct strbuf *sb, const char *workdir)
{
	strbuf_puts(sb, facts_builtin_script);
	if (workdir) {
		strbuf_puts(sb, "orch_fw=");
		strbuf_shquote(sb, workdir);
		strbuf_puts(sb, "\n");
		strbuf_puts(sb, facts_workdir_script);
	}
	strbuf_puts(sb, facts_libc_script);
}

char *facts_prelude(const char *workdir)
{
	struct strbuf sb = STRBUF_INIT;
	facts_script(&sb, workdir);
	return strbuf_detach(&sb);
}

/* On its own (stderr dropped: a missing file or tool just leaves its fact
 * out), the built-in facts' lines written before the scenario's commands
 * start. */
char *facts_command(const char *workdir, const struct fact_spec *extra, size_t n_extra)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "exec 2>/dev/null </dev/null\n");
	facts_script(&sb, workdir);
	strbuf_puts(&sb, "printf %s \"$orch_o\"\n");
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

int facts_gather(struct transport *t, const char *workdir, const struct fact_spec *extra,
		 size_t n_extra, struct board_facts *bf, char *err, size_t errlen)
{
	char *cmd = facts_command(workdir, extra, n_extra);
	char *out = NULL;
	int code = -1;
	int rc = transport_capture(t, cmd, FACTS_TIMEOUT_MS, 64 * 1024, &out, &code, err, errlen);
	if (out)
		facts_parse(out, extra, n_extra, bf);
	free(out);
	free(cmd);
	return rc < 0 ? -1 : 0;
}
