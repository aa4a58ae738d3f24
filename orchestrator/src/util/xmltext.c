#include "util/xmltext.h"
#include "util/strbuf.h"

#include <string.h>

/* One code point from s (at most n bytes); invalid UTF-8 gives U+FFFD and 1 byte. */
unsigned utf8_decode(const unsigned char *s, size_t n, size_t *used)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp, min;
	if (c < 0x80) {
		*used = 1;
		return c;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2; cp = c & 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3; cp = c & 0x0F; min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4; cp = c & 0x07; min = 0x10000;
	} else {
		*used = 1;
		return 0xFFFD;
	}
	if (len > n) {
		*used = 1;
		return 0xFFFD;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*used = 1;
			return 0xFFFD;
		}
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
		*used = 1;
		return 0xFFFD;
	}
	*used = len;
	return cp;
}

bool xml_char_ok(unsigned cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
	       (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void utf8_put(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
	}
	strbuf_append(sb, b, n);
}

enum esc { ESC_TEXT, ESC_ATTRIBUTE, ESC_LINE };

/* One code point of s as mode writes it. */
static void put_escaped(struct strbuf *sb, unsigned cp, enum esc mode)
{
	if (mode == ESC_LINE && (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))) {
		strbuf_putc(sb, ' ');
		return;
	}
	if (!xml_char_ok(cp))
		return;
	if (mode == ESC_LINE) {
		utf8_put(sb, cp);
		return;
	}
	bool attr = mode == ESC_ATTRIBUTE;
	switch (cp) {
	case '&': strbuf_puts(sb, "&amp;"); break;
	case '<': strbuf_puts(sb, "&lt;"); break;
	case '>': strbuf_puts(sb, "&gt;"); break;
	case '"':
		strbuf_puts(sb, attr ? "&quot;" : "\"");
		break;
	case '\'':
		strbuf_puts(sb, attr ? "&#39;" : "'");
		break;
	case '\t':
	case '\n':
	case '\r':
		if (attr || cp == '\r')
			strbuf_printf(sb, "&#%u;", cp);
		else
			strbuf_putc(sb, (char)cp);
		break;
	default:
		if (cp >= 0x7F && cp <= 0x9F)
			break;   /* C1 controls: allowed by XML 1.0 but "discouraged" */
		utf8_put(sb, cp);
	}
}

/* The one walk over s's code points every escaping shares. */
static void escape(struct strbuf *sb, const char *s, enum esc mode)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t used;
		unsigned cp = utf8_decode(p, n, &used);
		p += used;
		n -= used;
		put_escaped(sb, cp, mode);
	}
}

void xml_escape(struct strbuf *sb, const char *s, bool attr)
{
	escape(sb, s, attr ? ESC_ATTRIBUTE : ESC_TEXT);
}

void text_line_escape(struct strbuf *sb, const char *s)
{
	escape(sb, s, ESC_LINE);
}
