#ifndef ORCH_EXECUTE_TRANSFER_CPU_H
#define ORCH_EXECUTE_TRANSFER_CPU_H
/*
 * The board's CPU shares while a command ran, from its /proc/stat before
 * and after (the first line: jiffies of every CPU), as remote-bench
 * reports them for disk and net figures: METRIC_syscpu (busy: user + nice
 * + system + irq + softirq + steal), split into METRIC_cpu_user (user +
 * nice), METRIC_cpu_sys (system + irq + softirq) and METRIC_cpu_iowait,
 * each in % of every CPU's time, better lower.
 */
#include <stdbool.h>
#include <stdint.h>

#include "result/result.h"
#include "link/board_link.h"

struct board_cpu {
	bool ok;                  /* the sample was read */
	unsigned long long busy, total, user, sys, iowait;
};

/* Samples t's /proc/stat, bounded by dl (and at most 5 s); c->ok false
 * when the board has none or did not answer. */
void board_cpu_sample(struct transport *t, int64_t dl, struct board_cpu *c);

/* Parses a "cpu ..." line of /proc/stat into c. 0, or -1 (c->ok false). */
int board_cpu_parse(const char *line, struct board_cpu *c);

/* Adds METRIC_syscpu, _cpu_user, _cpu_sys and _cpu_iowait between c0 and
 * c1 to tr; nothing when either sample failed or no tick passed. */
void board_cpu_record(struct test_result *tr, const char *metric, const struct board_cpu *c0,
		      const struct board_cpu *c1);

#endif
