#include "util/shquote.h"

void strbuf_shquote(struct strbuf *sb, const char *s)
{
	strbuf_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_puts(sb, "'\\''");
		else
			strbuf_putc(sb, *s);
	}
	strbuf_putc(sb, '\'');
}

char *shquote(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_shquote(&sb, s);
	return strbuf_detach(&sb);
}
