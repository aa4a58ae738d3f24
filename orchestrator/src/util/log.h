#ifndef ORCH_UTIL_LOG_H
#define ORCH_UTIL_LOG_H
/*
 * Messages for people, on stderr: "orch: warning: ...", "orch: error: ...".
 * Lowercase, no full stop, quoted subjects (git's style). Thread-safe: one
 * message is one write, so lines from parallel boards never interleave.
 */
#include <stdbool.h>
#include <stddef.h>

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While fn is set, every message is handed to fn (one whole message,
 * newline included, under a lock: calls never overlap) instead of being
 * written to stderr: a live view on the terminal prints them above itself.
 * NULL writes them to stderr again. */
void log_set_sink(void (*fn)(void *ctx, const char *msg, size_t len), void *ctx);
/* Silences log_info (warnings and errors still print); for --quiet and tests. */
void log_set_quiet(bool quiet);
/* -v: log_debug prints (connection steps, the commands sent to boards). */
void log_set_verbose(bool verbose);
bool log_verbose(void);

/* --color: auto follows the terminal conventions below; always and never
 * win over them. */
enum log_color_mode { LOG_COLOR_AUTO, LOG_COLOR_ALWAYS, LOG_COLOR_NEVER };
void log_set_color_mode(enum log_color_mode mode);
/* Parses "auto", "always" or "never"; -1 for anything else. */
int log_parse_color_mode(const char *s);
/* Whether output to FD may be coloured: --color=always; or, in auto mode,
 * FD is a terminal, NO_COLOR is unset or empty and TERM is not "dumb". */
bool log_color_for(int fd);
/* log_color_for(stderr). */
bool log_use_color(void);
/* Whether FD is a terminal that takes cursor movement (live redraws):
 * a tty whose TERM is set and not "dumb". */
bool log_term_live(int fd);

#endif
