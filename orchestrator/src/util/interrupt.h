#ifndef ORCH_UTIL_INTERRUPT_H
#define ORCH_UTIL_INTERRUPT_H
/*
 * Ctrl-C / SIGTERM / SIGHUP, in three levels. The handler only counts:
 *   1. stop cleanly: every loop that waits checks interrupt_requested() at
 *      least every DEADLINE_TICK_MS, stops what it started (remote process
 *      groups: TERM, a grace, KILL) and returns; the tests not run yet are
 *      skipped, and the results and reports are written before orch exits
 *      130.
 *   2. hurry (a second signal): the same, but kills skip the TERM grace and
 *      every wait (util/deadline.h) ends within INTERRUPT_HURRY_MS, over
 *      the sessions already open: no new connection is made. The results
 *      and reports are still written, and orch still exits 130.
 *   3. a third signal ends orch at once (_exit(130)); results.json, written
 *      again at the first signal, already says interrupted.
 * Two signals less than 250 ms apart count as one (a terminal and a CI
 * runner may both deliver the same Ctrl-C).
 */
#include <stdbool.h>
#include <stdint.h>

#define INTERRUPT_HURRY_MS 2000

void interrupt_install(void);   /* SIGINT, SIGTERM, SIGHUP; ignores SIGPIPE */
bool interrupt_requested(void); /* level >= 1 */
bool interrupt_hurry(void);     /* level >= 2 */
/* CLOCK_MONOTONIC ms by which every wait ends (second signal +
 * INTERRUPT_HURRY_MS), or INT64_MAX before a second signal. */
int64_t interrupt_hurry_deadline_ms(void);
void interrupt_request(void);   /* as if Ctrl-C were pressed (tests) */
void interrupt_reset(void);     /* tests only */

#endif
