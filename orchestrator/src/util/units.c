/*
 * Units as users write them. Sizes: K/M/G/T and KiB/MiB/GiB/TiB are
 * 1024-based (what people mean for memory sizes); kB and KB too, as the
 * kernel writes them (/proc/meminfo's "kB" is 1024 bytes); MB/GB/TB are
 * 1000-based (SI, as dd and disks use them). Byte rates with a k (kB/s,
 * KB/s) are 1000-based like MB/s and GB/s, as dd prints all three. Bit
 * rates are always 1000-based (Mbit/s as iperf3 prints it).
 * docs/compare.md has the table.
 */
#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* A non-negative decimal number without exponent; 0 and *end, or -1. */
static int parse_plain_number(const char *s, double *v, const char **end)
{
	const char *p = s;
	bool digits = false;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits = true;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits = true;
		}
	}
	if (!digits)
		return -1;
	char tmp[64];
	size_t n = (size_t)(p - s);
	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*v = strtod(tmp, NULL);
	*end = p;
	return 0;
}

int units_parse_duration_ms(const char *text, int64_t *ms)
{
	if (!text)
		return -1;
	const char *p = skip_space(text);
	double total = 0;
	double v;
	const char *end;
	if (parse_plain_number(p, &v, &end) < 0)
		return -1;
	if (*skip_space(end) == '\0') {
		total = v * 1000.0;
		goto done;
	}
	/* "1h30m", "1m30s", "250ms": descending units, each at most once */
	int last_rank = 5;
	for (;;) {
		double mult;
		int rank;
		if (strncmp(end, "ms", 2) == 0) {
			mult = 1;
			rank = 0;
			end += 2;
		} else if (*end == 'h') {
			mult = 3600000.0;
			rank = 3;
			end++;
		} else if (strncmp(end, "min", 3) == 0) {
			mult = 60000.0;
			rank = 2;
			end += 3;
		} else if (*end == 'm') {
			mult = 60000.0;
			rank = 2;
			end++;
		} else if (*end == 's') {
			mult = 1000.0;
			rank = 1;
			end++;
		} else {
			return -1;
		}
		if (rank >= last_rank)
			return -1;
		last_rank = rank;
		total += v * mult;
		if (*skip_space(end) == '\0')
			break;
		if (parse_plain_number(end, &v, &end) < 0)
			return -1;
	}
done:
	if (!(total < 9.0e15))
		return -1;
	*ms = (int64_t)(total + 0.5);
	return 0;
}

struct unit_def {
	const char *name;
	int family;
	double factor;   /* to the family's base unit */
};

enum {
	FAM_BYTES = 1,
	FAM_BYTE_RATE,
	FAM_BIT_RATE,    /* converts with FAM_BYTE_RATE (x8) */
	FAM_SECONDS,
	FAM_HZ,
	FAM_PACKET_RATE,
	FAM_PERCENT,
};

#define KI 1024.0
#define MI (1024.0 * 1024.0)
#define GI (1024.0 * 1024.0 * 1024.0)
#define TI (1024.0 * 1024.0 * 1024.0 * 1024.0)

static const struct unit_def unit_defs[] = {
	{ "B", FAM_BYTES, 1 }, { "bytes", FAM_BYTES, 1 },
	{ "K", FAM_BYTES, KI }, { "KiB", FAM_BYTES, KI }, { "kB", FAM_BYTES, KI }, { "KB", FAM_BYTES, KI },
	{ "M", FAM_BYTES, MI }, { "MiB", FAM_BYTES, MI }, { "MB", FAM_BYTES, 1e6 },
	{ "G", FAM_BYTES, GI }, { "GiB", FAM_BYTES, GI }, { "GB", FAM_BYTES, 1e9 },
	{ "T", FAM_BYTES, TI }, { "TiB", FAM_BYTES, TI }, { "TB", FAM_BYTES, 1e12 },

	{ "B/s", FAM_BYTE_RATE, 1 },
	{ "KiB/s", FAM_BYTE_RATE, KI }, { "kB/s", FAM_BYTE_RATE, 1e3 }, { "KB/s", FAM_BYTE_RATE, 1e3 },
	{ "MiB/s", FAM_BYTE_RATE, MI }, { "MB/s", FAM_BYTE_RATE, 1e6 },
	{ "GiB/s", FAM_BYTE_RATE, GI }, { "GB/s", FAM_BYTE_RATE, 1e9 },
	{ "TiB/s", FAM_BYTE_RATE, TI }, { "TB/s", FAM_BYTE_RATE, 1e12 },

	{ "bit/s", FAM_BIT_RATE, 1 }, { "bits/s", FAM_BIT_RATE, 1 }, { "bps", FAM_BIT_RATE, 1 },
	{ "Kbit/s", FAM_BIT_RATE, 1e3 }, { "kbit/s", FAM_BIT_RATE, 1e3 }, { "Kbits/s", FAM_BIT_RATE, 1e3 },
	{ "kbits/s", FAM_BIT_RATE, 1e3 }, { "Kbps", FAM_BIT_RATE, 1e3 }, { "kbps", FAM_BIT_RATE, 1e3 },
	{ "Mbit/s", FAM_BIT_RATE, 1e6 }, { "Mbits/s", FAM_BIT_RATE, 1e6 }, { "Mbps", FAM_BIT_RATE, 1e6 },
	{ "Gbit/s", FAM_BIT_RATE, 1e9 }, { "Gbits/s", FAM_BIT_RATE, 1e9 }, { "Gbps", FAM_BIT_RATE, 1e9 },
	{ "b/s", FAM_BIT_RATE, 1 }, { "Kb/s", FAM_BIT_RATE, 1e3 }, { "kb/s", FAM_BIT_RATE, 1e3 },
	{ "Mb/s", FAM_BIT_RATE, 1e6 }, { "Gb/s", FAM_BIT_RATE, 1e9 },
	{ "Tbit/s", FAM_BIT_RATE, 1e12 }, { "Tb/s", FAM_BIT_RATE, 1e12 },

	{ "pps", FAM_PACKET_RATE, 1 }, { "Kpps", FAM_PACKET_RATE, 1e3 },
	{ "kpps", FAM_PACKET_RATE, 1e3 }, { "Mpps", FAM_PACKET_RATE, 1e6 },
	{ "%", FAM_PERCENT, 1 },

	{ "s", FAM_SECONDS, 1 }, { "sec", FAM_SECONDS, 1 }, { "ms", FAM_SECONDS, 1e-3 },
	{ "us", FAM_SECONDS, 1e-6 }, { "\xc2\xb5s", FAM_SECONDS, 1e-6 }, { "ns", FAM_SECONDS, 1e-9 },
	{ "min", FAM_SECONDS, 60 }, { "m", FAM_SECONDS, 60 }, { "h", FAM_SECONDS, 3600 },
	{ "msec", FAM_SECONDS, 1e-3 }, { "usec", FAM_SECONDS, 1e-6 }, { "nsec", FAM_SECONDS, 1e-9 },
	{ "secs", FAM_SECONDS, 1 }, { "second", FAM_SECONDS, 1 }, { "seconds", FAM_SECONDS, 1 },
	{ "hour", FAM_SECONDS, 3600 }, { "hours", FAM_SECONDS, 3600 },
	{ "day", FAM_SECONDS, 86400 }, { "days", FAM_SECONDS, 86400 },

	{ "Hz", FAM_HZ, 1 }, { "kHz", FAM_HZ, 1e3 }, { "KHz", FAM_HZ, 1e3 },
	{ "MHz", FAM_HZ, 1e6 }, { "GHz", FAM_HZ, 1e9 },
};

static const struct unit_def *unit_find(const char *name)
{
	for (size_t i = 0; i < sizeof(unit_defs) / sizeof(unit_defs[0]); i++)
		if (strcmp(unit_defs[i].name, name) == 0)
			return &unit_defs[i];
	return NULL;
}

const char *units_table_name(size_t i)
{
	return i < sizeof(unit_defs) / sizeof(unit_defs[0]) ? unit_defs[i].name : NULL;
}

bool units_known(const char *unit)
{
	return unit && (!*unit || unit_find(unit));
}

const char *units_nearest(const char *unit)
{
	const char *best = NULL;
	size_t best_d = 3;
	size_t n = unit ? strlen(unit) : 0;
	if (!n || n > 16)
		return NULL;
	for (size_t i = 0; i < sizeof(unit_defs) / sizeof(unit_defs[0]); i++) {
		const char *c = unit_defs[i].name;
		size_t m = strlen(c);
		if (m > 16)
			continue;
		size_t d[17][17];
		for (size_t a = 0; a <= n; a++)
			d[a][0] = a;
		for (size_t b = 0; b <= m; b++)
			d[0][b] = b;
		for (size_t a = 1; a <= n; a++)
			for (size_t b = 1; b <= m; b++) {
				size_t sub = d[a - 1][b - 1] + (unit[a - 1] != c[b - 1]);
				size_t del = d[a - 1][b] + 1, ins = d[a][b - 1] + 1;
				d[a][b] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			}
		if (d[n][m] < best_d && (d[n][m] < n || n > 2)) {
			best_d = d[n][m];
			best = c;
		}
	}
	return best;
}

int units_parse_size(const char *text, uint64_t *bytes)
{
	if (!text)
		return -1;
	const char *p = skip_space(text);
	double v;
	const char *end;
	if (parse_plain_number(p, &v, &end) < 0)
		return -1;
	end = skip_space(end);
	char unit[16];
	size_t n = strlen(end);
	while (n > 0 && isspace((unsigned char)end[n - 1]))
		n--;
	if (n >= sizeof(unit))
		return -1;
	memcpy(unit, end, n);
	unit[n] = '\0';
	double mult = 1;
	if (n > 0) {
		const struct unit_def *u = unit_find(unit);
		if (!u && strcmp(unit, "k") == 0)
			u = unit_find("K");
		if (!u || u->family != FAM_BYTES)
			return -1;
		mult = u->factor;
	}
	double total = v * mult;
	if (!(total < 1.8e19))
		return -1;
	*bytes = (uint64_t)(total + 0.5);
	return 0;
}

int units_parse_quantity(const char *text, struct quantity *q)
{
	if (!text)
		return -1;
	const char *p = skip_space(text);
	char *end;
	errno = 0;
	if (!(*p == '-' || *p == '+' || *p == '.' || isdigit((unsigned char)*p)))
		return -1;
	double v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
		return -1;
	const char *u = skip_space(end);
	size_t n = strlen(u);
	while (n > 0 && isspace((unsigned char)u[n - 1]))
		n--;
	if (n >= sizeof(q->unit))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)u[i];
		if (!(isalpha(c) || c == '/' || c == '%' || c == '_' || c == '.' ||
		      (i > 0 && isdigit(c))))
			return -1;
	}
	q->value = v;
	memcpy(q->unit, u, n);
	q->unit[n] = '\0';
	return 0;
}

int units_convert(double value, const char *from, const char *to, double *out)
{
	if (!from)
		from = "";
	if (!to)
		to = "";
	if (strcmp(from, to) == 0) {
		*out = value;
		return 0;
	}
	const struct unit_def *a = unit_find(from);
	const struct unit_def *b = unit_find(to);
	if (!a || !b)
		return -1;
	double base = value * a->factor;
	if (a->family == b->family) {
		*out = base / b->factor;
		return 0;
	}
	if (a->family == FAM_BYTE_RATE && b->family == FAM_BIT_RATE) {
		*out = base * 8.0 / b->factor;
		return 0;
	}
	if (a->family == FAM_BIT_RATE && b->family == FAM_BYTE_RATE) {
		*out = base / 8.0 / b->factor;
		return 0;
	}
	return -1;
}

const char *units_base(const char *unit)
{
	static const char *const bases[] = { [FAM_BYTES] = "B", [FAM_BYTE_RATE] = "B/s",
					     [FAM_BIT_RATE] = "bit/s", [FAM_SECONDS] = "s",
					     [FAM_HZ] = "Hz" };
	const struct unit_def *u = unit ? unit_find(unit) : NULL;
	if (!u || u->family < FAM_BYTES || u->family > FAM_HZ)
		return NULL;
	return bases[u->family];
}

bool units_is_time(const char *unit)
{
	const struct unit_def *u = unit ? unit_find(unit) : NULL;
	return u && u->family == FAM_SECONDS && strcmp(unit, "m") != 0;
}

bool units_is_rate(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;
	if (n > 2 && strcmp(unit + n - 2, "/s") == 0)
		return true;
	const struct unit_def *u = unit ? unit_find(unit) : NULL;
	return u && (u->family == FAM_BIT_RATE || u->family == FAM_BYTE_RATE ||
		     u->family == FAM_HZ);
}

/* Case-insensitive: does name contain word? */
static bool name_has(const char *name, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = name; *p; p++)
		if (strncasecmp(p, word, n) == 0)
			return true;
	return false;
}

/* A cost per operation ("ns/op", "ms/call", "us/iter", "cycles/byte"):
 * lower is better, whatever its numerator. */
static bool unit_is_per_operation(const char *unit)
{
	static const char *const per[] = { "/op", "/call", "/iter", "/byte" };
	size_t n = unit ? strlen(unit) : 0;
	for (size_t i = 0; i < sizeof(per) / sizeof(per[0]); i++) {
		size_t k = strlen(per[i]);
		if (n > k && strcmp(unit + n - k, per[i]) == 0)
			return true;
	}
	return false;
}

enum units_better units_better_of(const char *unit, const char *name)
{
	static const char *const lower_words[] = {
		"latency", "rtt", "jitter", "delay", "duration", "elapsed", "time", "loss",
		"lost", "error", "drop", "retrans", "miss", "fail",
	};
	if (units_is_time(unit) || unit_is_per_operation(unit))
		return UNITS_BETTER_LOWER;
	if (units_is_rate(unit))
		return UNITS_BETTER_HIGHER;
	for (size_t i = 0; name && i < sizeof(lower_words) / sizeof(lower_words[0]); i++)
		if (name_has(name, lower_words[i]))
			return UNITS_BETTER_LOWER;
	return UNITS_BETTER_UNKNOWN;
}

void units_format_duration(int64_t ms, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	const char *sign = "";
	uint64_t u;
	if (ms < 0) {
		sign = "-";
		u = (uint64_t)(-(ms + 1)) + 1;
	} else {
		u = (uint64_t)ms;
	}
	if (u < 1000) {
		snprintf(buf, len, "%s%llums", sign, (unsigned long long)u);
		return;
	}
	uint64_t h = u / 3600000;
	uint64_t m = (u / 60000) % 60;
	uint64_t s = (u / 1000) % 60;
	uint64_t frac = u % 1000;
	char sec[32] = "";
	if (s || frac || (!h && !m)) {
		if (frac) {
			char f[8];
			snprintf(f, sizeof(f), "%03llu", (unsigned long long)frac);
			for (int i = 2; i > 0 && f[i] == '0'; i--)
				f[i] = '\0';
			snprintf(sec, sizeof(sec), "%llu.%ss", (unsigned long long)s, f);
		} else {
			snprintf(sec, sizeof(sec), "%llus", (unsigned long long)s);
		}
	}
	char min[24] = "";
	if (m)
		snprintf(min, sizeof(min), "%llum", (unsigned long long)m);
	if (h)
		snprintf(buf, len, "%s%lluh%s%s", sign, (unsigned long long)h, min, sec);
	else if (m)
		snprintf(buf, len, "%s%s%s", sign, min, sec);
	else
		snprintf(buf, len, "%s%s", sign, sec);
}
