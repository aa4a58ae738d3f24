/*
 * The metrics each remote-bench program prints, with their units, as
 * remote-bench/README.md declares them: what `orch validate` checks an
 * expect: on a bench: test against (the name is one the program makes, the
 * bound's unit converts to the metric's). Patterns are shell globs; the
 * first that matches gives the unit.
 */
#include "config/scenario_read.h"

#include <fnmatch.h>
#include <string.h>

struct bench_metric {
	const char *program;
	const char *pattern;
	const char *unit;
};

static const struct bench_metric bench_metrics[] = {
	{ "cpu", "cpu.bogomips", "BogoMIPS" },
	{ "cpu", "cpu.int_ops", "ops/s" },
	{ "cpu", "cpu.float_ops", "ops/s" },
	{ "mem", "mem.memcpy", "MiB/s" },
	{ "mem", "mem.word", "MiB/s" },
	{ "mem", "mem.block", "MiB/s" },
	{ "mem", "mem.tmpfs_write", "MiB/s" },
	{ "mem", "mem.total", "KiB" },
	{ "mem", "mem.free", "KiB" },
	{ "mem", "mem.available", "KiB" },
	{ "disk", "disk.*_syscpu", "%" },
	{ "disk", "disk.*_cpu_user", "%" },
	{ "disk", "disk.*_cpu_sys", "%" },
	{ "disk", "disk.*_cpu_iowait", "%" },
	{ "disk", "disk.*_cpu", "%" },
	{ "disk", "disk.putc_write", "MiB/s" },
	{ "disk", "disk.getc_read", "MiB/s" },
	{ "disk", "disk.char_write", "MiB/s" },
	{ "disk", "disk.char_read", "MiB/s" },
	{ "disk", "disk.seq_write", "MiB/s" },
	{ "disk", "disk.rewrite", "MiB/s" },
	{ "disk", "disk.seq_read", "MiB/s" },
	{ "disk", "disk.seeks", "ops/s" },
	{ "disk", "disk.create", "ops/s" },
	{ "disk", "disk.stat", "ops/s" },
	{ "disk", "disk.open_read", "ops/s" },
	{ "disk", "disk.delete", "ops/s" },
	{ "disk", "disk.rand_create", "ops/s" },
	{ "disk", "disk.rand_stat", "ops/s" },
	{ "disk", "disk.rand_delete", "ops/s" },
	{ "net", "net.*_syscpu", "%" },
	{ "net", "net.*_cpu_user", "%" },
	{ "net", "net.*_cpu_sys", "%" },
	{ "net", "net.*_cpu_iowait", "%" },
	{ "net", "net.*_cpu", "%" },
	{ "net", "net.tcp_stream", "Mbit/s" },
	{ "net", "net.udp_pps", "pkt/s" },
	{ "net", "net.udp_loss", "%" },
	{ "crypto", "crypto.*_ms", "ms" },
	{ "crypto", "crypto.*_pps", "pkt/s" },
	{ "crypto", "crypto.chacha20_*", "Mbit/s" },
	{ "crypto", "crypto.chacha20poly1305_*", "Mbit/s" },
	{ "crypto", "crypto.aes128_cbc_*", "Mbit/s" },
	{ "crypto", "crypto.aes128_gcm_*", "Mbit/s" },
	{ "crypto", "crypto.x25519", "ops/s" },
	{ "crypto", "crypto.hello", "ops/s" },
	{ NULL, NULL, NULL },
};

bool scenario_bench_known(const char *program)
{
	for (size_t i = 0; bench_metrics[i].program; i++)
		if (strcmp(bench_metrics[i].program, program) == 0)
			return true;
	return false;
}

const char *scenario_bench_metric_unit(const char *program, const char *metric)
{
	for (size_t i = 0; bench_metrics[i].program; i++)
		if (strcmp(bench_metrics[i].program, program) == 0 &&
		    fnmatch(bench_metrics[i].pattern, metric, 0) == 0)
			return bench_metrics[i].unit;
	return NULL;
}

size_t scenario_bench_metric_names(const char *program, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; bench_metrics[i].program && n + 1 < max; i++)
		if (strcmp(bench_metrics[i].program, program) == 0 &&
		    !strpbrk(bench_metrics[i].pattern, "*?["))
			out[n++] = bench_metrics[i].pattern;
	out[n] = NULL;
	return n;
}
