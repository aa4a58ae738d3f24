#include "util/diag.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>

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
