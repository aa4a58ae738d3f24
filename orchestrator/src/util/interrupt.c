#include "util/interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Read by every worker thread and set from the signal handler or a thread:
 * a lock-free atomic is safe for both (a volatile sig_atomic_t is only
 * safe for the handler). */
static atomic_int interrupted;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs a lock-free flag");

/* A second signal at least this long after the first is a person pressing
 * Ctrl-C again; closer ones are the same event delivered twice (timeout(1),
 * a CI runner or a terminal signal both orch and its process group). */
#define SECOND_SIGNAL_GAP_NS 250000000LL

static atomic_llong first_signal_ns;   /* 0 until the first signal */

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the signal handler needs a lock-free clock");

static long long monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The first signal asks everything to stop cleanly; a second one, for when
 * that takes too long, ends orch at once (results.json already holds every
 * finished test). Only async-signal-safe calls here. */
static void on_signal(int sig)
{
	(void)sig;
	static const char first[] = "\norch: interrupted: stopping the running commands "
				    "(press Ctrl-C again to quit at once)\n";
	static const char second[] = "\norch: interrupted twice: quitting now; commands "
				     "still running on boards are left to their timeouts\n";
	long long now = monotonic_ns();
	long long first_ns = 0;
	if (atomic_compare_exchange_strong(&first_signal_ns, &first_ns, now)) {
		atomic_store(&interrupted, 1);
		ssize_t n = write(STDERR_FILENO, first, sizeof(first) - 1);
		(void)n;
		return;
	}
	if (now - first_ns < SECOND_SIGNAL_GAP_NS)
		return;
	ssize_t n = write(STDERR_FILENO, second, sizeof(second) - 1);
	(void)n;
	_exit(130);
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

bool interrupt_requested(void) { return interrupted != 0; }
void interrupt_request(void) { interrupted = 1; }
void interrupt_reset(void)
{
	interrupted = 0;
	first_signal_ns = 0;
}
