/*
 * remote-bench-crypto: how fast this board does the cryptography of VPNs
 * and encrypted filesystems, on one core, with portable C (no AES-NI, no
 * SIMD): packets of 64 and 1500 bytes sealed with ChaCha20 alone (auth off),
 * ChaCha20-Poly1305 (auth on), AES-128-CBC (as eCryptfs encrypts) and
 * AES-128-GCM; X25519 key agreements; and whole "hello" and "key" packets
 * of 64 and 1500 bytes (each one X25519 agreement plus one packet of that
 * size sealed under the result, as `cjdroute --bench` counts them). Rates
 * over a fixed time, or, with --count N, the time N packets take, as
 * `cjdroute --bench` prints it. A self-test against RFC and NIST vectors
 * runs first: a board that gets a cipher wrong reports nothing.
 */
#include "aes128.h"
#include "chacha20poly1305.h"
#include "harness.h"
#include "x25519.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct crypto_ctx {
	uint8_t key[32];
	uint8_t nonce[12];
	uint8_t iv[16];
	uint8_t pkt[1504];
	uint8_t tag[16];
	uint8_t aad[13];
	size_t len;
	uint32_t counter;
	struct aes128_gcm gcm; /* gcm.aes is CBC's key too */
	uint8_t secret[32];
	uint8_t peer[32];
	uint8_t shared[32];
	uint8_t temp[32];
	uint8_t peer_temp[32];
};

/* A fresh nonce (IV) per packet, as a VPN uses a packet counter. */
static void crypto_next_nonce(struct crypto_ctx *c, uint8_t *nonce)
{
	c->counter++;
	nonce[4] = (uint8_t)c->counter;
	nonce[5] = (uint8_t)(c->counter >> 8);
	nonce[6] = (uint8_t)(c->counter >> 16);
	nonce[7] = (uint8_t)(c->counter >> 24);
}

static void work_chacha20(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	for (; n > 0; n--) {
		crypto_next_nonce(c, c->nonce);
		chacha20_xor(c->key, 1, c->nonce, c->pkt, c->pkt, c->len);
	}
}

/* The AEADs seal each packet under a new nonce with 13 bytes of associated
 * data (a TLS record header's size; a VPN authenticates its header too),
 * as `openssl speed -aead` does per packet: nonce, AAD, data, tag. */
static void work_chacha20poly1305(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	for (; n > 0; n--) {
		crypto_next_nonce(c, c->nonce);
		aead_chacha20poly1305_seal(c->key, c->nonce, c->aad, sizeof(c->aad), c->pkt,
					   c->len, c->pkt, c->tag);
	}
}

static void work_aes128_cbc(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	for (; n > 0; n--) {
		crypto_next_nonce(c, c->iv);
		aes128_cbc_encrypt(&c->gcm.aes, c->iv, c->pkt, c->pkt, (c->len + 15) & ~(size_t)15);
	}
}

static void work_aes128_gcm(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	for (; n > 0; n--) {
		crypto_next_nonce(c, c->nonce);
		aes128_gcm_seal(&c->gcm, c->nonce, 12, c->aad, sizeof(c->aad), c->pkt, c->len,
				c->pkt, c->tag);
	}
}

/* One key agreement: our secret with the peer's public key. The secret
 * changes every time, so that nothing could be cached. */
static void work_x25519(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	for (; n > 0; n--) {
		x25519(c->shared, c->secret, c->peer);
		c->secret[1] ^= c->shared[1];
	}
}

/* A handshake packet of c->len bytes: the agreement of our key with the
 * peer's, then the packet sealed under the shared secret (used directly as
 * the ChaCha20-Poly1305 key). */
static void handshake(struct crypto_ctx *c, uint8_t *secret, const uint8_t *peer, uint64_t n)
{
	for (; n > 0; n--) {
		x25519(c->shared, secret, peer);
		secret[1] ^= c->shared[1];
		crypto_next_nonce(c, c->nonce);
		aead_chacha20poly1305_seal(c->shared, c->nonce, NULL, 0, c->pkt, c->len, c->pkt,
					   c->tag);
	}
}

/* A hello: agreement with the peer's permanent key. */
static void work_hello(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	handshake(c, c->secret, c->peer, n);
}

/* A key packet: agreement of a temporary key with the peer's temporary key
 * (the same work as a hello, counted apart as cjdns's bench does). */
static void work_key(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;

	handshake(c, c->temp, c->peer_temp, n);
}

struct crypto_alg {
	const char *name;
	rb_work_fn work;
	int sized; /* measured at each packet size, else one figure in ops/s */
};

static const struct crypto_alg crypto_algs[] = {
	{ "chacha20", work_chacha20, 1 },
	{ "chacha20poly1305", work_chacha20poly1305, 1 },
	{ "aes128_cbc", work_aes128_cbc, 1 },
	{ "aes128_gcm", work_aes128_gcm, 1 },
	{ "x25519", work_x25519, 0 },
	{ "hello", work_hello, 1 },
	{ "key", work_key, 1 },
};
#define CRYPTO_NALGS (sizeof(crypto_algs) / sizeof(crypto_algs[0]))

static const size_t crypto_sizes[] = { 64, 1500 };

static void hex_load(uint8_t *out, const char *hex)
{
	size_t i;
	unsigned v;
	int j;
	char ch;

	for (i = 0; hex[2 * i]; i++) {
		v = 0;
		for (j = 0; j < 2; j++) {
			ch = hex[2 * i + j];
			v = v << 4 | (unsigned)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
		}
		out[i] = (uint8_t)v;
	}
}

/* 1 when `got` starts with the bytes of the (at most 64-byte) hex string. */
static int hex_equal(const uint8_t *got, const char *hex)
{
	uint8_t want[64];

	hex_load(want, hex);
	return memcmp(got, want, strlen(hex) / 2) == 0;
}

/* RFC 8439: the Poly1305 vector of 2.5.2 and an AEAD round trip. */
static int selftest_chacha(void)
{
	static const char msg[] = "Cryptographic Forum Research Group";
	uint8_t key[32], tag[16], nonce[12] = { 7 }, buf[100], back[100];
	size_t i;

	hex_load(key, "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
	poly1305_mac(key, (const uint8_t *)msg, strlen(msg), tag);
	if (!hex_equal(tag, "a8061dc1305136c6c22b8baf0c0127a9"))
		return -1;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	aead_chacha20poly1305_seal(key, nonce, key, 5, buf, sizeof(buf), buf, tag);
	if (aead_chacha20poly1305_open(key, nonce, key, 5, buf, sizeof(buf), tag, back) != 0)
		return -1;
	for (i = 0; i < sizeof(back); i++)
		if (back[i] != (uint8_t)i)
			return -1;
	tag[0] ^= 1;
	return aead_chacha20poly1305_open(key, nonce, key, 5, buf, sizeof(buf), tag, back) == 0
		       ? -1 : 0;
}

/* FIPS-197 C.1 both ways, and the GCM specification's test case 2. */
static int selftest_aes(void)
{
	struct aes128_gcm gcm;
	uint8_t key[16], buf[16], tag[16], iv[12] = { 0 };

	hex_load(key, "000102030405060708090a0b0c0d0e0f");
	hex_load(buf, "00112233445566778899aabbccddeeff");
	aes128_gcm_init(&gcm, key);
	aes128_encrypt(&gcm.aes, buf, buf);
	if (!hex_equal(buf, "69c4e0d86a7b0430d8cdb78070b4c55a"))
		return -1;
	aes128_decrypt(&gcm.aes, buf, buf);
	if (!hex_equal(buf, "00112233445566778899aabbccddeeff"))
		return -1;
	memset(key, 0, sizeof(key));
	memset(buf, 0, sizeof(buf));
	aes128_gcm_init(&gcm, key);
	aes128_gcm_seal(&gcm, iv, sizeof(iv), NULL, 0, buf, 16, buf, tag);
	if (!hex_equal(buf, "0388dace60b6a392f328c2b971b2fe78") ||
	    !hex_equal(tag, "ab6e47d42cec13bdf53a67b21257bddf"))
		return -1;
	tag[15] ^= 0x80;
	return aes128_gcm_open(&gcm, iv, sizeof(iv), NULL, 0, buf, 16, tag, buf) == 0 ? -1 : 0;
}

/* RFC 7748 5.2's first vector and 6.1's shared secret from both sides. */
static int selftest_x25519(void)
{
	uint8_t a[32], b[32], out[32], out2[32];

	hex_load(a, "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
	hex_load(b, "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
	x25519(out, a, b);
	if (!hex_equal(out, "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"))
		return -1;
	hex_load(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	hex_load(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	x25519_base(out, b);
	x25519(out, a, out);
	x25519_base(out2, a);
	x25519(out2, b, out2);
	if (!hex_equal(out, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"))
		return -1;
	return memcmp(out, out2, 32) == 0 ? 0 : -1;
}

static void crypto_usage(void)
{
	printf("Usage: remote-bench-crypto [OPTIONS]\n"
	       "Measures packet encryption and key agreement on one core, portable C\n"
	       "(no AES-NI, no SIMD), after a self-test against RFC 8439, FIPS-197, the\n"
	       "GCM specification and RFC 7748.\n"
	       "\n"
	       "  --time SECONDS   time per measurement (default 0.3; e.g. 2, 1.5s, 800ms)\n"
	       "  --count N        time N packets (N key agreements) instead, like\n"
	       "                   `cjdroute --bench`; reports NAME_ms in ms\n"
	       "  --repeats N      timed runs per measurement, median reported (default 3,\n"
	       "                   or 1 with --count: one run of N, as cjdroute)\n"
	       "  --only A,B,...   only these of: chacha20, chacha20poly1305, aes128_cbc,\n"
	       "                   aes128_gcm, x25519, hello, key (default all)\n"
	       "  --help           this text\n"
	       "\n"
	       "Prints JSON lines. Packets of 64 and 1500 bytes (CBC pads 1500 to whole\n"
	       "blocks, 1504, and counts the 1500 as payload):\n"
	       "  crypto.chacha20_64, _1500           ChaCha20 alone (auth off), Mbit/s\n"
	       "  crypto.chacha20poly1305_64, _1500   ChaCha20-Poly1305 (auth on), Mbit/s\n"
	       "  crypto.aes128_cbc_64, _1500         AES-128-CBC, Mbit/s\n"
	       "  crypto.aes128_gcm_64, _1500         AES-128-GCM, Mbit/s\n"
	       "  each with a _pps twin in pkt/s;\n"
	       "  crypto.x25519                       X25519 key agreements, ops/s\n"
	       "  crypto.hello_64, _1500              hello packets: one X25519 agreement plus\n"
	       "                                      one packet of that size sealed under it\n"
	       "                                      (ChaCha20-Poly1305), Mbit/s, _pps twin\n"
	       "  crypto.key_64, _1500                key packets: the same with temporary keys\n"
	       "With --count N: the same names with _ms (no _pps), time for N, ms.\n"
	       "A note on stderr names the implementation that ran.\n");
}

/* "a,b" -> selected[] flags. Returns 0 or a usage error (2). */
static int crypto_parse_only(const char *text, int selected[CRYPTO_NALGS])
{
	const char *p = text, *end;
	size_t i, len;

	memset(selected, 0, CRYPTO_NALGS * sizeof(selected[0]));
	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < CRYPTO_NALGS; i++)
			if (strlen(crypto_algs[i].name) == len &&
			    strncmp(crypto_algs[i].name, p, len) == 0)
				break;
		if (i == CRYPTO_NALGS)
			return rb_usage_error("bad --only '%s': unknown algorithm '%.*s' (chacha20, "
					      "chacha20poly1305, aes128_cbc, aes128_gcm, x25519, hello, key)",
					      text, (int)len, p);
		selected[i] = 1;
		if (!end)
			return 0;
		p = end + 1;
	}
}

struct crypto_opts {
	double seconds;
	unsigned long repeats;
	unsigned long count; /* 0: fixed-time mode */
	int selected[CRYPTO_NALGS];
};

/* Returns 0 to measure, -1 after --help, or 2 after a usage error. */
static int crypto_parse(int argc, char **argv, struct crypto_opts *o)
{
	static const struct option opts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'c' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, timed = 0, repeats_set = 0, ret;
	size_t i;

	for (i = 0; i < CRYPTO_NALGS; i++)
		o->selected[i] = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (rb_parse_seconds(optarg, 0.01, 3600, &o->seconds) < 0)
				return rb_usage_error("bad --time '%s' (seconds, 0.01 to 3600)", optarg);
			timed = 1;
			break;
		case 'c':
			if (rb_parse_count(optarg, 1, 1000000000, &o->count) < 0)
				return rb_usage_error("bad --count '%s' (1 to 1000000000)", optarg);
			break;
		case 'r':
			if (rb_parse_count(optarg, 1, 64, &o->repeats) < 0)
				return rb_usage_error("bad --repeats '%s' (1 to 64)", optarg);
			repeats_set = 1;
			break;
		case 'o':
			ret = crypto_parse_only(optarg, o->selected);
			if (ret)
				return ret;
			break;
		case 'h':
			crypto_usage();
			return -1;
		default:
			return rb_bad_option(argv);
		}
	}
	if (timed && o->count)
		return rb_usage_error("--time and --count exclude each other");
	if (o->count && !repeats_set)
		o->repeats = 1; /* one run of N, as cjdroute does */
	return rb_no_operands(argc, argv);
}

/* --count: one warm-up run of N/10 (at least 1), then `repeats` runs of N
 * (one unless --repeats says otherwise); the median time in ms. Returns 0, or -1 when the clock did not move. */
static int crypto_count(rb_work_fn fn, struct crypto_ctx *c, unsigned long count,
			unsigned long repeats, double *ms)
{
	double t[64], t0, x;
	unsigned long i, j;

	fn(c, count / 10 ? count / 10 : 1);
	for (i = 0; i < repeats; i++) {
		t0 = rb_now();
		fn(c, count);
		x = (rb_now() - t0) * 1e3;
		for (j = i; j > 0 && t[j - 1] > x; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
	*ms = repeats % 2 ? t[repeats / 2] : (t[repeats / 2 - 1] + t[repeats / 2]) / 2;
	return *ms > 0 ? 0 : -1;
}

/* Measures one algorithm at one size (0: not sized) and prints its lines.
 * Returns 0 or 1 (an error, already reported). */
static int crypto_measure(const struct crypto_alg *alg, size_t size, struct crypto_ctx *c,
			  const struct crypto_opts *o)
{
	struct rb_rate rate;
	char name[64], sfx[16] = "";
	double ms, bytes;
	int ret = 0;

	c->len = size ? size : 64;
	if (size)
		snprintf(sfx, sizeof(sfx), "_%zu", size);
	bytes = (double)size;
	if (o->count) {
		if (crypto_count(alg->work, c, o->count, o->repeats, &ms) < 0)
			return rb_error("%s: clock did not advance", alg->name);
		rb_note("%s%s: %lu %s, Finished in %.0f ms", alg->name, sfx, o->count,
			size ? "packets" : "operations", ms);
		snprintf(name, sizeof(name), "crypto.%s%s_ms", alg->name, sfx);
		return rb_emit(name, ms, "ms", "lower") < 0;
	}
	if (rb_measure_rate(alg->work, c, o->seconds, (int)o->repeats, &rate) < 0)
		return rb_error("%s: clock did not advance", alg->name);
	snprintf(name, sizeof(name), "crypto.%s%s", alg->name, sfx);
	if (!size)
		return rb_emit(name, rate.median, "ops/s", "higher") < 0;
	if (rb_emit(name, rate.median * bytes * 8 / 1e6, "Mbit/s", "higher") < 0)
		ret = 1;
	snprintf(name, sizeof(name), "crypto.%s%s_pps", alg->name, sfx);
	if (rb_emit(name, rate.median, "pkt/s", "higher") < 0)
		ret = 1;
	return ret;
}

static void crypto_setup(struct crypto_ctx *c)
{
	size_t i;

	for (i = 0; i < sizeof(c->key); i++)
		c->key[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < sizeof(c->secret); i++)
		c->secret[i] = (uint8_t)(i * 13 + 5);
	aes128_gcm_init(&c->gcm, c->key);
	memset(c->pkt, 0xa5, sizeof(c->pkt));
	memset(c->aad, 0xcc, sizeof(c->aad));
	x25519_base(c->peer, c->key);
	for (i = 0; i < sizeof(c->temp); i++)
		c->temp[i] = (uint8_t)(i * 29 + 3);
	x25519_base(c->peer_temp, c->secret);
}

#if defined(__x86_64__)
#define RB_CRYPTO_ARCH "x86-64"
#elif defined(__i386__)
#define RB_CRYPTO_ARCH "i386"
#elif defined(__aarch64__)
#define RB_CRYPTO_ARCH "aarch64"
#elif defined(__arm__)
#define RB_CRYPTO_ARCH "arm"
#else
#define RB_CRYPTO_ARCH "another architecture"
#endif
#if defined(__GLIBC__)
#define RB_CRYPTO_LIBC "glibc"
#else
#define RB_CRYPTO_LIBC "musl (or another libc without __GLIBC__)"
#endif
#if defined(__clang__)
#define RB_CRYPTO_CC "clang " __clang_version__
#elif defined(__GNUC__)
#define RB_CRYPTO_CC "GCC " __VERSION__
#else
#define RB_CRYPTO_CC "an unknown compiler"
#endif

/* Which implementation runs, for the run folder (the test's stderr.log). */
static void crypto_note_implementation(void)
{
	rb_note("implementation: remote-bench's own portable C (no library, no AES-NI, no "
		"SIMD): ChaCha20 and Poly1305 per RFC 8439, AES-128 with round tables "
		"(FIPS-197; GCM per SP 800-38D), X25519 %s (RFC 7748); built by " RB_CRYPTO_CC
		" for " RB_CRYPTO_ARCH ", " RB_CRYPTO_LIBC, x25519_radix());
}

int main(int argc, char **argv)
{
	static struct crypto_ctx ctx;
	struct crypto_opts o = { 0.3, 3, 0, { 0 } };
	size_t i, j;
	int ret;

	rb_init("remote-bench-crypto");
	ret = crypto_parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (selftest_chacha() < 0)
		return rb_error("self-test of ChaCha20-Poly1305 against RFC 8439 failed: not reporting");
	if (selftest_aes() < 0)
		return rb_error("self-test of AES-128 against FIPS-197 and GCM failed: not reporting");
	if (selftest_x25519() < 0)
		return rb_error("self-test of X25519 (%s) against RFC 7748 failed: not reporting",
				x25519_radix());
	crypto_setup(&ctx);
	crypto_note_implementation();
	for (i = 0; i < CRYPTO_NALGS; i++) {
		if (!o.selected[i])
			continue;
		if (!crypto_algs[i].sized) {
			ret |= crypto_measure(&crypto_algs[i], 0, &ctx, &o);
			continue;
		}
		for (j = 0; j < sizeof(crypto_sizes) / sizeof(crypto_sizes[0]); j++)
			ret |= crypto_measure(&crypto_algs[i], crypto_sizes[j], &ctx, &o);
	}
	return ret;
}
