/*
 * memcopy: large copies made the way glibc's memcpy makes them on this CPU
 * (see memcopy.h). Read from glibc 2.36's behaviour (the thresholds its
 * `ld.so --list-diagnostics` prints, the machine code of
 * __memmove_avx512_unaligned_erms under gdb); no glibc code is used.
 */
#include "memcopy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define MEMCOPY_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define MEMCOPY_X86 0
#endif

/* ---- the plan: glibc's thresholds and its choice per call ---- */

void memcopy_config_from(const struct memcopy_facts *f, struct memcopy_config *c)
{
	/* Intel CPUs other than Xeon Phi get Prefer_No_AVX512 (glibc keeps
	 * them off 512-bit registers); AMD's do not. */
	int no512 = f->vendor == MEMCOPY_VENDOR_INTEL && !f->avx512er;
	uint64_t core = f->l2, shared = f->l3;

	memset(c, 0, sizeof(*c));
	c->glibc_like = 1;
	if (f->avx512f && !no512) {
		c->vec = 64;
		c->erms = f->avx512vl && f->erms;
		c->movsb_threshold = 4096 * (64 / 16);
	} else if (f->avx2) {
		c->vec = 32;
		c->erms = f->erms;
		c->movsb_threshold = 4096 * (32 / 16);
	} else {
		c->vec = 16;
		c->erms = f->erms;
		c->movsb_threshold = 2048;
	}
	if (f->fsrm)
		c->movsb_threshold = 2112;

	if (!shared) {
		shared = core;
	} else if (f->vendor == MEMCOPY_VENDOR_AMD) {
		/* the L3 per logical CPU, times the CPUs of a Zen CCX */
		if (f->threads)
			shared /= f->threads;
		if (f->family >= 0x17)
			shared *= f->threads_ccx ? f->threads_ccx : 1;
		else
			shared += core;
	} else {
		/* Intel: the L3 share of one thread, plus the L2 when the L3
		 * does not hold a copy of it */
		if (f->threads)
			shared /= f->threads;
		if (!f->l3_inclusive)
			shared += core;
	}
	c->nt_threshold = shared * 3 / 4;
	if (c->nt_threshold < 0x4040)
		c->nt_threshold = 0x4040;
	/* rep movsb stops at the L2 size on AMD (slow above it on Zen 3),
	 * at the non-temporal threshold elsewhere */
	c->stop_at_nt = f->vendor != MEMCOPY_VENDOR_AMD;
	c->movsb_stop = c->stop_at_nt ? c->nt_threshold : core;
}

void memcopy_config_tunables(struct memcopy_config *c, const char *tunables)
{
	static const char nt[] = "glibc.cpu.x86_non_temporal_threshold=",
			  movsb[] = "glibc.cpu.x86_rep_movsb_threshold=";
	const char *p = tunables;
	unsigned long long v;
	char *end;

	while (p && *p) {
		if (strncmp(p, nt, sizeof(nt) - 1) == 0) {
			v = strtoull(p + sizeof(nt) - 1, &end, 0);
			if ((*end == ':' || !*end) && v >= 0x4040) {
				c->nt_threshold = v;
				if (c->stop_at_nt)
					c->movsb_stop = v;
			}
		} else if (strncmp(p, movsb, sizeof(movsb) - 1) == 0) {
			v = strtoull(p + sizeof(movsb) - 1, &end, 0);
			if ((*end == ':' || !*end) && v > 8ull * c->vec)
				c->movsb_threshold = v;
		}
		p = strchr(p, ':');
		if (p)
			p++;
	}
}

enum memcopy_path memcopy_plan(const struct memcopy_config *c, const void *dst, const void *src,
			       size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src, diff = d - s;
	unsigned top = (unsigned)(sizeof(uintptr_t) * 8 - 1);

	if (!c->glibc_like || n <= 8 * (size_t)c->vec)
		return MEMCOPY_FORWARD;
	if (diff < n) /* dst inside [src, src + n): only backward is right */
		return MEMCOPY_BACKWARD;
	if (c->erms && n > c->movsb_threshold && n < c->movsb_stop)
		return MEMCOPY_MOVSB;
	if (n >= c->nt_threshold) {
		if (n > s - d)
			return MEMCOPY_FORWARD;
		/* pages that would alias 4 KiB apart: four interleaved */
		if (((d - s - 1) & 0xe00) == 0 || n >= 16 * c->nt_threshold)
			return MEMCOPY_NT4;
		return MEMCOPY_NT2;
	}
	/* forward would load lines 4 KiB (give or take 255 bytes) from the
	 * lines it just stored: glibc copies backward then */
	if ((diff & 0xf00) == 0 && (((diff + n) ^ diff) >> top) == 0)
		return MEMCOPY_BACKWARD;
	return MEMCOPY_FORWARD;
}

static const char *const memcopy_names[MEMCOPY_PATHS] = { "forward", "backward", "nt2", "nt4",
							   "movsb" };

const char *memcopy_path_name(enum memcopy_path p)
{
	return (unsigned)p < MEMCOPY_PATHS ? memcopy_names[p] : "?";
}

int memcopy_path_parse(const char *name)
{
	int i;

	for (i = 0; i < MEMCOPY_PATHS; i++)
		if (strcmp(name, memcopy_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the loops, one set per vector width ---- */

/* Forward: first vector and last four loaded up front, the destination
 * aligned to the vector (1 to W bytes skipped, covered by the first
 * vector), 4 vectors per iteration, then the last four stored. Backward is
 * its mirror. The loop's loads and stores are volatile so that they stay in
 * glibc's order (4 loads, then 4 stores, in the copy's direction) whatever
 * the compiler schedules. Needs n > 8 * W (memcopy_plan sends smaller copies to the
 * portable loop). */
#define MEMCOPY_LOOPS(W, ATTR)                                                                  \
	typedef unsigned char memcopy_u##W __attribute__((vector_size(W), aligned(1), may_alias)); \
	typedef unsigned char memcopy_a##W __attribute__((vector_size(W), aligned(W), may_alias)); \
	ATTR __attribute__((noinline, aligned(64))) static void memcopy_fwd##W(                 \
		unsigned char *d, const unsigned char *s, size_t n)                             \
	{                                                                                       \
		memcopy_u##W h = *(const memcopy_u##W *)s, t0 = *(const memcopy_u##W *)(s + n - W), \
			t1 = *(const memcopy_u##W *)(s + n - 2 * W),                            \
			t2 = *(const memcopy_u##W *)(s + n - 3 * W),                            \
			t3 = *(const memcopy_u##W *)(s + n - 4 * W);                            \
		size_t skip = W - ((uintptr_t)d & (W - 1));                                     \
		unsigned char *p = d + skip, *end = d + n - 4 * W;                              \
		const unsigned char *q = s + skip;                                              \
                                                                                                \
		for (; p < end; p += 4 * W, q += 4 * W) {                                       \
			memcopy_u##W a = *(const volatile memcopy_u##W *)q,                     \
				b = *(const volatile memcopy_u##W *)(q + W),                    \
				e = *(const volatile memcopy_u##W *)(q + 2 * W),                \
				f = *(const volatile memcopy_u##W *)(q + 3 * W);                \
			*(volatile memcopy_a##W *)p = a;                                        \
			*(volatile memcopy_a##W *)(p + W) = b;                                  \
			*(volatile memcopy_a##W *)(p + 2 * W) = e;                              \
			*(volatile memcopy_a##W *)(p + 3 * W) = f;                              \
		}                                                                               \
		*(memcopy_u##W *)(d + n - W) = t0;                                              \
		*(memcopy_u##W *)(d + n - 2 * W) = t1;                                          \
		*(memcopy_u##W *)(d + n - 3 * W) = t2;                                          \
		*(memcopy_u##W *)(d + n - 4 * W) = t3;                                          \
		*(memcopy_u##W *)d = h;                                                         \
	}                                                                                       \
	ATTR __attribute__((noinline, aligned(64))) static void memcopy_bwd##W(                 \
		unsigned char *d, const unsigned char *s, size_t n)                             \
	{                                                                                       \
		memcopy_u##W h0 = *(const memcopy_u##W *)s, h1 = *(const memcopy_u##W *)(s + W), \
			h2 = *(const memcopy_u##W *)(s + 2 * W),                                \
			h3 = *(const memcopy_u##W *)(s + 3 * W),                                \
			t = *(const memcopy_u##W *)(s + n - W);                                 \
		unsigned char *p = (unsigned char *)(((uintptr_t)d + n - 4 * W - 1) &           \
						      ~(uintptr_t)(W - 1));                     \
		const unsigned char *q = s + (p - d);                                           \
                                                                                                \
		for (; p > d; p -= 4 * W, q -= 4 * W) {                                         \
			memcopy_u##W a = *(const volatile memcopy_u##W *)(q + 3 * W),           \
				b = *(const volatile memcopy_u##W *)(q + 2 * W),                \
				e = *(const volatile memcopy_u##W *)(q + W),                    \
				f = *(const volatile memcopy_u##W *)q;                          \
			*(volatile memcopy_a##W *)(p + 3 * W) = a;                              \
			*(volatile memcopy_a##W *)(p + 2 * W) = b;                              \
			*(volatile memcopy_a##W *)(p + W) = e;                                  \
			*(volatile memcopy_a##W *)p = f;                                        \
		}                                                                               \
		*(memcopy_u##W *)d = h0;                                                        \
		*(memcopy_u##W *)(d + W) = h1;                                                  \
		*(memcopy_u##W *)(d + 2 * W) = h2;                                              \
		*(memcopy_u##W *)(d + 3 * W) = h3;                                              \
		*(memcopy_u##W *)(d + n - W) = t;                                               \
	}

MEMCOPY_LOOPS(16, )

#if MEMCOPY_X86
#define MEMCOPY_AVX __attribute__((target("avx")))
#define MEMCOPY_AVX512 __attribute__((target("avx512f")))

MEMCOPY_LOOPS(32, MEMCOPY_AVX)
MEMCOPY_LOOPS(64, MEMCOPY_AVX512)

/* Non-temporal: the destination aligned to its cache line, then blocks of
 * P pages copied together: per step, prefetches ahead in every page, then
 * 128 bytes loaded from each page in turn (64 with 16-byte vectors) and
 * streamed out in the same order; sfence; the rest copied with ordinary
 * stores, ending with the last 4 vectors. The step is unrolled (P is a
 * constant) so that the loads and stores follow one another as in glibc. */
#define MEMCOPY_NT(W, P, ATTR, VT, LD, ST)                                                     \
	ATTR __attribute__((noinline, aligned(64))) static void memcopy_nt##W##_##P(           \
		unsigned char *d, const unsigned char *s, size_t n)                             \
	{                                                                                       \
		enum { CH = W == 64 ? 2 * W : 4 * W, BLK = 4096 * P, PF = P == 2 ? 8 : 4 };     \
		size_t adj = 64 - ((uintptr_t)d & 63), nb, i;                                   \
		unsigned char *de = d + n;                                                      \
		const unsigned char *se = s + n;                                                \
		VT v[P * CH / W];                                                               \
		unsigned j, k;                                                                  \
                                                                                                \
		for (k = 0; k < 64; k += W)                                                     \
			*(memcopy_u##W *)(d + k) = *(const memcopy_u##W *)(s + k);              \
		d += adj;                                                                       \
		s += adj;                                                                       \
		n -= adj;                                                                       \
		for (nb = n / BLK; nb; nb--) {                                                  \
			for (i = 0; i < 4096; i += CH) {                                        \
				_Pragma("GCC unroll 16") for (j = 0; j < P * PF; j++)           \
					__builtin_prefetch(s + (j / PF) * 4096 + i + 256 +      \
							   64 * (j % PF), 0, 3);                \
				_Pragma("GCC unroll 16") for (j = 0; j < P * CH / W; j++)       \
					v[j] = LD(s + (j / (CH / W)) * 4096 + i +               \
						  (j % (CH / W)) * W);                          \
				_Pragma("GCC unroll 16") for (j = 0; j < P * CH / W; j++)       \
					ST(d + (j / (CH / W)) * 4096 + i + (j % (CH / W)) * W,  \
					   v[j]);                                               \
			}                                                                       \
			d += BLK;                                                               \
			s += BLK;                                                               \
		}                                                                               \
		_mm_sfence();                                                                   \
		n %= BLK;                                                                       \
		for (; n > 4 * W; n -= 4 * W, d += 4 * W, s += 4 * W) {                         \
			__builtin_prefetch(s + 256, 0, 3);                                      \
			__builtin_prefetch(d + 256, 1, 3);                                      \
			for (k = 0; k < 4 * W; k += W)                                          \
				*(memcopy_a##W *)(d + k) = *(const memcopy_u##W *)(s + k);      \
		}                                                                               \
		for (k = W; k <= 4 * W; k += W)                                                 \
			*(memcopy_u##W *)(de - k) = *(const memcopy_u##W *)(se - k);            \
	}

#define MEMCOPY_LD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define MEMCOPY_ST16(p, v) _mm_stream_si128((__m128i *)(void *)(p), v)
#define MEMCOPY_LD32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define MEMCOPY_ST32(p, v) _mm256_stream_si256((__m256i *)(void *)(p), v)
#define MEMCOPY_LD64(p) _mm512_loadu_si512((const void *)(p))
#define MEMCOPY_ST64(p, v) _mm512_stream_si512((void *)(p), v)

MEMCOPY_NT(16, 2, , __m128i, MEMCOPY_LD16, MEMCOPY_ST16)
MEMCOPY_NT(16, 4, , __m128i, MEMCOPY_LD16, MEMCOPY_ST16)
MEMCOPY_NT(32, 2, MEMCOPY_AVX, __m256i, MEMCOPY_LD32, MEMCOPY_ST32)
MEMCOPY_NT(32, 4, MEMCOPY_AVX, __m256i, MEMCOPY_LD32, MEMCOPY_ST32)
MEMCOPY_NT(64, 2, MEMCOPY_AVX512, __m512i, MEMCOPY_LD64, MEMCOPY_ST64)
MEMCOPY_NT(64, 4, MEMCOPY_AVX512, __m512i, MEMCOPY_LD64, MEMCOPY_ST64)

/* rep movsb, one side aligned to its cache line as glibc does (the
 * destination, or the source when the two are about a multiple of 4 KiB
 * apart); the first 64 bytes copied apart. */
__attribute__((noinline)) static void memcopy_movsb(unsigned char *d, const unsigned char *s,
						    size_t n)
{
	uintptr_t diff = (uintptr_t)d - (uintptr_t)s;
	unsigned char head[64], *d0 = d;
	size_t skip;

	memcpy(head, s, sizeof(head));
	if (diff & 0xe00)
		skip = (64 - ((uintptr_t)d & 63)) & 63;
	else
		skip = 64 - ((uintptr_t)s & 63);
	d += skip;
	s += skip;
	n -= skip;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	memcpy(d0, head, sizeof(head));
}
#endif

/* ---- running a path ---- */

/* Small copies (up to 8 vectors) and the tail of odd sizes: bytes. */
static void memcopy_bytes(unsigned char *d, const unsigned char *s, size_t n)
{
	while (n--)
		*d++ = *s++;
}

void memcopy_copy_path(const struct memcopy_config *c, enum memcopy_path p, void *dst,
		       const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	unsigned vec = c->glibc_like ? c->vec : 16;

	if (n <= 8 * (size_t)vec) {
		memcopy_bytes(d, s, n);
		return;
	}
#if MEMCOPY_X86
	if (!c->glibc_like)
		p = MEMCOPY_FORWARD;
	if (p == MEMCOPY_MOVSB) {
		memcopy_movsb(d, s, n);
		return;
	}
	if (p == MEMCOPY_NT2 || p == MEMCOPY_NT4) {
		if (vec == 64)
			(p == MEMCOPY_NT2 ? memcopy_nt64_2 : memcopy_nt64_4)(d, s, n);
		else if (vec == 32)
			(p == MEMCOPY_NT2 ? memcopy_nt32_2 : memcopy_nt32_4)(d, s, n);
		else
			(p == MEMCOPY_NT2 ? memcopy_nt16_2 : memcopy_nt16_4)(d, s, n);
		return;
	}
	if (vec == 64) {
		(p == MEMCOPY_BACKWARD ? memcopy_bwd64 : memcopy_fwd64)(d, s, n);
		return;
	}
	if (vec == 32) {
		(p == MEMCOPY_BACKWARD ? memcopy_bwd32 : memcopy_fwd32)(d, s, n);
		return;
	}
#endif
	(p == MEMCOPY_BACKWARD ? memcopy_bwd16 : memcopy_fwd16)(d, s, n);
}

void memcopy_copy(const struct memcopy_config *c, void *dst, const void *src, size_t n)
{
	memcopy_copy_path(c, memcopy_plan(c, dst, src, n), dst, src, n);
}

/* ---- cpuid ---- */

#if MEMCOPY_X86
static void memcopy_cache_amd(struct memcopy_facts *f, unsigned ext)
{
	unsigned a, b, c, d;

	if (ext >= 0x80000006) {
		__cpuid(0x80000006, a, b, c, d);
		f->l2 = (uint64_t)(c >> 16) << 10;
		f->l3 = (uint64_t)(d >> 18) * (512u << 10);
	}
	f->threads = 0;
	if (ext >= 0x80000008) {
		__cpuid(0x80000008, a, b, c, d);
		f->threads = 1u << ((c >> 12) & 0xf);
	}
	if (f->threads == 0 || f->family >= 0x17) {
		__cpuid(1, a, b, c, d);
		if (d & (1u << 28))
			f->threads = (b >> 16) & 0xff;
	}
	f->threads_ccx = 1;
	if (f->family >= 0x17 && ext >= 0x8000001d) {
		__cpuid_count(0x8000001d, 3, a, b, c, d);
		f->threads_ccx = ((a >> 14) & 0xfff) + 1;
	}
}

/* Intel (and others): cpuid leaf 4 for sizes, the CPUs sharing the L3
 * capped by the logical CPUs of a package (leaf 0xB), as glibc counts them. */
static void memcopy_cache_intel(struct memcopy_facts *f, unsigned max)
{
	unsigned a, b, c, d, i, level, share3 = 0, share2 = 0, pkg = 0;

	f->l3_inclusive = 1;
	for (i = 0; max >= 4 && i < 16; i++) {
		__cpuid_count(4, i, a, b, c, d);
		if ((a & 31) == 0)
			break;
		if ((a & 31) == 2) /* instruction cache */
			continue;
		level = (a >> 5) & 7;
		if (level == 2) {
			f->l2 = (uint64_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1);
			share2 = ((a >> 14) & 0xfff) + 1;
		} else if (level == 3) {
			f->l3 = (uint64_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1);
			share3 = ((a >> 14) & 0xfff) + 1;
			f->l3_inclusive = (d >> 1) & 1;
		}
	}
	if (max >= 0xb) {
		__cpuid_count(0xb, 1, a, b, c, d);
		pkg = b & 0xffff;
	}
	f->threads = f->l3 ? share3 : share2;
	if (pkg && f->threads > pkg)
		f->threads = pkg;
}

static uint64_t memcopy_xgetbv(void)
{
	unsigned lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}
#endif

int memcopy_facts_read(struct memcopy_facts *f)
{
	memset(f, 0, sizeof(*f));
#if MEMCOPY_X86
	unsigned max, ext, a, b, c, d, c1, b7 = 0, d7 = 0;
	uint64_t xcr0 = 0;
	char vendor[13];

	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (strcmp(vendor, "GenuineIntel") == 0)
		f->vendor = MEMCOPY_VENDOR_INTEL;
	else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
		f->vendor = MEMCOPY_VENDOR_AMD;
	__cpuid(1, a, b, c, d);
	f->family = (a >> 8) & 0xf;
	if (f->family == 0xf)
		f->family += (a >> 20) & 0xff;
	c1 = c;
	f->ssse3 = (c1 >> 9) & 1;
	if (c1 & (1u << 27)) /* OSXSAVE */
		xcr0 = memcopy_xgetbv();
	if (max >= 7) {
		__cpuid_count(7, 0, a, b7, c, d7);
	}
	f->erms = (b7 >> 9) & 1;
	f->fsrm = (d7 >> 4) & 1;
	if ((xcr0 & 6) == 6 && ((c1 >> 28) & 1)) /* AVX state saved */
		f->avx2 = (b7 >> 5) & 1;
	if ((xcr0 & 0xe6) == 0xe6) {
		f->avx512f = (b7 >> 16) & 1;
		f->avx512vl = (b7 >> 31) & 1;
		f->avx512er = (b7 >> 27) & 1;
	}
	__cpuid(0x80000000, ext, b, c, d);
	if (f->vendor == MEMCOPY_VENDOR_AMD)
		memcopy_cache_amd(f, ext);
	else
		memcopy_cache_intel(f, max);
	return 0;
#else
	return -1;
#endif
}

int memcopy_config_diagnostics(struct memcopy_config *c, const char *text)
{
	static const char *const keys[3] = {
		"x86.cpu_features.non_temporal_threshold=",
		"x86.cpu_features.rep_movsb_threshold=",
		"x86.cpu_features.rep_movsb_stop_threshold=",
	};
	unsigned long long v[3];
	int found = 0;

	for (int k = 0; k < 3; k++) {
		const char *p = text;
		size_t len = strlen(keys[k]);
		while ((p = strstr(p, keys[k])) && p != text && p[-1] != '\n')
			p += len;
		if (!p)
			continue;
		char *end;
		errno = 0;
		v[k] = strtoull(p + len, &end, 0);
		if (!errno && end != p + len && (*end == '\n' || !*end))
			found++;
	}
	if (found != 3)
		return -1;
	c->nt_threshold = v[0];
	c->movsb_threshold = v[1];
	c->movsb_stop = v[2];
	c->from_ldso = 1;
	return 0;
}

/* The output of `LDSO --list-diagnostics` (at most cap - 1 bytes), or
 * NULL when there is no such loader or it does not run. */
static char *ldso_diagnostics(const char *ldso, size_t cap)
{
	if (access(ldso, X_OK) != 0)
		return NULL;
	int fd[2];
	if (pipe(fd) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(fd[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		close(fd[0]);
		execl(ldso, ldso, "--list-diagnostics", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char *buf = malloc(cap);
	size_t len = 0;
	ssize_t r;
	while (buf && len + 1 < cap && (r = read(fd[0], buf + len, cap - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
	}
	close(fd[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!buf || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

void memcopy_config_host(struct memcopy_config *c)
{
	static const char *const loaders[] = {
		"/lib64/ld-linux-x86-64.so.2",
		"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"/usr/lib64/ld-linux-x86-64.so.2",
		"/lib/ld-linux-x86-64.so.2",
	};
	struct memcopy_facts f;

	if (memcopy_facts_read(&f) == 0) {
		memcopy_config_from(&f, c);
		for (size_t i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++) {
			char *text = ldso_diagnostics(loaders[i], 256 * 1024);
			int ok = text && memcopy_config_diagnostics(c, text) == 0;
			free(text);
			if (ok)
				return;
		}
		memcopy_config_tunables(c, getenv("GLIBC_TUNABLES"));
		return;
	}
	memset(c, 0, sizeof(*c));
	c->vec = 16;
}

/* ---- mbw's arrays ---- */

static size_t memcopy_span(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (size + MEMCOPY_ARRAY_OFFSET + page - 1) / page * page;
}

int memcopy_arrays(size_t size, char **src, char **dst)
{
	size_t span = memcopy_span(size);
	char *base = mmap(NULL, 2 * span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return -1;
	*dst = base + MEMCOPY_ARRAY_OFFSET;
	*src = base + span + MEMCOPY_ARRAY_OFFSET;
	return 0;
}

void memcopy_arrays_free(size_t size, char *src, char *dst)
{
	(void)src;
	if (dst)
		munmap(dst - MEMCOPY_ARRAY_OFFSET, 2 * memcopy_span(size));
}
