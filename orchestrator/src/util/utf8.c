#include "util/utf8.h"
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

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

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
	const unsigned char *r = (const unsigned char *)strbuf_str(&raw);
	for (size_t i = 0; i < raw.len; i += 3) {
		size_t n = raw.len - i < 3 ? raw.len - i : 3;
		uint32_t v = (uint32_t)r[i] << 16 | (n > 1 ? (uint32_t)r[i + 1] << 8 : 0) |
			     (n > 2 ? r[i + 2] : 0);
		strbuf_putc(&out, b64_chars[v >> 18 & 63]);
		strbuf_putc(&out, b64_chars[v >> 12 & 63]);
		strbuf_putc(&out, n > 1 ? b64_chars[v >> 6 & 63] : '=');
		strbuf_putc(&out, n > 2 ? b64_chars[v & 63] : '=');
	}
	strbuf_release(&raw);
	return strbuf_detach(&out);
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_chars, c) : NULL;
	return p ? (int)(p - b64_chars) : -1;
}

char *utf8_bytes_from_base64(const char *b64)
{
	size_t len = strlen(b64);
	if (len % 4)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		int pad = last ? (b64[i + 3] == '=') + (b64[i + 2] == '=') : 0;
		uint32_t v = 0;
		for (int k = 0; k < 4; k++) {
			int d = k >= 4 - pad ? 0 : b64_value(b64[i + (size_t)k]);
			if (d < 0 || (pad == 2 && k == 2 && b64[i + 3] != '=')) {
				strbuf_release(&sb);
				return NULL;
			}
			v = v << 6 | (uint32_t)d;
		}
		unsigned char bytes[3] = { (unsigned char)(v >> 16), (unsigned char)(v >> 8),
					   (unsigned char)v };
		for (int k = 0; k < 3 - pad; k++) {
			if (bytes[k])
				strbuf_putc(&sb, (char)bytes[k]);
			else
				strbuf_append(&sb, "\xC0\x80", 2);
		}
	}
	return strbuf_detach(&sb);
}
