/*
 * The printf format text of a console push (execute/push_console.h),
 * decoded here the way POSIX printf reads a format (\ddd: one to three
 * octal digits, %% a percent sign): random bytes cut into random blocks
 * come back the same, and an escape in front of a digit of the next block
 * is never shortened (it was: "\1" + "2" read as "\12").
 */
#include "testsupport.h"
#include "execute/push_console.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static size_t decode(const char *s, unsigned char *out)
{
	size_t n = 0;
	while (*s) {
		if (*s == '\\') {
			s++;
			unsigned v = 0;
			for (int i = 0; i < 3 && *s >= '0' && *s <= '7'; i++)
				v = v * 8 + (unsigned)(*s++ - '0');
			out[n++] = (unsigned char)v;
		} else if (*s == '%') {
			assert_int_equal(s[1], '%');
			out[n++] = '%';
			s += 2;
		} else {
			assert_true(*s != '\'');   /* it sits inside '...' */
			out[n++] = (unsigned char)*s++;
		}
	}
	return n;
}

static void test_digit_after_block(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char one = 1;
	console_push_printf_escape(&sb, &one, 1, '2');
	assert_string_equal(strbuf_str(&sb), "\\001");
	strbuf_reset(&sb);
	console_push_printf_escape(&sb, &one, 1, 'x');
	assert_string_equal(strbuf_str(&sb), "\\1");
	strbuf_release(&sb);
}

static void test_leading_dash_escaped(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	console_push_printf_escape(&sb, (const unsigned char *)"-n", 2, -1);
	assert_int_not_equal(strbuf_str(&sb)[0], '-');   /* not an option of printf */
	strbuf_release(&sb);
}

static void test_round_trip(void **state)
{
	enum { N = 20000 };
	unsigned char *data = xmalloc(N), *back = xmalloc(4 * N);
	srand(7);
	for (size_t i = 0; i < N; i++)
		data[i] = (unsigned char)(i % 3 ? rand() : "0123456789%'\\-"[rand() % 14]);
	struct strbuf sb = STRBUF_INIT;
	for (size_t off = 0; off < N;) {
		size_t n = 1 + (size_t)rand() % 40;
		if (n > N - off)
			n = N - off;
		console_push_printf_escape(&sb, data + off, n, off + n < N ? data[off + n] : -1);
		off += n;
	}
	assert_int_equal(decode(strbuf_str(&sb), back), N);
	assert_memory_equal(back, data, N);
	strbuf_release(&sb);
	TS_FREE(data, back);
}

TS_MAIN(NULL, NULL, test_digit_after_block, test_leading_dash_escaped, test_round_trip)
