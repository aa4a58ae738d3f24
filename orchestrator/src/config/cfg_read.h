#ifndef ORCH_CONFIG_CFG_READ_H
#define ORCH_CONFIG_CFG_READ_H
/*
 * Typed reads from a YAML tree with the error messages users see: each
 * reader checks one value, and on a problem adds "file:line:col: invalid
 * duration for 'timeout', found '5 minutes' (use 30s, 5m, 1h)" to the
 * diagnostics and carries on, so one pass reports everything. Private to
 * config/.
 *
 * Readers take the value node (NULL when the key is absent) and return 1
 * when they stored a value, 0 when the node was absent (out untouched),
 * -1 after reporting an error (out untouched).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"
#include "config/yaml_tree.h"
#include "util/diag.h"

struct cfg {
	const char *file;          /* for messages and src_pos (owned by the model) */
	struct diag_list *diags;
	size_t n_start;            /* diags->n when loading began */
};

void cfg_error(struct cfg *c, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Orders the errors reported since loading began by line:col (stable),
 * so they read top to bottom. */
void cfg_sort_errors(struct cfg *c);
/* Whether any error was reported since loading began. */
bool cfg_failed(const struct cfg *c);
struct src_pos cfg_pos(const struct cfg *c, const struct ynode *n);

/* What the user wrote, for "found X": "'5 minutes'", "a list", "a mapping",
 * "nothing". Long scalars are shortened. Writes into buf and returns it. */
const char *cfg_found(const struct ynode *n, char *buf, size_t len);

/* True if n is a mapping; else reports "WHAT must be a mapping, found X". */
bool cfg_want_map(struct cfg *c, const struct ynode *n, const char *what);
/* True if n is a list; else reports. */
bool cfg_want_seq(struct cfg *c, const struct ynode *n, const char *what);
/* Reports each key of map not in known (NULL-terminated) and not starting
 * with "x-" (extension keys: where YAML anchors are kept), with a
 * "did you mean" when one is close: "unknown key 'hots' in ssh (did you
 * mean 'host'?)". */
void cfg_check_keys(struct cfg *c, const struct ynode *map, const char *const *known,
		    const char *where);
/* The closest of candidates to word within a small edit distance, or NULL. */
const char *cfg_suggest(const char *word, const char *const *candidates);

int cfg_str(struct cfg *c, const struct ynode *n, const char *key, char **out);
int cfg_int(struct cfg *c, const struct ynode *n, const char *key, long min, long max, int *out);
int cfg_bool(struct cfg *c, const struct ynode *n, const char *key, bool *out);
int cfg_number(struct cfg *c, const struct ynode *n, const char *key, double *out);
/* A positive duration ("30s", "5m", "1h", bare seconds). */
int cfg_duration(struct cfg *c, const struct ynode *n, const char *key, int64_t *ms);
/* A size with units (64MiB) into *bytes; 1 when read, 0 when n is NULL, -1 on error. */
int cfg_size(struct cfg *c, const struct ynode *n, const char *key, uint64_t *bytes);
/* One of names (NULL-terminated); *out is its index. */
int cfg_enum(struct cfg *c, const struct ynode *n, const char *key, const char *const *names,
	     int *out);
/* A list of strings, or one string taken as a list of one. *pos (may be
 * NULL) gets each item's place. Replaces (and frees) what *out held. */
int cfg_str_list(struct cfg *c, const struct ynode *n, const char *key, char ***out, size_t *n_out,
		 struct src_pos **pos);
/* A compiled regular expression; the error names the pattern and reason. */
int cfg_regex(struct cfg *c, const struct ynode *n, const char *key, char **src,
	      struct orch_regex *rx);

/* vars: or env: -- a mapping of NAME ([A-Za-z_][A-Za-z0-9_]*) to a
 * scalar; each entry replaces one of the same name in *out or is added.
 * test_level marks the added entries. */
int cfg_vars(struct cfg *c, const struct ynode *n, const char *key, bool test_level,
	     struct var **out, size_t *n_out);
void cfg_vars_copy(struct var **out, size_t *n_out, const struct var *src, size_t n);
void cfg_vars_free(struct var *v, size_t n);
/* The entry called name, or NULL. */
const struct var *cfg_var_find(const struct var *v, size_t n, const char *name);
/* facts: and label: of a scenario (scenario_facts.c), and their release. */
void scenario_read_facts(struct cfg *c, const struct ynode *root, struct scenario *sc);
void scenario_facts_release(struct scenario *sc);

/* [A-Za-z0-9._-]+ and not starting with '.' */
bool cfg_safe_name(const char *s);
void cfg_strv_free(char **v, size_t n);

/* ciphers: or macs: (ssh_algos.c): "a,b,c" or a list, each a name libssh
 * offers (else an error naming the ones it does, with a did-you-mean);
 * *out becomes one comma-separated string, first preferred. */
enum cfg_ssh_algo { CFG_SSH_CIPHERS = 0, CFG_SSH_MACS };
void cfg_ssh_algos(struct cfg *c, const struct ynode *n, enum cfg_ssh_algo kind, char **out);

#endif
