#ifndef ORCH_UTIL_INTERRUPT_H
#define ORCH_UTIL_INTERRUPT_H
/*
 * Ctrl-C / SIGTERM. The handler only sets a flag; every loop that waits
 * checks interrupt_requested() at least every DEADLINE_TICK_MS, stops what it
 * started (remote process groups included) and returns, so partial results
 * are written before orch exits 130. A second signal ends orch at once.
 */
#include <stdbool.h>

void interrupt_install(void);   /* SIGINT, SIGTERM, SIGHUP; ignores SIGPIPE */
bool interrupt_requested(void);
void interrupt_request(void);   /* as if Ctrl-C were pressed (tests) */
void interrupt_reset(void);     /* tests only */

#endif
