#include "report/report_html_write.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

void html_href(struct strbuf *sb, const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	struct strbuf enc = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			strbuf_putc(&enc, (char)*p);
		else
			strbuf_printf(&enc, "%%%02X", *p);
	}
	/* never let a stored log_dir turn the link into a scheme or an absolute path */
	const char *s = strbuf_str(&enc);
	while (*s == '/')
		s++;
	esc(sb, s);
	strbuf_release(&enc);
	free(path);
}

const char *html_status_class(const struct test_result *tr)
{
	if (tr->regressed && tr->status == STATUS_PASS)
		return "regressed";
	return result_status_name(tr->status);
}

void html_flush(const struct html_sink *k, struct strbuf *sb, bool all)
{
	if (k->flush && (all || sb->len >= 256 * 1024))
		k->flush(k->ctx, sb);
}
