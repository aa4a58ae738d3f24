/* remote-bench's ChaCha20-Poly1305 against the test vectors of RFC 8439
 * sections 2.3.2, 2.4.2, 2.5.2 and 2.8.2, and appendix A.3's Poly1305
 * vectors #5-#11 (the edge cases of the final reduction: h at or past
 * 2^130 - 5, carries out of the top limb). Built twice: with the library's
 * limbs (64-bit where __int128 exists) and with RB_POLY1305_32BIT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "chacha20poly1305.h"

static const char sunscreen[] =
	"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
	"the future, sunscreen would be it.";

static void key_0_to_31(uint8_t key[32])
{
	int i;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
}

static void test_block_2_3_2(void **state)
{
	static const uint8_t nonce[12] = { 0, 0, 0, 0x09, 0, 0, 0, 0x4a, 0, 0, 0, 0 };
	static const uint8_t want[64] = {
		0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15, 0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4,
		0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03, 0x04, 0x22, 0xaa, 0x9a, 0xc3, 0xd4, 0x6c, 0x4e,
		0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa, 0x09, 0x14, 0xc2, 0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2,
		0xb5, 0x12, 0x9c, 0xd1, 0xde, 0x16, 0x4e, 0xb9, 0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e,
	};
	uint8_t key[32], out[64];

	(void)state;
	key_0_to_31(key);
	chacha20_block(key, 1, nonce, out);
	assert_memory_equal(out, want, 64);
}

static const uint8_t cipher_2_4_2[114] = {
	0x6e, 0x2e, 0x35, 0x9a, 0x25, 0x68, 0xf9, 0x80, 0x41, 0xba, 0x07, 0x28, 0xdd, 0x0d, 0x69, 0x81,
	0xe9, 0x7e, 0x7a, 0xec, 0x1d, 0x43, 0x60, 0xc2, 0x0a, 0x27, 0xaf, 0xcc, 0xfd, 0x9f, 0xae, 0x0b,
	0xf9, 0x1b, 0x65, 0xc5, 0x52, 0x47, 0x33, 0xab, 0x8f, 0x59, 0x3d, 0xab, 0xcd, 0x62, 0xb3, 0x57,
	0x16, 0x39, 0xd6, 0x24, 0xe6, 0x51, 0x52, 0xab, 0x8f, 0x53, 0x0c, 0x35, 0x9f, 0x08, 0x61, 0xd8,
	0x07, 0xca, 0x0d, 0xbf, 0x50, 0x0d, 0x6a, 0x61, 0x56, 0xa3, 0x8e, 0x08, 0x8a, 0x22, 0xb6, 0x5e,
	0x52, 0xbc, 0x51, 0x4d, 0x16, 0xcc, 0xf8, 0x06, 0x81, 0x8c, 0xe9, 0x1a, 0xb7, 0x79, 0x37, 0x36,
	0x5a, 0xf9, 0x0b, 0xbf, 0x74, 0xa3, 0x5b, 0xe6, 0xb4, 0x0b, 0x8e, 0xed, 0xf2, 0x78, 0x5e, 0x42,
	0x87, 0x4d,
};

static void test_encrypt_2_4_2(void **state)
{
	static const uint8_t nonce[12] = { 0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0 };
	uint8_t key[32], out[114], back[114];

	(void)state;
	assert_int_equal(strlen(sunscreen), 114);
	key_0_to_31(key);
	chacha20_xor(key, 1, nonce, (const uint8_t *)sunscreen, out, 114);
	assert_memory_equal(out, cipher_2_4_2, 114);
	chacha20_xor(key, 1, nonce, out, back, 114);
	assert_memory_equal(back, sunscreen, 114);
	/* In place. */
	memcpy(out, sunscreen, 114);
	chacha20_xor(key, 1, nonce, out, out, 114);
	assert_memory_equal(out, cipher_2_4_2, 114);
}

static const uint8_t poly_key_2_5_2[32] = {
	0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8,
	0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd, 0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
};
static const uint8_t poly_tag_2_5_2[16] = {
	0xa8, 0x06, 0x1d, 0xc1, 0x30, 0x51, 0x36, 0xc6, 0xc2, 0x2b, 0x8b, 0xaf, 0x0c, 0x01, 0x27, 0xa9,
};
static const char poly_msg_2_5_2[] = "Cryptographic Forum Research Group";

static void test_poly1305_2_5_2(void **state)
{
	uint8_t tag[16];

	(void)state;
	poly1305_mac(poly_key_2_5_2, (const uint8_t *)poly_msg_2_5_2, 34, tag);
	assert_memory_equal(tag, poly_tag_2_5_2, 16);
}

/* RFC 8439 A.3 #5-#11, as hex: one-time key, message, tag. */
static const char *const poly_a3[][3] = {
	{ "0200000000000000000000000000000000000000000000000000000000000000",
	  "ffffffffffffffffffffffffffffffff", "03000000000000000000000000000000" },
	{ "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
	  "02000000000000000000000000000000", "03000000000000000000000000000000" },
	{ "0100000000000000000000000000000000000000000000000000000000000000",
	  "fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff"
	  "11000000000000000000000000000000", "05000000000000000000000000000000" },
	{ "0100000000000000000000000000000000000000000000000000000000000000",
	  "fffffffffffffffffffffffffffffffffbfefefefefefefefefefefefefefefe"
	  "01010101010101010101010101010101", "00000000000000000000000000000000" },
	{ "0200000000000000000000000000000000000000000000000000000000000000",
	  "fdffffffffffffffffffffffffffffff", "faffffffffffffffffffffffffffffff" },
	{ "0100000000000000040000000000000000000000000000000000000000000000",
	  "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
	  "0000000000000000000000000000000001000000000000000000000000000000",
	  "14000000000000005500000000000000" },
	{ "0100000000000000040000000000000000000000000000000000000000000000",
	  "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
	  "00000000000000000000000000000000", "13000000000000000000000000000000" },
};

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;
	unsigned v;

	for (; hex[0] && hex[1]; hex += 2) {
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void test_poly1305_a3_edges(void **state)
{
	uint8_t key[32], msg[64], want[16], tag[16];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(poly_a3) / sizeof(poly_a3[0]); i++) {
		assert_int_equal(unhex(poly_a3[i][0], key), 32);
		len = unhex(poly_a3[i][1], msg);
		assert_int_equal(unhex(poly_a3[i][2], want), 16);
		poly1305_mac(key, msg, len, tag);
		assert_memory_equal(tag, want, 16);
	}
}

/* Any split of the message into updates gives the same tag. */
static void test_poly1305_incremental(void **state)
{
	const uint8_t *msg = (const uint8_t *)poly_msg_2_5_2;
	struct poly1305 st;
	uint8_t tag[16];
	size_t a, b;

	(void)state;
	for (a = 0; a <= 34; a++) {
		for (b = a; b <= 34; b += 7) {
			poly1305_init(&st, poly_key_2_5_2);
			poly1305_update(&st, msg, a);
			poly1305_update(&st, msg + a, b - a);
			poly1305_update(&st, msg + b, 34 - b);
			poly1305_final(&st, tag);
			assert_memory_equal(tag, poly_tag_2_5_2, 16);
		}
	}
}

static const uint8_t aead_key[32] = {
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
};
static const uint8_t aead_nonce[12] = {
	0x07, 0x00, 0x00, 0x00, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
};
static const uint8_t aead_aad[12] = {
	0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
};
static const uint8_t aead_ct[114] = {
	0xd3, 0x1a, 0x8d, 0x34, 0x64, 0x8e, 0x60, 0xdb, 0x7b, 0x86, 0xaf, 0xbc, 0x53, 0xef, 0x7e, 0xc2,
	0xa4, 0xad, 0xed, 0x51, 0x29, 0x6e, 0x08, 0xfe, 0xa9, 0xe2, 0xb5, 0xa7, 0x36, 0xee, 0x62, 0xd6,
	0x3d, 0xbe, 0xa4, 0x5e, 0x8c, 0xa9, 0x67, 0x12, 0x82, 0xfa, 0xfb, 0x69, 0xda, 0x92, 0x72, 0x8b,
	0x1a, 0x71, 0xde, 0x0a, 0x9e, 0x06, 0x0b, 0x29, 0x05, 0xd6, 0xa5, 0xb6, 0x7e, 0xcd, 0x3b, 0x36,
	0x92, 0xdd, 0xbd, 0x7f, 0x2d, 0x77, 0x8b, 0x8c, 0x98, 0x03, 0xae, 0xe3, 0x28, 0x09, 0x1b, 0x58,
	0xfa, 0xb3, 0x24, 0xe4, 0xfa, 0xd6, 0x75, 0x94, 0x55, 0x85, 0x80, 0x8b, 0x48, 0x31, 0xd7, 0xbc,
	0x3f, 0xf4, 0xde, 0xf0, 0x8e, 0x4b, 0x7a, 0x9d, 0xe5, 0x76, 0xd2, 0x65, 0x86, 0xce, 0xc6, 0x4b,
	0x61, 0x16,
};
static const uint8_t aead_tag[16] = {
	0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a, 0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60, 0x06, 0x91,
};

static void test_aead_2_8_2(void **state)
{
	uint8_t ct[114], tag[16], pt[114];

	(void)state;
	aead_chacha20poly1305_seal(aead_key, aead_nonce, aead_aad, 12,
				   (const uint8_t *)sunscreen, 114, ct, tag);
	assert_memory_equal(ct, aead_ct, 114);
	assert_memory_equal(tag, aead_tag, 16);

	memset(pt, 0, sizeof(pt));
	assert_int_equal(aead_chacha20poly1305_open(aead_key, aead_nonce, aead_aad, 12,
						    aead_ct, 114, aead_tag, pt), 0);
	assert_memory_equal(pt, sunscreen, 114);
}

static void test_aead_rejects_tampering(void **state)
{
	uint8_t ct[114], tag[16], aad[12], pt[114];

	(void)state;
	memcpy(ct, aead_ct, sizeof(ct));
	ct[50] ^= 0x01;
	memset(pt, 0xee, sizeof(pt));
	assert_int_equal(aead_chacha20poly1305_open(aead_key, aead_nonce, aead_aad, 12,
						    ct, 114, aead_tag, pt), -1);
	assert_int_equal(pt[0], 0xee);

	memcpy(tag, aead_tag, sizeof(tag));
	tag[15] ^= 0x80;
	assert_int_equal(aead_chacha20poly1305_open(aead_key, aead_nonce, aead_aad, 12,
						    aead_ct, 114, tag, pt), -1);

	memcpy(aad, aead_aad, sizeof(aad));
	aad[0] ^= 0x01;
	assert_int_equal(aead_chacha20poly1305_open(aead_key, aead_nonce, aad, 12,
						    aead_ct, 114, aead_tag, pt), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_2_3_2),
		cmocka_unit_test(test_encrypt_2_4_2),
		cmocka_unit_test(test_poly1305_2_5_2),
		cmocka_unit_test(test_poly1305_a3_edges),
		cmocka_unit_test(test_poly1305_incremental),
		cmocka_unit_test(test_aead_2_8_2),
		cmocka_unit_test(test_aead_rejects_tampering),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
