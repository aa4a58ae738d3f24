/*
 * harness: the small part every remote-bench program shares. A benchmark
 * program parses its options, measures, and prints one JSON object per
 * metric on stdout:
 *
 *   {"metric":"mem.memcpy","value":25.6,"unit":"MiB/s","better":"higher"}
 *
 * People read stderr (notes, errors); programs read stdout. Exit status is
 * 0 when every metric was measured, 1 on a runtime error, 2 on a usage error.
 * The harness gives a monotonic clock, a calibrated repeat loop (one warm-up
 * run, then timed runs), the JSON line writer and option value parsers.
 * libc only, so that it builds static for small boards.
 */
#ifndef RB_HARNESS_H
#define RB_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* Sets the name used in messages ("remote-bench-mem") and makes stdout line
 * buffered so that a killed run still leaves whole lines behind. */
void rb_init(const char *prog);

/* Seconds from CLOCK_MONOTONIC. */
double rb_now(void);

/* CPU seconds (user + system) this process used so far (getrusage). */
double rb_cpu_secs(void);

/* The whole machine's CPU time so far, from the first line of /proc/stat
 * (jiffies): busy = user+nice+system+irq+softirq+steal, total = busy +
 * idle + iowait; of these user = user+nice, sys = system+irq+softirq,
 * iowait = iowait. ok is 0 when /proc/stat could not be read. */
struct rb_syscpu {
	unsigned long long busy, total, user, sys, iowait;
	int ok;
};
void rb_syscpu_sample(struct rb_syscpu *s);

/* The share of the whole machine's CPU time that was busy between samples a
 * and b, in % (100 = every CPU busy the whole time; every process and kernel
 * thread counts, not only this one). Returns -1 when either sample failed or
 * no clock tick passed between them. */
double rb_syscpu_share(const struct rb_syscpu *a, const struct rb_syscpu *b);

/* Prints the whole machine's CPU shares between samples a and b as
 * METRIC_syscpu (busy), METRIC_cpu_user, METRIC_cpu_sys and
 * METRIC_cpu_iowait, each in % of every CPU's time (better lower). Prints
 * nothing when rb_syscpu_share() has no share. Returns 0, or -1 when a
 * value could not be printed. */
int rb_emit_syscpu(const char *metric, const struct rb_syscpu *a, const struct rb_syscpu *b);

/* Prints one metric line on stdout. `better` is "higher" or "lower".
 * Returns 0, or -1 (and prints nothing but a note on stderr) when the value
 * is not finite, which would not be honest JSON. */
int rb_emit(const char *metric, double value, const char *unit, const char *better);

/* Prints "PROG: MESSAGE" and a hint to --help on stderr; returns 2, the exit
 * status for usage errors. */
int rb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROG: MESSAGE" on stderr; returns 1. */
int rb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROG: MESSAGE" on stderr (a note for people, not an error). */
void rb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "4M" -> 4194304: a count of bytes with an optional binary suffix K, M, G
 * (KiB, MiB, GiB and KB/MB/GB are read the same). Returns 0, or -1 when the
 * text is not such a size or is outside [min, max]. */
int rb_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* "1.5", "2s", "500ms" -> seconds. Returns 0, or -1 when not a duration or
 * outside [min, max]. */
int rb_parse_seconds(const char *text, double min, double max, double *out);

/* A plain decimal count in [min, max]. Returns 0 or -1. */
int rb_parse_count(const char *text, unsigned long min, unsigned long max, unsigned long *out);

/* Reads exactly `n` space-separated decimal numbers from `text` (scanf
 * would add kilobytes to every static binary). Returns 0 or -1. */
int rb_parse_u64_list(const char *text, uint64_t *out, int n);

/* The usage error for getopt_long's '?' (an unknown option or one missing
 * its value), naming the option as given; returns 2. */
int rb_bad_option(char **argv);

/* The usage error for a first non-option argument argv[optind] when there is
 * one; returns 2, or 0 when every argument was an option. */
int rb_no_operands(int argc, char **argv);

/* Parses the options of a program that takes only --time SECONDS (0.01 to
 * 3600), --repeats N (1 to 64) and --help, into *seconds and *repeats (which
 * hold the defaults). Returns 0 to measure, -1 after printing `usage` for
 * --help (exit 0), or 2 after a usage error. */
int rb_parse_time_repeats(int argc, char **argv, void (*usage)(void), double *seconds,
			  unsigned long *repeats);

/* A work function does `n` units of work (loops, packets, bytes...). */
typedef void (*rb_work_fn)(void *ctx, uint64_t n);

struct rb_rate {
	double best;   /* highest units per second of the timed runs */
	double median; /* median units per second of the timed runs */
	double worst;  /* lowest units per second of the timed runs */
	int runs;      /* timed runs */
	uint64_t n;    /* units per timed run */
};

/* Measures `fn`'s rate. First calibrates n by doubling until one run lasts
 * long enough (that run is the warm-up and is not counted), then times
 * `repeats` runs of n units, each about `seconds / repeats` long.
 * Fills `out`; returns 0, or -1 when the clock gave no usable time. */
int rb_measure_rate(rb_work_fn fn, void *ctx, double seconds, int repeats,
		    struct rb_rate *out);

#endif
