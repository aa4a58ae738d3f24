/*
 * The values several parts of a scenario read the same way (a threshold,
 * a unit): below the part readers, which all call them and never each
 * other.
 */
#include "config/cfg_read.h"
#include "config/scenario_read.h"
#include "util/units.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int scenario_read_threshold(struct cfg *c, const struct ynode *n, double *out)
{
	char f[96];
	if (!n)
		return 0;
	if (n->kind == YNODE_SCALAR && !ynode_is_null(n)) {
		char *end;
		double v = strtod(n->value, &end);
		if (end != n->value && (*end == '\0' || strcmp(end, "%") == 0) && isfinite(v) &&
		    v >= 0 && (isdigit((unsigned char)n->value[0]) || n->value[0] == '.')) {
			*out = v;
			return 1;
		}
	}
	cfg_error(c, n, "invalid percentage for 'threshold', found %s (use 5 or 2.5%%)",
		  cfg_found(n, f, sizeof(f)));
	return -1;
}

/*
 * A unit orch converts must be spelled as its table has it; a name it does
 * not know is taken as a unit of its own ("BogoMIPS"), compared only with
 * itself, unless it is one typo away from a known unit ("MB/sec").
 */
void scenario_check_unit(struct cfg *c, const struct ynode *n, const char *unit)
{
	if (units_known(unit))
		return;
	const char *near = units_nearest(unit);
	if (near)
		cfg_error(c, n, "unknown unit '%s' (did you mean '%s'?)", unit, near);
}
