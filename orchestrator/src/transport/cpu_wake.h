#ifndef ORCH_TRANSPORT_CPU_WAKE_H
#define ORCH_TRANSPORT_CPU_WAKE_H
/*
 * Keeps the CPUs out of idle states while console lines are stamped: a PM
 * QoS request on /dev/cpu_dma_latency (the kernel honours it while the file
 * stays open), as cyclictest does. An idle CPU that halts takes tens to
 * hundreds of microseconds to wake (more in a virtual machine, whose halted
 * CPU the host has to schedule again); one that polls reacts at once. It
 * costs the power of idle CPUs spinning, only while a capture runs.
 *
 * ORCH_CPU_DMA_LATENCY sets the request in microseconds (default 0: poll
 * only; a bare-metal controller may allow its shallow states with 10-20),
 * or "off" to leave the idle states alone. Writing the file needs root (or
 * write access given to it). Counted: the request is held while at least
 * one capture holds it.
 */
#include <stddef.h>

/* Takes the request (or a reference to it); says what it got in how,
 * ", CPUs kept from idle states deeper than 0 us (/dev/cpu_dma_latency)"
 * or why not. Always pair with cpu_wake_release. */
void cpu_wake_hold(char *how, size_t len);
void cpu_wake_release(void);

#endif
