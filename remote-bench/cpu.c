/*
 * remote-bench-cpu: calibrated delay-loop BogoMIPS (the kernel's loop and
 * formula), 32-bit integer and double floating-point throughput, one core.
 */
#include "harness.h"

#include <stdio.h>

/* The kernel's __delay() loop: one decrement and one conditional branch per
 * loop. The kernel prints BogoMIPS = loops_per_jiffy * HZ / 500000, that is
 * loops per second / 500000. Only these architectures have the loop. */
#if defined(__i386__) || defined(__x86_64__)
#define CPU_HAVE_DELAY_LOOP 1
static void cpu_delay_loop(unsigned long loops)
{
	__asm__ volatile(".p2align 4\n1:\tdec %0\n\tjnz 1b" : "+r"(loops) : : "cc");
}
#elif defined(__arm__)
#define CPU_HAVE_DELAY_LOOP 1
static void cpu_delay_loop(unsigned long loops)
{
	__asm__ volatile(".p2align 3\n1:\tsubs %0, %0, #1\n\tbhi 1b" : "+r"(loops) : : "cc");
}
#elif defined(__aarch64__)
#define CPU_HAVE_DELAY_LOOP 1
static void cpu_delay_loop(unsigned long loops)
{
	__asm__ volatile(".p2align 3\n1:\tsubs %0, %0, #1\n\tb.hi 1b" : "+r"(loops) : : "cc");
}
#endif

#ifdef CPU_HAVE_DELAY_LOOP
static void cpu_delay_work(void *ctx, uint64_t n)
{
	const uint64_t chunk = 1ul << 30;

	while (n > 0) {
		uint64_t k = n < chunk ? n : chunk;

		cpu_delay_loop((unsigned long)k);
		n -= k;
	}
}
#endif

static volatile uint32_t cpu_int_seed = 0x12345678u;
static volatile uint32_t cpu_int_sink;

/* Four independent chains, each a multiply, an add, a shift and an xor per
 * iteration: 16 integer operations. The xor-shift keeps the compiler from
 * folding iterations together. */
#define CPU_INT_OPS_PER_ITER 16
static void cpu_int_work(void *ctx, uint64_t n)
{
	uint32_t a = cpu_int_seed, b = a ^ 0x9e3779b9u, c = a + 0x7f4a7c15u, d = a * 3u;
	uint64_t i;

	for (i = 0; i < n; i++) {
		a = a * 0x9e3779b1u + 0x632be5abu; a ^= a >> 15;
		b = b * 0x85ebca77u + 0xc2b2ae3du; b ^= b >> 13;
		c = c * 0x27d4eb2fu + 0x165667b1u; c ^= c >> 16;
		d = d * 0x61c88647u + 0x9e3779b9u; d ^= d >> 11;
	}
	cpu_int_sink = a ^ b ^ c ^ d;
}

static volatile double cpu_float_mul = 0.999999;
static volatile double cpu_float_add = 0.000001;
static volatile double cpu_float_sink;

/* Four independent chains of x = x * m + c: 8 double-precision operations
 * per iteration. The values converge to 1.0, never to denormals. */
#define CPU_FLOAT_OPS_PER_ITER 8
static void cpu_float_work(void *ctx, uint64_t n)
{
	const double m = cpu_float_mul, c = cpu_float_add;
	double w = 0.5, x = 0.25, y = 2.0, z = 1.5;
	uint64_t i;

	for (i = 0; i < n; i++) {
		w = w * m + c;
		x = x * m + c;
		y = y * m + c;
		z = z * m + c;
	}
	cpu_float_sink = w + x + y + z;
}

static void cpu_usage(void)
{
	printf("Usage: remote-bench-cpu [OPTIONS]\n"
	       "Measures one core: delay-loop BogoMIPS, integer and floating-point throughput.\n"
	       "\n"
	       "  --time SECONDS   time per measurement (default 0.4; e.g. 2, 1.5s, 800ms)\n"
	       "  --repeats N      timed runs per measurement (default 5)\n"
	       "  --help           this text\n"
	       "\n"
	       "Prints JSON lines: cpu.bogomips (best run, BogoMIPS: delay loops per second\n"
	       "/ 500000 as the kernel computes it), cpu.int_ops (32-bit integer ops/s,\n"
	       "median run), cpu.float_ops (double-precision ops/s, median run).\n");
}

int main(int argc, char **argv)
{
	double seconds = 0.4;
	unsigned long repeats = 5;
	struct rb_rate rate;
	int ret;

	rb_init("remote-bench-cpu");
	ret = rb_parse_time_repeats(argc, argv, cpu_usage, &seconds, &repeats);
	if (ret != 0)
		return ret < 0 ? 0 : ret;

#ifdef CPU_HAVE_DELAY_LOOP
	/* Best run, like the kernel's calibration: interruptions only slow a run. */
	if (rb_measure_rate(cpu_delay_work, NULL, seconds, (int)repeats, &rate) < 0)
		ret = rb_error("clock did not advance");
	else if (rb_emit("cpu.bogomips", rate.best / 500000.0, "BogoMIPS", "higher") < 0)
		ret = 1;
#else
	rb_note("no delay loop for this architecture: cpu.bogomips not measured");
#endif
	if (rb_measure_rate(cpu_int_work, NULL, seconds, (int)repeats, &rate) < 0)
		ret = rb_error("clock did not advance");
	else if (rb_emit("cpu.int_ops", rate.median * CPU_INT_OPS_PER_ITER, "ops/s", "higher") < 0)
		ret = 1;
	if (rb_measure_rate(cpu_float_work, NULL, seconds, (int)repeats, &rate) < 0)
		ret = rb_error("clock did not advance");
	else if (rb_emit("cpu.float_ops", rate.median * CPU_FLOAT_OPS_PER_ITER, "ops/s", "higher") < 0)
		ret = 1;
	return ret;
}
