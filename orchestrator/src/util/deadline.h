#ifndef ORCH_UTIL_DEADLINE_H
#define ORCH_UTIL_DEADLINE_H
/*
 * Clocks and deadlines. Every wait in orch (poll, connect, serial read) asks
 * deadline_poll_ms() how long it may block, so a timeout is enforced in one
 * place and an interrupt (Ctrl-C) is noticed within DEADLINE_TICK_MS. After
 * a second Ctrl-C every deadline ends at the latest by the hurry deadline
 * (util/interrupt.h): no wait outlasts it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEADLINE_NONE INT64_MAX
#define DEADLINE_TICK_MS 100

int64_t clock_mono_us(void);   /* CLOCK_MONOTONIC in microseconds */
int64_t clock_mono_ms(void);
int64_t clock_wall_us(void);   /* CLOCK_REALTIME in microseconds since the epoch */

/* A deadline timeout_ms from now; timeout_ms <= 0 means no deadline. */
int64_t deadline_in_ms(int64_t timeout_ms);
bool deadline_expired(int64_t deadline_ms);
/* Milliseconds a poll() may wait: min(time left, DEADLINE_TICK_MS), >= 0. */
int deadline_poll_ms(int64_t deadline_ms);

/* "2026-12-02T16:50:00.123Z" for a wall-clock time in microseconds; buf >= 32. */
void clock_format_iso8601(int64_t wall_us, char *buf, size_t len);
/* The one ISO-8601 UTC formatter: "2026-12-02T16:50:00.123456Z" with
 * digits (0, 3 or 6) of the second's fraction, or -1: 6 unless the time is
 * a whole second ("...:00Z"). clock_format_iso8601 is digits 3. */
void clock_format_iso8601_digits(int64_t wall_us, int digits, char *buf, size_t len);
/* JUnit's timestamp, Ant's form of the same: "2026-12-02T16:50:00", UTC
 * without zone or fraction; a time <= 0 (not known) is the epoch. buf >= 32. */
void clock_format_junit(int64_t wall_us, char *buf, size_t len);

#endif
