#ifndef ORCH_UTIL_ERRBUF_H
#define ORCH_UTIL_ERRBUF_H
/*
 * The caller-owned error buffer of the stages' "return 0 or -1 and fill
 * err" convention, filled in one call.
 */
#include <stddef.h>

/* Formats fmt into err (errlen bytes, cut to fit): -1, so a caller writes
 * `return errbuf_set(err, errlen, "...", ...);`. */
int errbuf_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
