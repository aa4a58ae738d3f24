#include "x25519.h"

#include <string.h>

#if defined(__SIZEOF_INT128__) && !defined(RB_X25519_32BIT)
#define FE_LIMBS 5
typedef uint64_t fe_limb;
#else
#define FE_LIMBS 10
typedef uint32_t fe_limb;
#endif

/* A field element: sum of v[i] * 2^(offset of limb i), not necessarily
 * below p. */
struct fe {
	fe_limb v[FE_LIMBS];
};

static const uint8_t x25519_nine[32] = { 9 };

/* Width of limb i in bits. */
static int fe_width(int i)
{
	return FE_LIMBS == 5 ? 51 : 26 - (i & 1);
}

static uint64_t load64_le(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The 255 low bits of 32 little-endian bytes (bit 255 ignored). */
static void fe_frombytes(struct fe *h, const uint8_t s[32])
{
	uint8_t buf[40] = { 0 };
	int i, off = 0, w;

	memcpy(buf, s, 32);
	buf[31] &= 127;
	for (i = 0; i < FE_LIMBS; i++) {
		w = fe_width(i);
		h->v[i] = (fe_limb)((load64_le(buf + off / 8) >> (off % 8)) &
				    (((uint64_t)1 << w) - 1));
		off += w;
	}
}

/* Limbs of 2p, added before a subtraction so that no limb goes negative. */
static fe_limb fe_2p(int i)
{
	fe_limb top = (fe_limb)(((uint64_t)1 << fe_width(i)) - 1);

	return (fe_limb)(2 * (i == 0 ? top - 18 : top));
}

#if FE_LIMBS == 5
__extension__ typedef unsigned __int128 fe_wide;
#define MASK51 (((uint64_t)1 << 51) - 1)

/* Limbs of the products below stay under 2^113, so add and sub need no
 * carry: their inputs are carried (< 2^52), their outputs < 2^54. */
static inline void fe_carry(struct fe *h, fe_wide r0, fe_wide r1, fe_wide r2, fe_wide r3, fe_wide r4)
{
	fe_wide t;

	r1 += (uint64_t)(r0 >> 51);
	r2 += (uint64_t)(r1 >> 51);
	r3 += (uint64_t)(r2 >> 51);
	r4 += (uint64_t)(r3 >> 51);
	t = (fe_wide)(uint64_t)(r4 >> 51) * 19 + ((uint64_t)r0 & MASK51);
	h->v[0] = (uint64_t)t & MASK51;
	h->v[1] = ((uint64_t)r1 & MASK51) + (uint64_t)(t >> 51);
	h->v[2] = (uint64_t)r2 & MASK51;
	h->v[3] = (uint64_t)r3 & MASK51;
	h->v[4] = (uint64_t)r4 & MASK51;
}

static void fe_mul(struct fe *h, const struct fe *f, const struct fe *g)
{
	const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	const uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
	const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;

	fe_carry(h,
		 (fe_wide)f0 * g0 + (fe_wide)f1 * g4_19 + (fe_wide)f2 * g3_19 +
			 (fe_wide)f3 * g2_19 + (fe_wide)f4 * g1_19,
		 (fe_wide)f0 * g1 + (fe_wide)f1 * g0 + (fe_wide)f2 * g4_19 +
			 (fe_wide)f3 * g3_19 + (fe_wide)f4 * g2_19,
		 (fe_wide)f0 * g2 + (fe_wide)f1 * g1 + (fe_wide)f2 * g0 +
			 (fe_wide)f3 * g4_19 + (fe_wide)f4 * g3_19,
		 (fe_wide)f0 * g3 + (fe_wide)f1 * g2 + (fe_wide)f2 * g1 +
			 (fe_wide)f3 * g0 + (fe_wide)f4 * g4_19,
		 (fe_wide)f0 * g4 + (fe_wide)f1 * g3 + (fe_wide)f2 * g2 +
			 (fe_wide)f3 * g1 + (fe_wide)f4 * g0);
}

static void fe_sq(struct fe *h, const struct fe *f)
{
	const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	const uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1;
	const uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4, f3_38 = 38 * f3, f4_38 = 38 * f4;

	fe_carry(h,
		 (fe_wide)f0 * f0 + (fe_wide)f1 * f4_38 + (fe_wide)f2 * f3_38,
		 (fe_wide)f0_2 * f1 + (fe_wide)f2 * f4_38 + (fe_wide)f3 * f3_19,
		 (fe_wide)f0_2 * f2 + (fe_wide)f1 * f1 + (fe_wide)f3 * f4_38,
		 (fe_wide)f0_2 * f3 + (fe_wide)f1_2 * f2 + (fe_wide)f4 * f4_19,
		 (fe_wide)f0_2 * f4 + (fe_wide)f1_2 * f3 + (fe_wide)f2 * f2);
}

static void fe_mul_small(struct fe *h, const struct fe *f, uint32_t k)
{
	fe_carry(h, (fe_wide)f->v[0] * k, (fe_wide)f->v[1] * k, (fe_wide)f->v[2] * k,
		 (fe_wide)f->v[3] * k, (fe_wide)f->v[4] * k);
}

static void fe_add(struct fe *h, const struct fe *f, const struct fe *g)
{
	int i;

	for (i = 0; i < FE_LIMBS; i++)
		h->v[i] = f->v[i] + g->v[i];
}

static void fe_sub(struct fe *h, const struct fe *f, const struct fe *g)
{
	int i;

	for (i = 0; i < FE_LIMBS; i++)
		h->v[i] = f->v[i] + fe_2p(i) - g->v[i];
}

static const char fe_radix_name[] = "51-bit limbs";

#else /* ten limbs of 26 and 25 bits */

/* Carries 64-bit column sums into limbs (each below its width but limb 1,
 * which may exceed 2^25 by a little). */
static inline void fe_carry(struct fe *h, uint64_t *r)
{
	uint64_t c;
	int i, w;

	for (i = 0; i < 9; i++) {
		w = fe_width(i);
		r[i + 1] += r[i] >> w;
		r[i] &= ((uint64_t)1 << w) - 1;
	}
	c = r[9] >> 25;
	r[9] &= ((uint64_t)1 << 25) - 1;
	r[0] += c * 19;
	r[1] += r[0] >> 26;
	r[0] &= ((uint64_t)1 << 26) - 1;
	for (i = 0; i < 10; i++)
		h->v[i] = (uint32_t)r[i];
}

/* Column k of f*g: sum over i of f_i * g_(k-i), times 19 where k-i wraps
 * (2^255 = 19 mod p), times 2 where i and k-i are both odd (the 25-bit
 * limbs' offsets are half a bit short). Inputs below 2^27 keep every column
 * under 2^63. */
static void fe_mul(struct fe *h, const struct fe *f, const struct fe *g)
{
	uint32_t gt[19], f2[10];
	uint64_t r[10], s;
	const uint32_t *ff;
	int i, k;

	for (i = 0; i < 10; i++) {
		gt[i + 9] = g->v[i];
		if (i > 0)
			gt[i - 1] = 19 * g->v[i];
		f2[i] = f->v[i] << (i & 1);
	}
	for (k = 0; k < 10; k++) {
		ff = (k & 1) ? f->v : f2;
		s = 0;
		for (i = 0; i < 10; i++)
			s += (uint64_t)ff[i] * gt[k - i + 9];
		r[k] = s;
	}
	fe_carry(h, r);
}

/* f*f with each cross product once, doubled: 55 products instead of 100.
 * Coefficients as in fe_mul (2 for odd*odd, 19 for a wrap), written out;
 * the largest factor, 76 = 2 * 38, is split so that every factor fits
 * 32 bits. */
static void fe_sq(struct fe *h, const struct fe *f)
{
	const uint32_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
	const uint32_t f5 = f->v[5], f6 = f->v[6], f7 = f->v[7], f8 = f->v[8], f9 = f->v[9];
	const uint32_t f0_2 = 2 * f0, f1_2 = 2 * f1, f2_2 = 2 * f2, f3_2 = 2 * f3, f4_2 = 2 * f4;
	const uint32_t f5_2 = 2 * f5, f7_2 = 2 * f7;
	const uint32_t f5_38 = 38 * f5, f6_38 = 38 * f6, f7_38 = 38 * f7, f8_38 = 38 * f8,
		       f9_38 = 38 * f9, f6_19 = 19 * f6, f8_19 = 19 * f8;
	uint64_t r[10];

#define M(a, b) ((uint64_t)(a) * (b))
	r[0] = M(f0, f0) + M(f1_2, f9_38) + M(f2, f8_38) + M(f3_2, f7_38) + M(f4, f6_38) +
	       M(f5, f5_38);
	r[1] = M(f0_2, f1) + M(f2, f9_38) + M(f3, f8_38) + M(f4, f7_38) + M(f5, f6_38);
	r[2] = M(f0_2, f2) + M(f1_2, f1) + M(f3_2, f9_38) + M(f4, f8_38) + M(f5_2, f7_38) +
	       M(f6, f6_19);
	r[3] = M(f0_2, f3) + M(f1_2, f2) + M(f4, f9_38) + M(f5, f8_38) + M(f6, f7_38);
	r[4] = M(f0_2, f4) + M(f1_2, f3_2) + M(f2, f2) + M(f5_2, f9_38) + M(f6, f8_38) +
	       M(f7, f7_38);
	r[5] = M(f0_2, f5) + M(f1_2, f4) + M(f2_2, f3) + M(f6, f9_38) + M(f7, f8_38);
	r[6] = M(f0_2, f6) + M(f1_2, f5_2) + M(f2_2, f4) + M(f3_2, f3) + M(f7_2, f9_38) +
	       M(f8, f8_19);
	r[7] = M(f0_2, f7) + M(f1_2, f6) + M(f2_2, f5) + M(f3_2, f4) + M(f8, f9_38);
	r[8] = M(f0_2, f8) + M(f1_2, f7_2) + M(f2_2, f6) + M(f3_2, f5_2) + M(f4, f4) +
	       M(f9, f9_38);
	r[9] = M(f0_2, f9) + M(f1_2, f8) + M(f2_2, f7) + M(f3_2, f6) + M(f4_2, f5);
#undef M
	fe_carry(h, r);
}

static void fe_mul_small(struct fe *h, const struct fe *f, uint32_t k)
{
	uint64_t r[10];
	int i;

	for (i = 0; i < 10; i++)
		r[i] = (uint64_t)f->v[i] * k;
	fe_carry(h, r);
}

/* Add and sub carry their result, so that every product input stays
 * below 2^27. */
static void fe_add(struct fe *h, const struct fe *f, const struct fe *g)
{
	uint64_t r[10];
	int i;

	for (i = 0; i < 10; i++)
		r[i] = (uint64_t)f->v[i] + g->v[i];
	fe_carry(h, r);
}

static void fe_sub(struct fe *h, const struct fe *f, const struct fe *g)
{
	uint64_t r[10];
	int i;

	for (i = 0; i < 10; i++)
		r[i] = (uint64_t)f->v[i] + fe_2p(i) - g->v[i];
	fe_carry(h, r);
}

static const char fe_radix_name[] = "25.5-bit limbs";
#endif

/* Swaps f and g when `swap` is 1, leaves them when 0, with the same
 * instructions and memory accesses either way. */
static void fe_cswap(struct fe *f, struct fe *g, fe_limb swap)
{
	fe_limb mask = (fe_limb)0 - swap, x;
	int i;

	for (i = 0; i < FE_LIMBS; i++) {
		x = mask & (f->v[i] ^ g->v[i]);
		f->v[i] ^= x;
		g->v[i] ^= x;
	}
}

static void fe_sqn(struct fe *h, const struct fe *f, int n)
{
	fe_sq(h, f);
	while (--n > 0)
		fe_sq(h, h);
}

/* z^(p-2) = 1/z, p - 2 = 2^255 - 21, by the usual chain of 254 squarings
 * and 11 multiplications. */
static void fe_invert(struct fe *out, const struct fe *z)
{
	struct fe z2, z9, z11, a, b, c;

	fe_sq(&z2, z);
	fe_sqn(&a, &z2, 2);
	fe_mul(&z9, &a, z);
	fe_mul(&z11, &z9, &z2);
	fe_sq(&a, &z11);
	fe_mul(&a, &a, &z9);       /* 2^5 - 1 */
	fe_sqn(&b, &a, 5);
	fe_mul(&a, &b, &a);        /* 2^10 - 1 */
	fe_sqn(&b, &a, 10);
	fe_mul(&b, &b, &a);        /* 2^20 - 1 */
	fe_sqn(&c, &b, 20);
	fe_mul(&b, &c, &b);        /* 2^40 - 1 */
	fe_sqn(&b, &b, 10);
	fe_mul(&a, &b, &a);        /* 2^50 - 1 */
	fe_sqn(&b, &a, 50);
	fe_mul(&b, &b, &a);        /* 2^100 - 1 */
	fe_sqn(&c, &b, 100);
	fe_mul(&b, &c, &b);        /* 2^200 - 1 */
	fe_sqn(&b, &b, 50);
	fe_mul(&b, &b, &a);        /* 2^250 - 1 */
	fe_sqn(&b, &b, 5);
	fe_mul(out, &b, &z11);     /* 2^255 - 21 */
}

/* The canonical value (below p) as 32 little-endian bytes. */
static void fe_tobytes(uint8_t s[32], const struct fe *f)
{
	uint64_t r[FE_LIMBS], q, acc = 0;
	int i, w, bits = 0, n = 0;

	for (i = 0; i < FE_LIMBS; i++)
		r[i] = f->v[i];
	/* Two carry passes bring every limb under its width and the value
	 * under 2^255 + 19 * 2^something small, so under 2p. */
	for (w = 0; w < 2; w++) {
		for (i = 0; i < FE_LIMBS - 1; i++) {
			r[i + 1] += r[i] >> fe_width(i);
			r[i] &= ((uint64_t)1 << fe_width(i)) - 1;
		}
		r[0] += 19 * (r[FE_LIMBS - 1] >> fe_width(FE_LIMBS - 1));
		r[FE_LIMBS - 1] &= ((uint64_t)1 << fe_width(FE_LIMBS - 1)) - 1;
	}
	for (i = 0; i < FE_LIMBS - 1; i++) {
		r[i + 1] += r[i] >> fe_width(i);
		r[i] &= ((uint64_t)1 << fe_width(i)) - 1;
	}
	/* q = 1 when the value is >= p, i.e. value + 19 reaches 2^255. */
	q = (r[0] + 19) >> fe_width(0);
	for (i = 1; i < FE_LIMBS; i++)
		q = (r[i] + q) >> fe_width(i);
	r[0] += 19 * q;
	for (i = 0; i < FE_LIMBS - 1; i++) {
		r[i + 1] += r[i] >> fe_width(i);
		r[i] &= ((uint64_t)1 << fe_width(i)) - 1;
	}
	r[FE_LIMBS - 1] &= ((uint64_t)1 << fe_width(FE_LIMBS - 1)) - 1;
	for (i = 0; i < FE_LIMBS; i++) {
		acc |= r[i] << bits;
		bits += fe_width(i);
		while (bits >= 8 && n < 32) {
			s[n++] = (uint8_t)acc;
			acc >>= 8;
			bits -= 8;
		}
	}
	if (n < 32)
		s[n] = (uint8_t)acc;
}

void x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32])
{
	struct fe x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb;
	uint8_t k[32];
	fe_limb swap = 0, bit;
	int t;

	memcpy(k, scalar, 32);
	k[0] &= 248;
	k[31] &= 127;
	k[31] |= 64;
	fe_frombytes(&x1, point);
	memset(&x2, 0, sizeof(x2));
	x2.v[0] = 1;
	memset(&z2, 0, sizeof(z2));
	x3 = x1;
	z3 = x2;
	for (t = 254; t >= 0; t--) {
		bit = (k[t >> 3] >> (t & 7)) & 1;
		swap ^= bit;
		fe_cswap(&x2, &x3, swap);
		fe_cswap(&z2, &z3, swap);
		swap = bit;
		fe_add(&a, &x2, &z2);
		fe_sq(&aa, &a);
		fe_sub(&b, &x2, &z2);
		fe_sq(&bb, &b);
		fe_sub(&e, &aa, &bb);
		fe_add(&c, &x3, &z3);
		fe_sub(&d, &x3, &z3);
		fe_mul(&da, &d, &a);
		fe_mul(&cb, &c, &b);
		fe_add(&x3, &da, &cb);
		fe_sq(&x3, &x3);
		fe_sub(&z3, &da, &cb);
		fe_sq(&z3, &z3);
		fe_mul(&z3, &z3, &x1);
		fe_mul(&x2, &aa, &bb);
		fe_mul_small(&z2, &e, 121665);
		fe_add(&z2, &z2, &aa);
		fe_mul(&z2, &z2, &e);
	}
	fe_cswap(&x2, &x3, swap);
	fe_cswap(&z2, &z3, swap);
	fe_invert(&z2, &z2);
	fe_mul(&x2, &x2, &z2);
	fe_tobytes(out, &x2);
	memset(k, 0, sizeof(k));
}

void x25519_base(uint8_t out[32], const uint8_t scalar[32])
{
	x25519(out, scalar, x25519_nine);
}

const char *x25519_radix(void)
{
	return fe_radix_name;
}
