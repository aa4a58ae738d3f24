/*
 * aes128: the AES-128 block cipher (FIPS-197) with the two modes boards use
 * most: CBC (SP 800-38A; eCryptfs encrypts its pages this way) and GCM
 * (SP 800-38D, the AEAD of TLS and IPsec). Portable C written for
 * benchmarking small boards: 32-bit table lookups ("T-tables", built at the
 * first key setup from the field arithmetic, so the binary carries no
 * tables), GHASH with Shoup's 4-bit tables. No AES-NI, no SIMD, nothing
 * beyond 32- and 64-bit integers; any endianness. Table lookups depend on
 * the data, so this is not hardened against cache-timing attacks: it
 * measures speed, it does not protect secrets. Tests check it against
 * FIPS-197, SP 800-38A and the GCM specification's test cases.
 */
#ifndef RB_AES128_H
#define RB_AES128_H

#include <stddef.h>
#include <stdint.h>

/* Expanded encryption and decryption round keys of one 128-bit key. */
struct aes128 {
	uint32_t ek[44];
	uint32_t dk[44];
};

/* Expands `key` into `ctx` (both directions). */
void aes128_set_key(struct aes128 *ctx, const uint8_t key[16]);

/* One block; `in` and `out` may be the same buffer. */
void aes128_encrypt(const struct aes128 *ctx, const uint8_t in[16], uint8_t out[16]);
void aes128_decrypt(const struct aes128 *ctx, const uint8_t in[16], uint8_t out[16]);

/* CBC over `len` bytes, a multiple of 16 (no padding: the caller pads, as
 * eCryptfs does with whole pages). `iv` is updated to the last ciphertext
 * block so that calls chain. `in` and `out` may be the same buffer. */
void aes128_cbc_encrypt(const struct aes128 *ctx, uint8_t iv[16], const uint8_t *in,
			uint8_t *out, size_t len);
void aes128_cbc_decrypt(const struct aes128 *ctx, uint8_t iv[16], const uint8_t *in,
			uint8_t *out, size_t len);

/* AES-128-GCM key: the cipher and the 4-bit multiplication table of the
 * hash key H. */
struct aes128_gcm {
	struct aes128 aes;
	uint64_t hh[16];
	uint64_t hl[16];
};

void aes128_gcm_init(struct aes128_gcm *ctx, const uint8_t key[16]);

/* GCM authenticated encryption: `ct` gets `len` bytes, `tag` 16. Any IV
 * length >= 1 (12 bytes is the fast, usual one). `pt` and `ct` may be the
 * same buffer. */
void aes128_gcm_seal(const struct aes128_gcm *ctx, const uint8_t *iv, size_t ivlen,
		     const uint8_t *aad, size_t aadlen, const uint8_t *pt, size_t len,
		     uint8_t *ct, uint8_t tag[16]);

/* GCM decryption: checks the tag (constant time) and only then decrypts.
 * Returns 0, or -1 (and leaves `pt` untouched) when the tag does not match. */
int aes128_gcm_open(const struct aes128_gcm *ctx, const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *ct, size_t len,
		    const uint8_t tag[16], uint8_t *pt);

#endif
