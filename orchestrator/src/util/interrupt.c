#include "util/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
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
void interrupt_reset(void) { interrupted = 0; }
