/* util/base64: RFC 4648's test vectors both ways, inputs longer than one
 * libcrypto block (no padding in the middle), the decoder's refusals, and
 * utf8_bytes_base64 / utf8_bytes_from_base64 (a NUL as C0 80) round trip. */
#include "testsupport.h"
#include "util/base64.h"
#include "util/strbuf.h"
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

static const char *const vectors[][2] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
};

static void test_rfc4648_vectors(void **state)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		struct strbuf e = STRBUF_INIT, d = STRBUF_INIT;
		base64_encode(&e, vectors[i][0], strlen(vectors[i][0]));
		assert_string_equal(strbuf_str(&e), vectors[i][1]);
		assert_int_equal(base64_decode(&d, vectors[i][1]), 0);
		assert_int_equal(d.len, strlen(vectors[i][0]));
		assert_string_equal(strbuf_str(&d), vectors[i][0]);
		strbuf_release(&e);
		strbuf_release(&d);
	}
}

static void test_long_inputs(void **state)
{
	for (size_t n = 3000; n < 7000; n += 997) {
		unsigned char *data = malloc(n);
		for (size_t i = 0; i < n; i++)
			data[i] = (unsigned char)(i * 7 + i / 256);
		struct strbuf e = STRBUF_INIT, d = STRBUF_INIT;
		base64_encode(&e, data, n);
		assert_int_equal(e.len, (n + 2) / 3 * 4);
		const char *pad = strchr(strbuf_str(&e), '=');
		assert_true(!pad || pad >= strbuf_str(&e) + e.len - 2);
		assert_int_equal(base64_decode(&d, strbuf_str(&e)), 0);
		assert_int_equal(d.len, n);
		assert_memory_equal(strbuf_str(&d), data, n);
		strbuf_release(&e);
		strbuf_release(&d);
		free(data);
	}
	struct strbuf e = STRBUF_INIT;
	unsigned char ff[3073];
	memset(ff, 0xff, sizeof(ff));
	base64_encode(&e, ff, sizeof(ff));
	assert_int_equal(e.len, 4100);
	assert_string_equal(strbuf_str(&e) + 4092, "/////w==");
	strbuf_release(&e);
}

static void test_refusals(void **state)
{
	static const char *const bad[] = { "Zg=", "Zg", "Z===", "====", "Zg=a", "Zm9v Yg==",
					   "Zm9v\nYg==", "Zm9-", "=Zm9" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf d = STRBUF_INIT;
		assert_int_equal(base64_decode(&d, bad[i]), -1);
		assert_int_equal(d.len, 0);
		strbuf_release(&d);
	}
}

static void test_utf8_bytes_round_trip(void **state)
{
	const char with_nul[] = "a\xC0\x80" "b\xff";   /* a NUL byte, an invalid byte */
	char *b64 = utf8_bytes_base64(with_nul);
	assert_string_equal(b64, "YQBi/w==");
	char *back = utf8_bytes_from_base64(b64);
	assert_string_equal(back, with_nul);
	assert_null(utf8_bytes_from_base64("YQBi/w="));
	TS_FREE(back, b64);
}

TS_MAIN(NULL, NULL, test_rfc4648_vectors, test_long_inputs, test_refusals,
	test_utf8_bytes_round_trip)
