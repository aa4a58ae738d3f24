#include "aes128.h"

#include <string.h>

/* State and round keys are 32-bit words, one per column, the column's first
 * byte in the top 8 bits (FIPS-197's byte order read big endian). */
static uint8_t aes_sbox[256], aes_isbox[256];
static uint32_t aes_te[4][256], aes_td[4][256];
static uint16_t gcm_rem[16];
static int aes_tables_ready;

static uint32_t load32_be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store32_be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint64_t load64_be(const uint8_t *p)
{
	return (uint64_t)load32_be(p) << 32 | load32_be(p + 4);
}

static uint32_t ror32(uint32_t v, int n)
{
	return (v >> n) | (v << (32 - n));
}

/* Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1. */
static uint8_t xtime(uint8_t a)
{
	return (uint8_t)((a << 1) ^ ((a >> 7) * 0x1b));
}

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = xtime(a);
		b >>= 1;
	}
	return r;
}

/* The S-box from its definition (inverse in GF(2^8), then the affine map),
 * the round tables from the S-box and the MixColumns coefficients. */
static void aes_init_tables(void)
{
	uint8_t gexp[256], glog[256], x = 1, s, inv, is;
	uint32_t te, td;
	int i, j, k;

	for (i = 0; i < 255; i++) {
		gexp[i] = x;
		glog[x] = (uint8_t)i;
		x ^= xtime(x); /* times the generator x + 1 */
	}
	for (i = 0; i < 256; i++) {
		inv = i == 0 ? 0 : gexp[(255 - glog[i]) % 255];
		s = inv;
		for (j = 1; j < 5; j++)
			s ^= (uint8_t)((inv << j) | (inv >> (8 - j)));
		s ^= 0x63;
		aes_sbox[i] = s;
		aes_isbox[s] = (uint8_t)i;
	}
	for (i = 0; i < 256; i++) {
		s = aes_sbox[i];
		is = aes_isbox[i];
		te = (uint32_t)xtime(s) << 24 | (uint32_t)s << 16 | (uint32_t)s << 8 |
		     (uint32_t)(xtime(s) ^ s);
		td = (uint32_t)gf_mul(is, 14) << 24 | (uint32_t)gf_mul(is, 9) << 16 |
		     (uint32_t)gf_mul(is, 13) << 8 | (uint32_t)gf_mul(is, 11);
		for (k = 0; k < 4; k++) {
			aes_te[k][i] = k ? ror32(te, 8 * k) : te;
			aes_td[k][i] = k ? ror32(td, 8 * k) : td;
		}
	}
	/* GHASH: what the 4 bits shifted out at the low end of a 128-bit
	 * value fold back into its top 16 bits (x^128 = x^7 + x^2 + x + 1). */
	for (i = 0; i < 16; i++) {
		gcm_rem[i] = 0;
		for (j = 0; j < 4; j++)
			if (i & (1 << j))
				gcm_rem[i] ^= (uint16_t)(0xe100 >> (3 - j));
	}
	aes_tables_ready = 1;
}

static uint32_t sub_word(uint32_t w)
{
	return (uint32_t)aes_sbox[w >> 24] << 24 | (uint32_t)aes_sbox[(w >> 16) & 255] << 16 |
	       (uint32_t)aes_sbox[(w >> 8) & 255] << 8 | aes_sbox[w & 255];
}

static uint32_t inv_mix_column(uint32_t w)
{
	return aes_td[0][aes_sbox[w >> 24]] ^ aes_td[1][aes_sbox[(w >> 16) & 255]] ^
	       aes_td[2][aes_sbox[(w >> 8) & 255]] ^ aes_td[3][aes_sbox[w & 255]];
}

void aes128_set_key(struct aes128 *ctx, const uint8_t key[16])
{
	uint32_t t, rcon = 1;
	int i, r;

	if (!aes_tables_ready)
		aes_init_tables();
	for (i = 0; i < 4; i++)
		ctx->ek[i] = load32_be(key + 4 * i);
	for (i = 4; i < 44; i++) {
		t = ctx->ek[i - 1];
		if (i % 4 == 0) {
			t = sub_word(ror32(t, 24)) ^ rcon << 24;
			rcon = xtime((uint8_t)rcon);
		}
		ctx->ek[i] = ctx->ek[i - 4] ^ t;
	}
	/* Equivalent inverse cipher: round keys in reverse order, the inner
	 * ones through InvMixColumns. */
	for (r = 0; r <= 10; r++)
		for (i = 0; i < 4; i++) {
			t = ctx->ek[4 * (10 - r) + i];
			ctx->dk[4 * r + i] = (r == 0 || r == 10) ? t : inv_mix_column(t);
		}
}

#define TE(s0, s1, s2, s3) \
	(aes_te[0][(s0) >> 24] ^ aes_te[1][((s1) >> 16) & 255] ^ \
	 aes_te[2][((s2) >> 8) & 255] ^ aes_te[3][(s3) & 255])
#define SB(s0, s1, s2, s3) \
	((uint32_t)aes_sbox[(s0) >> 24] << 24 ^ (uint32_t)aes_sbox[((s1) >> 16) & 255] << 16 ^ \
	 (uint32_t)aes_sbox[((s2) >> 8) & 255] << 8 ^ (uint32_t)aes_sbox[(s3) & 255])
#define TD(s0, s1, s2, s3) \
	(aes_td[0][(s0) >> 24] ^ aes_td[1][((s1) >> 16) & 255] ^ \
	 aes_td[2][((s2) >> 8) & 255] ^ aes_td[3][(s3) & 255])
#define ISB(s0, s1, s2, s3) \
	((uint32_t)aes_isbox[(s0) >> 24] << 24 ^ (uint32_t)aes_isbox[((s1) >> 16) & 255] << 16 ^ \
	 (uint32_t)aes_isbox[((s2) >> 8) & 255] << 8 ^ (uint32_t)aes_isbox[(s3) & 255])

/* One block on column words, in place. */
static void aes_encrypt_words(const uint32_t *rk, uint32_t s[4])
{
	uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
	uint32_t t0, t1, t2, t3;
	int r;

	for (r = 1; r < 10; r++) {
		rk += 4;
		t0 = TE(s0, s1, s2, s3) ^ rk[0];
		t1 = TE(s1, s2, s3, s0) ^ rk[1];
		t2 = TE(s2, s3, s0, s1) ^ rk[2];
		t3 = TE(s3, s0, s1, s2) ^ rk[3];
		s0 = t0; s1 = t1; s2 = t2; s3 = t3;
	}
	rk += 4;
	s[0] = SB(s0, s1, s2, s3) ^ rk[0];
	s[1] = SB(s1, s2, s3, s0) ^ rk[1];
	s[2] = SB(s2, s3, s0, s1) ^ rk[2];
	s[3] = SB(s3, s0, s1, s2) ^ rk[3];
}

static void aes_decrypt_words(const uint32_t *rk, uint32_t s[4])
{
	uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
	uint32_t t0, t1, t2, t3;
	int r;

	for (r = 1; r < 10; r++) {
		rk += 4;
		t0 = TD(s0, s3, s2, s1) ^ rk[0];
		t1 = TD(s1, s0, s3, s2) ^ rk[1];
		t2 = TD(s2, s1, s0, s3) ^ rk[2];
		t3 = TD(s3, s2, s1, s0) ^ rk[3];
		s0 = t0; s1 = t1; s2 = t2; s3 = t3;
	}
	rk += 4;
	s[0] = ISB(s0, s3, s2, s1) ^ rk[0];
	s[1] = ISB(s1, s0, s3, s2) ^ rk[1];
	s[2] = ISB(s2, s1, s0, s3) ^ rk[2];
	s[3] = ISB(s3, s2, s1, s0) ^ rk[3];
}

static void load_block(uint32_t s[4], const uint8_t *p)
{
	s[0] = load32_be(p);
	s[1] = load32_be(p + 4);
	s[2] = load32_be(p + 8);
	s[3] = load32_be(p + 12);
}

static void store_block(uint8_t *p, const uint32_t s[4])
{
	store32_be(p, s[0]);
	store32_be(p + 4, s[1]);
	store32_be(p + 8, s[2]);
	store32_be(p + 12, s[3]);
}

void aes128_encrypt(const struct aes128 *ctx, const uint8_t in[16], uint8_t out[16])
{
	uint32_t s[4];

	load_block(s, in);
	aes_encrypt_words(ctx->ek, s);
	store_block(out, s);
}

void aes128_decrypt(const struct aes128 *ctx, const uint8_t in[16], uint8_t out[16])
{
	uint32_t s[4];

	load_block(s, in);
	aes_decrypt_words(ctx->dk, s);
	store_block(out, s);
}

void aes128_cbc_encrypt(const struct aes128 *ctx, uint8_t iv[16], const uint8_t *in,
			uint8_t *out, size_t len)
{
	uint32_t s[4], b[4];
	int i;

	load_block(s, iv);
	for (; len >= 16; len -= 16, in += 16, out += 16) {
		load_block(b, in);
		for (i = 0; i < 4; i++)
			s[i] ^= b[i];
		aes_encrypt_words(ctx->ek, s);
		store_block(out, s);
	}
	store_block(iv, s);
}

void aes128_cbc_decrypt(const struct aes128 *ctx, uint8_t iv[16], const uint8_t *in,
			uint8_t *out, size_t len)
{
	uint32_t prev[4], c[4], s[4];
	int i;

	load_block(prev, iv);
	for (; len >= 16; len -= 16, in += 16, out += 16) {
		load_block(c, in);
		memcpy(s, c, sizeof(s));
		aes_decrypt_words(ctx->dk, s);
		for (i = 0; i < 4; i++)
			s[i] ^= prev[i];
		memcpy(prev, c, sizeof(prev));
		store_block(out, s);
	}
	store_block(iv, prev);
}

/* GHASH. A field element is two 64-bit halves of the 16 bytes read big
 * endian; the spec's bit 0 (coefficient of x^0) is the top bit of `hi`, so
 * multiplying by x is a right shift. hh/hl[n] hold n*H for the 4-bit
 * polynomial n (its top bit the x^0 coefficient): Shoup's table. */
void aes128_gcm_init(struct aes128_gcm *ctx, const uint8_t key[16])
{
	static const uint8_t zero[16];
	uint8_t h[16];
	uint64_t vh, vl, bit;
	int i, j;

	aes128_set_key(&ctx->aes, key);
	aes128_encrypt(&ctx->aes, zero, h);
	vh = load64_be(h);
	vl = load64_be(h + 8);
	ctx->hh[0] = ctx->hl[0] = 0;
	for (i = 8; i > 0; i >>= 1) {
		ctx->hh[i] = vh;
		ctx->hl[i] = vl;
		bit = vl & 1;
		vl = (vl >> 1) | (vh << 63);
		vh = (vh >> 1) ^ (((uint64_t)0 - bit) & ((uint64_t)0xe1 << 56));
	}
	for (i = 2; i < 16; i <<= 1)
		for (j = 1; j < i; j++) {
			ctx->hh[i + j] = ctx->hh[i] ^ ctx->hh[j];
			ctx->hl[i + j] = ctx->hl[i] ^ ctx->hl[j];
		}
}

/* y = y * H, Horner's rule over the 32 nibbles from the x^127 end. */
static void ghash_mul(const struct aes128_gcm *ctx, uint64_t y[2])
{
	uint64_t zh = 0, zl = 0, xh = y[0], xl = y[1], x;
	unsigned rem, nib;
	int i;

	for (i = 0; i < 32; i++) {
		x = i < 16 ? xl : xh;
		nib = (unsigned)(x >> (4 * (i & 15))) & 15;
		if (i) {
			rem = (unsigned)zl & 15;
			zl = (zl >> 4) | (zh << 60);
			zh = (zh >> 4) ^ (uint64_t)gcm_rem[rem] << 48;
		}
		zh ^= ctx->hh[nib];
		zl ^= ctx->hl[nib];
	}
	y[0] = zh;
	y[1] = zl;
}

/* Absorbs `len` bytes, the last block padded with zeros. */
static void ghash_update(const struct aes128_gcm *ctx, uint64_t y[2], const uint8_t *p,
			 size_t len)
{
	uint8_t last[16];

	for (; len >= 16; len -= 16, p += 16) {
		y[0] ^= load64_be(p);
		y[1] ^= load64_be(p + 8);
		ghash_mul(ctx, y);
	}
	if (len) {
		memset(last, 0, sizeof(last));
		memcpy(last, p, len);
		ghash_update(ctx, y, last, 16);
	}
}

static void ghash_lengths(const struct aes128_gcm *ctx, uint64_t y[2], uint64_t a, uint64_t b)
{
	y[0] ^= a * 8;
	y[1] ^= b * 8;
	ghash_mul(ctx, y);
}

static void gcm_j0(const struct aes128_gcm *ctx, const uint8_t *iv, size_t ivlen,
		   uint32_t j0[4])
{
	uint64_t y[2] = { 0, 0 };

	if (ivlen == 12) {
		j0[0] = load32_be(iv);
		j0[1] = load32_be(iv + 4);
		j0[2] = load32_be(iv + 8);
		j0[3] = 1;
		return;
	}
	ghash_update(ctx, y, iv, ivlen);
	ghash_lengths(ctx, y, 0, ivlen);
	j0[0] = (uint32_t)(y[0] >> 32);
	j0[1] = (uint32_t)y[0];
	j0[2] = (uint32_t)(y[1] >> 32);
	j0[3] = (uint32_t)y[1];
}

/* CTR from inc32(J0) (only the last word counts, modulo 2^32). */
static void gcm_ctr(const struct aes128_gcm *ctx, const uint32_t j0[4], const uint8_t *in,
		    uint8_t *out, size_t len)
{
	uint32_t ctr = j0[3], s[4];
	uint8_t ks[16];
	size_t i, n;

	while (len) {
		s[0] = j0[0];
		s[1] = j0[1];
		s[2] = j0[2];
		s[3] = ++ctr;
		aes_encrypt_words(ctx->aes.ek, s);
		store_block(ks, s);
		n = len < 16 ? len : 16;
		for (i = 0; i < n; i++)
			out[i] = in[i] ^ ks[i];
		in += n;
		out += n;
		len -= n;
	}
}

static void gcm_tag(const struct aes128_gcm *ctx, const uint32_t j0[4], const uint8_t *aad,
		    size_t aadlen, const uint8_t *ct, size_t len, uint8_t tag[16])
{
	uint64_t y[2] = { 0, 0 };
	uint32_t s[4];

	ghash_update(ctx, y, aad, aadlen);
	ghash_update(ctx, y, ct, len);
	ghash_lengths(ctx, y, aadlen, len);
	memcpy(s, j0, sizeof(s));
	aes_encrypt_words(ctx->aes.ek, s);
	s[0] ^= (uint32_t)(y[0] >> 32);
	s[1] ^= (uint32_t)y[0];
	s[2] ^= (uint32_t)(y[1] >> 32);
	s[3] ^= (uint32_t)y[1];
	store_block(tag, s);
}

void aes128_gcm_seal(const struct aes128_gcm *ctx, const uint8_t *iv, size_t ivlen,
		     const uint8_t *aad, size_t aadlen, const uint8_t *pt, size_t len,
		     uint8_t *ct, uint8_t tag[16])
{
	uint32_t j0[4];

	gcm_j0(ctx, iv, ivlen, j0);
	gcm_ctr(ctx, j0, pt, ct, len);
	gcm_tag(ctx, j0, aad, aadlen, ct, len, tag);
}

int aes128_gcm_open(const struct aes128_gcm *ctx, const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *ct, size_t len,
		    const uint8_t tag[16], uint8_t *pt)
{
	uint32_t j0[4];
	uint8_t want[16];
	unsigned diff = 0;
	int i;

	gcm_j0(ctx, iv, ivlen, j0);
	gcm_tag(ctx, j0, aad, aadlen, ct, len, want);
	for (i = 0; i < 16; i++)
		diff |= (unsigned)(want[i] ^ tag[i]);
	if (diff)
		return -1;
	gcm_ctr(ctx, j0, ct, pt, len);
	return 0;
}
