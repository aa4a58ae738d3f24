/*
 * memcopy: large copies made the way glibc's memcpy makes them on this CPU,
 * in libc-free C, so that remote-bench-mem's figures follow mbw (which
 * calls glibc's memcpy) whichever libc remote-bench was built with.
 *
 * On x86-64 glibc (2.36, Debian 12) picks one memmove-vec-unaligned-erms
 * variant (64-, 32- or 16-byte vectors) from cpuid, derives three size
 * thresholds from the cache sizes, and per call chooses one of: a 4-vector
 * loop forward, the same loop backward (when the destination and source are
 * a multiple of 4 KiB apart give or take 255 bytes: forward would alias),
 * non-temporal stores over 2 or 4 interleaved pages (above the non-temporal
 * threshold), or rep movsb (between the rep movsb thresholds). memcopy_config()
 * derives the same variant and thresholds from the same cpuid facts,
 * memcopy_plan() makes the same choice, memcopy_copy_path() runs it.
 *
 * Elsewhere (32-bit x86, ARM, ...) the copy is a forward loop of 16-byte
 * loads and stores, 64 bytes per iteration, as glibc's generic large copies.
 */
#ifndef RB_MEMCOPY_H
#define RB_MEMCOPY_H

#include <stddef.h>
#include <stdint.h>

enum memcopy_vendor { MEMCOPY_VENDOR_OTHER, MEMCOPY_VENDOR_INTEL, MEMCOPY_VENDOR_AMD };

/* What glibc reads from cpuid to set up memcpy. Sizes in bytes, 0 when the
 * CPU does not report that cache. Features count only when usable (the
 * kernel saves the registers they need). */
struct memcopy_facts {
	enum memcopy_vendor vendor;
	unsigned family;      /* family + extended family */
	uint64_t l2, l3;
	unsigned threads;     /* AMD: cpuid 1 logical CPUs; Intel: CPUs sharing L3 */
	unsigned threads_ccx; /* AMD family >= 0x17: CPUs sharing the L3 (0x8000001D) */
	int l3_inclusive;     /* Intel: L3 inclusive of L2 (cpuid 4) */
	int avx512f, avx512vl, avx512er, avx2, ssse3, erms, fsrm;
};

/* The memcpy variant and thresholds glibc 2.36 derives from those facts. */
struct memcopy_config {
	unsigned vec;             /* vector bytes: 64, 32 or 16 */
	int erms;                 /* the variant has a rep movsb path */
	uint64_t movsb_threshold; /* rep movsb above this size ... */
	uint64_t movsb_stop;      /* ... and below this one */
	uint64_t nt_threshold;    /* non-temporal stores above this size */
	int glibc_like;           /* 0: no cpuid (the portable forward loop) */
	int stop_at_nt;           /* movsb_stop follows nt_threshold (not AMD) */
	int from_ldso;            /* the thresholds are the board's glibc's own, read
				     from its ld.so --list-diagnostics */
};

enum memcopy_path {
	MEMCOPY_FORWARD,   /* 4 vectors per iteration, ascending, destination aligned */
	MEMCOPY_BACKWARD,  /* the same, descending */
	MEMCOPY_NT2,       /* non-temporal stores, two pages interleaved, then forward */
	MEMCOPY_NT4,       /* the same over four pages */
	MEMCOPY_MOVSB,     /* rep movsb */
	MEMCOPY_PATHS
};

/* Fills f from cpuid; returns 0, or -1 where there is no cpuid (f zeroed). */
int memcopy_facts_read(struct memcopy_facts *f);

/* The variant and thresholds glibc derives from f (its dl_init_cacheinfo). */
void memcopy_config_from(const struct memcopy_facts *f, struct memcopy_config *c);

/* Applies the x86 thresholds a GLIBC_TUNABLES value sets
 * (glibc.cpu.x86_non_temporal_threshold, glibc.cpu.x86_rep_movsb_threshold)
 * as glibc does: values below glibc's minimum are ignored. */
void memcopy_config_tunables(struct memcopy_config *c, const char *tunables);

/* Reads the thresholds glibc set up on this machine from the lines
 * `ld.so --list-diagnostics` prints (x86.cpu_features.non_temporal_threshold,
 * rep_movsb_threshold, rep_movsb_stop_threshold) into c; returns 0 when
 * all three were there, else -1 (c unchanged). */
int memcopy_config_diagnostics(struct memcopy_config *c, const char *text);
/* The configuration of this CPU: memcopy_config_from(cpuid), then the
 * thresholds of the board's own glibc where its dynamic loader prints them
 * (glibc >= 2.33; they already follow GLIBC_TUNABLES and the glibc
 * version's rules; from_ldso set), else the GLIBC_TUNABLES of the
 * environment applied to the derived ones; off x86-64 the portable loop
 * (vec 16, forward only). */
void memcopy_config_host(struct memcopy_config *c);

/* The path glibc's memcpy takes for these arguments under c. */
enum memcopy_path memcopy_plan(const struct memcopy_config *c, const void *dst, const void *src,
			       size_t n);

/* Copies n bytes (dst and src must not overlap) along path p with c's
 * vectors (which the CPU must have: c from memcopy_config_host). Without
 * cpuid (c->glibc_like 0, or not x86-64) every path is the forward loop;
 * copies of up to 8 vectors go byte by byte. */
void memcopy_copy_path(const struct memcopy_config *c, enum memcopy_path p, void *dst,
		       const void *src, size_t n);

/* memcopy_copy_path(c, memcopy_plan(c, dst, src, n), dst, src, n). */
void memcopy_copy(const struct memcopy_config *c, void *dst, const void *src, size_t n);

/* "forward", "backward", "nt2", "nt4", "movsb"; memcopy_path_parse is its inverse
 * (returns -1 for an unknown name). */
const char *memcopy_path_name(enum memcopy_path p);
int memcopy_path_parse(const char *name);

/* Where glibc's malloc puts the data of a block it mmaps: after the chunk
 * header of two words, 16 bytes on 64-bit and on i386 (16-byte alignment),
 * 8 on other 32-bit targets. */
#if defined(__i386__)
#define MEMCOPY_ARRAY_OFFSET 16
#else
#define MEMCOPY_ARRAY_OFFSET (2 * sizeof(size_t))
#endif

/* Two arrays of `size` bytes laid out as mbw's calloc'd ones are under
 * glibc: each in its own mapping at page offset MEMCOPY_ARRAY_OFFSET, src
 * directly above dst, so src - dst is size + MEMCOPY_ARRAY_OFFSET rounded up to
 * the page size. Both are zero-filled. Returns 0, or -1 (errno set).
 * memcopy_arrays_free undoes it. */
int memcopy_arrays(size_t size, char **src, char **dst);
void memcopy_arrays_free(size_t size, char *src, char *dst);

#endif
