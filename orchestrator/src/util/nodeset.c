#include "util/nodeset.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- natural order ---------------------------------------------------- */

int nodeset_cmp(const char *a, const char *b)
{
	int zeros = 0;   /* the first difference in leading zeros: the tie-break */
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *za = a, *zb = b;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(a, b, la);
			if (c)
				return c;
			if (!zeros && (a - za) != (b - zb))
				zeros = (a - za) < (b - zb) ? -1 : 1;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return zeros;
}

int nodeset_qsort_cmp(const void *a, const void *b)
{
	return nodeset_cmp(*(const char *const *)a, *(const char *const *)b);
}

void nodeset_sort(const char **names, size_t n)
{
	if (n > 1)
		qsort(names, n, sizeof(*names), nodeset_qsort_cmp);
}

/* ---- expanding -------------------------------------------------------- */

/* Whether s[0..len) is a bracket body of the notation: "1-3,07,9". */
static bool range_body(const char *s, size_t len)
{
	bool digit = false;
	for (size_t i = 0; i < len; i++) {
		if (isdigit((unsigned char)s[i]))
			digit = true;
		else if ((s[i] == '-' || s[i] == ',') && digit)
			digit = false;
		else
			return false;
	}
	return digit;
}

bool nodeset_is_pattern(const char *s)
{
	for (const char *o = strchr(s, '['); o; o = strchr(o + 1, '[')) {
		const char *c = strchr(o, ']');
		if (c && range_body(o + 1, (size_t)(c - o - 1)))
			return true;
	}
	return false;
}

struct names {
	char **v;
	size_t n;
};

static void names_push(struct names *ns, char *s)
{
	ns->v = xrealloc(ns->v, (ns->n + 2) * sizeof(char *));
	ns->v[ns->n++] = s;
	ns->v[ns->n] = NULL;
}

static void names_clear(struct names *ns)
{
	nodeset_names_free(ns->v);
	ns->v = NULL;
	ns->n = 0;
}

/* One item of a bracket body, "07" or "1-3": its bounds and the width of
 * zero-padded numbers (0: no padding). */
static int read_range(const char *s, size_t len, unsigned long *lo, unsigned long *hi,
		      int *width, const char *whole, char *err, size_t errlen)
{
	const char *dash = memchr(s, '-', len);
	size_t l1 = dash ? (size_t)(dash - s) : len;
	char a[24] = "", b[24] = "";
	if (l1 > 18 || (dash && len - l1 - 1 > 18)) {
		snprintf(err, errlen, "number too long in '%s'", whole);
		return -1;
	}
	memcpy(a, s, l1);
	if (dash)
		memcpy(b, dash + 1, len - l1 - 1);
	*lo = strtoul(a, NULL, 10);
	*hi = dash ? strtoul(b, NULL, 10) : *lo;
	*width = a[0] == '0' && a[1] ? (int)strlen(a) : 0;
	if (*hi < *lo) {
		snprintf(err, errlen, "range %s-%s goes down in '%s'", a, b, whole);
		return -1;
	}
	return 0;
}

/* Every name of prefix x body x (the names of rest), appended to out. */
static int expand_bracket(const char *prefix, size_t plen, const char *body, size_t blen,
			  const struct names *rest, struct names *out, const char *whole,
			  char *err, size_t errlen)
{
	size_t i = 0;
	while (i < blen) {
		size_t j = i;
		while (j < blen && body[j] != ',')
			j++;
		unsigned long lo, hi;
		int width;
		if (read_range(body + i, j - i, &lo, &hi, &width, whole, err, errlen) < 0)
			return -1;
		if (hi - lo >= NODESET_MAX_NAMES ||
		    out->n + (hi - lo + 1) * rest->n > NODESET_MAX_NAMES) {
			snprintf(err, errlen, "'%s' names more than %d boards", whole,
				 NODESET_MAX_NAMES);
			return -1;
		}
		for (unsigned long k = lo; k <= hi; k++)
			for (size_t r = 0; r < rest->n; r++)
				names_push(out, xasprintf("%.*s%0*lu%s", (int)plen, prefix, width, k,
							  rest->v[r]));
		i = j + 1;
	}
	return 0;
}

/* The names of one item of a list (no comma outside brackets), in out. */
static int expand_item(const char *s, struct names *out, const char *whole, char *err,
		       size_t errlen)
{
	const char *o = s;
	const char *c = NULL;
	while ((o = strchr(o, '[')) != NULL) {
		c = strchr(o, ']');
		if (c && range_body(o + 1, (size_t)(c - o - 1)))
			break;
		o++;
	}
	if (!o) {
		if (strchr(s, ']') && !strchr(s, '[')) {
			snprintf(err, errlen, "']' without '[' in '%s'", whole);
			return -1;
		}
		names_push(out, xstrdup(s));
		return 0;
	}
	struct names rest = { 0 };
	int rc = expand_item(c + 1, &rest, whole, err, errlen);
	if (rc == 0)
		rc = expand_bracket(s, (size_t)(o - s), o + 1, (size_t)(c - o - 1), &rest, out,
				    whole, err, errlen);
	names_clear(&rest);
	return rc;
}

char **nodeset_split_list(const char *s, size_t *n)
{
	struct names ns = { 0 };
	int depth = 0;
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			names_push(&ns, xstrndup(start, (size_t)(p - start)));
			if (!*p)
				break;
			start = p + 1;
		}
	}
	*n = ns.n;
	return ns.v;
}

int nodeset_expand(const char *s, char ***names, size_t *n, char *err, size_t errlen)
{
	struct names out = { 0 };
	size_t n_items;
	char **items = nodeset_split_list(s, &n_items);
	int rc = 0;
	for (size_t i = 0; i < n_items && rc == 0; i++) {
		if (!items[i][0]) {
			snprintf(err, errlen, "empty name in '%s'", s);
			rc = -1;
		} else {
			rc = expand_item(items[i], &out, s, err, errlen);
		}
	}
	nodeset_names_free(items);
	if (rc < 0) {
		names_clear(&out);
		*names = NULL;
		*n = 0;
		return -1;
	}
	*names = out.v;
	*n = out.n;
	return 0;
}

void nodeset_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/* ---- folding ------------------------------------------------------------ */

/* A name cut at its last run of digits: prefix, number, suffix. */
struct cut {
	const char *name;
	size_t plen;          /* prefix length; == strlen(name) when no digits */
	size_t dlen;          /* digits */
	unsigned long num;
	int width;            /* padded width, 0 when not zero-padded */
};

static struct cut cut_name(const char *name)
{
	struct cut c = { .name = name };
	size_t len = strlen(name), end = len;
	while (end > 0 && !isdigit((unsigned char)name[end - 1]))
		end--;
	size_t start = end;
	while (start > 0 && isdigit((unsigned char)name[start - 1]))
		start--;
	if (end == start || end - start > 18) {
		c.plen = len;
		return c;
	}
	c.plen = start;
	c.dlen = end - start;
	c.num = strtoul(name + start, NULL, 10);
	c.width = name[start] == '0' && c.dlen > 1 ? (int)c.dlen : 0;
	return c;
}

static bool same_frame(const struct cut *a, const struct cut *b)
{
	if (!a->dlen || !b->dlen || a->plen != b->plen)
		return false;
	if (memcmp(a->name, b->name, a->plen) != 0)
		return false;
	if (strcmp(a->name + a->plen + a->dlen, b->name + b->plen + b->dlen) != 0)
		return false;
	/* b01 and b10 fold together (both two wide); b01 and b1 do not */
	int wa = a->width ? a->width : 0, wb = b->width ? b->width : 0;
	if (wa == wb)
		return true;
	return (wa && !wb && (int)b->dlen == wa) || (wb && !wa && (int)a->dlen == wb);
}

static int cut_cmp(const void *x, const void *y)
{
	const struct cut *a = x, *b = y;
	return nodeset_cmp(a->name, b->name);
}

/* The frame's numbers from cuts[i..j) as "01-03,07" (sorted, no repeats). */
static void put_ranges(struct strbuf *out, const struct cut *cuts, size_t i, size_t j, int width)
{
	for (size_t k = i; k < j;) {
		size_t e = k;
		while (e + 1 < j && cuts[e + 1].num == cuts[e].num + 1)
			e++;
		strbuf_printf(out, "%s%0*lu", k > i ? "," : "", width, cuts[k].num);
		if (e > k)
			strbuf_printf(out, "-%0*lu", width, cuts[e].num);
		k = e + 1;
	}
}

void nodeset_fold(struct strbuf *out, const char *const *names, size_t n)
{
	if (!n)
		return;
	struct cut *cuts = xcalloc(n, sizeof(*cuts));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		cuts[m++] = cut_name(names[i]);
	qsort(cuts, m, sizeof(*cuts), cut_cmp);
	size_t u = 0;   /* drop repeated names */
	for (size_t i = 0; i < m; i++)
		if (!u || strcmp(cuts[u - 1].name, cuts[i].name) != 0)
			cuts[u++] = cuts[i];
	m = u;
	bool *done = xcalloc(m, sizeof(bool));
	struct cut *frame = xcalloc(m, sizeof(*frame));
	bool first = true;
	for (size_t i = 0; i < m; i++) {
		if (done[i])
			continue;
		size_t f = 0;
		int width = cuts[i].width;
		for (size_t k = i; k < m; k++) {
			if (done[k] || (k > i && !same_frame(&cuts[i], &cuts[k])))
				continue;
			if (!width && cuts[k].width)
				width = cuts[k].width;
			frame[f++] = cuts[k];
			done[k] = true;
		}
		if (!first)
			strbuf_putc(out, ',');
		first = false;
		if (f == 1) {
			strbuf_puts(out, cuts[i].name);
			continue;
		}
		/* numbers in order (natural order sorted by name already, but
		 * padded and unpadded names of one width interleave) */
		for (size_t a = 1; a < f; a++)
			for (size_t b = a; b > 0 && frame[b - 1].num > frame[b].num; b--) {
				struct cut t = frame[b];
				frame[b] = frame[b - 1];
				frame[b - 1] = t;
			}
		strbuf_printf(out, "%.*s[", (int)cuts[i].plen, cuts[i].name);
		put_ranges(out, frame, 0, f, width);
		strbuf_printf(out, "]%s", cuts[i].name + cuts[i].plen + cuts[i].dlen);
	}
	free(frame);
	free(done);
	free(cuts);
}

char *nodeset_fold_str(const char *const *names, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	nodeset_fold(&sb, names, n);
	return strbuf_detach(&sb);
}
