/*
 * remote-bench-crypto: how fast this board seals packets with
 * ChaCha20-Poly1305 (RFC 8439 AEAD, no associated data, a fresh nonce per
 * packet), at 64- and 1500-byte packets, the way a VPN would.
 */
#include "chacha20poly1305.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

struct crypto_ctx {
	uint8_t key[32];
	uint8_t nonce[12];
	uint8_t pkt[1500];
	uint8_t tag[16];
	size_t len;
	uint64_t counter;
};

static void crypto_work(void *arg, uint64_t n)
{
	struct crypto_ctx *c = arg;
	uint64_t i;

	for (i = 0; i < n; i++) {
		c->counter++;
		c->nonce[4] = (uint8_t)c->counter;
		c->nonce[5] = (uint8_t)(c->counter >> 8);
		c->nonce[6] = (uint8_t)(c->counter >> 16);
		c->nonce[7] = (uint8_t)(c->counter >> 24);
		aead_chacha20poly1305_seal(c->key, c->nonce, NULL, 0, c->pkt, c->len,
					   c->pkt, c->tag);
	}
}

/* The RFC 8439 2.5.2 Poly1305 vector and a seal/open round trip: a board
 * whose compiler or CPU gets the cipher wrong reports nothing. */
static int crypto_selftest(void)
{
	static const uint8_t key[32] = {
		0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe,
		0x42, 0xd5, 0x06, 0xa8, 0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd,
		0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
	};
	static const uint8_t want[16] = {
		0xa8, 0x06, 0x1d, 0xc1, 0x30, 0x51, 0x36, 0xc6,
		0xc2, 0x2b, 0x8b, 0xaf, 0x0c, 0x01, 0x27, 0xa9,
	};
	static const char msg[] = "Cryptographic Forum Research Group";
	uint8_t tag[16], nonce[12] = { 7 }, buf[100], back[100];
	size_t i;

	poly1305_mac(key, (const uint8_t *)msg, strlen(msg), tag);
	if (memcmp(tag, want, 16) != 0)
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
	if (aead_chacha20poly1305_open(key, nonce, key, 5, buf, sizeof(buf), tag, back) == 0)
		return -1;
	return 0;
}

static void crypto_usage(void)
{
	printf("Usage: remote-bench-crypto [OPTIONS]\n"
	       "Measures ChaCha20-Poly1305 (RFC 8439 AEAD) packet sealing on one core.\n"
	       "\n"
	       "  --time SECONDS   time per packet size (default 0.5; e.g. 2, 1.5s, 800ms)\n"
	       "  --repeats N      timed runs per packet size, median reported (default 3)\n"
	       "  --help           this text\n"
	       "\n"
	       "Prints JSON lines: crypto.chacha20poly1305_64 and _1500 (payload Mbit/s),\n"
	       "crypto.chacha20poly1305_64_pps and _1500_pps (packets/s).\n");
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1500 };
	static struct crypto_ctx ctx;
	double seconds = 0.5;
	unsigned long repeats = 3;
	struct rb_rate rate;
	char name[64];
	size_t i;
	int ret;

	rb_init("remote-bench-crypto");
	ret = rb_parse_time_repeats(argc, argv, crypto_usage, &seconds, &repeats);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (crypto_selftest() < 0)
		return rb_error("self-test against RFC 8439 failed: not reporting");

	for (i = 0; i < sizeof(ctx.key); i++)
		ctx.key[i] = (uint8_t)(i * 7 + 1);
	memset(ctx.pkt, 0xa5, sizeof(ctx.pkt));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ctx.len = sizes[i];
		if (rb_measure_rate(crypto_work, &ctx, seconds, (int)repeats, &rate) < 0) {
			ret = rb_error("clock did not advance");
			continue;
		}
		snprintf(name, sizeof(name), "crypto.chacha20poly1305_%zu", sizes[i]);
		if (rb_emit(name, rate.median * (double)sizes[i] * 8 / 1e6, "Mbit/s", "higher") < 0)
			ret = 1;
		snprintf(name, sizeof(name), "crypto.chacha20poly1305_%zu_pps", sizes[i]);
		if (rb_emit(name, rate.median, "pkt/s", "higher") < 0)
			ret = 1;
	}
	return ret;
}
