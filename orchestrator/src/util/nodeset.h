#ifndef ORCH_UTIL_NODESET_H
#define ORCH_UTIL_NODESET_H
/*
 * Node sets: many board names written as one, in ClusterShell's notation
 * (clush, pdsh): "b[01-16]" is b01..b16, "b[1-3,7]" is b1 b2 b3 b7,
 * "r[1-2]b[1-2]" is r1b1 r1b2 r2b1 r2b2, and "b[1-3],sw1" is a list. Folding
 * is the way back: names that differ only in their last number become one
 * range ("b01 b02 b03 b07" -> "b[01-03,07]"), zero padding kept. Every list
 * of boards orch prints is folded and in natural order (nodeset_cmp: b2
 * before b10), so a rack of 256 boards reads as one line.
 */
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* Natural order: runs of digits compare as numbers ("b2" < "b10"), the
 * rest byte by byte; equal numbers with more leading zeros sort later, so
 * the order is total. <0, 0, >0 as strcmp. */
int nodeset_cmp(const char *a, const char *b);
/* qsort comparator over an array of const char *. */
int nodeset_qsort_cmp(const void *a, const void *b);
/* Sorts names[0..n) in natural order. */
void nodeset_sort(const char **names, size_t n);

/* The most names one node set may expand to: a typo such as b[1-999999999]
 * is refused instead of filling memory. */
#define NODESET_MAX_NAMES 100000

/* Whether s uses the notation (has a "[digits...]" bracket), as opposed to
 * a plain name or a glob class such as "rb[ab]". */
bool nodeset_is_pattern(const char *s);
/*
 * Expands the node set s into names (a NULL-ended array the caller frees
 * with nodeset_names_free; *n set), in the order written. Returns 0, or -1
 * with the reason in err ("range 5-2 goes down in 'b[5-2]'").
 */
int nodeset_expand(const char *s, char ***names, size_t *n, char *err, size_t errlen);
void nodeset_names_free(char **names);

/* Splits s at the commas that stand outside brackets ("b[1,2],c" -> "b[1,2]"
 * and "c"): a list of selectors where each may be a node set. NULL-ended,
 * free with nodeset_names_free; *n set. */
char **nodeset_split_list(const char *s, size_t *n);

/* Appends names[0..n) folded ("b[01-03,07],sw1"), in natural order; a
 * name given twice counts once. Appends nothing for n == 0. */
void nodeset_fold(struct strbuf *out, const char *const *names, size_t n);
/* nodeset_fold into a new string (caller frees). */
char *nodeset_fold_str(const char *const *names, size_t n);

#endif
