#ifndef ORCH_UTIL_UTF8_H
#define ORCH_UTIL_UTF8_H
/*
 * Bytes from boards as text (docs/results-json.md "Bytes as they came").
 * Inside orch a line of output is a C string, so a NUL byte is held as the
 * two bytes C0 80 (the overlong form, as Java's modified UTF-8 does; never
 * valid UTF-8 itself). For JSON, text that is not valid UTF-8 gets a readable
 * form (each invalid byte as U+FFFD) and its exact bytes in base64, NUL
 * restored; decoding gives the C string back.
 */
#include <stdbool.h>
#include <stddef.h>

bool utf8_valid(const char *s);
/* The columns s takes where each code point takes one (a terminal, a
 * chart's label): the bytes that do not continue a sequence. */
size_t utf8_width(const char *s);
/* The bytes of s's first max columns (utf8_width), so that s cut there
 * ends on a code point's boundary; strlen(s) when s is narrower. */
size_t utf8_prefix(const char *s, size_t max);
/* s with each byte that is not part of valid UTF-8 replaced by U+FFFD, and
 * C0 80 shown as U+2400 (the NUL symbol); caller frees. */
char *utf8_lossy(const char *s);
/* The exact bytes of s (C0 80 -> 00) in base64; caller frees. */
char *utf8_bytes_base64(const char *s);
/* The reverse of utf8_bytes_base64 (00 -> C0 80); NULL when b64 is not
 * base64. Caller frees. */
char *utf8_bytes_from_base64(const char *b64);

#endif
