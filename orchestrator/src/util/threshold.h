#ifndef ORCH_UTIL_THRESHOLD_H
#define ORCH_UTIL_THRESHOLD_H
/*
 * The regression threshold, one rule for compare, --baseline and the
 * history: a change is beyond a threshold of T percent when it is strictly
 * more than T percent of the old value, judged on the exact values with a
 * relative slack of 1e-9, so that 0.3 -> 0.285 at 5% (5.0000000000000018%
 * in doubles) is exactly 5%, as 1000 -> 950 is. A change from 0 is beyond
 * any threshold. docs/compare.md "The rule".
 */
#include <stdbool.h>

bool threshold_beyond(double from, double to, double threshold_pct);

#endif
