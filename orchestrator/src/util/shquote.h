#ifndef ORCH_UTIL_SHQUOTE_H
#define ORCH_UTIL_SHQUOTE_H
/*
 * POSIX shell quoting: the result, pasted into a command line, is exactly
 * one word equal to the input ('it'\''s'). Caller frees.
 */
#include "util/strbuf.h"

char *shquote(const char *s);
void strbuf_shquote(struct strbuf *sb, const char *s);

#endif
