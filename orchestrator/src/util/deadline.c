#include "util/deadline.h"
#include "util/interrupt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t clock_us(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t clock_mono_us(void) { return clock_us(CLOCK_MONOTONIC); }
int64_t clock_mono_ms(void) { return clock_us(CLOCK_MONOTONIC) / 1000; }
int64_t clock_wall_us(void) { return clock_us(CLOCK_REALTIME); }

int64_t deadline_in_ms(int64_t timeout_ms)
{
	if (timeout_ms <= 0)
		return DEADLINE_NONE;
	return clock_mono_ms() + timeout_ms;
}

/* After a second Ctrl-C every wait ends by the hurry deadline. */
static int64_t clamped(int64_t deadline_ms)
{
	int64_t hurry = interrupt_hurry_deadline_ms();
	return hurry < deadline_ms ? hurry : deadline_ms;
}

bool deadline_expired(int64_t deadline_ms)
{
	deadline_ms = clamped(deadline_ms);
	return deadline_ms != DEADLINE_NONE && clock_mono_ms() >= deadline_ms;
}

int deadline_poll_ms(int64_t deadline_ms)
{
	deadline_ms = clamped(deadline_ms);
	if (deadline_ms == DEADLINE_NONE)
		return DEADLINE_TICK_MS;
	int64_t left = deadline_ms - clock_mono_ms();
	if (left <= 0)
		return 0;
	return left < DEADLINE_TICK_MS ? (int)left : DEADLINE_TICK_MS;
}

void clock_format_iso8601_digits(int64_t wall_us, int digits, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_us / 1000000);
	long us = (long)(wall_us % 1000000);
	if (us < 0) {
		us += 1000000;
		secs -= 1;
	}
	struct tm tm;
	if (!gmtime_r(&secs, &tm))
		memset(&tm, 0, sizeof(tm));
	int n = snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (n < 0 || (size_t)n >= len)
		return;
	if (digits < 0)
		digits = us ? 6 : 0;
	if (digits == 3)
		snprintf(buf + n, len - (size_t)n, ".%03ldZ", us / 1000);
	else if (digits == 6)
		snprintf(buf + n, len - (size_t)n, ".%06ldZ", us);
	else
		snprintf(buf + n, len - (size_t)n, "Z");
}

void clock_format_junit(int64_t wall_us, char *buf, size_t len)
{
	clock_format_iso8601_digits(wall_us > 0 ? wall_us - wall_us % 1000000 : 0, 0, buf, len);
	buf[strcspn(buf, "Z")] = '\0';
}

void clock_format_iso8601(int64_t wall_us, char *buf, size_t len)
{
	clock_format_iso8601_digits(wall_us, 3, buf, len);
}
