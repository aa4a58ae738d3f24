#ifndef ORCH_UTIL_XMLTEXT_H
#define ORCH_UTIL_XMLTEXT_H
/*
 * Text from boards (any bytes at all) made safe for XML and HTML: UTF-8
 * decoding that never fails (invalid bytes become U+FFFD), and escaping
 * that drops what XML 1.0 forbids (most C0 controls, U+FFFE/FFFF) and the
 * C1 controls it discourages. Shared by the reports and compare's JUnit.
 */
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* One code point from s (at most n bytes, n >= 1); invalid UTF-8 gives
 * U+FFFD and *used 1. */
unsigned utf8_decode(const unsigned char *s, size_t n, size_t *used);
/* Appends cp as UTF-8. */
void utf8_put(struct strbuf *sb, unsigned cp);
/* Whether XML 1.0 allows the code point at all. */
bool xml_char_ok(unsigned cp);
/* Appends s (NULL: nothing) escaped for element content, or for an
 * attribute value (ATTR: quotes, tab and newline as references too). */
void xml_escape(struct strbuf *sb, const char *s, bool attr);
/* Appends s (NULL: nothing) for one line of plain text: the same decoding
 * and dropping, each C0 and C1 control (newline and tab too) as a space. */
void text_line_escape(struct strbuf *sb, const char *s);

#endif
