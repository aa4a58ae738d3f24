/*
 * chacha20poly1305: the ChaCha20 stream cipher, the Poly1305 authenticator
 * and their AEAD construction, as RFC 8439 specifies them. Portable C with
 * 32-bit limbs (fast enough on armv5 and i586, no SIMD; Poly1305 takes
 * 64-bit limbs where the compiler has unsigned __int128, as X25519 does,
 * unless RB_POLY1305_32BIT forces the 32-bit code), byte-wise little
 * endian loads so that it is right on any host. Written for benchmarking
 * packet encryption on small boards; tests check it against the RFC's test
 * vectors. No state is kept between calls.
 */
#ifndef RB_CHACHA20POLY1305_H
#define RB_CHACHA20POLY1305_H

#include <stddef.h>
#include <stdint.h>

/* One 64-byte keystream block for (key, counter, nonce) (RFC 8439 2.3). */
void chacha20_block(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12],
		    uint8_t out[64]);

/* XORs `len` bytes of `in` with the keystream starting at block `counter`
 * into `out` (RFC 8439 2.4). `in` and `out` may be the same buffer. */
void chacha20_xor(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12],
		  const uint8_t *in, uint8_t *out, size_t len);

/* Incremental Poly1305 (RFC 8439 2.5). The 64-bit path keeps h in three
 * limbs (64, 64 and a few bits) and r in two; the 32-bit one keeps both in
 * five 26-bit limbs. */
#if defined(__SIZEOF_INT128__) && !defined(RB_POLY1305_32BIT)
#define RB_POLY1305_LIMBS 3
typedef uint64_t rb_poly1305_limb;
#else
#define RB_POLY1305_LIMBS 5
typedef uint32_t rb_poly1305_limb;
#endif

struct poly1305 {
	rb_poly1305_limb r[RB_POLY1305_LIMBS];
	rb_poly1305_limb h[RB_POLY1305_LIMBS];
	uint32_t pad[4];
	uint8_t buf[16];
	size_t buflen;
};

void poly1305_init(struct poly1305 *st, const uint8_t key[32]);
void poly1305_update(struct poly1305 *st, const uint8_t *msg, size_t len);
/* Writes the tag and wipes the state. */
void poly1305_final(struct poly1305 *st, uint8_t tag[16]);
/* One-shot MAC of `msg` under the one-time `key`. */
void poly1305_mac(const uint8_t key[32], const uint8_t *msg, size_t len, uint8_t tag[16]);

/* AEAD_CHACHA20_POLY1305 encryption (RFC 8439 2.8): `ct` gets `len` bytes,
 * `tag` 16. `pt` and `ct` may be the same buffer. */
void aead_chacha20poly1305_seal(const uint8_t key[32], const uint8_t nonce[12],
				const uint8_t *aad, size_t aadlen,
				const uint8_t *pt, size_t len,
				uint8_t *ct, uint8_t tag[16]);

/* Decryption: checks the tag in constant time and only then decrypts.
 * Returns 0, or -1 (and leaves `pt` untouched) when the tag does not match. */
int aead_chacha20poly1305_open(const uint8_t key[32], const uint8_t nonce[12],
			       const uint8_t *aad, size_t aadlen,
			       const uint8_t *ct, size_t len, const uint8_t tag[16],
			       uint8_t *pt);

#endif
