#include "util/deadline.h"
#include "util/interrupt.h"

#include <stdio.h>
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

void clock_format_iso8601(int64_t wall_us, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_us / 1000000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(wall_us % 1000000 / 1000));
}
