#include "harness.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *harness_prog = "remote-bench";

void rb_init(const char *prog)
{
	harness_prog = prog;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

double rb_cpu_secs(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void rb_syscpu_sample(struct rb_syscpu *s)
{
	char line[512], *p, *end;
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int i;

	s->ok = 0;
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "cpu ", 4) != 0) {
		fclose(f);
		return;
	}
	fclose(f);
	/* user nice system idle iowait irq softirq steal [guest guest_nice]:
	 * guest time is already inside user and nice. */
	p = line + 4;
	for (i = 0; i < 8; i++) {
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno) {
			if (i < 4)
				return;
			break;
		}
		p = end;
	}
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->total = s->busy + v[3] + v[4];
	s->user = v[0] + v[1];
	s->sys = v[2] + v[5] + v[6];
	s->iowait = v[4];
	s->ok = 1;
}

double rb_syscpu_share(const struct rb_syscpu *a, const struct rb_syscpu *b)
{
	if (!a->ok || !b->ok || b->total <= a->total || b->busy < a->busy)
		return -1;
	return 100.0 * (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

/* b's counter less a's, in % of the jiffies that passed (0 when a counter
 * went back, as iowait may on some kernels). */
static double rb_syscpu_part(unsigned long long a, unsigned long long b, unsigned long long span)
{
	return b >= a ? 100.0 * (double)(b - a) / (double)span : 0;
}

int rb_emit_syscpu(const char *metric, const struct rb_syscpu *a, const struct rb_syscpu *b)
{
	static const char *const suffix[] = { "_syscpu", "_cpu_user", "_cpu_sys", "_cpu_iowait" };
	double share = rb_syscpu_share(a, b), v[4];
	unsigned long long span;
	char name[160];
	int i, ret = 0;

	if (share < 0)
		return 0;
	span = b->total - a->total;
	v[0] = share;
	v[1] = rb_syscpu_part(a->user, b->user, span);
	v[2] = rb_syscpu_part(a->sys, b->sys, span);
	v[3] = rb_syscpu_part(a->iowait, b->iowait, span);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%s%s", metric, suffix[i]);
		if (rb_emit(name, v[i], "%", "lower") < 0)
			ret = -1;
	}
	return ret;
}

double rb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rb_emit(const char *metric, double value, const char *unit, const char *better)
{
	if (!isfinite(value)) {
		rb_note("%s: no finite value measured, not reported", metric);
		return -1;
	}
	/* Whole numbers (KiB counts) print without a fraction; the rest keep
	 * three decimals, enough for slow boards without faking precision. */
	if (value == floor(value) && fabs(value) < 1e15)
		printf("{\"metric\":\"%s\",\"value\":%.0f,\"unit\":\"%s\",\"better\":\"%s\"}\n",
		       metric, value, unit, better);
	else
		printf("{\"metric\":\"%s\",\"value\":%.3f,\"unit\":\"%s\",\"better\":\"%s\"}\n",
		       metric, value, unit, better);
	fflush(stdout);
	return 0;
}

static void harness_vmsg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void harness_vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", harness_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int rb_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", harness_prog);
	return 2;
}

int rb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vmsg(fmt, ap);
	va_end(ap);
	return 1;
}

void rb_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vmsg(fmt, ap);
	va_end(ap);
}

int rb_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1024ULL; end++; break;
	case 'm': case 'M': mult = 1024ULL * 1024; end++; break;
	case 'g': case 'G': mult = 1024ULL * 1024 * 1024; end++; break;
	default: break;
	}
	if (mult > 1) {
		if (*end == 'i')
			end++;
		if (*end == 'B')
			end++;
	} else if (*end == 'B') {
		end++;
	}
	if (*end || v > max / mult)
		return -1;
	v *= mult;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int rb_parse_seconds(const char *text, double min, double max, double *out)
{
	char *end;
	double v;

	if (!text || ((*text < '0' || *text > '9') && *text != '.'))
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text)
		return -1;
	if (strcmp(end, "ms") == 0)
		v /= 1000.0;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		v *= 60.0;
	else if (*end && strcmp(end, "s") != 0)
		return -1;
	if (!(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

int rb_parse_u64_list(const char *text, uint64_t *out, int n)
{
	char *end;
	int i;

	for (i = 0; i < n; i++) {
		while (*text == ' ')
			text++;
		if (*text < '0' || *text > '9')
			return -1;
		errno = 0;
		out[i] = strtoull(text, &end, 10);
		if (errno)
			return -1;
		text = end;
	}
	return *text ? -1 : 0;
}

int rb_parse_count(const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int rb_bad_option(char **argv)
{
	const char *arg = argv[optind - 1];

	/* In a cluster of short options ("-xy") optind has not moved past it
	 * yet, so argv[optind - 1] may be another word. */
	if (strncmp(arg, "--", 2) != 0 && optopt)
		return rb_usage_error("unknown or incomplete option '-%c'", optopt);
	return rb_usage_error("unknown or incomplete option '%s'", arg);
}

int rb_no_operands(int argc, char **argv)
{
	if (optind < argc)
		return rb_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

int rb_parse_time_repeats(int argc, char **argv, void (*usage)(void), double *seconds,
			  unsigned long *repeats)
{
	static const struct option opts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (rb_parse_seconds(optarg, 0.01, 3600, seconds) < 0)
				return rb_usage_error("bad --time '%s' (seconds, 0.01 to 3600)", optarg);
			break;
		case 'r':
			if (rb_parse_count(optarg, 1, 64, repeats) < 0)
				return rb_usage_error("bad --repeats '%s' (1 to 64)", optarg);
			break;
		case 'h':
			usage();
			return -1;
		default:
			return rb_bad_option(argv);
		}
	}
	return rb_no_operands(argc, argv);
}

/* Insertion sort: at most 64 samples, and qsort would add kilobytes. */
static void harness_sort(double *v, int n)
{
	int i, j;
	double x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int rb_measure_rate(rb_work_fn fn, void *ctx, double seconds, int repeats,
		    struct rb_rate *out)
{
	double rates[64];
	double target, t0, t;
	uint64_t n = 1;
	int i;

	if (repeats < 1)
		repeats = 1;
	if (repeats > 64)
		repeats = 64;
	target = seconds / repeats;
	/* Calibrate: grow n until a run takes a quarter of the target; that
	 * run also warms caches, the branch predictor and the CPU clock. */
	for (;;) {
		t0 = rb_now();
		fn(ctx, n);
		t = rb_now() - t0;
		if (t >= target / 4 || n >= UINT64_MAX / 16)
			break;
		n *= t < target / 100 ? 8 : 2;
	}
	if (t <= 0)
		return -1;
	if (t < target) {
		double scaled = (double)n * target / t;

		n = scaled > (double)(UINT64_MAX / 2) ? UINT64_MAX / 2 : (uint64_t)scaled;
		if (n == 0)
			n = 1;
	}
	for (i = 0; i < repeats; i++) {
		t0 = rb_now();
		fn(ctx, n);
		t = rb_now() - t0;
		if (t <= 0)
			return -1;
		rates[i] = (double)n / t;
	}
	harness_sort(rates, repeats);
	out->worst = rates[0];
	out->best = rates[repeats - 1];
	out->median = repeats % 2 ? rates[repeats / 2]
				  : (rates[repeats / 2 - 1] + rates[repeats / 2]) / 2;
	out->runs = repeats;
	out->n = n;
	return 0;
}
