/* strbuf_printf formats into the room the buffer has and again only when
 * the text did not fit: appends that end exactly at the room, one past it,
 * far past it, and xasprintf, all give the text printf would. */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_printf_at_every_size(void **state)
{
	char want[4096 + 64];
	for (size_t pre = 0; pre < 140; pre += 7) {
		for (int len = 0; len < 300; len++) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < pre; i++)
				strbuf_putc(&sb, (char)('a' + i % 26));
			strbuf_printf(&sb, "%0*d|%s", len, len, "end");
			snprintf(want, sizeof(want), "%.*s%0*d|%s", (int)pre,
				 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
				 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
				 len, len, "end");
			assert_int_equal(sb.len, strlen(want));
			assert_string_equal(strbuf_str(&sb), want);
			assert_true(sb.cap > sb.len);
			strbuf_release(&sb);
		}
	}
}

static void test_many_appends(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct strbuf plain = STRBUF_INIT;
	for (int i = 0; i < 20000; i++) {
		char one[64];
		snprintf(one, sizeof(one), "%.1f,%.1f %.6g;", i / 7.0, i / 3.0, i * 1.5);
		strbuf_printf(&sb, "%.1f,%.1f %.6g;", i / 7.0, i / 3.0, i * 1.5);
		strbuf_puts(&plain, one);
	}
	assert_int_equal(sb.len, plain.len);
	assert_memory_equal(sb.buf, plain.buf, plain.len + 1);
	strbuf_release(&sb);
	strbuf_release(&plain);
}

static void test_xasprintf(void **state)
{
	char *s = xasprintf("%s-%d", "x", 42);
	assert_string_equal(s, "x-42");
	free(s);
	char big[1000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = xasprintf("[%s]", big);
	assert_int_equal(strlen(s), sizeof(big) + 1);
	assert_true(s[0] == '[' && s[sizeof(big)] == ']');
	free(s);
	s = xasprintf("%s", "");
	assert_string_equal(s, "");
	free(s);
}

TS_MAIN(NULL, NULL, test_printf_at_every_size, test_many_appends, test_xasprintf)
