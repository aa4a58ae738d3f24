/* remote-bench's AES-128 against FIPS-197 appendix C.1, SP 800-38A F.2.1
 * and F.2.2 (CBC), and the test cases 1-6 of McGrew and Viega's GCM
 * specification (the AES-128 ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "aes128.h"

/* Hex to bytes; returns the byte count. */
static size_t unhex(uint8_t *out, const char *hex)
{
	size_t i, n = strlen(hex) / 2;
	unsigned v;
	int j;
	char c;

	for (i = 0; i < n; i++) {
		v = 0;
		for (j = 0; j < 2; j++) {
			c = hex[2 * i + j];
			v = v << 4 | (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
		}
		out[i] = (uint8_t)v;
	}
	return n;
}

static void test_fips197_c1(void **state)
{
	struct aes128 ctx;
	uint8_t key[16], pt[16], ct[16], want[16], buf[16];

	(void)state;
	unhex(key, "000102030405060708090a0b0c0d0e0f");
	unhex(pt, "00112233445566778899aabbccddeeff");
	unhex(want, "69c4e0d86a7b0430d8cdb78070b4c55a");
	aes128_set_key(&ctx, key);
	aes128_encrypt(&ctx, pt, ct);
	assert_memory_equal(ct, want, 16);
	aes128_decrypt(&ctx, ct, buf);
	assert_memory_equal(buf, pt, 16);
	/* in place */
	memcpy(buf, pt, 16);
	aes128_encrypt(&ctx, buf, buf);
	assert_memory_equal(buf, want, 16);
}

static const char sp800_38a_key[] = "2b7e151628aed2a6abf7158809cf4f3c";
static const char sp800_38a_pt[] =
	"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
	"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char sp800_38a_cbc[] =
	"7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
	"73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7";

/* ECB-AES128.Encrypt F.1.1, block by block. */
static void test_sp800_38a_ecb(void **state)
{
	static const char ecb[] =
		"3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
		"43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4";
	struct aes128 ctx;
	uint8_t key[16], pt[64], want[64], out[64];
	int i;

	(void)state;
	unhex(key, sp800_38a_key);
	unhex(pt, sp800_38a_pt);
	unhex(want, ecb);
	aes128_set_key(&ctx, key);
	for (i = 0; i < 4; i++)
		aes128_encrypt(&ctx, pt + 16 * i, out + 16 * i);
	assert_memory_equal(out, want, 64);
	for (i = 0; i < 4; i++)
		aes128_decrypt(&ctx, want + 16 * i, out + 16 * i);
	assert_memory_equal(out, pt, 64);
}

static void test_sp800_38a_cbc(void **state)
{
	struct aes128 ctx;
	uint8_t key[16], iv[16], pt[64], want[64], out[64];

	(void)state;
	unhex(key, sp800_38a_key);
	unhex(pt, sp800_38a_pt);
	unhex(want, sp800_38a_cbc);
	aes128_set_key(&ctx, key);

	unhex(iv, "000102030405060708090a0b0c0d0e0f");
	aes128_cbc_encrypt(&ctx, iv, pt, out, 64);
	assert_memory_equal(out, want, 64);
	assert_memory_equal(iv, want + 48, 16); /* chains to the last block */

	/* Two calls chain like one; in place. */
	unhex(iv, "000102030405060708090a0b0c0d0e0f");
	memcpy(out, pt, 64);
	aes128_cbc_encrypt(&ctx, iv, out, out, 32);
	aes128_cbc_encrypt(&ctx, iv, out + 32, out + 32, 32);
	assert_memory_equal(out, want, 64);

	unhex(iv, "000102030405060708090a0b0c0d0e0f");
	aes128_cbc_decrypt(&ctx, iv, want, out, 64);
	assert_memory_equal(out, pt, 64);
	unhex(iv, "000102030405060708090a0b0c0d0e0f");
	memcpy(out, want, 64);
	aes128_cbc_decrypt(&ctx, iv, out, out, 48);
	aes128_cbc_decrypt(&ctx, iv, out + 48, out + 48, 16);
	assert_memory_equal(out, pt, 64);
}

struct gcm_case {
	const char *key, *pt, *aad, *iv, *ct, *tag;
};

static const char gcm_k2[] = "feffe9928665731c6d6a8f9467308308";
static const char gcm_p[] =
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
static const char gcm_p60[] =
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char gcm_a[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";

static const struct gcm_case gcm_cases[] = {
	{ "00000000000000000000000000000000", "", "", "000000000000000000000000", "",
	  "58e2fccefa7e3061367f1d57a4e7455a" },
	{ "00000000000000000000000000000000", "00000000000000000000000000000000", "",
	  "000000000000000000000000", "0388dace60b6a392f328c2b971b2fe78",
	  "ab6e47d42cec13bdf53a67b21257bddf" },
	{ gcm_k2, gcm_p, "", "cafebabefacedbaddecaf888",
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	  "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ gcm_k2, gcm_p60, gcm_a, "cafebabefacedbaddecaf888",
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	  "5bc94fbc3221a5db94fae95ae7121a47" },
	{ gcm_k2, gcm_p60, gcm_a, "cafebabefacedbad",
	  "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423"
	  "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
	  "3612d2e79e3b0785561be14aaca2fccb" },
	{ gcm_k2, gcm_p60, gcm_a,
	  "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
	  "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
	  "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
	  "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
	  "619cc5aefffe0bfa462af43c1699d050" },
};

static void check_gcm_case(const struct gcm_case *tc)
{
	struct aes128_gcm ctx;
	uint8_t key[16], pt[64], aad[32], iv[64], want_ct[64], want_tag[16];
	uint8_t ct[64], tag[16], back[64];
	size_t plen, alen, ivlen;

	unhex(key, tc->key);
	plen = unhex(pt, tc->pt);
	alen = unhex(aad, tc->aad);
	ivlen = unhex(iv, tc->iv);
	assert_int_equal(unhex(want_ct, tc->ct), plen);
	unhex(want_tag, tc->tag);
	aes128_gcm_init(&ctx, key);

	aes128_gcm_seal(&ctx, iv, ivlen, aad, alen, pt, plen, ct, tag);
	assert_memory_equal(ct, want_ct, plen);
	assert_memory_equal(tag, want_tag, 16);

	memset(back, 0xee, sizeof(back));
	assert_int_equal(aes128_gcm_open(&ctx, iv, ivlen, aad, alen, ct, plen, tag, back), 0);
	assert_memory_equal(back, pt, plen);

	/* A changed tag, ciphertext byte or AAD byte is refused, and the
	 * output is left alone. */
	memset(back, 0xee, sizeof(back));
	tag[3] ^= 0x10;
	assert_int_equal(aes128_gcm_open(&ctx, iv, ivlen, aad, alen, ct, plen, tag, back), -1);
	assert_int_equal(back[0], 0xee);
	tag[3] ^= 0x10;
	if (plen) {
		ct[plen - 1] ^= 1;
		assert_int_equal(aes128_gcm_open(&ctx, iv, ivlen, aad, alen, ct, plen, tag, back),
				 -1);
		ct[plen - 1] ^= 1;
	}
	if (alen) {
		aad[0] ^= 1;
		assert_int_equal(aes128_gcm_open(&ctx, iv, ivlen, aad, alen, ct, plen, tag, back),
				 -1);
	}
	/* in place */
	memcpy(back, pt, plen);
	aes128_gcm_seal(&ctx, iv, ivlen, NULL, 0, back, plen, back, tag);
	if (!alen)
		assert_memory_equal(tag, want_tag, 16);
	if (plen)
		assert_memory_equal(back, want_ct, plen);
}

static void test_gcm_spec_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(gcm_cases) / sizeof(gcm_cases[0]); i++) {
		print_message("GCM test case %zu\n", i + 1);
		check_gcm_case(&gcm_cases[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips197_c1),
		cmocka_unit_test(test_sp800_38a_ecb),
		cmocka_unit_test(test_sp800_38a_cbc),
		cmocka_unit_test(test_gcm_spec_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
