#include "transport/cpu_wake.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_DMA_LATENCY "/dev/cpu_dma_latency"

static pthread_mutex_t wake_mu = PTHREAD_MUTEX_INITIALIZER;
static int wake_refs;
static int wake_fd = -1;
static char wake_how[160];   /* what the first hold got, for every holder */

/* The request in microseconds from ORCH_CPU_DMA_LATENCY, -1 for "off", -2
 * for a value that does not read. */
static long wanted_us(void)
{
	const char *v = getenv("ORCH_CPU_DMA_LATENCY");
	if (!v || !*v)
		return 0;
	if (!strcmp(v, "off"))
		return -1;
	char *end;
	errno = 0;
	long us = strtol(v, &end, 10);
	return errno || *end || us < 0 || us > 1000000 ? -2 : us;
}

static void request(void)
{
	long us = wanted_us();
	if (us == -1) {
		snprintf(wake_how, sizeof(wake_how), ", CPU idle states left alone "
			 "(ORCH_CPU_DMA_LATENCY=off)");
		return;
	}
	if (us == -2) {
		snprintf(wake_how, sizeof(wake_how), ", CPU idle states left alone "
			 "(ORCH_CPU_DMA_LATENCY is not a number of microseconds or off)");
		return;
	}
	int fd = open(CPU_DMA_LATENCY, O_WRONLY | O_CLOEXEC);
	int32_t value = (int32_t)us;
	if (fd < 0 || write(fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) {
		snprintf(wake_how, sizeof(wake_how), ", CPU idle states left alone (%s: %s)",
			 CPU_DMA_LATENCY, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	wake_fd = fd;
	snprintf(wake_how, sizeof(wake_how), ", CPUs kept from idle states deeper than %ld us (%s)",
		 us, CPU_DMA_LATENCY);
}

void cpu_wake_hold(char *how, size_t len)
{
	pthread_mutex_lock(&wake_mu);
	if (wake_refs++ == 0)
		request();
	snprintf(how, len, "%s", wake_how);
	pthread_mutex_unlock(&wake_mu);
}

void cpu_wake_release(void)
{
	pthread_mutex_lock(&wake_mu);
	if (wake_refs > 0 && --wake_refs == 0 && wake_fd >= 0) {
		close(wake_fd);   /* closing the file withdraws the request */
		wake_fd = -1;
	}
	pthread_mutex_unlock(&wake_mu);
}
