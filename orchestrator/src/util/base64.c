#include "util/base64.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <string.h>

/* Input bytes per EVP_EncodeBlock call: a multiple of 3, so the blocks
 * join without padding in between. */
#define ENCODE_BLOCK 3072

void base64_encode(struct strbuf *out, const void *data, size_t n)
{
	const unsigned char *p = data;
	unsigned char buf[ENCODE_BLOCK / 3 * 4 + 1];
	while (n > 0) {
		size_t take = n < ENCODE_BLOCK ? n : ENCODE_BLOCK;
		int len = EVP_EncodeBlock(buf, p, (int)take);
		strbuf_append(out, (const char *)buf, (size_t)len);
		p += take;
		n -= take;
	}
}

static bool in_alphabet(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

/* How many '=' end b64 (0, 1 or 2), or -1 when it is not base64. */
static int padding(const char *b64, size_t len)
{
	if (len % 4)
		return -1;
	int pad = len >= 1 && b64[len - 1] == '=' ? 1 + (len >= 2 && b64[len - 2] == '=') : 0;
	for (size_t i = 0; i < len - (size_t)pad; i++)
		if (!in_alphabet(b64[i]))
			return -1;
	return pad;
}

int base64_decode(struct strbuf *out, const char *b64)
{
	size_t len = strlen(b64);
	int pad = padding(b64, len);
	if (pad < 0)
		return -1;
	unsigned char buf[ENCODE_BLOCK + 3];
	for (size_t i = 0; i < len; i += ENCODE_BLOCK / 3 * 4) {
		size_t take = len - i < ENCODE_BLOCK / 3 * 4 ? len - i : ENCODE_BLOCK / 3 * 4;
		int got = EVP_DecodeBlock(buf, (const unsigned char *)b64 + i, (int)take);
		if (got < 0)
			return -1;
		if (i + take == len)
			got -= pad;   /* EVP_DecodeBlock counts the padding as bytes */
		strbuf_append(out, (const char *)buf, (size_t)got);
	}
	return 0;
}
