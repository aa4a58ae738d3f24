/*
 * x25519: the X25519 Diffie-Hellman function of RFC 7748 (Curve25519,
 * Montgomery ladder with a constant-time conditional swap), the public-key
 * half of a WireGuard or cjdns handshake. Field arithmetic modulo
 * 2^255 - 19 in one of two radixes, chosen at compile time:
 *   - five 51-bit limbs when the compiler has `unsigned __int128` (64-bit
 *     hosts: x86-64, aarch64);
 *   - ten limbs of alternately 26 and 25 bits ("radix 2^25.5") whose
 *     products fit 64 bits, for 32-bit CPUs (i586, armv5), or anywhere when
 *     RB_X25519_32BIT is defined (how the tests check that path on a 64-bit
 *     host).
 * Portable C, any endianness, no tables. Tests check it against RFC 7748.
 */
#ifndef RB_X25519_H
#define RB_X25519_H

#include <stdint.h>

/* out = X25519(scalar, point): `scalar` is clamped as the RFC says, the top
 * bit of `point` is ignored. `out` may alias either input. */
void x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]);

/* out = X25519(scalar, 9): the public key of a secret scalar. */
void x25519_base(uint8_t out[32], const uint8_t scalar[32]);

/* "51-bit limbs" or "25.5-bit limbs": which field code this build has. */
const char *x25519_radix(void);

#endif
