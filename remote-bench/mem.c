/*
 * remote-bench-mem: memory copy bandwidth three ways, as mbw measures it
 * (glibc's memcpy of the whole array, a word-at-a-time loop, memcpy in
 * blocks) on arrays laid out as mbw's, the write rate to a tmpfs file, and
 * free/available memory.
 */
#include "harness.h"
#include "memcopy.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define MEM_TMPFS_MAGIC 0x01021994
#define MEM_MIB (1024.0 * 1024.0)

struct mem_opts {
	uint64_t size;
	int size_given;
	uint64_t block;
	unsigned long loops;
	double max_time;
	const char *tmpfs_dir;
	int tmpfs_dir_given;
	int path; /* --copy: an memcopy_path, or -1 for the one glibc would take */
	struct memcopy_config copy;
};

/* The destination is written through a volatile pointer so that the compiler
 * neither turns the loop into a memcpy call nor vectorises it: one machine
 * word per iteration, as the metric's name says. */
__attribute__((noinline, aligned(64))) static void mem_copy_words(unsigned long *dst, const unsigned long *src, size_t words)
{
	volatile unsigned long *d = dst;
	size_t i;

	for (i = 0; i < words; i++)
		d[i] = src[i];
}

/* mbw's MCBLOCK: the destination is filled in block-sized memcpy calls, each
 * from the start of the source, so the source stays in cache and this is
 * closest to a write bandwidth. Each block is copied as glibc's memcpy
 * would copy it (on x86-64 usually rep movsb at mbw's 256 KiB). */
static void mem_copy_blocks(const struct memcopy_config *c, char *dst, const char *src, size_t size,
			    size_t block)
{
	size_t off, n;

	for (off = 0; off < size; off += n) {
		n = size - off < block ? size - off : block;
		memcopy_copy(c, dst + off, src, n);
	}
}

enum mem_method { MEM_MEMCPY, MEM_WORD, MEM_BLOCK };

static void mem_copy(enum mem_method m, char *dst, const char *src, const struct mem_opts *o)
{
	switch (m) {
	case MEM_MEMCPY:
		if (o->path < 0)
			memcopy_copy(&o->copy, dst, src, o->size);
		else
			memcopy_copy_path(&o->copy, (enum memcopy_path)o->path, dst, src, o->size);
		break;
	case MEM_WORD:
		mem_copy_words((unsigned long *)(void *)dst, (const unsigned long *)(const void *)src,
			       o->size / sizeof(unsigned long));
		break;
	case MEM_BLOCK:
		mem_copy_blocks(&o->copy, dst, src, o->size, o->block);
		break;
	}
}

/* MiB copied per second over the loops run: one untimed warm-up copy, then
 * up to --loops timed copies, stopping early after --max-time. */
static double mem_copy_rate(enum mem_method m, char *dst, char *src, const struct mem_opts *o)
{
	double total = 0, t0;
	unsigned long i;

	mem_copy(m, dst, src, o);
	for (i = 0; i < o->loops; i++) {
		t0 = rb_now();
		mem_copy(m, dst, src, o);
		total += rb_now() - t0;
		src[i % o->size]++;
		if (total >= o->max_time)
			break;
	}
	if (i < o->loops)
		i++;
	if (total <= 0)
		return -1;
	return (double)o->size * (double)i / MEM_MIB / total;
}

/* One file written as `dd if=/dev/zero of=PATH bs=64K count=SIZE/64K` does:
 * for each 64 KiB a read(2) from /dev/zero into buf, then a write(2) of it
 * to the file (without /dev/zero, buf's own bytes are written). Open to
 * close is timed. */
static int mem_write_file(const char *path, char *buf, uint64_t size, double *secs)
{
	double t0 = rb_now();
	uint64_t done = 0;
	ssize_t n;
	size_t chunk;
	int fd, zero, ret = 0;

	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (zero >= 0)
			close(zero);
		return -1;
	}
	while (done < size) {
		chunk = size - done < 65536 ? (size_t)(size - done) : 65536;
		if (zero >= 0 && read(zero, buf, chunk) != (ssize_t)chunk) {
			ret = -1;
			break;
		}
		n = write(fd, buf, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = -1;
			break;
		}
		done += (uint64_t)n;
	}
	if (close(fd) < 0)
		ret = -1;
	*secs = rb_now() - t0;
	if (zero >= 0)
		close(zero);
	return ret;
}

/* The tmpfs file lives in RAM until removed: a run killed by a signal (orch's
 * timeout) removes it before dying of that signal. */
static char mem_tmp_path[4096];
static volatile sig_atomic_t mem_tmp_live;

static void mem_on_signal(int sig)
{
	if (mem_tmp_live)
		unlink(mem_tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* MiB/s writing a file of --size to a tmpfs as dd from /dev/zero with
 * bs=64K does (open, read+write, close timed; the file is removed between
 * loops). Returns 0, 1 when there
 * is no tmpfs to measure (noted), -1 on error. */
static int mem_tmpfs_rate(const struct mem_opts *o, char *buf, double *rate)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	const char *path = mem_tmp_path;
	struct statfs sfs;
	double total = 0, t;
	unsigned long i;
	int err;

	if (statfs(o->tmpfs_dir, &sfs) < 0) {
		if (!o->tmpfs_dir_given)
			rb_note("no %s: mem.tmpfs_write not measured", o->tmpfs_dir);
		return o->tmpfs_dir_given ? -1 : 1;
	}
	if ((unsigned long)sfs.f_type != MEM_TMPFS_MAGIC) {
		rb_note("%s is not a tmpfs: mem.tmpfs_write not measured", o->tmpfs_dir);
		return 1;
	}
	if ((uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize < o->size + (1u << 20)) {
		rb_note("%s has too little room: mem.tmpfs_write not measured", o->tmpfs_dir);
		return 1;
	}
	snprintf(mem_tmp_path, sizeof(mem_tmp_path), "%s/remote-bench-mem.%ld", o->tmpfs_dir,
		 (long)getpid());
	mem_tmp_live = 1;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], mem_on_signal);
	if (mem_write_file(path, buf, o->size, &t) < 0)
		goto fail;
	unlink(path);
	for (i = 0; i < o->loops; i++) {
		if (mem_write_file(path, buf, o->size, &t) < 0)
			goto fail;
		unlink(path);
		total += t;
		if (total >= o->max_time)
			break;
	}
	mem_tmp_live = 0;
	if (i < o->loops)
		i++;
	*rate = (double)o->size * (double)i / MEM_MIB / total;
	return 0;
fail:
	err = errno;
	unlink(path);
	mem_tmp_live = 0;
	rb_error("writing %s: %s", path, strerror(err));
	return -1;
}

/* Emits mem.total, mem.free, mem.available (KiB) from /proc/meminfo. */
static int mem_meminfo(void)
{
	static const struct {
		const char *key, *metric;
	} keys[] = {
		{ "MemTotal:", "mem.total" },
		{ "MemFree:", "mem.free" },
		{ "MemAvailable:", "mem.available" },
	};
	char line[256], *p;
	uint64_t kib;
	size_t i, klen;
	FILE *f;
	int ret = 0;

	f = fopen("/proc/meminfo", "re");
	if (!f) {
		rb_note("no /proc/meminfo: memory sizes not reported");
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			klen = strlen(keys[i].key);
			if (strncmp(line, keys[i].key, klen) != 0)
				continue;
			p = strchr(line, 'k');
			if (!p || p == line || p[-1] != ' ')
				continue;
			p[-1] = '\0';
			if (rb_parse_u64_list(line + klen, &kib, 1) == 0 &&
			    rb_emit(keys[i].metric, (double)kib, "KiB", "higher") < 0)
				ret = -1;
		}
	}
	fclose(f);
	return ret;
}

/* One /proc/meminfo value in KiB (0 when absent). */
static uint64_t mem_meminfo_kib(const char *key)
{
	char line[256], *p;
	uint64_t kib = 0;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		p = strchr(line, 'k');
		if (p && p > line && p[-1] == ' ') {
			p[-1] = '\0';
			if (rb_parse_u64_list(line + klen, &kib, 1) != 0)
				kib = 0;
		}
		break;
	}
	fclose(f);
	return kib;
}

/* The largest cache of cpu0 in bytes, from sysfs (0 when unknown). */
static uint64_t mem_llc_bytes(void)
{
	char path[96], text[32];
	uint64_t best = 0, v;
	size_t n;
	int i;
	FILE *f;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "re");
		if (!f)
			break;
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		text[strcspn(text, "\n")] = '\0';
		if (rb_parse_size(text, 1, (uint64_t)1 << 40, &v) == 0 && v > best)
			best = v;
	}
	return best;
}

/* Default size: 64 MiB per array, well past the last-level caches of the
 * boards this is for, halved while the two arrays would take more than half
 * of MemAvailable (down to 4 MiB): a board with 25 MB free gets 4 MiB and a
 * note that says so, instead of swapping or being killed. */
static void mem_pick_size(struct mem_opts *o)
{
	uint64_t avail = mem_meminfo_kib("MemAvailable:") * 1024, llc = mem_llc_bytes();

	if (!avail)
		avail = mem_meminfo_kib("MemFree:") * 1024;
	if (!o->size_given) {
		o->size = (uint64_t)64 << 20;
		while (avail && o->size > ((uint64_t)4 << 20) && 2 * o->size > avail / 2)
			o->size /= 2;
		if (o->size < ((uint64_t)64 << 20))
			rb_note("%llu KiB available: arrays of %llu MiB instead of 64 MiB",
				(unsigned long long)(avail >> 10), (unsigned long long)(o->size >> 20));
	}
	if (llc && o->size < 4 * llc)
		rb_note("arrays of %llu KiB are less than 4x the %llu KiB cache: the copy figures "
			"include cache speed", (unsigned long long)(o->size >> 10),
			(unsigned long long)(llc >> 10));
}

/* Says on stderr how mem.memcpy and mem.block copy here. */
static void mem_note_copy(const struct mem_opts *o, const char *dst, const char *src)
{
	const struct memcopy_config *c = &o->copy;
	enum memcopy_path p = o->path < 0 ? memcopy_plan(c, dst, src, o->size) : (enum memcopy_path)o->path;

	if (!c->glibc_like) {
		rb_note("copy: %s, 16-byte vectors%s", memcopy_path_name(p),
			o->path < 0 ? " (no cpuid: glibc's generic forward copy)" : " (--copy)");
		return;
	}
	rb_note("copy: %s, %u-byte vectors%s; glibc's thresholds here (%s): rep movsb %llu B to "
		"%llu KiB, non-temporal from %llu KiB; --block copies: %s", memcopy_path_name(p),
		c->vec, o->path < 0 ? "" : " (--copy)",
		c->from_ldso ? "its ld.so --list-diagnostics"
			     : "derived from cpuid as glibc 2.36 does: no ld.so diagnostics",
		(unsigned long long)c->movsb_threshold,
		(unsigned long long)(c->movsb_stop >> 10), (unsigned long long)(c->nt_threshold >> 10),
		memcopy_path_name(memcopy_plan(c, dst, src, (size_t)o->block)));
}

static void mem_usage(void)
{
	printf("Usage: remote-bench-mem [OPTIONS]\n"
	       "Measures memory copy bandwidth (as mbw does), tmpfs write rate, free memory.\n"
	       "\n"
	       "  --size SIZE       bytes per array, two arrays are used (default 64M, less\n"
	       "                    when two arrays would take over half of MemAvailable)\n"
	       "  --loops N         timed copies per method (default 10)\n"
	       "  --block SIZE      block size for the block copy (default 256K)\n"
	       "  --max-time SECS   stop a method's loops after this much time (default 1)\n"
	       "  --tmpfs-dir DIR   tmpfs directory for the write test (default /dev/shm)\n"
	       "  --copy PATH       mem.memcpy's copy: auto (default: the path glibc's memcpy\n"
	       "                    takes on this CPU), forward, backward, nt2, nt4, movsb\n"
	       "  --help            this text\n"
	       "\n"
	       "The arrays are laid out as mbw's (page offset 16 on 64-bit, source above the\n"
	       "destination). Prints JSON lines (MiB/s are MiB copied per second, mean over\n"
	       "the loops): mem.memcpy (the whole array copied as glibc's memcpy copies it\n"
	       "on this CPU, in remote-bench's own code), mem.word (one unsigned long per\n"
	       "iteration), mem.block (the destination filled by --block pieces, each from\n"
	       "the start of the source, as mbw does), mem.tmpfs_write (MiB/s), mem.total,\n"
	       "mem.free, mem.available (KiB, from /proc/meminfo). A note on stderr says\n"
	       "which copy was used.\n");
}

/* The options into *o: 0 to go on, -1 after --help, else the exit status. */
static int mem_parse(int argc, char **argv, struct mem_opts *o)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "loops", required_argument, NULL, 'l' },
		{ "block", required_argument, NULL, 'b' },
		{ "max-time", required_argument, NULL, 't' },
		{ "tmpfs-dir", required_argument, NULL, 'd' },
		{ "copy", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (rb_parse_size(optarg, 4096, (uint64_t)1 << 30, &o->size) < 0)
				return rb_usage_error("bad --size '%s' (4K to 1G, e.g. 4M)", optarg);
			o->size_given = 1;
			break;
		case 'l':
			if (rb_parse_count(optarg, 1, 100000, &o->loops) < 0)
				return rb_usage_error("bad --loops '%s' (1 to 100000)", optarg);
			break;
		case 'b':
			if (rb_parse_size(optarg, 64, (uint64_t)1 << 30, &o->block) < 0)
				return rb_usage_error("bad --block '%s' (64 to 1G, e.g. 256K)", optarg);
			break;
		case 't':
			if (rb_parse_seconds(optarg, 0.001, 3600, &o->max_time) < 0)
				return rb_usage_error("bad --max-time '%s' (seconds)", optarg);
			break;
		case 'd':
			o->tmpfs_dir = optarg;
			o->tmpfs_dir_given = 1;
			break;
		case 'c':
			o->path = strcmp(optarg, "auto") == 0 ? -1 : memcopy_path_parse(optarg);
			if (o->path < 0 && strcmp(optarg, "auto") != 0)
				return rb_usage_error("bad --copy '%s' (auto, forward, backward, nt2, "
						      "nt4 or movsb)", optarg);
			break;
		case 'h':
			mem_usage();
			return -1;
		default:
			return rb_bad_option(argv);
		}
	}
	return rb_no_operands(argc, argv);
}

/* Each copy method timed, then checked once more: a figure for a copy that
 * copies wrong would be no figure at all. 0, or 1 when one failed. */
static int mem_copies(const struct mem_opts *o, char *dst, char *src)
{
	static const struct {
		enum mem_method m;
		const char *metric;
	} methods[] = {
		{ MEM_MEMCPY, "mem.memcpy" },
		{ MEM_WORD, "mem.word" },
		{ MEM_BLOCK, "mem.block" },
	};
	double rate;
	size_t i;
	int ret = 0;

	/* Touch every page first so that page faults are not timed. */
	for (i = 0; i < o->size; i++)
		src[i] = (char)(i * 31);
	memset(dst, 0, o->size);
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		rate = mem_copy_rate(methods[i].m, dst, src, o);
		mem_copy(methods[i].m, dst, src, o);
		if (methods[i].m != MEM_BLOCK && memcmp(dst, src, o->size) != 0) {
			ret = rb_error("%s: the copy differs from its source", methods[i].metric);
			continue;
		}
		if (rate < 0)
			ret = rb_error("%s: clock did not advance", methods[i].metric);
		else if (rb_emit(methods[i].metric, rate, "MiB/s", "higher") < 0)
			ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct mem_opts o = {
		.size = 64u << 20, .block = 256u << 10, .loops = 10, .max_time = 1.0,
		.tmpfs_dir = "/dev/shm", .path = -1,
	};
	char *src = NULL, *dst = NULL;
	double rate;
	int r, ret;

	rb_init("remote-bench-mem");
	ret = mem_parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	mem_pick_size(&o);
	o.size -= o.size % sizeof(unsigned long);
	if (o.block > o.size)
		o.block = o.size;

	/* mbw's layout, whatever this libc's malloc does: each array at page
	 * offset 16, the source right above the destination. glibc's memcpy
	 * chooses its path from the two addresses (same page offset: backward
	 * below the non-temporal threshold), so the copy must see the same. */
	if (memcopy_arrays(o.size, &src, &dst) < 0) {
		ret = rb_error("cannot allocate 2 x %llu bytes", (unsigned long long)o.size);
		goto out;
	}
	memcopy_config_host(&o.copy);
	mem_note_copy(&o, dst, src);
	ret = mem_copies(&o, dst, src);
	r = mem_tmpfs_rate(&o, src, &rate);
	if (r < 0)
		ret = 1;
	else if (r == 0 && rb_emit("mem.tmpfs_write", rate, "MiB/s", "higher") < 0)
		ret = 1;
	if (mem_meminfo() < 0)
		ret = 1;
out:
	memcopy_arrays_free(o.size, src, dst);
	return ret;
}
