#include "sample_run.h"
#include "finish/finish.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measurements arrive as decimal text: keep the fixture's numbers that way. */
static double dec(double v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.6g", v);
	return strtod(buf, NULL);
}

#define T0 1796230200000000LL   /* 2026-12-02T16:50:00Z */

static struct test_result *add(struct run_result *run, const char *board, const char *test,
			       enum result_status st, double start_s, double dur_s)
{
	struct test_result *tr = run_result_add(run, board, test);
	tr->status = st;
	tr->exit_code = st == STATUS_PASS ? 0 : st == STATUS_FAIL ? 1 : -1;
	tr->start_wall_us = T0 + (int64_t)(start_s * 1e6);
	tr->end_wall_us = tr->start_wall_us + (int64_t)(dur_s * 1e6);
	tr->duration_s = dur_s;
	tr->attempts = 1;
	tr->log_dir = xasprintf("%s/%s", board, test);
	return tr;
}

static void bench(struct run_result *run, const char *board, double start_s, double scale,
		  const double *jitter)
{
	struct test_result *tr = add(run, board, "memory", STATUS_PASS, start_s, dec(12.5 / scale));
	tr->attempts = 5;
	for (int i = 0; i < 5; i++) {
		test_result_add_sample(tr, "mem.memcpy", "MiB/s", true, dec(25.6 * scale + jitter[i]));
		test_result_add_sample(tr, "mem.loop", "MiB/s", true, dec(11.25 * scale - jitter[i] / 2));
		test_result_add_sample(tr, "mem.tmpfs_write", "MiB/s", true,
				       dec(8.5 * scale + jitter[4 - i]));
	}
}

static void boot(struct run_result *run, const char *board, double start_s, const double *at,
		 size_t reached, const char *const *lines)
{
	static const char *const names[] = { "firmware", "kernel", "init", "login" };
	static const double budget[] = { 0, 30, 0, 0 };
	struct test_result *tr = add(run, board, "boot", reached == 4 ? STATUS_PASS : STATUS_FAIL,
				     start_s, reached == 4 ? dec(at[3] + 0.5) : 180);
	tr->exit_code = -1;
	double prev = 0;
	for (size_t i = 0; i < 4; i++) {
		struct phase_result *ph = test_result_add_phase(tr, names[i]);
		ph->max_s = budget[i];
		if (i >= reached)
			continue;
		ph->reached = true;
		ph->offset_s = at[i];
		ph->duration_s = dec(at[i] - prev);
		ph->over_budget = budget[i] > 0 && ph->duration_s > budget[i];
		ph->line = xstrdup(lines[i]);
		prev = at[i];
	}
	tr->last_line = xstrdup(lines[reached ? reached - 1 : 0]);
	if (reached < 4)
		test_result_set_message(tr, "phase %s not reached within 3m", names[reached]);
}

void sample_run_fill(struct run_result *run)
{
	run->scenario = xstrdup("nightly");
	run->run_id = xstrdup("20261202-165000");
	run->orch_version = xstrdup("0.1.0");
	run->host = xstrdup("ci-lab-1");
	run->baseline = xstrdup("runs/nightly/20261201-165000");
	run->start_wall_us = T0;
	run->end_wall_us = T0 + 263250000;

	static const char *const lines[] = {
		"Linux version 6.1.0-27-686 (debian-kernel@lists.debian.org)",
		"Run /init as init process",
		"INIT: Entering runlevel: 2",
		"bifferboard login:",
	};
	static const double j1[] = { 0.31, -0.12, 0.05, 0.44, -0.27 };
	static const double j2[] = { -0.6, 0.2, 1.1, -0.3, 0.4 };
	static const double j3[] = { 12.0, -8.5, 3.25, -2.0, 6.5 };

	struct test_result *tr;
	tr = add(run, "bifferboard", "kernel", STATUS_PASS, 0.2, 0.41);
	bench(run, "bifferboard", 0.7, 1.0, j1);
	run->results[run->n_results - 1].regressed = true;
	run->results[run->n_results - 1].comparison =
		xstrdup("mem.memcpy 12.0% slower than baseline (29.1 MiB/s)");
	run->results[run->n_results - 1].metrics[0].change = METRIC_CHANGE_REGRESSION;
	run->results[run->n_results - 1].metrics[0].change_pct = -12.0;
	run->results[run->n_results - 1].metrics[1].change = METRIC_CHANGE_BETTER;
	run->results[run->n_results - 1].metrics[1].change_pct = 7.5;
	run->results[run->n_results - 1].metrics[2].change = METRIC_CHANGE_NOISE;
	run->results[run->n_results - 1].metrics[2].change_pct = 0.8;
	tr = add(run, "bifferboard", "cpuinfo", STATUS_PASS, 13.5, 0.3);
	test_result_add_sample(tr, "bogomips", "", true, 49.97);
	boot(run, "bifferboard", 14.0, (const double[]){ 2.35, 9.8, 14.2, 21.65 }, 4, lines);

	tr = add(run, "rpi1", "kernel", STATUS_PASS, 0.2, 0.18);
	bench(run, "rpi1", 0.5, 4.2, j2);
	run->results[run->n_results - 1].comparison = xstrdup("mem.memcpy 1.5% faster than baseline");
	tr = add(run, "rpi1", "cpuinfo", STATUS_PASS, 4.0, 0.22);
	test_result_add_sample(tr, "bogomips", "", true, 697.95);
	test_result_add_sample(tr, "mem.total", "KiB", true, 24683568);
	boot(run, "rpi1", 5.0, (const double[]){ 3.1, 41.5, 47.0, 0 }, 3, lines);

	tr = add(run, "apu2", "kernel", STATUS_ERROR, 0.2, 10.0);
	test_result_set_message(tr, "ssh 192.168.1.52:22: connection timed out after 10s");
	bench(run, "apu2", 10.5, 95.0, j3);
	tr = add(run, "apu2", "cpuinfo", STATUS_PASS, 14.0, 0.05);
	test_result_add_sample(tr, "bogomips", "", true, 1996.8);
	boot(run, "apu2", 14.5, (const double[]){ 6.6, 8.9, 10.3, 13.1 }, 4, lines);
	tr = add(run, "apu2", "wireguard-iperf", STATUS_SKIP, 0, 0);
	tr->start_wall_us = tr->end_wall_us = 0;
	tr->attempts = 0;
	tr->exit_code = -1;
	test_result_set_message(tr, "skipped: server vm is not in this shard");
	run->exit_code = finish_exit_code(run, NULL);
}
