#ifndef ORCH_CONFIG_SELECTOR_H
#define ORCH_CONFIG_SELECTOR_H
/*
 * Board selectors (orch(1) -l): "NAME" (a board, or a group's boards),
 * "tag:TAG", "group:GROUP", "all", and "!" before any to exclude. NAME,
 * TAG and GROUP may be shell globs ("apu*", "tag:rb?"), NAME a node set
 * ("b[01-16]", util/nodeset.h: the boards and groups of its names that the
 * inventory has, at least one), and "a,b,!c" is the same as the three
 * selectors a, b, !c (a comma inside a node set's brackets stays). A list selects
 * the union of its positive selectors (all boards when there are only
 * exclusions) minus every exclusion.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/model.h"
#include "util/diag.h"

/* Whether sel has a selector's form (needs no inventory); if not, the
 * reason goes to err. */
bool selector_well_formed(const char *sel, char *err, size_t errlen);

/* Whether sel is well formed and names a board or tag of inv; if not, the
 * reason goes to err. */
bool selector_valid(const struct inventory *inv, const char *sel, char *err, size_t errlen);

/*
 * Marks selected[i] for every board i of inv that sels selects. When
 * limits (orch run -l) are given, the selection is further narrowed to the
 * boards the limits select (Ansible's --limit). Returns 0, or -1 with a
 * message in err for an invalid selector.
 */
/* The closest of candidates (NULL-ended) to word within a small edit
 * distance, or NULL: for did-you-mean on names and tags. */
const char *selector_suggest(const char *word, const char *const *candidates);

int selector_resolve(const struct inventory *inv,
		     const char *const *sels, size_t n_sels,
		     const char *const *limits, size_t n_limits,
		     bool *selected, char *err, size_t errlen);

#endif
