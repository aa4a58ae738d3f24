#ifndef ORCH_UTIL_SHA256_H
#define ORCH_UTIL_SHA256_H
/*
 * SHA-256 (FIPS 180-4), to tell whether a board already has the exact
 * binary orch is about to push.
 */
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t state[8];
	uint64_t bytes;
	uint8_t block[64];
	size_t used;
};

void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
void sha256_final(struct sha256 *ctx, uint8_t digest[32]);
/* Lowercase hex digest of a file into hex (65 bytes). 0, or -1 if unreadable. */
int sha256_file_hex(const char *path, char hex[65]);

#endif
