#include "util/interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Read by every worker thread and set from the signal handler or a thread:
 * lock-free atomics are safe for both (a volatile sig_atomic_t is only
 * safe for the handler). */
static atomic_int level;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs a lock-free flag");

/* A signal at least this long after the last one is a person pressing
 * Ctrl-C again; closer ones are the same event delivered twice (timeout(1),
 * a CI runner or a terminal signal both orch and its process group). */
#define SECOND_SIGNAL_GAP_NS 250000000LL

static atomic_llong last_signal_ns;    /* 0 until the first signal */
static atomic_llong hurry_deadline_ms = INT64_MAX;

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the signal handler needs a lock-free clock");

static long long monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void say(const char *text, size_t len)
{
	ssize_t n = write(STDERR_FILENO, text, len);
	(void)n;
}

#define SAY(s) say(s, sizeof(s) - 1)

/* Only async-signal-safe calls here. */
static void on_signal(int sig)
{
	long long now = monotonic_ns();
	long long last = atomic_load(&last_signal_ns);
	if (last && now - last < SECOND_SIGNAL_GAP_NS)
		return;
	atomic_store(&last_signal_ns, now);
	int was = atomic_fetch_add(&level, 1);
	if (was == 0 && sig == SIGTERM) {
		SAY("\norch: terminated (SIGTERM): stopping the running commands and writing the "
		    "results (another SIGTERM or Ctrl-C stops faster)\n");
	} else if (was == 0 && sig == SIGHUP) {
		SAY("\norch: hung up (SIGHUP): stopping the running commands and writing the "
		    "results (another signal stops faster)\n");
	} else if (was == 0) {
		SAY("\norch: interrupted: stopping the running commands and writing the results "
		    "(Ctrl-C again to stop faster)\n");
	} else if (was == 1) {
		atomic_store(&hurry_deadline_ms, now / 1000000 + INTERRUPT_HURRY_MS);
		SAY("\norch: interrupted twice: killing what runs on the boards without a grace "
		    "period and writing the results, within 2 s (Ctrl-C a third time to quit at "
		    "once)\n");
	} else {
		SAY("\norch: interrupted three times: quitting now; results.json holds every "
		    "finished test and `orch report RUN_FOLDER` writes the reports; commands may "
		    "still run on the boards\n");
		_exit(130);
	}
}

void interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

bool interrupt_requested(void) { return atomic_load(&level) != 0; }
bool interrupt_hurry(void) { return atomic_load(&level) >= 2; }
int64_t interrupt_hurry_deadline_ms(void) { return (int64_t)atomic_load(&hurry_deadline_ms); }
void interrupt_request(void)
{
	int zero = 0;
	atomic_compare_exchange_strong(&level, &zero, 1);
}
void interrupt_reset(void)
{
	atomic_store(&level, 0);
	atomic_store(&last_signal_ns, 0);
	atomic_store(&hurry_deadline_ms, INT64_MAX);
}
