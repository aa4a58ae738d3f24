/*
 * openssl-aead-loop: OpenSSL's per-packet AEAD seal, timed, for the oracle
 * (bench/remote-bench-vs-tools.py). It runs the loop of `openssl speed
 * -aead` (speed.c's EVP_Update_loop_aead, OpenSSL 3.0): for each packet
 * EVP_EncryptInit_ex with the IV, 13 bytes of AAD, the data, Final (tag).
 * `openssl speed -aead -evp chacha20-poly1305` of OpenSSL 3.0.22 does not
 * take that loop (gdb shows one 64-byte EVP_EncryptUpdate per operation:
 * no IV, no AAD, no tag, one stream), so it cannot stand for a sealed
 * packet; this program is the same library doing what remote-bench does.
 *
 *   openssl-aead-loop CIPHER BYTES SECONDS
 *
 * prints "+F:BYTES_PER_SECOND" as `openssl speed -mr` prints its results.
 * Wall-clock time, as `openssl speed -elapsed` and remote-bench measure.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static unsigned char buf[16384 + 64], iv[16], key[64];
	unsigned char aad[13] = { 0xcc };
	const EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *ctx;
	double t0, t, secs;
	long count = 0, i;
	int len, outl, ok = 1;

	if (argc != 4 || (len = atoi(argv[2])) <= 0 || len > 16384 || (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: openssl-aead-loop CIPHER BYTES(1-16384) SECONDS\n");
		return 2;
	}
	cipher = EVP_get_cipherbyname(argv[1]);
	ctx = EVP_CIPHER_CTX_new();
	if (!cipher || !ctx || EVP_CipherInit_ex(ctx, cipher, NULL, NULL, iv, 1) != 1 ||
	    EVP_CIPHER_CTX_get_key_length(ctx) > (int)sizeof(key) ||
	    EVP_CIPHER_CTX_rand_key(ctx, key) != 1 ||
	    EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, -1) != 1) {
		fprintf(stderr, "openssl-aead-loop: cannot set up %s\n", argv[1]);
		return 1;
	}
	t0 = now();
	do {
		for (i = 0; i < 256; i++) {
			ok &= EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv);
			ok &= EVP_EncryptUpdate(ctx, NULL, &outl, aad, sizeof(aad));
			ok &= EVP_EncryptUpdate(ctx, buf, &outl, buf, len);
			ok &= EVP_EncryptFinal_ex(ctx, buf + outl, &outl);
		}
		count += i;
		t = now() - t0;
	} while (t < secs);
	EVP_CIPHER_CTX_free(ctx);
	if (ok != 1) {
		fprintf(stderr, "openssl-aead-loop: %s failed\n", argv[1]);
		return 1;
	}
	printf("+F:%.2f\n", (double)count * len / t);
	return 0;
}
