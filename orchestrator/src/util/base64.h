#ifndef ORCH_UTIL_BASE64_H
#define ORCH_UTIL_BASE64_H
/*
 * Base64 (RFC 4648, the standard alphabet, '=' padding, no line breaks):
 * the one encoder and decoder of orch, over libcrypto's EVP_EncodeBlock and
 * EVP_DecodeBlock. Used for bytes typed into a console shell and for the
 * exact bytes of a non-UTF-8 string in results.json.
 */
#include <stddef.h>

#include "util/strbuf.h"

/* Appends the base64 of the n bytes at data to out. */
void base64_encode(struct strbuf *out, const void *data, size_t n);
/* Appends the bytes b64 encodes to out: 0, or -1 (out untouched) when b64
 * is not base64 (a length that is not a multiple of 4, a character
 * outside the alphabet, '=' anywhere but the last two places, or
 * whitespace). */
int base64_decode(struct strbuf *out, const char *b64);

#endif
