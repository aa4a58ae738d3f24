/* The regression threshold on exact values (util/threshold.h). */
#include "util/threshold.h"

#include <math.h>

/* Relative slack for "beyond the threshold": 0.3 -> 0.285 at 5% is a change
 * of exactly 5% even though the doubles give 5.0000000000000018%. */
#define THRESHOLD_EPS 1e-9

bool threshold_beyond(double from, double to, double threshold_pct)
{
	double delta = to - from;
	if (from == 0.0)
		return delta != 0.0;
	return fabs(delta) / fabs(from) * 100.0 > threshold_pct * (1.0 + THRESHOLD_EPS);
}
