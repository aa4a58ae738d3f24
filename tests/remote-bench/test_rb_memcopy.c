/* remote-bench-mem's copies (remote-bench/memcopy.c): the glibc variant and
 * thresholds derived from cache facts (this VM's against what its glibc
 * 2.36 prints with `ld.so --list-diagnostics`, an Intel VM, an old CPU), the
 * path chosen per call (mbw's layout goes backward here, non-temporal on the
 * Intel VM, 256 KiB blocks by rep movsb), every path copying right at odd
 * sizes and offsets, and the arrays laid out as mbw's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "memcopy.h"

#define MIB ((uint64_t)1 << 20)

/* This build machine: AMD EPYC family 0x19 (Zen 4) KVM guest, 2 vCPUs; cpuid
 * reports a 1 MiB L2, a 320 MiB L3 (0x80000006), 2 logical CPUs, 2 per CCX. */
static const struct memcopy_facts zen4_vm = {
	.vendor = MEMCOPY_VENDOR_AMD, .family = 0x19, .l2 = MIB, .l3 = 320 * MIB, .threads = 2,
	.threads_ccx = 2, .avx512f = 1, .avx512vl = 1, .avx2 = 1, .ssse3 = 1, .erms = 1, .fsrm = 1,
};

/* An Intel AVX-512 server as a 2-vCPU VM: 2 MiB L2, 32 MiB non-inclusive L3. */
static const struct memcopy_facts intel_vm = {
	.vendor = MEMCOPY_VENDOR_INTEL, .family = 6, .l2 = 2 * MIB, .l3 = 32 * MIB, .threads = 2,
	.l3_inclusive = 0, .avx512f = 1, .avx512vl = 1, .avx2 = 1, .ssse3 = 1, .erms = 1,
};

static void *at(uintptr_t a)
{
	return (void *)a;
}

static void test_config_zen4_vm(void **state)
{
	struct memcopy_config c;

	(void)state;
	memcopy_config_from(&zen4_vm, &c);
	/* ld.so --list-diagnostics here: rep_movsb_threshold=0x840,
	 * rep_movsb_stop_threshold=0x100000, non_temporal_threshold=0xf000000,
	 * and memcpy resolves to __memcpy_avx512_unaligned_erms */
	assert_int_equal(c.vec, 64);
	assert_true(c.erms);
	assert_int_equal(c.movsb_threshold, 0x840);
	assert_int_equal(c.movsb_stop, 0x100000);
	assert_int_equal(c.nt_threshold, 0xf000000);
}

static void test_config_intel_vm(void **state)
{
	struct memcopy_facts f = intel_vm;
	struct memcopy_config c;

	(void)state;
	memcopy_config_from(&f, &c);
	assert_int_equal(c.vec, 32); /* Prefer_No_AVX512 on Intel */
	assert_int_equal(c.movsb_threshold, 8192);
	assert_int_equal(c.nt_threshold, (16 + 2) * MIB * 3 / 4);
	assert_int_equal(c.movsb_stop, c.nt_threshold);
	f.fsrm = 1;
	f.l3_inclusive = 1;
	memcopy_config_from(&f, &c);
	assert_int_equal(c.movsb_threshold, 2112);
	assert_int_equal(c.nt_threshold, 16 * MIB * 3 / 4);
}

static void test_config_old_cpus(void **state)
{
	struct memcopy_facts f = { .vendor = MEMCOPY_VENDOR_AMD, .family = 0x10, .l2 = 512 << 10,
			      .l3 = 6 * MIB, .threads = 4, .ssse3 = 1 };
	struct memcopy_config c;

	(void)state;
	memcopy_config_from(&f, &c);
	assert_int_equal(c.vec, 16);
	assert_false(c.erms);
	assert_int_equal(c.movsb_threshold, 2048);
	/* before Zen: the L3 share plus the exclusive L2 */
	assert_int_equal(c.nt_threshold, (6 * MIB / 4 + (512 << 10)) * 3 / 4);
	f.l3 = 0;
	memcopy_config_from(&f, &c);
	assert_int_equal(c.nt_threshold, (512 << 10) * 3 / 4);
}

/* GLIBC_TUNABLES moves the thresholds as in glibc (checked on this VM with
 * ld.so --list-diagnostics); values under glibc's minimum are ignored. */
static void test_tunables(void **state)
{
	struct memcopy_config c;

	(void)state;
	memcopy_config_from(&zen4_vm, &c);
	memcopy_config_tunables(&c, "glibc.malloc.check=0:glibc.cpu.x86_non_temporal_threshold="
				    "0x100000:glibc.cpu.x86_rep_movsb_threshold=4096");
	assert_int_equal(c.nt_threshold, 0x100000);
	assert_int_equal(c.movsb_threshold, 4096);
	assert_int_equal(c.movsb_stop, MIB); /* AMD: the L2 still */
	memcopy_config_tunables(&c, "glibc.cpu.x86_non_temporal_threshold=100:"
				    "glibc.cpu.x86_rep_movsb_threshold=64");
	assert_int_equal(c.nt_threshold, 0x100000);
	assert_int_equal(c.movsb_threshold, 4096);
	memcopy_config_tunables(&c, NULL);
	memcopy_config_from(&intel_vm, &c);
	memcopy_config_tunables(&c, "glibc.cpu.x86_non_temporal_threshold=33554432");
	assert_int_equal(c.nt_threshold, 32 * MIB);
	assert_int_equal(c.movsb_stop, 32 * MIB); /* Intel: stops at the threshold */
}

/* The thresholds a board's glibc prints are taken as they are (an Intel VM
 * seen: 127 MiB where the cpuid rules of 2.36 give 1536 KiB), and the
 * host configuration takes this machine's ld.so's when it prints them. */
static void test_diagnostics(void **state)
{
	(void)state;
	struct memcopy_config c;
	memcopy_config_from(&intel_vm, &c);
	uint64_t derived = c.nt_threshold;
	static const char text[] =
		"version.release=\"stable\"\n"
		"x86.cpu_features.non_temporal_threshold=0x7f00000\n"
		"x86.cpu_features.rep_movsb_threshold=0x2000\n"
		"x86.cpu_features.rep_movsb_stop_threshold=0x7f00000\n";
	assert_int_equal(memcopy_config_diagnostics(&c, text), 0);
	assert_true(c.from_ldso);
	assert_int_equal(c.nt_threshold, 127 * MIB);
	assert_true(c.nt_threshold != derived);
	assert_int_equal(c.movsb_threshold, 0x2000);
	assert_int_equal(c.movsb_stop, 127 * MIB);
	struct memcopy_config d;
	memcopy_config_from(&intel_vm, &d);
	assert_int_equal(memcopy_config_diagnostics(&d, "x86.cpu_features.rep_movsb_threshold=0x2000\n"), -1);
	assert_false(d.from_ldso);
	assert_int_equal(d.nt_threshold, derived);

#if defined(__x86_64__)
	FILE *f = popen("/lib64/ld-linux-x86-64.so.2 --list-diagnostics 2>/dev/null | "
			"sed -n 's/^x86.cpu_features.non_temporal_threshold=//p'", "r");
	char line[64] = "";
	if (f && fgets(line, sizeof(line), f) && line[0]) {
		struct memcopy_config h;
		memcopy_config_host(&h);
		assert_true(h.from_ldso);
		assert_int_equal(h.nt_threshold, strtoull(line, NULL, 0));
	}
	if (f)
		pclose(f);
#endif
}

static void test_plan(void **state)
{
	struct memcopy_config amd, intel, none = { .vec = 16 };
	uintptr_t d = (uintptr_t)1 << 40, s = d + 64 * MIB + 4096;

	(void)state;
	memcopy_config_from(&zen4_vm, &amd);
	memcopy_config_from(&intel_vm, &intel);
	/* mbw's 64 MiB arrays: 4 KiB apart modulo the page, so backward here,
	 * non-temporal on the Intel VM */
	assert_int_equal(memcopy_plan(&amd, at(d), at(s), 64 * MIB), MEMCOPY_BACKWARD);
	assert_int_equal(memcopy_plan(&intel, at(d), at(s), 64 * MIB), MEMCOPY_NT2);
	/* 2 KiB off that: forward */
	assert_int_equal(memcopy_plan(&amd, at(d + 2048), at(s), 64 * MIB), MEMCOPY_FORWARD);
	/* mbw's MCBLOCK: 256 KiB blocks into the destination, from src's start */
	assert_int_equal(memcopy_plan(&amd, at(d + 256 * 1024 * 7), at(s), 256 * 1024), MEMCOPY_MOVSB);
	assert_int_equal(memcopy_plan(&intel, at(d), at(s), 256 * 1024), MEMCOPY_MOVSB);
	/* above L2 on AMD no rep movsb; 2 MiB is below the non-temporal 240 MiB */
	assert_int_equal(memcopy_plan(&amd, at(d + 2048), at(s), 2 * MIB), MEMCOPY_FORWARD);
	/* above the non-temporal threshold: 4 pages when 4 KiB aliasing or huge */
	assert_int_equal(memcopy_plan(&amd, at(d), at(d + 512 * MIB), 300 * MIB), MEMCOPY_NT2);
	assert_int_equal(memcopy_plan(&amd, at(d + 512 * MIB + 1), at(d), 300 * MIB), MEMCOPY_NT4);
	assert_int_equal(memcopy_plan(&intel, at(d), at(d + 512 * MIB), 300 * MIB), MEMCOPY_NT4);
	/* rep movsb only between its thresholds; small copies forward */
	assert_int_equal(memcopy_plan(&amd, at(d + 2048), at(s), 2112), MEMCOPY_FORWARD);
	assert_int_equal(memcopy_plan(&amd, at(d), at(s), 512), MEMCOPY_FORWARD);
	/* a destination inside the source's range: backward, whatever else */
	assert_int_equal(memcopy_plan(&amd, at(d + 100), at(d), 64 * MIB), MEMCOPY_BACKWARD);
	/* no cpuid: the portable forward loop */
	assert_int_equal(memcopy_plan(&none, at(d), at(s), 64 * MIB), MEMCOPY_FORWARD);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

/* Every path at every width this CPU runs, odd sizes and offsets: the copy
 * equals the source and no byte around the destination changes. */
static void test_copy_paths(void **state)
{
	static const size_t sizes[] = { 1, 200, 1000, 4097, 8 * 64 + 1, 12345, 65536 + 63,
					 (1 << 20) + 4161 };
	static const size_t offs[] = { 0, 1, 16, 33, 63 };
	struct memcopy_facts f;
	struct memcopy_config c;
	unsigned vecs[3], nvec = 0, v;
	size_t si, oi, max = (1 << 20) + 4161 + 256;
	unsigned char *src = malloc(max), *dst = malloc(max), *want = malloc(max);
	int p;

	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(want);
	vecs[nvec++] = 16;
	if (memcopy_facts_read(&f) == 0) {
		if (f.avx2)
			vecs[nvec++] = 32;
		if (f.avx512f)
			vecs[nvec++] = 64;
	}
	for (v = 0; v < nvec; v++) {
		memcopy_config_host(&c);
		c.vec = vecs[v];
		c.glibc_like = nvec > 1 || c.glibc_like;
		for (p = 0; p < MEMCOPY_PATHS; p++)
			for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
				for (oi = 0; oi < sizeof(offs) / sizeof(offs[0]); oi++) {
					size_t n = sizes[si], o = offs[oi];

					fill(src, max, (unsigned)(n + o));
					fill(dst, max, (unsigned)(n * 7 + p));
					memcpy(want, dst, max);
					memcpy(want + 64 + o, src + 128 - o, n);
					memcopy_copy_path(&c, (enum memcopy_path)p, dst + 64 + o, src + 128 - o, n);
					if (memcmp(dst, want, max) != 0)
						fail_msg("path %s, %u-byte vectors, size %zu, offset %zu: "
							 "wrong copy", memcopy_path_name((enum memcopy_path)p),
							 vecs[v], n, o);
				}
	}
	free(src);
	free(dst);
	free(want);
}

/* mbw's arrays: calloc under glibc gives each its own mapping with the
 * data at page offset 16 (on 64-bit), the source (allocated first) above. */
static void test_arrays_layout(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), sizes[] = { 64 * MIB, 4104 }, i, k;
	char *src, *dst;

	(void)state;
	for (i = 0; i < 2; i++) {
		size_t n = sizes[i];

		assert_int_equal(memcopy_arrays(n, &src, &dst), 0);
		assert_int_equal((uintptr_t)src % page, MEMCOPY_ARRAY_OFFSET);
		assert_int_equal((uintptr_t)dst % page, MEMCOPY_ARRAY_OFFSET);
		assert_int_equal((uintptr_t)src - (uintptr_t)dst,
				 (n + MEMCOPY_ARRAY_OFFSET + page - 1) / page * page);
		if (sizeof(size_t) == 8)
			assert_int_equal(MEMCOPY_ARRAY_OFFSET, 16);
		for (k = 0; k < n; k += page / 2)
			assert_int_equal(src[k] | dst[k], 0);
		src[n - 1] = 1;
		dst[n - 1] = 1;
		memcopy_arrays_free(n, src, dst);
	}
}

static void test_path_names(void **state)
{
	int p;

	(void)state;
	for (p = 0; p < MEMCOPY_PATHS; p++)
		assert_int_equal(memcopy_path_parse(memcopy_path_name((enum memcopy_path)p)), p);
	assert_int_equal(memcopy_path_parse("sideways"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_zen4_vm),
		cmocka_unit_test(test_config_intel_vm),
		cmocka_unit_test(test_config_old_cpus),
		cmocka_unit_test(test_tunables),
		cmocka_unit_test(test_diagnostics),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_copy_paths),
		cmocka_unit_test(test_arrays_layout),
		cmocka_unit_test(test_path_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
