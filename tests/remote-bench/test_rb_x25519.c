/* remote-bench's X25519 against RFC 7748: the two vectors of 5.2, the
 * iterated vector after 1 and 1000 rounds, and the Diffie-Hellman example
 * of 6.1. Built twice: with the host's field code and with the 32-bit one
 * forced (RB_X25519_32BIT, the code i586 and armv5 boards run); each build
 * checks it has the radix it was built for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "x25519.h"

#ifdef RB_X25519_32BIT
#define RB_WANT_RADIX "25.5-bit limbs"
#elif defined(__SIZEOF_INT128__)
#define RB_WANT_RADIX "51-bit limbs"
#else
#define RB_WANT_RADIX "25.5-bit limbs"
#endif

static void unhex32(uint8_t out[32], const char *hex)
{
	size_t i;
	unsigned v;
	int j;
	char c;

	assert_int_equal(strlen(hex), 64);
	for (i = 0; i < 32; i++) {
		v = 0;
		for (j = 0; j < 2; j++) {
			c = hex[2 * i + j];
			v = v << 4 | (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
		}
		out[i] = (uint8_t)v;
	}
}

static void check(const char *scalar, const char *u, const char *want)
{
	uint8_t k[32], p[32], w[32], out[32];

	unhex32(k, scalar);
	unhex32(p, u);
	unhex32(w, want);
	x25519(out, k, p);
	assert_memory_equal(out, w, 32);
}

static void test_radix(void **state)
{
	(void)state;
	print_message("field: %s\n", x25519_radix());
	assert_string_equal(x25519_radix(), RB_WANT_RADIX);
}

static void test_5_2_vectors(void **state)
{
	(void)state;
	check("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
	      "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
	      "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
	/* u has its top bit set: it must be ignored. */
	check("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
	      "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
	      "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
}

/* k = u = 9; then k, u = X25519(k, u), k. */
static void test_5_2_iterated(void **state)
{
	uint8_t k[32] = { 9 }, u[32] = { 9 }, r[32], want[32];
	int i;

	(void)state;
	for (i = 1; i <= 1000; i++) {
		x25519(r, k, u);
		memcpy(u, k, 32);
		memcpy(k, r, 32);
		if (i == 1) {
			unhex32(want,
				"422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
			assert_memory_equal(k, want, 32);
		}
	}
	unhex32(want, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
	assert_memory_equal(k, want, 32);
}

static void test_6_1_diffie_hellman(void **state)
{
	uint8_t a[32], b[32], pa[32], pb[32], s1[32], s2[32], w[32];

	(void)state;
	unhex32(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	unhex32(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	x25519_base(pa, a);
	unhex32(w, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
	assert_memory_equal(pa, w, 32);
	x25519_base(pb, b);
	unhex32(w, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
	assert_memory_equal(pb, w, 32);
	x25519(s1, a, pb);
	x25519(s2, b, pa);
	unhex32(w, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
	assert_memory_equal(s1, w, 32);
	assert_memory_equal(s2, w, 32);
}

/* Inputs at and above p are reduced (u = p gives 0 times anything = 0;
 * u = p + 9 is the base point), and the output aliasing its input works. */
static void test_non_canonical_u(void **state)
{
	uint8_t k[32], p[32], out[32], base[32], zero[32] = { 0 };
	int i;

	(void)state;
	for (i = 0; i < 32; i++)
		k[i] = (uint8_t)(i * 17 + 3);
	memset(p, 0xff, 32);
	p[0] = 0xed;
	p[31] = 0x7f; /* p = 2^255 - 19 */
	x25519(out, k, p);
	assert_memory_equal(out, zero, 32);
	p[0] = 0xed + 9; /* p + 9 */
	x25519(out, k, p);
	x25519_base(base, k);
	assert_memory_equal(out, base, 32);
	memcpy(out, p, 32);
	x25519(out, k, out);
	assert_memory_equal(out, base, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_radix),
		cmocka_unit_test(test_5_2_vectors),
		cmocka_unit_test(test_5_2_iterated),
		cmocka_unit_test(test_6_1_diffie_hellman),
		cmocka_unit_test(test_non_canonical_u),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
