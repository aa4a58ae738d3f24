#include "util/shquote.h"

#include <string.h>

/* Runs between quotes are appended whole (a runner's script, a command
 * with the facts riding on it: kilobytes per board, byte by byte before). */
void strbuf_shquote(struct strbuf *sb, const char *s)
{
	strbuf_putc(sb, '\'');
	for (;;) {
		size_t n = strcspn(s, "'");
		strbuf_append(sb, s, n);
		s += n;
		if (!*s)
			break;
		strbuf_puts(sb, "'\\''");
		s++;
	}
	strbuf_putc(sb, '\'');
}

char *shquote(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_shquote(&sb, s);
	return strbuf_detach(&sb);
}
