/* util/utf8: the columns of a text (a code point each) and where a text is
 * cut to a number of columns, on ASCII, multi-byte code points, a stray
 * continuation byte and the edges (empty, exactly as wide, zero columns). */
#include "testsupport.h"
#include "util/utf8.h"

#include <string.h>

static void test_width(void **state)
{
	assert_int_equal(utf8_width(""), 0);
	assert_int_equal(utf8_width("board-07"), 8);
	assert_int_equal(utf8_width("\xc3\xa9t\xc3\xa9"), 3);            /* été */
	assert_int_equal(utf8_width("\xe2\x80\xa6"), 1);                 /* … */
	assert_int_equal(utf8_width("\xf0\x9f\x90\xa7x"), 2);            /* a 4-byte one */
	assert_int_equal(utf8_width("a\x80" "b"), 2);                    /* stray byte */
}

static void test_prefix(void **state)
{
	const char *ete = "\xc3\xa9t\xc3\xa9";
	assert_int_equal(utf8_prefix(ete, 0), 0);
	assert_int_equal(utf8_prefix(ete, 1), 2);
	assert_int_equal(utf8_prefix(ete, 2), 3);
	assert_int_equal(utf8_prefix(ete, 3), strlen(ete));
	assert_int_equal(utf8_prefix(ete, 99), strlen(ete));
	assert_int_equal(utf8_prefix("", 4), 0);
	assert_int_equal(utf8_prefix("abcdef", 4), 4);
	assert_int_equal(utf8_prefix("\xf0\x9f\x90\xa7x", 1), 4);
	/* a cut keeps the bytes that continue its last code point */
	assert_int_equal(utf8_prefix("a\x80" "b", 1), 2);
	assert_int_equal(utf8_prefix("abc", (size_t)-3), 3);
}

TS_MAIN(NULL, NULL, test_width, test_prefix)
