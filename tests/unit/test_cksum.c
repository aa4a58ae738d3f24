/* util/cksum: the values POSIX cksum prints (checked against GNU cksum). */
#include "testsupport.h"
#include "util/cksum.h"

#include <stdlib.h>
#include <string.h>

static uint32_t of(const void *data, size_t len)
{
	struct cksum c;
	cksum_init(&c);
	cksum_update(&c, data, len);
	return cksum_final(&c);
}

static void test_known_values(void **state)
{
	assert_int_equal(of("", 0), 4294967295u);
	assert_int_equal(of("a", 1), 1220704766u);
	assert_int_equal(of("123456789", 9), 930766865u);
}

/* bytes 0..255 repeated 41 times: 10496 bytes, so the length needs two
 * bytes and every table of the 8-byte steps is used */
static void test_long_and_split(void **state)
{
	size_t n = 256 * 41;
	unsigned char *buf = malloc(n);
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)i;
	assert_int_equal(of(buf, n), 444841423u);
	/* fed in odd pieces, the same value */
	struct cksum c;
	cksum_init(&c);
	for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 % 97 + 1)
		cksum_update(&c, buf + off, off + step <= n ? step : n - off);
	assert_int_equal(cksum_final(&c), 444841423u);
	free(buf);
}

TS_MAIN(NULL, NULL, test_known_values, test_long_and_split)
