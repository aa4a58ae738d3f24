#ifndef ORCH_UTIL_VALFMT_H
#define ORCH_UTIL_VALFMT_H
/*
 * valfmt: the one way orch writes a measured value for people, used by
 * summary.txt, report.html, JUnit text, orch compare, orch history and
 * the terminal. The same value in the same unit gives the same text in
 * every output.
 *
 * Numbers: 4 significant digits (so rounding moves a value by at most
 * 0.05%, a tenth of a 0.5% threshold), every digit of the integer part
 * kept, trailing zeros dropped, never an exponent: 1.953, 431.2, 2048000,
 * 0.0001234. NaN reads "n/a", infinities "inf" / "-inf".
 *
 * Units: the value stays in the unit the metric declares, or moves up
 * within that unit's own family when it reaches the next prefix:
 *   decimal byte rates  B/s kB/s MB/s GB/s TB/s          (step 1000)
 *   decimal sizes       MB GB TB                          (step 1000)
 *   binary sizes        B KiB MiB GiB TiB                 (step 1024; kB,
 *                       KB, K, M, G, T are 1024-based in util/units.h and
 *                       scale on this ladder)
 *   binary byte rates   KiB/s MiB/s GiB/s TiB/s           (step 1024; a
 *                       bare B/s is on the decimal ladder, as kB/s is 1000
 *                       bytes/s in util/units.h)
 *   bit rates           bit/s Kbit/s Mbit/s Gbit/s Tbit/s, and the same
 *                       ladders spelt bits/s, bps, b/s    (step 1000;
 *                       Gbits/s and Gbps are their tops)
 *   frequencies         Hz kHz MHz GHz; packet rates pps Kpps Mpps
 * Decimal never becomes binary or the other way round, bytes never become
 * bits, and a value never moves below its declared unit or above the
 * top of its ladder (past it the number grows: 2048 TiB). Times (s, ms,
 * ...), %, counts and units of no family keep their unit as declared.
 */
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* A number's text fits in this many bytes (DBL_MAX has 309 digits). */
#define VALFMT_NUM_LEN 352

/* Appends v with 4 significant digits and no exponent ("1.953", "-0.5"). */
void valfmt_number(struct strbuf *sb, double v);
/* The same into buf (at least VALFMT_NUM_LEN bytes for any double;
 * shorter buffers truncate). Returns buf. */
char *valfmt_number_buf(char *buf, size_t len, double v);

/* Where a value of a unit is shown: factor from the declared unit to the
 * shown one, and the shown unit's name ("" when unitless). */
struct valfmt_scale {
	double factor;
	char unit[24];
};
/* The scale for showing values up to |v| in unit (see above). */
void valfmt_scale_for(double v, const char *unit, struct valfmt_scale *sc);
/* Appends v (in the declared unit) converted into sc, number only. */
void valfmt_scaled(struct strbuf *sb, double v, const struct valfmt_scale *sc);

/* Appends "1.953 GiB" (or "12" when unitless): v in unit, scaled by
 * valfmt_scale_for(v, unit). */
void valfmt_value(struct strbuf *sb, double v, const char *unit);
/* valfmt_value() as a new string (caller frees). */
char *valfmt_str(double v, const char *unit);
/* Appends "431.2 ± 113 MB/s", "2.378 ± 0.0077 GiB/s": the spread in the
 * median's scale with 2 significant digits (it describes the noise, no
 * verdict rests on its last digit), only when show_spread and sd is
 * finite. */
void valfmt_spread(struct strbuf *sb, double median, double sd, bool show_spread,
		   const char *unit);

/* Appends "25.6 -> 22.5 MiB/s" (one unit when both values show in the
 * same one), else "1023 KiB -> 1.001 MiB". */
void valfmt_pair(struct strbuf *sb, double a, double b, const char *unit);

/* A change in percent for people: "+19.7%", "-6.2%", "0.0%", "n/a".
 * One decimal (a tenth of the smallest threshold documented, 0.5%). */
void valfmt_pct(struct strbuf *sb, double pct);
/* The magnitude only, "19.7%" (for "19.7% slower"). */
void valfmt_pct_abs(struct strbuf *sb, double pct);
/* The magnitude of a judged change: one decimal, more when one decimal
 * would read as the threshold itself for a change beyond it (5.02% at a
 * 5% threshold reads "5.02%", not "5.0%"). */
void valfmt_change_pct(struct strbuf *sb, double pct, bool beyond, double threshold_pct);

#endif
