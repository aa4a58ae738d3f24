#ifndef ORCH_UTIL_LOG_H
#define ORCH_UTIL_LOG_H
/*
 * Messages for people, on stderr: "orch: warning: ...", "orch: error: ...".
 * Lowercase, no full stop, quoted subjects (git's style). Thread-safe: one
 * message is one write, so lines from parallel boards never interleave.
 */
#include <stdbool.h>

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Silences log_info (warnings and errors still print); for --quiet and tests. */
void log_set_quiet(bool quiet);
/* Whether stderr is a terminal and colour is allowed (NO_COLOR unset). */
bool log_use_color(void);

#endif
