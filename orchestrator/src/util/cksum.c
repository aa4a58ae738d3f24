#include "util/cksum.h"

#include <pthread.h>

/* table[k][b]: the CRC register after byte b followed by k zero bytes, so
 * eight bytes are folded per step (slicing-by-8) */
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t r = b << 24;
		for (int i = 0; i < 8; i++)
			r = r & 0x80000000u ? (r << 1) ^ 0x04C11DB7u : r << 1;
		table[0][b] = r;
	}
	for (int k = 1; k < 8; k++)
		for (int b = 0; b < 256; b++) {
			uint32_t r = table[k - 1][b];
			table[k][b] = (r << 8) ^ table[0][r >> 24];
		}
}

void cksum_init(struct cksum *c)
{
	pthread_once(&table_once, table_init);
	c->crc = 0;
	c->len = 0;
}

static uint32_t crc_byte(uint32_t crc, uint8_t b)
{
	return (crc << 8) ^ table[0][(crc >> 24) ^ b];
}

void cksum_update(struct cksum *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = c->crc;
	c->len += len;
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t hi = crc ^ ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				     (uint32_t)p[2] << 8 | p[3]);
		crc = table[7][hi >> 24] ^ table[6][(hi >> 16) & 0xff] ^
		      table[5][(hi >> 8) & 0xff] ^ table[4][hi & 0xff] ^ table[3][p[4]] ^
		      table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
	}
	for (; len > 0; p++, len--)
		crc = crc_byte(crc, *p);
	c->crc = crc;
}

uint32_t cksum_final(const struct cksum *c)
{
	uint32_t crc = c->crc;
	for (uint64_t n = c->len; n; n >>= 8)
		crc = crc_byte(crc, (uint8_t)(n & 0xff));
	return ~crc;
}
