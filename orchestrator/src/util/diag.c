#include "util/diag.h"
#include "util/secret.h"
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
	d->no_source = false;
}

void diag_hide_source(struct diag_list *dl, size_t from)
{
	for (size_t i = from; i < dl->n; i++)
		dl->items[i].no_source = true;
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

/* "file:line:col: KIND: message", or "file: KIND: message" without a
 * line; secrets cut out. */
static void diag_print_one(const struct diag *d, const char *kind, FILE *out)
{
	char *msg = xstrdup(d->message);
	secret_mask(msg);
	if (d->line > 0)
		fprintf(out, "%s:%d:%d: %s: %s\n", d->file, d->line, d->col, kind, msg);
	else
		fprintf(out, "%s: %s: %s\n", d->file, kind, msg);
	free(msg);
}

void diag_print(const struct diag_list *dl, FILE *out)
{
	for (size_t i = 0; i < dl->n; i++)
		diag_print_one(&dl->items[i], "error", out);
}

void diag_print_warnings(const struct diag_list *dl, FILE *out)
{
	for (size_t i = 0; i < dl->n; i++)
		diag_print_one(&dl->items[i], "warning", out);
}

/* Line n (1-based) of path into buf, without its newline; false if absent. */
static bool source_line(const char *path, int n, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	int at = 1;
	bool found = false;
	while (fgets(buf, (int)len, f)) {
		size_t l = strlen(buf);
		bool whole = l > 0 && buf[l - 1] == '\n';
		if (at == n) {
			buf[strcspn(buf, "\r\n")] = '\0';
			found = true;
			break;
		}
		if (whole)
			at++;
	}
	fclose(f);
	return found;
}

void diag_print_source(const struct diag_list *dl, FILE *out)
{
	char line[512];
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		diag_print_one(d, "error", out);
		if (d->no_source || d->line <= 0 ||
		    !source_line(d->file, d->line, line, sizeof(line)))
			continue;
		secret_mask(line);
		fprintf(out, "  %5d | ", d->line);
		for (const char *c = line; *c; c++)
			fputc((unsigned char)*c < 0x20 && *c != '\t' ? '?' : *c, out);
		fprintf(out, "\n        | ");
		for (int c = 1; c < d->col && line[c - 1]; c++)
			fputc(line[c - 1] == '\t' ? '\t' : ' ', out);
		fputs("^\n", out);
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
