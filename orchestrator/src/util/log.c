#include "util/log.h"
#include "util/strbuf.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string.h>

static bool quiet;
static bool verbose;
static enum log_color_mode color_mode = LOG_COLOR_AUTO;

void log_set_quiet(bool q) { quiet = q; }
void log_set_verbose(bool v) { verbose = v; }
bool log_verbose(void) { return verbose; }
void log_set_color_mode(enum log_color_mode mode) { color_mode = mode; }

int log_parse_color_mode(const char *s)
{
	if (!strcmp(s, "auto"))
		return LOG_COLOR_AUTO;
	if (!strcmp(s, "always"))
		return LOG_COLOR_ALWAYS;
	if (!strcmp(s, "never"))
		return LOG_COLOR_NEVER;
	return -1;
}

static bool term_dumb(void)
{
	const char *term = getenv("TERM");
	return !term || !*term || !strcmp(term, "dumb");
}

bool log_term_live(int fd)
{
	return isatty(fd) && !term_dumb();
}

bool log_color_for(int fd)
{
	if (color_mode != LOG_COLOR_AUTO)
		return color_mode == LOG_COLOR_ALWAYS;
	const char *nc = getenv("NO_COLOR");
	return log_term_live(fd) && !(nc && *nc);
}

bool log_use_color(void)
{
	return log_color_for(STDERR_FILENO);
}

static void emit(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*sink_fn)(void *ctx, const char *msg, size_t len);
static void *sink_ctx;

void log_set_sink(void (*fn)(void *ctx, const char *msg, size_t len), void *ctx)
{
	pthread_mutex_lock(&sink_lock);
	sink_fn = fn;
	sink_ctx = ctx;
	pthread_mutex_unlock(&sink_lock);
}

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "orch: ");
	strbuf_puts(&sb, prefix);
	strbuf_vprintf(&sb, fmt, ap);
	strbuf_putc(&sb, '\n');
	pthread_mutex_lock(&sink_lock);
	if (sink_fn) {
		sink_fn(sink_ctx, sb.buf, sb.len);
	} else {
		ssize_t n = write(STDERR_FILENO, sb.buf, sb.len);
		(void)n;
	}
	pthread_mutex_unlock(&sink_lock);
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

void log_debug(const char *fmt, ...)
{
	if (!verbose)
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
