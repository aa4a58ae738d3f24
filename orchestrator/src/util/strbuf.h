#ifndef ORCH_UTIL_STRBUF_H
#define ORCH_UTIL_STRBUF_H
/*
 * strbuf: a growable, always NUL-terminated byte string. A zeroed struct
 * (STRBUF_INIT) is an empty buffer; strbuf_release() frees the storage.
 * Allocation failure aborts: orch cannot do anything useful without memory.
 */
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;  /* NULL until the first append; use strbuf_str() to read */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_append(struct strbuf *sb, const char *data, size_t len);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void strbuf_reset(struct strbuf *sb);
/* The contents, "" for an empty buffer; valid until the next change. */
const char *strbuf_str(const struct strbuf *sb);
/* Hands the string to the caller (who frees it) and empties the buffer. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* xmalloc family: abort with a message on allocation failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);          /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
