#ifndef ORCH_UTIL_SECRET_H
#define ORCH_UTIL_SECRET_H
/*
 * Secrets orch is given through its environment (an inventory's
 * password_env): taken out of the environment as soon as their names are
 * known, so no child (a local board's test, a power command) inherits them
 * and /proc/PID/environ no longer shows them; kept in one table until
 * secret_wipe_all zeroes them; and cut out of any text a person or a
 * report will read. The process is made non-dumpable with no core file
 * size, so a crash leaves no core holding them; children get the core
 * limit back.
 */
#include <stddef.h>

/* Makes this process produce no core dump (RLIMIT_CORE 0, not dumpable),
 * remembering the core limit for secret_child_restore. Call first thing. */
void secret_protect_process(void);
/* In a forked child before exec: the core limit orch was started with. */
void secret_child_restore(void);

/* Moves environment variable name into the table (its bytes in the
 * environment are zeroed, then it is unset). Taking a name twice, or one
 * that is not set, is fine. */
void secret_take(const char *name);
/* The value taken for name, or NULL when it was not set; borrowed until
 * secret_wipe_all. */
const char *secret_get(const char *name);
/* Adds value to the secrets cut out of text, without touching the
 * environment (a value a library still needs there, such as PGPASSWORD). */
void secret_known(const char *value);
/* The password of a URL's user part ("postgresql://u:PASSWORD@host/db"),
 * when it has one, as secret_known. */
void secret_known_url(const char *url);
/* Zeroes and frees every secret. */
void secret_wipe_all(void);

/*
 * Cuts text that may hold a secret, in place: every secret value taken is
 * replaced by "***", and a line holding a password prompt ("Password:",
 * "passphrase for ...:") ends after the prompt, since a console that echoes
 * shows the answer there.
 */
void secret_redact(char *text);
/* Only the first half of secret_redact: every secret value becomes "***"
 * (for orch's own messages, where a word like "password:" is no prompt). */
void secret_mask(char *text);

#endif
