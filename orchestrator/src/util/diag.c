#include "util/diag.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void diag_add(struct diag_list *dl, const char *file, int line, int col, const char *fmt, ...)
{
	if (dl->n == dl->cap) {
		dl->cap = dl->cap ? dl->cap * 2 : 8;
		dl->items = xrealloc(dl->items, dl->cap * sizeof(*dl->items));
	}
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	struct diag *d = &dl->items[dl->n++];
	d->file = xstrdup(file ? file : "<input>");
	d->line = line;
	d->col = col;
	d->message = strbuf_detach(&sb);
}

static bool diag_before(const struct diag *a, const struct diag *b)
{
	int c = strcmp(a->file, b->file);
	if (c)
		return c < 0;
	if (a->line != b->line)
		return a->line < b->line;
	return a->col < b->col;
}

void diag_sort(struct diag_list *dl)
{
	/* insertion sort: stable, and the lists are short */
	for (size_t i = 1; i < dl->n; i++) {
		struct diag d = dl->items[i];
		size_t j = i;
		for (; j > 0 && diag_before(&d, &dl->items[j - 1]); j--)
			dl->items[j] = dl->items[j - 1];
		dl->items[j] = d;
	}
}

void diag_print(const struct diag_list *dl, FILE *out)
{
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		if (d->line > 0)
			fprintf(out, "%s:%d:%d: error: %s\n", d->file, d->line, d->col, d->message);
		else
			fprintf(out, "%s: error: %s\n", d->file, d->message);
	}
}

void diag_list_release(struct diag_list *dl)
{
	for (size_t i = 0; i < dl->n; i++) {
		free(dl->items[i].file);
		free(dl->items[i].message);
	}
	free(dl->items);
	dl->items = NULL;
	dl->n = dl->cap = 0;
}
