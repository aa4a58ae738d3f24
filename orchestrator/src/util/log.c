#include "util/log.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static bool quiet;

void log_set_quiet(bool q) { quiet = q; }

bool log_use_color(void)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(STDERR_FILENO) && !(nc && *nc);
}

static void emit(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "orch: ");
	strbuf_puts(&sb, prefix);
	strbuf_vprintf(&sb, fmt, ap);
	strbuf_putc(&sb, '\n');
	ssize_t n = write(STDERR_FILENO, sb.buf, sb.len);
	(void)n;
	strbuf_release(&sb);
}

void log_info(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("error: ", fmt, ap);
	va_end(ap);
}
