#ifndef ORCH_UTIL_UNITS_H
#define ORCH_UTIL_UNITS_H
/*
 * Numbers with units as users write them in YAML.
 *   durations: "250ms", "30s", "5m", "1h", "1m30s", a bare number = seconds
 *   sizes:     "4M", "512K", "1G", "4MiB", "100" (bytes); K/M/G/T and
 *              KiB/MiB/GiB/TiB are 1024-based, and so are kB and KB (the
 *              kernel's kB, as in /proc/meminfo, is 1024 bytes); MB/GB/TB
 *              are 1000-based (SI, as dd and disk vendors use them); byte
 *              rates kB/s, KB/s, MB/s, GB/s are 1000-based (dd), KiB/s... 1024
 *   quantities (expect: thresholds): "20MiB/s", "1.5 Gbit/s", "300ms", "42"
 *   (the unit is kept as written; bit rates Kbit/s, Mbit/s, Gbit/s, also
 *   written bits/s or Mbps, are 1000-based)
 * Each returns 0, or -1 when the text is not of that form.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int units_parse_duration_ms(const char *text, int64_t *ms);
int units_parse_size(const char *text, uint64_t *bytes);

struct quantity {
	double value;
	char unit[24];    /* as written, trimmed; "" when unitless */
};
int units_parse_quantity(const char *text, struct quantity *q);

/*
 * Converts value from unit `from` into unit `to` when both belong to one
 * family (bytes, bytes/s, bits/s, seconds, Hz, plain); byte and bit rates
 * convert into each other. Returns 0, or -1 when they do not.
 */
int units_convert(double value, const char *from, const char *to, double *out);

/* The base unit of UNIT's family ("B", "B/s", "bit/s", "s", "Hz"), or
 * NULL for a unit of no family ("ops/s", "", "%"). */
const char *units_base(const char *unit);
/* The table units_convert knows, an entry at a time: the name of entry i,
 * or NULL past the end (for tests that walk every unit). */
const char *units_table_name(size_t i);
/* Whether unit is in the table units_convert knows ("" counts as known). */
bool units_known(const char *unit);
/* The known unit closest to a misspelt one ("MB/sec" -> "MB/s"), or NULL. */
const char *units_nearest(const char *unit);

/*
 * Which way a metric is better, from its unit, else its name:
 *   lower:  time-like units (s, sec, ms, us, µs, ns, min, h), or a unitless
 *           or unknown unit with a name that says latency, rtt, jitter,
 *           delay, duration, elapsed, time, loss, lost, error, drop,
 *           retransmit, miss or fail
 *   higher: rates (a unit ending in "/s", bps, Kbps, Mbps, Gbps, Hz, ...)
 *   unknown: anything else (counts, %, "", bytes): the caller picks
 * name may be NULL.
 */
enum units_better { UNITS_BETTER_UNKNOWN = 0, UNITS_BETTER_HIGHER, UNITS_BETTER_LOWER };
enum units_better units_better_of(const char *unit, const char *name);
/* The unit is a time (s, ms, ...) / a rate (MiB/s, Mbit/s, Mbps, Hz, ...). */
bool units_is_time(const char *unit);
bool units_is_rate(const char *unit);

/* "1m30s", "250ms", "2.5s": a duration for people. buf >= 32 bytes. */
void units_format_duration(int64_t ms, char *buf, size_t len);

#endif
