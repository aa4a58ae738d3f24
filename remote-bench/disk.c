/*
 * remote-bench-disk: the figures bonnie++ reports, in a few seconds: a
 * file's sequential write (fsync'd), rewrite and read; random seeks with a
 * read; small file create, read and delete rates. Works in its own fresh
 * directory under --dir and removes it at the end, on error, and on
 * SIGINT/SIGTERM/SIGHUP (then dies of that signal).
 */
#define _GNU_SOURCE /* O_DIRECT */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define DISK_MIB (1024.0 * 1024.0)
#define DISK_SEEK_BLOCK 4096

struct disk_opts {
	const char *dir;
	uint64_t size;
	uint64_t block;
	unsigned long files;
	uint64_t file_size;
	double seek_time;
	double file_time;
	unsigned long max_files;
	uint64_t char_size;
	unsigned tests; /* DISK_T_* bits */
};

/* The groups of --tests, bonnie++'s sections (its -s 0 / -n 0 / -f). */
enum {
	DISK_T_PUTC = 1, DISK_T_CHAR = 2, DISK_T_BLOCK = 4, DISK_T_SEEKS = 8,
	DISK_T_FILES = 16, DISK_T_RAND = 32, DISK_T_ALL = 63,
};

/* "block,files" -> DISK_T_BLOCK | DISK_T_FILES; 0 on an unknown name. */
static unsigned disk_parse_tests(const char *text)
{
	static const char *const names[] = { "putc", "char", "block", "seeks", "files", "rand" };
	unsigned bits = 0, i;
	size_t len;

	while (*text) {
		len = strcspn(text, ",");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == len && strncmp(text, names[i], len) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return 0;
		bits |= 1u << i;
		text += len;
		if (*text == ',' && *++text == '\0')
			return 0;
	}
	return bits;
}

static volatile sig_atomic_t disk_stop;

static void disk_on_signal(int sig)
{
	disk_stop = sig;
}

static int disk_stopped(void)
{
	if (disk_stop)
		errno = EINTR;
	return disk_stop != 0;
}

static int disk_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if (disk_stopped())
			return -1;
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads up to len bytes; returns the count (short only at end of file) or -1. */
static ssize_t disk_read_full(int fd, char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		if (disk_stopped())
			return -1;
		n = read(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Removes every entry of the work directory, then the directory itself. It
 * only ever holds this program's flat files. */
static void disk_remove_dir(const char *work)
{
	char path[4096 + 260];
	struct dirent *de;
	DIR *d;

	d = opendir(work);
	if (d) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", work, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	if (rmdir(work) < 0 && errno != ENOENT)
		rb_note("cannot remove %s: %s", work, strerror(errno));
}

/* The small files' directory inside the work directory (see disk_files_pass). */
#define DISK_FILES_DIR "files"

static void disk_cleanup(const char *work)
{
	char files[4096 + 8];

	snprintf(files, sizeof(files), "%s/" DISK_FILES_DIR, work);
	disk_remove_dir(files);
	disk_remove_dir(work);
}

/* The end of a timed write phase: fsync, close, then the seconds since t0.
 * Closes fd also on error. Returns 0 or -1. */
static int disk_sync_close(int fd, double t0, double *secs)
{
	if (fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	*secs = rb_now() - t0;
	return 0;
}

/* Timed as bonnie++ 2.00a's Block output (strace): from after the file's
 * open(O_CREAT|O_EXCL) to after its fsync and close. */
static int disk_seq_write(const char *path, const struct disk_opts *o, char *buf, double *secs)
{
	double t0;
	uint64_t done;
	size_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	t0 = rb_now();
	for (done = 0; done < o->size; done += n) {
		n = o->size - done < o->block ? (size_t)(o->size - done) : (size_t)o->block;
		buf[0] = (char)(done / o->block);
		if (disk_write_all(fd, buf, n) < 0) {
			close(fd);
			return -1;
		}
	}
	return disk_sync_close(fd, t0, secs);
}

/* bonnie++'s rewrite: read a block, change it, seek back, write it; timed
 * as bonnie++ does, from after the open to after fsync and close. */
static int disk_rewrite(const char *path, const struct disk_opts *o, char *buf, double *secs)
{
	double t0;
	uint64_t done;
	ssize_t n;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	t0 = rb_now();
	for (done = 0; done < o->size; done += (uint64_t)n) {
		n = disk_read_full(fd, buf, (size_t)o->block);
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			goto fail;
		}
		buf[n - 1]++;
		if (lseek(fd, -(off_t)n, SEEK_CUR) < 0 || disk_write_all(fd, buf, (size_t)n) < 0)
			goto fail;
	}
	return disk_sync_close(fd, t0, secs);
fail:
	close(fd);
	return -1;
}

/* Reads the whole file after asking the kernel to drop its cached pages
 * (they are clean after the fsync), so the read comes from the device. */
static int disk_seq_read(const char *path, const struct disk_opts *o, char *buf, double *secs)
{
	double t0;
	uint64_t done = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	t0 = rb_now();
	for (;;) {
		n = disk_read_full(fd, buf, (size_t)o->block);
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	*secs = rb_now() - t0;
	close(fd);
	if (done != o->size) {
		errno = EIO;
		return -1;
	}
	return 0;
fail:
	close(fd);
	return -1;
}

/* Random 4 KiB reads at 4 KiB-aligned offsets for --seek-time, one at a
 * time, with O_DIRECT as fio --direct=1 --ioengine=psync: every read goes
 * to the device and none costs a page cache insert. Where the file system
 * refuses O_DIRECT, buffered reads with read-ahead off, each block dropped
 * from the cache after its read (on a fast device that drop costs more than
 * the read). `buf` is 4 KiB aligned. */
static int disk_seeks(const char *path, const struct disk_opts *o, char *buf, double *rate)
{
	uint64_t blocks = o->size / DISK_SEEK_BLOCK, count = 0, x = 0x9e3779b97f4a7c15ull;
	double t0, t = 0;
	int direct = 1;
	off_t off;
	ssize_t n;
	int fd;

	if (blocks == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0 && errno == EINVAL) {
		direct = 0;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (!direct) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	t0 = rb_now();
	while (t < o->seek_time) {
		if (disk_stopped())
			goto fail;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		off = (off_t)((x % blocks) * DISK_SEEK_BLOCK);
		n = pread(fd, buf, DISK_SEEK_BLOCK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != DISK_SEEK_BLOCK) {
			if (n >= 0)
				errno = EIO;
			goto fail;
		}
		if (!direct)
			posix_fadvise(fd, off, DISK_SEEK_BLOCK, POSIX_FADV_DONTNEED);
		count++;
		t = rb_now() - t0;
	}
	close(fd);
	*rate = (double)count / t;
	return 0;
fail:
	close(fd);
	return -1;
}

/* bonnie++'s per-character write: putc of every byte through stdio, then
 * fflush and fsync (both timed). */
static int disk_putc_write(const char *path, const struct disk_opts *o, double *secs)
{
	double t0 = rb_now();
	uint64_t i;
	FILE *f = fopen(path, "wxe");

	if (!f)
		return -1;
	for (i = 0; i < o->size; i++) {
		if (putc((int)(i & 0x7f), f) == EOF)
			goto fail;
		if ((i & 0xfffff) == 0 && disk_stopped())
			goto fail;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		goto fail;
	if (fclose(f) != 0)
		return -1;
	*secs = rb_now() - t0;
	return 0;
fail:
	fclose(f);
	return -1;
}

/* bonnie++'s per-character read: getc of every byte, the file's cached
 * pages dropped first. */
static int disk_getc_read(const char *path, const struct disk_opts *o, double *secs)
{
	double t0;
	uint64_t n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	posix_fadvise(fileno(f), 0, 0, POSIX_FADV_DONTNEED);
	t0 = rb_now();
	while (getc(f) != EOF) {
		if ((++n & 0xfffff) == 0 && disk_stopped())
			break;
	}
	*secs = rb_now() - t0;
	if (ferror(f) || n != o->size) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	return 0;
}

/* bonnie++ 2.x's per-character write: one write(2) of one byte for each of
 * --char-size bytes, then fsync and close (all timed). */
static int disk_char_write(const char *path, const struct disk_opts *o, double *secs)
{
	double t0 = rb_now();
	uint64_t i;
	char c;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	for (i = 0; i < o->char_size; i++) {
		c = (char)(i & 0x7f);
		if (disk_write_all(fd, &c, 1) < 0) {
			close(fd);
			return -1;
		}
	}
	return disk_sync_close(fd, t0, secs);
}

/* bonnie++ 2.x's per-character read: one read(2) of one byte at a time to
 * the end of the file, the file's cached pages dropped first. */
static int disk_char_read(const char *path, const struct disk_opts *o, double *secs)
{
	double t0;
	uint64_t n = 0;
	ssize_t r;
	char c;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	t0 = rb_now();
	for (;;) {
		r = disk_read_full(fd, &c, 1);
		if (r <= 0)
			break;
		n++;
	}
	*secs = rb_now() - t0;
	close(fd);
	if (r < 0)
		return -1;
	if (n != o->char_size) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The small-file passes, as bonnie++'s file tests: the sequential ones work
 * in name order (create) and directory order (stat, delete), the random ones
 * on names the file system sees in no order, stat random picks and delete
 * in a random order. Creates and deletes end with sync(), timed, as
 * bonnie++'s do. DISK_READ (open+read+close in name order) is this
 * program's own. As bonnie++ 2.00a (strace), each half works in a directory
 * made for it (untimed: disk_files_dir), and its delete pass ends with the
 * directory's rmdir, then the sync, both timed: the random files go into a
 * fresh directory, not into the one the sequential files grew. */
enum disk_phase {
	DISK_CREATE, DISK_STAT, DISK_READ, DISK_DELETE,
	DISK_RCREATE, DISK_RSTAT, DISK_RDELETE,
};

#define DISK_MAX_FILES 1000000ul

/* Name of small file i, as bonnie++ 2.00a names them: the number in 10 hex
 * digits, then 0-12 letters and digits for the sequential tests; the same
 * letters first and the number after for the random ones (so the file
 * system sees them in no order). The letters are a hash of i, so every
 * pass finds the name again. */
static void disk_file_name(char *name, size_t len, unsigned long i, int random)
{
	static const char alnum[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	char extra[13];
	size_t k, n;

	h ^= h >> 29;
	n = (size_t)(h % 13);
	for (k = 0; k < n; k++) {
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		extra[k] = alnum[(h >> 33) % 62];
	}
	extra[n] = '\0';
	if (random)
		snprintf(name, len, "%s%010lx", extra, i);
	else
		snprintf(name, len, "%010lx%s", i, extra);
}

/* Stats or unlinks every regular entry of work in directory order, by
 * name relative to the directory (bonnie++ works in it); *count is the
 * number done. */
static int disk_dir_pass(const char *work, int unlink_them, unsigned long *count)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	*count = 0;
	d = opendir(work);
	if (!d)
		return -1;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (disk_stopped())
			goto fail;
		if (de->d_name[0] == '.')
			continue;
		if ((unlink_them ? unlinkat(dfd, de->d_name, 0) : fstatat(dfd, de->d_name, &st, 0)) < 0)
			goto fail;
		(*count)++;
	}
	closedir(d);
	return 0;
fail:
	closedir(d);
	return -1;
}

/* The k-th of n indexes in a fixed pseudo-random order (a permutation:
 * the multiplier is a prime above any n, so coprime to it). */
static unsigned long disk_shuffled(unsigned long k, unsigned long n)
{
	return (unsigned long)(((uint64_t)k * 2654435761u + 12345u) % n);
}

/* Creates small file `name` in dfd of --file-size bytes. */
static int disk_create_one(int dfd, const char *name, const struct disk_opts *o, const char *buf)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (o->file_size > 0 && disk_write_all(fd, buf, (size_t)o->file_size) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Opens, reads and closes small file `name` in dfd, which must hold
 * --file-size. */
static int disk_read_one(int dfd, const char *name, const struct disk_opts *o, char *buf)
{
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = disk_read_full(fd, buf, (size_t)o->file_size + 1);
	close(fd);
	if (n != (ssize_t)o->file_size) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Whether the create pass goes on after i files: at least --files, then
 * whole groups of 64 until it took --file-time (at most o->max_files). */
static int disk_create_more(const struct disk_opts *o, unsigned long i, double t0)
{
	if (i < o->files)
		return 1;
	if (i >= o->max_files)
		return 0;
	return (i & 63) != 0 || rb_now() - t0 < o->file_time;
}

/* Makes the small files' directory for a half of the file tests. */
static int disk_files_dir(const char *files)
{
	return mkdir(files, 0700);
}

/* One pass over the small files in their directory; returns 0 and the
 * seconds taken, or -1. The sequential create pass makes at least --files
 * files and goes on until it took --file-time, so every pass runs long
 * enough to measure; o->files is then the count made, which every other
 * pass uses. */
static int disk_files_pass(const char *files, struct disk_opts *o, enum disk_phase phase,
			   char *buf, double *secs)
{
	char name[64];
	double t0 = rb_now();
	unsigned long i, done = 0;
	uint64_t x = 0x2545f4914f6cdd1dull;
	struct stat st;
	int r = 0, dfd;

	dfd = open(files, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (phase == DISK_STAT || phase == DISK_DELETE) {
		r = disk_dir_pass(files, phase == DISK_DELETE, &done);
		if (r == 0 && done != o->files) {
			errno = EIO;
			r = -1;
		}
	}
	for (i = 0; r == 0 && phase == DISK_CREATE && disk_create_more(o, i, t0); i++) {
		disk_file_name(name, sizeof(name), i, 0);
		r = disk_stopped() ? -1 : disk_create_one(dfd, name, o, buf);
		done = i + 1;
	}
	for (i = 0; r == 0 && phase != DISK_CREATE && phase != DISK_STAT &&
		    phase != DISK_DELETE && i < o->files; i++) {
		if (disk_stopped()) {
			r = -1;
			break;
		}
		switch (phase) {
		case DISK_READ:
			disk_file_name(name, sizeof(name), i, 0);
			r = disk_read_one(dfd, name, o, buf);
			break;
		case DISK_RCREATE:
			disk_file_name(name, sizeof(name), i, 1);
			r = disk_create_one(dfd, name, o, buf);
			break;
		case DISK_RSTAT:
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			disk_file_name(name, sizeof(name), (unsigned long)(x % o->files), 1);
			r = fstatat(dfd, name, &st, 0);
			break;
		default: /* DISK_RDELETE */
			disk_file_name(name, sizeof(name), disk_shuffled(i, o->files), 1);
			r = unlinkat(dfd, name, 0);
			break;
		}
	}
	close(dfd);
	if (r == 0 && (phase == DISK_DELETE || phase == DISK_RDELETE))
		r = rmdir(files);
	if (r < 0)
		return -1;
	if (phase == DISK_CREATE || phase == DISK_DELETE || phase == DISK_RCREATE ||
	    phase == DISK_RDELETE)
		sync();
	if (phase == DISK_CREATE)
		o->files = done;
	*secs = rb_now() - t0;
	return 0;
}

static void disk_usage(void)
{
	printf("Usage: remote-bench-disk [OPTIONS]\n"
	       "Measures the file system under --dir as bonnie++ does, in a work directory\n"
	       "it creates there and always removes.\n"
	       "\n"
	       "  --dir DIR          where to work (default: the current directory)\n"
	       "  --size SIZE        size of the big file (default 8M; K/M/G)\n"
	       "  --block SIZE       read/write size for the big file (default 64K)\n"
	       "  --files N          at least N small files to create, stat, read, delete\n"
	       "                     (default 1024; bonnie++ -n 16 is 16384)\n"
	       "  --file-time SECS   create files for at least this long (default 1)\n"
	       "  --file-size SIZE   bytes per small file (default 0)\n"
	       "  --seek-time SECS   time spent on random seeks (default 0.5)\n"
	       "  --char-size SIZE   bytes for the write(2)/read(2) per-char tests (default\n"
	       "                     256K; 0 skips them; bonnie++ -f)\n"
	       "  --tests LIST       which tests, comma-separated (default all): putc, char,\n"
	       "                     block (seq_write, rewrite, seq_read), seeks, files\n"
	       "                     (create, stat, open_read, delete), rand (rand_*)\n"
	       "  --help             this text\n"
	       "\n"
	       "Prints JSON lines: disk.putc_write, disk.getc_read (MiB/s, one byte per\n"
	       "putc/getc, bonnie++ 1.0x's per-char), disk.char_write, disk.char_read (one\n"
	       "write(2)/read(2) per byte, bonnie++ 2.x's per-char), disk.seq_write (MiB/s,\n"
	       "write+fsync), disk.rewrite (MiB/s, read-modify-write+fsync), disk.seq_read\n"
	       "(MiB/s, cache dropped first), disk.seeks (random 4 KiB reads/s), disk.create,\n"
	       "disk.stat (stat() in directory order, bonnie++'s Read), disk.open_read\n"
	       "(open+read+close), disk.delete, disk.rand_create, disk.rand_stat,\n"
	       "disk.rand_delete (small files/s; creates and deletes end with a timed sync),\n"
	       "and for each of these METRIC_cpu (%% of one CPU this process used),\n"
	       "METRIC_syscpu (%% of the whole machine busy meanwhile, /proc/stat) and its\n"
	       "split METRIC_cpu_user, METRIC_cpu_sys, METRIC_cpu_iowait (%% of every CPU's time).\n");
}

static int disk_parse(int argc, char **argv, struct disk_opts *o)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "block", required_argument, NULL, 'b' },
		{ "files", required_argument, NULL, 'f' },
		{ "file-size", required_argument, NULL, 'F' },
		{ "seek-time", required_argument, NULL, 't' },
		{ "file-time", required_argument, NULL, 'T' },
		{ "char-size", required_argument, NULL, 'c' },
		{ "tests", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o->dir = optarg;
			break;
		case 's':
			if (rb_parse_size(optarg, DISK_SEEK_BLOCK, (uint64_t)1 << 40, &o->size) < 0)
				return rb_usage_error("bad --size '%s' (4K to 1T, e.g. 8M)", optarg);
			break;
		case 'b':
			if (rb_parse_size(optarg, 512, (uint64_t)16 << 20, &o->block) < 0)
				return rb_usage_error("bad --block '%s' (512 to 16M, e.g. 64K)", optarg);
			break;
		case 'f':
			if (rb_parse_count(optarg, 1, 1000000, &o->files) < 0)
				return rb_usage_error("bad --files '%s' (1 to 1000000)", optarg);
			break;
		case 'F':
			if (rb_parse_size(optarg, 0, (uint64_t)1 << 20, &o->file_size) < 0)
				return rb_usage_error("bad --file-size '%s' (0 to 1M)", optarg);
			break;
		case 't':
			if (rb_parse_seconds(optarg, 0.001, 3600, &o->seek_time) < 0)
				return rb_usage_error("bad --seek-time '%s' (seconds)", optarg);
			break;
		case 'T':
			if (rb_parse_seconds(optarg, 0, 3600, &o->file_time) < 0)
				return rb_usage_error("bad --file-time '%s' (seconds)", optarg);
			break;
		case 'c':
			if (rb_parse_size(optarg, 0, (uint64_t)1 << 40, &o->char_size) < 0)
				return rb_usage_error("bad --char-size '%s' (0 to 1T, e.g. 1M)", optarg);
			break;
		case 'X':
			o->tests = disk_parse_tests(optarg);
			if (!o->tests)
				return rb_usage_error("bad --tests '%s' (a list of putc, char, block, "
						      "seeks, files, rand)", optarg);
			break;
		case 'h':
			disk_usage();
			return -1;
		default:
			return rb_bad_option(argv);
		}
	}
	return rb_no_operands(argc, argv);
}

/* One run's state: where it works, its buffer, the step being timed. */
struct disk_run {
	struct disk_opts *o;
	char work[4096], data[4200], files[4200];
	char *buf;
	double secs, cpu0;
	struct rb_syscpu sys0;
	int unmeasured; /* a value that was not finite, so not printed */
};

/* The steps that end in a rate. */
enum disk_step {
	DISK_S_PUTC_WRITE, DISK_S_GETC_READ, DISK_S_CHAR_WRITE, DISK_S_CHAR_READ,
	DISK_S_SEQ_WRITE, DISK_S_REWRITE, DISK_S_SEQ_READ, DISK_S_FILES,
};

struct disk_timed {
	enum disk_step step;
	enum disk_phase phase; /* DISK_S_FILES's pass */
	const char *metric, *what;
};

static const struct disk_timed disk_putc_steps[] = {
	{ DISK_S_PUTC_WRITE, 0, "disk.putc_write", "per-char write" },
	{ DISK_S_GETC_READ, 0, "disk.getc_read", "per-char read" },
};
static const struct disk_timed disk_char_steps[] = {
	{ DISK_S_CHAR_WRITE, 0, "disk.char_write", "per-char write(2)" },
	{ DISK_S_CHAR_READ, 0, "disk.char_read", "per-char read(2)" },
};
static const struct disk_timed disk_block_steps[] = {
	{ DISK_S_SEQ_WRITE, 0, "disk.seq_write", "sequential write" },
	{ DISK_S_REWRITE, 0, "disk.rewrite", "rewrite" },
	{ DISK_S_SEQ_READ, 0, "disk.seq_read", "sequential read" },
};
static const struct disk_timed disk_files_steps[] = {
	{ DISK_S_FILES, DISK_CREATE, "disk.create", "creating files" },
	{ DISK_S_FILES, DISK_STAT, "disk.stat", "stat of files" },
	{ DISK_S_FILES, DISK_READ, "disk.open_read", "reading files" },
	{ DISK_S_FILES, DISK_DELETE, "disk.delete", "deleting files" },
};
static const struct disk_timed disk_rand_steps[] = {
	{ DISK_S_FILES, DISK_RCREATE, "disk.rand_create", "creating files in random order" },
	{ DISK_S_FILES, DISK_RSTAT, "disk.rand_stat", "stat of random files" },
	{ DISK_S_FILES, DISK_RDELETE, "disk.rand_delete", "deleting files in random order" },
};

#define DISK_N(steps) (sizeof(steps) / sizeof((steps)[0]))

/* rc of a step: 0, or -1 after saying what failed (unless a signal stopped it). */
static int disk_check(const struct disk_run *r, int rc, const char *what)
{
	if (rc < 0 && !disk_stop)
		rb_error("%s in %s: %s", what, r->work, strerror(errno));
	return rc < 0 ? -1 : 0;
}

static void disk_emit(struct disk_run *r, const char *metric, double value, const char *unit)
{
	if (rb_emit(metric, value, unit, "higher") < 0)
		r->unmeasured = 1;
}

static void disk_begin(struct disk_run *r)
{
	r->cpu0 = rb_cpu_secs();
	rb_syscpu_sample(&r->sys0);
}

/* The CPU share of the step just measured: this process's user+system time
 * over the step's wall time (bonnie++'s %CP) as METRIC_cpu, and the whole
 * machine's meanwhile (/proc/stat): busy as METRIC_syscpu, split into
 * METRIC_cpu_user, METRIC_cpu_sys and METRIC_cpu_iowait. */
static void disk_emit_cpu(struct disk_run *r, const char *metric)
{
	struct rb_syscpu sys1;
	char name[64];

	rb_syscpu_sample(&sys1);
	snprintf(name, sizeof(name), "%s_cpu", metric);
	if (r->secs > 0 && rb_emit(name, 100.0 * (rb_cpu_secs() - r->cpu0) / r->secs, "%",
				   "lower") < 0)
		r->unmeasured = 1;
	if (rb_emit_syscpu(metric, &r->sys0, &sys1) < 0)
		r->unmeasured = 1;
}

static int disk_call(struct disk_run *r, const struct disk_timed *t)
{
	switch (t->step) {
	case DISK_S_PUTC_WRITE: return disk_putc_write(r->data, r->o, &r->secs);
	case DISK_S_GETC_READ: return disk_getc_read(r->data, r->o, &r->secs);
	case DISK_S_CHAR_WRITE: return disk_char_write(r->data, r->o, &r->secs);
	case DISK_S_CHAR_READ: return disk_char_read(r->data, r->o, &r->secs);
	case DISK_S_SEQ_WRITE: return disk_seq_write(r->data, r->o, r->buf, &r->secs);
	case DISK_S_REWRITE: return disk_rewrite(r->data, r->o, r->buf, &r->secs);
	case DISK_S_SEQ_READ: return disk_seq_read(r->data, r->o, r->buf, &r->secs);
	case DISK_S_FILES: break;
	}
	return disk_files_pass(r->files, r->o, t->phase, r->buf, &r->secs);
}

/* What a step's rate counts: MiB of its file, or small files (counted
 * after the step: the create pass sets how many). */
static double disk_amount(const struct disk_run *r, enum disk_step s)
{
	if (s == DISK_S_FILES)
		return (double)r->o->files;
	if (s == DISK_S_CHAR_WRITE || s == DISK_S_CHAR_READ)
		return r->o->char_size / DISK_MIB;
	return r->o->size / DISK_MIB;
}

/* Timed steps in order, each its rate and its CPU shares; 0, or -1 at the
 * first that failed. */
static int disk_steps(struct disk_run *r, const struct disk_timed *steps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* bonnie++ deletes files whose data is on the disk: sync first. */
		if (steps[i].phase == DISK_DELETE)
			sync();
		disk_begin(r);
		if (disk_check(r, disk_call(r, &steps[i]), steps[i].what) < 0)
			return -1;
		disk_emit(r, steps[i].metric, disk_amount(r, steps[i].step) / r->secs,
			  steps[i].step == DISK_S_FILES ? "ops/s" : "MiB/s");
		disk_emit_cpu(r, steps[i].metric);
	}
	return 0;
}

/* Random seeks in the data file (written untimed when the block tests did
 * not write it). */
static int disk_seek_test(struct disk_run *r)
{
	double seek0, rate = 0;

	if (!(r->o->tests & DISK_T_BLOCK) &&
	    disk_check(r, disk_seq_write(r->data, r->o, r->buf, &r->secs), "sequential write") < 0)
		return -1;
	seek0 = rb_now();
	disk_begin(r);
	if (disk_check(r, disk_seeks(r->data, r->o, r->buf, &rate), "seeks") < 0)
		return -1;
	r->secs = rb_now() - seek0;
	disk_emit(r, "disk.seeks", rate, "ops/s");
	disk_emit_cpu(r, "disk.seeks");
	return 0;
}

/* A half of the small-file tests, in a directory made for it. */
static int disk_files_test(struct disk_run *r, const struct disk_timed *steps, size_t n)
{
	if (disk_check(r, disk_files_dir(r->files), "making the files' directory") < 0)
		return -1;
	return disk_steps(r, steps, n);
}

/* The groups --tests names, in bonnie++'s order; 0, or -1 at a failure. */
static int disk_tests(struct disk_run *r)
{
	unsigned t = r->o->tests;
	int rc = 0;

	if (t & DISK_T_PUTC) {
		rc = disk_steps(r, disk_putc_steps, DISK_N(disk_putc_steps));
		unlink(r->data);
	}
	if (rc == 0 && (t & DISK_T_CHAR) && r->o->char_size > 0) {
		rc = disk_steps(r, disk_char_steps, DISK_N(disk_char_steps));
		unlink(r->data);
	}
	if (rc == 0 && (t & DISK_T_BLOCK))
		rc = disk_steps(r, disk_block_steps, DISK_N(disk_block_steps));
	if (rc == 0 && (t & DISK_T_SEEKS))
		rc = disk_seek_test(r);
	unlink(r->data);
	if (rc == 0 && (t & DISK_T_FILES))
		rc = disk_files_test(r, disk_files_steps, DISK_N(disk_files_steps));
	if (rc == 0 && (t & DISK_T_RAND))
		rc = disk_files_test(r, disk_rand_steps, DISK_N(disk_rand_steps));
	return rc;
}

static void disk_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = disk_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Room in --dir for the tests, and o->max_files from it; 0, or the exit
 * status after saying why not. */
static int disk_check_room(struct disk_opts *o)
{
	struct statvfs vfs;
	uint64_t room, need;

	if (statvfs(o->dir, &vfs) < 0)
		return rb_error("cannot use --dir %s: %s", o->dir, strerror(errno));
	room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	need = (o->size > o->char_size ? o->size : o->char_size) +
	       o->files * (o->file_size + 4096) + (1u << 20);
	if (room < need)
		return rb_error("not enough free space in %s for --size %llu", o->dir,
				(unsigned long long)o->size);
	/* files made beyond --files (to fill --file-time) use at most half the room */
	o->max_files = (unsigned long)(room / 2 / (o->file_size + 4096));
	if (o->max_files > DISK_MAX_FILES)
		o->max_files = DISK_MAX_FILES;
	return 0;
}

/* The run's fresh directory under --dir and its paths; 0, or the exit
 * status after saying why not. */
static int disk_make_work(struct disk_run *r)
{
	const char *dir = r->o->dir;

	if (snprintf(r->work, sizeof(r->work), "%s/remote-bench-disk.XXXXXX", dir) >=
	    (int)sizeof(r->work))
		return rb_error("--dir too long");
	if (!mkdtemp(r->work))
		return rb_error("cannot create a directory in %s: %s", dir, strerror(errno));
	snprintf(r->data, sizeof(r->data), "%s/data", r->work);
	snprintf(r->files, sizeof(r->files), "%s/" DISK_FILES_DIR, r->work);
	return 0;
}

/* The buffer every read and write goes through, aligned for O_DIRECT;
 * 0, or -1 after saying why not. */
static int disk_alloc(struct disk_run *r)
{
	const struct disk_opts *o = r->o;
	size_t buflen = (size_t)(o->block > o->file_size + 1 ? o->block : o->file_size + 1);

	if (buflen < DISK_SEEK_BLOCK)
		buflen = DISK_SEEK_BLOCK;
	if (posix_memalign((void **)&r->buf, 4096, buflen) != 0) {
		r->buf = NULL;
		rb_error("cannot allocate %zu bytes", buflen);
		return -1;
	}
	memset(r->buf, 0x5a, buflen);
	return 0;
}

int main(int argc, char **argv)
{
	struct disk_opts o = {
		.dir = ".", .size = 8u << 20, .block = 64u << 10, .files = 1024,
		.file_size = 0, .seek_time = 0.5, .file_time = 1.0, .char_size = 256u << 10,
		.tests = DISK_T_ALL,
	};
	struct disk_run r = { .o = &o };
	int ret;

	rb_init("remote-bench-disk");
	ret = disk_parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	disk_catch_signals();
	ret = disk_check_room(&o);
	if (ret == 0)
		ret = disk_make_work(&r);
	if (ret != 0)
		return ret;
	ret = 1;
	if (disk_alloc(&r) == 0 && disk_tests(&r) == 0)
		ret = r.unmeasured;
	free(r.buf);
	disk_cleanup(r.work);
	if (disk_stop) {
		signal(disk_stop, SIG_DFL);
		raise(disk_stop);
	}
	return ret;
}
