/* remote-bench's ciphers against OpenSSL's libcrypto (orch's own SHA-256
 * dependency) on pseudo-random keys, nonces and lengths, including the
 * awkward ones the published vectors skip: empty and partial blocks, AAD
 * of every length 0-40, CBC chained over several calls, Poly1305 with every
 * byte 0xff (the carries the final reduction must get right), X25519 on
 * random points. The published vectors are in the other test_rb_* tests; this one
 * catches what they do not cover. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "aes128.h"
#include "chacha20poly1305.h"
#include "x25519.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static void fill(uint8_t *p, size_t n)
{
	while (n--) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		*p++ = (uint8_t)(rng_state >> 24);
	}
}

static size_t below(size_t n)
{
	uint8_t b[4];

	fill(b, 4);
	return ((size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16) % n;
}

/* OpenSSL's AEAD seal of `len` bytes with `aad`; the tag into `tag`. */
static void ossl_aead(const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *iv,
		      int ivlen, const uint8_t *aad, int aadlen, const uint8_t *pt, int len,
		      uint8_t *ct, uint8_t tag[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, cipher, NULL, NULL, NULL), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, ivlen, NULL), 1);
	assert_int_equal(EVP_EncryptInit_ex(c, NULL, NULL, key, iv), 1);
	if (aadlen)
		assert_int_equal(EVP_EncryptUpdate(c, NULL, &n, aad, aadlen), 1);
	if (len)
		assert_int_equal(EVP_EncryptUpdate(c, ct, &n, pt, len), 1);
	assert_int_equal(EVP_EncryptFinal_ex(c, ct + len, &n), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
	EVP_CIPHER_CTX_free(c);
}

static void ossl_plain(const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *iv,
		       const uint8_t *pt, int len, uint8_t *ct)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n, m;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, cipher, NULL, key, iv), 1);
	EVP_CIPHER_CTX_set_padding(c, 0);
	assert_int_equal(EVP_EncryptUpdate(c, ct, &n, pt, len), 1);
	assert_int_equal(EVP_EncryptFinal_ex(c, ct + n, &m), 1);
	assert_int_equal(n + m, len);
	EVP_CIPHER_CTX_free(c);
}

static void test_gcm(void **state)
{
	uint8_t key[16], iv[64], aad[40], pt[300], ct[316], want[316], tag[16], wtag[16];
	struct aes128_gcm g;
	size_t i, len, aadlen, ivlen;

	(void)state;
	for (i = 0; i < 300; i++) {
		fill(key, 16);
		len = i < 100 ? i : below(300);
		aadlen = below(41);
		ivlen = i % 5 == 0 ? 1 + below(64) : 12;
		fill(iv, ivlen);
		fill(aad, aadlen);
		fill(pt, len);
		ossl_aead(EVP_aes_128_gcm(), key, iv, (int)ivlen, aad, (int)aadlen, pt, (int)len,
			  want, wtag);
		aes128_gcm_init(&g, key);
		aes128_gcm_seal(&g, iv, ivlen, aad, aadlen, pt, len, ct, tag);
		if (len)
			assert_memory_equal(ct, want, len);
		assert_memory_equal(tag, wtag, 16);
		assert_int_equal(aes128_gcm_open(&g, iv, ivlen, aad, aadlen, ct, len, tag, ct), 0);
		if (len)
			assert_memory_equal(ct, pt, len);
	}
}

static void test_cbc(void **state)
{
	uint8_t key[16], iv[16], iv2[16], pt[320], ct[320], want[320];
	struct aes128 a;
	size_t i, len, cut;

	(void)state;
	for (i = 0; i < 200; i++) {
		fill(key, 16);
		fill(iv, 16);
		len = 16 * (1 + below(20));
		fill(pt, len);
		ossl_plain(EVP_aes_128_cbc(), key, iv, pt, (int)len, want);
		aes128_set_key(&a, key);
		memcpy(iv2, iv, 16);
		cut = 16 * below(len / 16 + 1);
		aes128_cbc_encrypt(&a, iv2, pt, ct, cut);
		aes128_cbc_encrypt(&a, iv2, pt + cut, ct + cut, len - cut);
		assert_memory_equal(ct, want, len);
		memcpy(iv2, iv, 16);
		aes128_cbc_decrypt(&a, iv2, ct, ct, len);
		assert_memory_equal(ct, pt, len);
	}
}

static void test_chacha20(void **state)
{
	uint8_t key[32], iv[16], pt[700], ct[700], want[700];
	uint32_t counter;
	size_t i, len;

	(void)state;
	for (i = 0; i < 200; i++) {
		fill(key, 32);
		fill(iv, 16); /* OpenSSL: 32-bit little-endian counter, then the nonce */
		counter = (uint32_t)iv[0] | (uint32_t)iv[1] << 8;
		iv[2] = iv[3] = 0;
		len = i < 130 ? i : below(700);
		fill(pt, len);
		ossl_plain(EVP_chacha20(), key, iv, pt, (int)len, want);
		chacha20_xor(key, counter, iv + 4, pt, ct, len);
		if (len)
			assert_memory_equal(ct, want, len);
	}
}

static void test_chacha20poly1305(void **state)
{
	uint8_t key[32], nonce[12], aad[40], pt[300], ct[316], want[316], tag[16], wtag[16];
	size_t i, len, aadlen;

	(void)state;
	for (i = 0; i < 300; i++) {
		fill(key, 32);
		fill(nonce, 12);
		len = i < 100 ? i : below(300);
		aadlen = below(41);
		fill(aad, aadlen);
		fill(pt, len);
		ossl_aead(EVP_chacha20_poly1305(), key, nonce, 12, aad, (int)aadlen, pt, (int)len,
			  want, wtag);
		aead_chacha20poly1305_seal(key, nonce, aad, aadlen, pt, len, ct, tag);
		if (len)
			assert_memory_equal(ct, want, len);
		assert_memory_equal(tag, wtag, 16);
	}
}

/* OpenSSL's Poly1305 MAC (EVP_MAC "POLY1305") of `len` bytes. */
static void ossl_poly1305(const uint8_t key[32], const uint8_t *msg, size_t len, uint8_t tag[16])
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_MAC_CTX *c;
	size_t n = 0;

	assert_non_null(mac);
	c = EVP_MAC_CTX_new(mac);
	assert_non_null(c);
	assert_int_equal(EVP_MAC_init(c, key, 32, NULL), 1);
	assert_int_equal(EVP_MAC_update(c, msg, len), 1);
	assert_int_equal(EVP_MAC_final(c, tag, &n, 16), 1);
	assert_int_equal(n, 16);
	EVP_MAC_CTX_free(c);
	EVP_MAC_free(mac);
}

/* Random keys and messages, then saturated ones: key and message bytes all
 * 0xff (r is clamped to its largest value, h runs near 2^130 and p), and
 * a message that is zero but for its last byte. Lengths 0-99, so partial
 * last blocks of every size. */
static void test_poly1305(void **state)
{
	uint8_t key[32], msg[100], tag[16], want[16];
	size_t i, len;
	int kind;

	(void)state;
	for (kind = 0; kind < 4; kind++) {
		for (len = 0; len < sizeof(msg); len++) {
			for (i = 0; i < 3; i++) {
				fill(key, 32);
				fill(msg, len);
				if (kind & 1)
					memset(key, 0xff, 32);
				if (kind & 2)
					memset(msg, 0xff, len);
				if (kind == 0 && i == 2 && len > 0) {
					memset(msg, 0, len);
					msg[len - 1] = 0xff;
				}
				ossl_poly1305(key, msg, len, want);
				poly1305_mac(key, msg, len, tag);
				assert_memory_equal(tag, want, 16);
			}
		}
	}
}

static void test_x25519(void **state)
{
	uint8_t a[32], b[32], pub[32], got[32], want[32];
	EVP_PKEY *ka, *kb;
	EVP_PKEY_CTX *c;
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		fill(a, 32);
		fill(b, 32);
		ka = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, a, 32);
		kb = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, b, 32);
		assert_non_null(ka);
		assert_non_null(kb);
		n = 32;
		assert_int_equal(EVP_PKEY_get_raw_public_key(kb, pub, &n), 1);
		x25519_base(got, b);
		assert_memory_equal(got, pub, 32);
		c = EVP_PKEY_CTX_new(ka, NULL);
		assert_non_null(c);
		assert_int_equal(EVP_PKEY_derive_init(c), 1);
		assert_int_equal(EVP_PKEY_derive_set_peer(c, kb), 1);
		n = 32;
		assert_int_equal(EVP_PKEY_derive(c, want, &n), 1);
		x25519(got, a, pub);
		assert_memory_equal(got, want, 32);
		EVP_PKEY_CTX_free(c);
		EVP_PKEY_free(ka);
		EVP_PKEY_free(kb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcm),
		cmocka_unit_test(test_cbc),
		cmocka_unit_test(test_chacha20),
		cmocka_unit_test(test_chacha20poly1305),
		cmocka_unit_test(test_poly1305),
		cmocka_unit_test(test_x25519),
	};

	print_message("X25519 field: %s\n", x25519_radix());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
