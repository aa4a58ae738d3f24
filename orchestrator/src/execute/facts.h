#ifndef ORCH_EXECUTE_FACTS_H
#define ORCH_EXECUTE_FACTS_H
/*
 * Board facts: what a board says about itself, gathered once per run over
 * the connection its tests use, with one POSIX shell command (/proc, /sys
 * and /etc/os-release read by the shell's builtins; the libc from its file
 * name or glibc's loader, else getconf, the musl loader or ldd): kernel,
 * os, os_version, arch, cpu, cores, mhz,
 * bogomips, memory, libc, and of the board's work folder (its first
 * existing ancestor) the file system: workdir_fs (type), workdir_device and
 * workdir_model (the disk's model from sysfs); then the scenario's own `facts:` commands in the
 * same command, the first line of each one's output being its value. A
 * fact the board cannot tell is left out. Reports, junit and history read
 * them from the result model; nothing here decides a test's status.
 */
#include <stddef.h>

#include "config/model.h"
#include "result/result.h"
#include "link/board_link.h"

#define FACTS_TIMEOUT_MS 30000
#define FACTS_VALUE_MAX 200

/* The shell command that prints NAME=VALUE lines for a board whose work
 * folder is workdir (NULL: no workdir_* facts); caller frees. */
char *facts_command(const char *workdir, const struct fact_spec *extra, size_t n_extra);
/* The built-in facts as a prelude run in a command's own shell
 * (command_spec.prelude_inline): it leaves its NAME=VALUE lines in
 * $orch_o and nothing else behind (caller frees). */
char *facts_prelude(const char *workdir);
/* Reads NAME=VALUE lines into bf: only names asked for, the first value
 * of a name wins, values trimmed and cut to FACTS_VALUE_MAX bytes. */
void facts_parse(const char *output, const struct fact_spec *extra, size_t n_extra,
		 struct board_facts *bf);
/* Runs the command over t into bf (whose board is set). Returns 0, or -1
 * when the transport failed (err says why; the connection may be gone). A
 * command that timed out or failed still fills what it printed. */
int facts_gather(struct transport *t, const char *workdir, const struct fact_spec *extra,
		 size_t n_extra, struct board_facts *bf, char *err, size_t errlen);

#endif
