#include "chacha20poly1305.h"

#include <string.h>

static uint32_t load32_le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32_le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void store64_le(uint8_t *p, uint64_t v)
{
	store32_le(p, (uint32_t)v);
	store32_le(p + 4, (uint32_t)(v >> 32));
}

#define ROTL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QUARTER(a, b, c, d)                          \
	do {                                         \
		a += b; d ^= a; d = ROTL32(d, 16);   \
		c += d; b ^= c; b = ROTL32(b, 12);   \
		a += b; d ^= a; d = ROTL32(d, 8);    \
		c += d; b ^= c; b = ROTL32(b, 7);    \
	} while (0)

static void chacha20_setup(uint32_t st[16], const uint8_t key[32], uint32_t counter,
			   const uint8_t nonce[12])
{
	int i;

	st[0] = 0x61707865;
	st[1] = 0x3320646e;
	st[2] = 0x79622d32;
	st[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		st[4 + i] = load32_le(key + 4 * i);
	st[12] = counter;
	for (i = 0; i < 3; i++)
		st[13 + i] = load32_le(nonce + 4 * i);
}

/* x = the 20 rounds of st, plus st (RFC 8439 2.3). The state is in 16
 * named variables so that compilers keep it in registers. */
static void chacha20_core(uint32_t x[16], const uint32_t st[16])
{
	uint32_t x0 = st[0], x1 = st[1], x2 = st[2], x3 = st[3], x4 = st[4], x5 = st[5];
	uint32_t x6 = st[6], x7 = st[7], x8 = st[8], x9 = st[9], x10 = st[10], x11 = st[11];
	uint32_t x12 = st[12], x13 = st[13], x14 = st[14], x15 = st[15];
	int i;

	for (i = 0; i < 10; i++) {
		QUARTER(x0, x4, x8, x12);
		QUARTER(x1, x5, x9, x13);
		QUARTER(x2, x6, x10, x14);
		QUARTER(x3, x7, x11, x15);
		QUARTER(x0, x5, x10, x15);
		QUARTER(x1, x6, x11, x12);
		QUARTER(x2, x7, x8, x13);
		QUARTER(x3, x4, x9, x14);
	}
	x[0] = x0 + st[0]; x[1] = x1 + st[1]; x[2] = x2 + st[2]; x[3] = x3 + st[3];
	x[4] = x4 + st[4]; x[5] = x5 + st[5]; x[6] = x6 + st[6]; x[7] = x7 + st[7];
	x[8] = x8 + st[8]; x[9] = x9 + st[9]; x[10] = x10 + st[10]; x[11] = x11 + st[11];
	x[12] = x12 + st[12]; x[13] = x13 + st[13]; x[14] = x14 + st[14]; x[15] = x15 + st[15];
}

void chacha20_block(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12],
		    uint8_t out[64])
{
	uint32_t st[16], x[16];
	int i;

	chacha20_setup(st, key, counter, nonce);
	chacha20_core(x, st);
	for (i = 0; i < 16; i++)
		store32_le(out + 4 * i, x[i]);
}

/* XORs with the keystream from block st[12] on; whole blocks a word at a
 * time. st[12] is advanced past the blocks used. */
static void chacha20_xor_state(uint32_t st[16], const uint8_t *in, uint8_t *out, size_t len)
{
	uint32_t x[16];
	uint8_t ks[64];
	size_t i;

	for (; len >= 64; len -= 64, in += 64, out += 64) {
		chacha20_core(x, st);
		st[12]++;
		for (i = 0; i < 16; i++)
			store32_le(out + 4 * i, load32_le(in + 4 * i) ^ x[i]);
	}
	if (len > 0) {
		chacha20_core(x, st);
		st[12]++;
		for (i = 0; i < 16; i++)
			store32_le(ks + 4 * i, x[i]);
		for (i = 0; i < len; i++)
			out[i] = in[i] ^ ks[i];
	}
}

void chacha20_xor(const uint8_t key[32], uint32_t counter, const uint8_t nonce[12],
		  const uint8_t *in, uint8_t *out, size_t len)
{
	uint32_t st[16];

	chacha20_setup(st, key, counter, nonce);
	chacha20_xor_state(st, in, out, len);
}

#if RB_POLY1305_LIMBS == 3
/* Poly1305 with 64-bit limbs: h = h0 + h1 2^64 + h2 2^128 (h2 a few bits),
 * r = r0 + r1 2^64, so a block costs four 64 x 64 -> 128-bit products and
 * two small ones (the 26-bit code below takes 25 of 32 x 32 -> 64 bits).
 * Clamping leaves r1 a multiple of 4, so the terms at 2^128 and 2^192
 * fold back with 2^130 = 5 (mod p) as multiples of s1 = r1 + r1 / 4. */
__extension__ typedef unsigned __int128 poly_wide;
#define POLY_HIBIT ((uint64_t)1) /* 2^128: 1 in h2 */

static uint64_t load64_le(const uint8_t *p)
{
	return (uint64_t)load32_le(p) | (uint64_t)load32_le(p + 4) << 32;
}

static void poly1305_blocks(struct poly1305 *st, const uint8_t *m, size_t len, uint64_t hibit)
{
	const uint64_t r0 = st->r[0], r1 = st->r[1], s1 = r1 + (r1 >> 2);
	uint64_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], c;
	poly_wide t, d0, d1;

	while (len >= 16) {
		t = (poly_wide)h0 + load64_le(m);
		h0 = (uint64_t)t;
		t = (poly_wide)h1 + load64_le(m + 8) + (uint64_t)(t >> 64);
		h1 = (uint64_t)t;
		h2 += (uint64_t)(t >> 64) + hibit;

		/* h2 <= 7 and r0, s1 < 2^61 here: no sum overflows. */
		d0 = (poly_wide)h0 * r0 + (poly_wide)h1 * s1;
		d1 = (poly_wide)h0 * r1 + (poly_wide)h1 * r0 + h2 * s1 + (uint64_t)(d0 >> 64);
		h2 = h2 * r0 + (uint64_t)(d1 >> 64);
		h0 = (uint64_t)d0;
		h1 = (uint64_t)d1;

		/* The bits from 2^130 up, times 5, go back to the bottom. */
		c = (h2 >> 2) + (h2 & ~(uint64_t)3);
		h2 &= 3;
		t = (poly_wide)h0 + c;
		h0 = (uint64_t)t;
		t = (poly_wide)h1 + (uint64_t)(t >> 64);
		h1 = (uint64_t)t;
		h2 += (uint64_t)(t >> 64);

		m += 16;
		len -= 16;
	}
	st->h[0] = h0; st->h[1] = h1; st->h[2] = h2;
}

static void poly1305_set_r(struct poly1305 *st, const uint8_t r[16])
{
	st->r[0] = load64_le(r);
	st->r[1] = load64_le(r + 8);
	st->r[2] = 0;
}

/* h mod p, added to the pad, as 16 little-endian bytes. h < 5 * 2^128 <
 * 2p after the blocks, so one subtraction of p is enough. */
static void poly1305_tag(struct poly1305 *st, uint8_t tag[16])
{
	uint64_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], g0, g1, g2, mask;
	poly_wide t;

	/* g = h + 5; h >= p exactly when g reaches 2^130, and then h - p is
	 * g's low 128 bits. */
	t = (poly_wide)h0 + 5;
	g0 = (uint64_t)t;
	t = (poly_wide)h1 + (uint64_t)(t >> 64);
	g1 = (uint64_t)t;
	g2 = h2 + (uint64_t)(t >> 64);
	mask = 0 - (g2 >> 2);
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);

	t = (poly_wide)h0 + ((uint64_t)st->pad[0] | (uint64_t)st->pad[1] << 32);
	store64_le(tag, (uint64_t)t);
	t = (poly_wide)h1 + ((uint64_t)st->pad[2] | (uint64_t)st->pad[3] << 32) +
	    (uint64_t)(t >> 64);
	store64_le(tag + 8, (uint64_t)t);
}
#else
/* Poly1305 with 32-bit limbs: the accumulator and r as five 26-bit limbs
 * so that every product fits a 64-bit integer on 32-bit CPUs. */
#define LIMB 0x3ffffffu
#define POLY_HIBIT (1u << 24) /* 2^128 = 2^24 in the top limb */

static void poly1305_blocks(struct poly1305 *st, const uint8_t *m, size_t len, uint32_t hibit)
{
	const uint32_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2], r3 = st->r[3], r4 = st->r[4];
	const uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
	uint32_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], h3 = st->h[3], h4 = st->h[4];
	uint64_t d0, d1, d2, d3, d4;
	uint32_t c;

	while (len >= 16) {
		h0 += load32_le(m) & LIMB;
		h1 += (load32_le(m + 3) >> 2) & LIMB;
		h2 += (load32_le(m + 6) >> 4) & LIMB;
		h3 += (load32_le(m + 9) >> 6) & LIMB;
		h4 += (load32_le(m + 12) >> 8) | hibit;

		d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
		     (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
		d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 +
		     (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
		d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 +
		     (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
		d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 +
		     (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
		d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 +
		     (uint64_t)h3 * r1 + (uint64_t)h4 * r0;

		c = (uint32_t)(d0 >> 26); h0 = (uint32_t)d0 & LIMB;
		d1 += c; c = (uint32_t)(d1 >> 26); h1 = (uint32_t)d1 & LIMB;
		d2 += c; c = (uint32_t)(d2 >> 26); h2 = (uint32_t)d2 & LIMB;
		d3 += c; c = (uint32_t)(d3 >> 26); h3 = (uint32_t)d3 & LIMB;
		d4 += c; c = (uint32_t)(d4 >> 26); h4 = (uint32_t)d4 & LIMB;
		h0 += c * 5; c = h0 >> 26; h0 &= LIMB;
		h1 += c;

		m += 16;
		len -= 16;
	}
	st->h[0] = h0; st->h[1] = h1; st->h[2] = h2; st->h[3] = h3; st->h[4] = h4;
}

static void poly1305_set_r(struct poly1305 *st, const uint8_t r[16])
{
	st->r[0] = load32_le(r) & LIMB;
	st->r[1] = (load32_le(r + 3) >> 2) & LIMB;
	st->r[2] = (load32_le(r + 6) >> 4) & LIMB;
	st->r[3] = (load32_le(r + 9) >> 6) & LIMB;
	st->r[4] = load32_le(r + 12) >> 8;
}

/* h mod p, added to the pad, as 16 little-endian bytes. */
static void poly1305_tag(struct poly1305 *st, uint8_t tag[16])
{
	uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, c, mask;
	uint64_t f;

	h0 = st->h[0]; h1 = st->h[1]; h2 = st->h[2]; h3 = st->h[3]; h4 = st->h[4];

	c = h1 >> 26; h1 &= LIMB;
	h2 += c; c = h2 >> 26; h2 &= LIMB;
	h3 += c; c = h3 >> 26; h3 &= LIMB;
	h4 += c; c = h4 >> 26; h4 &= LIMB;
	h0 += c * 5; c = h0 >> 26; h0 &= LIMB;
	h1 += c;

	/* g = h - p = h + 5 - 2^130; keep g when it did not go negative. */
	g0 = h0 + 5; c = g0 >> 26; g0 &= LIMB;
	g1 = h1 + c; c = g1 >> 26; g1 &= LIMB;
	g2 = h2 + c; c = g2 >> 26; g2 &= LIMB;
	g3 = h3 + c; c = g3 >> 26; g3 &= LIMB;
	g4 = h4 + c - (1u << 26);
	mask = (g4 >> 31) - 1u;
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask);
	h3 = (h3 & ~mask) | (g3 & mask);
	h4 = (h4 & ~mask) | (g4 & mask);

	h0 = h0 | (h1 << 26);
	h1 = (h1 >> 6) | (h2 << 20);
	h2 = (h2 >> 12) | (h3 << 14);
	h3 = (h3 >> 18) | (h4 << 8);

	f = (uint64_t)h0 + st->pad[0]; store32_le(tag, (uint32_t)f);
	f = (uint64_t)h1 + st->pad[1] + (f >> 32); store32_le(tag + 4, (uint32_t)f);
	f = (uint64_t)h2 + st->pad[2] + (f >> 32); store32_le(tag + 8, (uint32_t)f);
	f = (uint64_t)h3 + st->pad[3] + (f >> 32); store32_le(tag + 12, (uint32_t)f);
}
#endif

void poly1305_init(struct poly1305 *st, const uint8_t key[32])
{
	uint8_t r[16];
	int i;

	memcpy(r, key, 16);
	r[3] &= 15; r[7] &= 15; r[11] &= 15; r[15] &= 15;
	r[4] &= 252; r[8] &= 252; r[12] &= 252;
	poly1305_set_r(st, r);
	for (i = 0; i < RB_POLY1305_LIMBS; i++)
		st->h[i] = 0;
	for (i = 0; i < 4; i++)
		st->pad[i] = load32_le(key + 16 + 4 * i);
	st->buflen = 0;
}

void poly1305_update(struct poly1305 *st, const uint8_t *msg, size_t len)
{
	size_t n;

	if (st->buflen > 0) {
		n = 16 - st->buflen;
		if (n > len)
			n = len;
		memcpy(st->buf + st->buflen, msg, n);
		st->buflen += n;
		msg += n;
		len -= n;
		if (st->buflen < 16)
			return;
		poly1305_blocks(st, st->buf, 16, POLY_HIBIT);
		st->buflen = 0;
	}
	n = len & ~(size_t)15;
	if (n > 0) {
		poly1305_blocks(st, msg, n, POLY_HIBIT);
		msg += n;
		len -= n;
	}
	if (len > 0) {
		memcpy(st->buf, msg, len);
		st->buflen = len;
	}
}

void poly1305_final(struct poly1305 *st, uint8_t tag[16])
{
	if (st->buflen > 0) {
		/* The last short block gets its 0x01 byte here, so no 2^128 bit. */
		st->buf[st->buflen] = 1;
		memset(st->buf + st->buflen + 1, 0, 16 - st->buflen - 1);
		poly1305_blocks(st, st->buf, 16, 0);
	}
	poly1305_tag(st, tag);
	memset(st, 0, sizeof(*st));
}

void poly1305_mac(const uint8_t key[32], const uint8_t *msg, size_t len, uint8_t tag[16])
{
	struct poly1305 st;

	poly1305_init(&st, key);
	poly1305_update(&st, msg, len);
	poly1305_final(&st, tag);
}

/* The one-time Poly1305 key: the first 32 bytes of block 0 (RFC 8439
 * 2.6). `st` is set up for block 0 and left at block 1, where the data's
 * keystream starts. */
static void aead_poly_key(uint32_t st[16], uint8_t pk[32])
{
	uint32_t x[16];
	int i;

	chacha20_core(x, st);
	for (i = 0; i < 8; i++)
		store32_le(pk + 4 * i, x[i]);
	st[12] = 1;
}

static void aead_tag(const uint8_t pk[32], const uint8_t *aad, size_t aadlen,
		     const uint8_t *ct, size_t len, uint8_t tag[16])
{
	static const uint8_t zeros[16];
	uint8_t lens[16];
	struct poly1305 st;

	poly1305_init(&st, pk);
	poly1305_update(&st, aad, aadlen);
	if (aadlen % 16)
		poly1305_update(&st, zeros, 16 - aadlen % 16);
	poly1305_update(&st, ct, len);
	if (len % 16)
		poly1305_update(&st, zeros, 16 - len % 16);
	store64_le(lens, (uint64_t)aadlen);
	store64_le(lens + 8, (uint64_t)len);
	poly1305_update(&st, lens, sizeof(lens));
	poly1305_final(&st, tag);
}

void aead_chacha20poly1305_seal(const uint8_t key[32], const uint8_t nonce[12],
				const uint8_t *aad, size_t aadlen,
				const uint8_t *pt, size_t len,
				uint8_t *ct, uint8_t tag[16])
{
	uint32_t st[16];
	uint8_t pk[32];

	chacha20_setup(st, key, 0, nonce);
	aead_poly_key(st, pk);
	chacha20_xor_state(st, pt, ct, len);
	aead_tag(pk, aad, aadlen, ct, len, tag);
	memset(pk, 0, sizeof(pk));
}

int aead_chacha20poly1305_open(const uint8_t key[32], const uint8_t nonce[12],
			       const uint8_t *aad, size_t aadlen,
			       const uint8_t *ct, size_t len, const uint8_t tag[16],
			       uint8_t *pt)
{
	uint32_t st[16];
	uint8_t pk[32], want[16];
	unsigned diff = 0;
	int i;

	chacha20_setup(st, key, 0, nonce);
	aead_poly_key(st, pk);
	aead_tag(pk, aad, aadlen, ct, len, want);
	memset(pk, 0, sizeof(pk));
	for (i = 0; i < 16; i++)
		diff |= (unsigned)(want[i] ^ tag[i]);
	if (diff)
		return -1;
	chacha20_xor_state(st, ct, pt, len);
	return 0;
}
