#include "util/utf8.h"
#include "util/base64.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t seq_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

static bool starts_code_point(unsigned char c)
{
	return (c & 0xC0) != 0x80;
}

size_t utf8_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		w += starts_code_point(*p);
	return w;
}

size_t utf8_prefix(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, i = 0;
	for (; p[i]; i++)
		if (starts_code_point(p[i]) && w++ == max)
			break;
	return i;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = seq_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

char *utf8_lossy(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = seq_len(p);
		if (n) {
			strbuf_append(&sb, (const char *)p, n);
			p += n;
		} else if (p[0] == 0xC0 && p[1] == 0x80) {
			strbuf_puts(&sb, "\xE2\x90\x80");   /* U+2400 */
			p += 2;
		} else {
			strbuf_puts(&sb, "\xEF\xBF\xBD");   /* U+FFFD */
			p++;
		}
	}
	return strbuf_detach(&sb);
}

char *utf8_bytes_base64(const char *s)
{
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (p[0] == 0xC0 && p[1] == 0x80) {
			strbuf_append(&raw, "", 1);
			p++;
		} else {
			strbuf_putc(&raw, (char)*p);
		}
	}
	base64_encode(&out, strbuf_str(&raw), raw.len);
	strbuf_release(&raw);
	return strbuf_detach(&out);
}

char *utf8_bytes_from_base64(const char *b64)
{
	struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
	if (base64_decode(&raw, b64) < 0) {
		strbuf_release(&raw);
		return NULL;
	}
	const char *r = strbuf_str(&raw);
	for (size_t i = 0; i < raw.len; i++) {
		if (r[i])
			strbuf_putc(&sb, r[i]);
		else
			strbuf_append(&sb, "\xC0\x80", 2);
	}
	strbuf_release(&raw);
	return strbuf_detach(&sb);
}
