#include "execute/timing.h"
#include "util/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A tag's line longer than this is not one (four fields of < 32 bytes). */
#define MARK_LINE_MAX 160

void timing_new_tag(char *buf, size_t len)
{
	unsigned long long r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (unsigned long long)time(NULL) * 2654435761ULL ^ (unsigned long long)getpid() ^
		    (unsigned long long)(uintptr_t)buf;
	snprintf(buf, len, "orch-time-%016llx", r);
}

/* The date fork comes first and last, the uptime read (a builtin, no
 * fork) next to the command; the command keeps a line of its own, so a
 * here-document or a comment at its end still ends where it did. */
char *timing_wrap(const char *command, const char *tag)
{
	return xasprintf("orch_d0=$(date +%%s.%%N 2>/dev/null); "
			 "{ read -r orch_u0 orch_x </proc/uptime; } 2>/dev/null; {\n%s\n}; orch_s=$?; "
			 "{ read -r orch_u1 orch_x </proc/uptime; } 2>/dev/null; "
			 "printf '%s %%s %%s %%s %%s\\n' \"$orch_d0\" \"$orch_u0\" \"$orch_u1\" "
			 "\"$(date +%%s.%%N 2>/dev/null)\" >&2; unset orch_d0 orch_u0 orch_u1 orch_x; "
			 "(exit $orch_s)", command, tag);
}

void timing_filter_init(struct timing_filter *f, const char *tag, struct timing_marks *marks)
{
	f->tag = tag;
	f->marks = marks;
	f->hold = (struct strbuf)STRBUF_INIT;
}

bool timing_parse_line(const char *line, size_t len, const char *tag, struct timing_marks *marks)
{
	size_t tl = strlen(tag);
	if (len < tl + 1 || memcmp(line, tag, tl) != 0 || line[tl] != ' ')
		return false;
	struct timing_marks m = { 0 };
	char *fields[4] = { m.date0, m.up0, m.up1, m.date1 };
	const char *p = line + tl + 1, *end = line + len;
	for (int i = 0; i < 4; i++) {
		const char *sp = i < 3 ? memchr(p, ' ', (size_t)(end - p)) : end;
		if (!sp || (size_t)(sp - p) >= sizeof(m.date0))
			return false;
		memcpy(fields[i], p, (size_t)(sp - p));
		fields[i][sp - p] = '\0';
		p = sp + (i < 3);
	}
	m.seen = true;
	*marks = m;
	return true;
}

/* The longest end of s[0..len) that is the start of tag. */
static size_t tag_prefix_at_end(const char *s, size_t len, const char *tag)
{
	size_t tl = strlen(tag);
	for (size_t k = len < tl ? len : tl - 1; k > 0; k--)
		if (memcmp(s + len - k, tag, k) == 0)
			return k;
	return 0;
}

/* Passes the first n held bytes on and drops them from the hold. */
static int pass_held(struct timing_filter *f, size_t n, timing_pass_fn pass, void *ctx)
{
	int r = n && pass ? pass(ctx, f->hold.buf, n) : 0;
	memmove(f->hold.buf, f->hold.buf + n, f->hold.len - n);
	f->hold.len -= n;
	f->hold.buf[f->hold.len] = '\0';
	return r;
}

int timing_filter_feed(struct timing_filter *f, const char *data, size_t len, timing_pass_fn pass,
		       void *ctx)
{
	int r = 0;
	strbuf_append(&f->hold, data, len);
	while (f->hold.len && r == 0) {
		char *hit = memmem(f->hold.buf, f->hold.len, f->tag, strlen(f->tag));
		if (!hit) {
			size_t keep = tag_prefix_at_end(f->hold.buf, f->hold.len, f->tag);
			return pass_held(f, f->hold.len - keep, pass, ctx);
		}
		size_t at = (size_t)(hit - f->hold.buf), rest = f->hold.len - at;
		char *nl = memchr(hit, '\n', rest);
		if (!nl && rest <= MARK_LINE_MAX)
			return pass_held(f, at, pass, ctx);
		size_t line = nl ? (size_t)(nl - hit) : rest;
		if (line <= MARK_LINE_MAX && timing_parse_line(hit, line, f->tag, f->marks)) {
			r = pass_held(f, at, pass, ctx);
			pass_held(f, line + 1, NULL, NULL);   /* the tag's line: dropped */
		} else {
			r = pass_held(f, at + strlen(f->tag), pass, ctx);   /* not ours after all */
		}
	}
	return r;
}

int timing_filter_finish(struct timing_filter *f, timing_pass_fn pass, void *ctx)
{
	int r = 0;
	char *hit = f->hold.len ? memmem(f->hold.buf, f->hold.len, f->tag, strlen(f->tag)) : NULL;
	size_t at = hit ? (size_t)(hit - f->hold.buf) : f->hold.len;
	if (hit && timing_parse_line(hit, f->hold.len - at, f->tag, f->marks))
		f->hold.len = at;
	if (f->hold.len)
		r = pass(ctx, f->hold.buf, f->hold.len);
	strbuf_release(&f->hold);
	return r;
}

/* "S.NNNNNNNNN" (date +%s.%N with nanoseconds) in ns; -1 otherwise. */
static int64_t date_ns(const char *s)
{
	size_t ns = strspn(s, "0123456789");
	if (ns == 0 || ns > 11 || s[ns] != '.' || strspn(s + ns + 1, "0123456789") != 9 ||
	    s[ns + 10] != '\0')
		return -1;
	return strtoll(s, NULL, 10) * 1000000000LL + strtoll(s + ns + 1, NULL, 10);
}

/* "S.CC" (/proc/uptime's first field) in ns; -1 otherwise. */
static int64_t uptime_ns(const char *s)
{
	size_t ns = strspn(s, "0123456789");
	size_t nf = ns ? strspn(s + ns + 1, "0123456789") : 0;
	if (ns == 0 || ns > 11 || s[ns] != '.' || nf == 0 || nf > 9 || s[ns + 1 + nf] != '\0')
		return -1;
	int64_t frac = strtoll(s + ns + 1, NULL, 10);
	for (size_t i = nf; i < 9; i++)
		frac *= 10;
	return strtoll(s, NULL, 10) * 1000000000LL + frac;
}

double timing_seconds(const struct timing_marks *marks, int64_t orch_us,
		      enum timing_source *source)
{
	if (marks->seen) {
		int64_t a = date_ns(marks->date0), b = date_ns(marks->date1);
		if (a >= 0 && b > a) {
			*source = TIMING_BOARD_DATE;
			return (double)(b - a) / 1e9;
		}
		a = uptime_ns(marks->up0);
		b = uptime_ns(marks->up1);
		if (a >= 0 && b > a) {
			*source = TIMING_BOARD_UPTIME;
			return (double)(b - a) / 1e9;
		}
	}
	*source = TIMING_ORCH;
	return (double)orch_us / 1e6;
}

const char *timing_source_name(enum timing_source source)
{
	switch (source) {
	case TIMING_BOARD_DATE:
		return "the board's date +%s.%N";
	case TIMING_BOARD_UPTIME:
		return "the board's /proc/uptime";
	default:
		return "orch's clock";
	}
}

int timing_rate(uint64_t bytes, double seconds, const char *unit, double *out)
{
	if (!(seconds > 0))
		return -1;
	return units_convert((double)bytes / seconds, "B/s", unit, out);
}
