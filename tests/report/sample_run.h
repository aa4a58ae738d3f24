#ifndef ORCH_TESTS_SAMPLE_RUN_H
#define ORCH_TESTS_SAMPLE_RUN_H
/*
 * A realistic run for the result/store/report tests: three boards
 * (bifferboard, rpi1, apu2) x kernel (a command), memory (a bench repeated
 * 5 times, three metrics), cpuinfo (one metric) and boot (4 phases); rpi1's
 * boot fails (login not reached), apu2's kernel errors (ssh unreachable),
 * bifferboard's memory regressed against a baseline.
 */
#include "result/result.h"

/* Fills run (zeroed by the caller, released with run_result_release). */
void sample_run_fill(struct run_result *run);

#endif
