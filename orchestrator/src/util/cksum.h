#ifndef ORCH_UTIL_CKSUM_H
#define ORCH_UTIL_CKSUM_H
/*
 * POSIX cksum: the CRC-32 (polynomial 0x04C11DB7, most significant bit
 * first) of the data followed by its length, complemented, exactly as
 * `cksum` prints it on every POSIX system. A pushed or fetched file is
 * checked with it on the board (execute/artifact.h): GNU cksum runs at
 * several GB/s and any board's at a multiple of its sha256sum.
 */
#include <stddef.h>
#include <stdint.h>

struct cksum {
	uint32_t crc;
	uint64_t len;
};

void cksum_init(struct cksum *c);
void cksum_update(struct cksum *c, const void *data, size_t len);
/* The value cksum prints (the length appended, complemented). */
uint32_t cksum_final(const struct cksum *c);

#endif
