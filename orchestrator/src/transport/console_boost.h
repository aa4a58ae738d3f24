#ifndef ORCH_TRANSPORT_CONSOLE_BOOST_H
#define ORCH_TRANSPORT_CONSOLE_BOOST_H
/*
 * What a real-time console reader still waits for, held ready while lines
 * are stamped (docs/console-timing.md), for as long as one capture holds
 * it:
 *
 * - Idle CPUs: a PM QoS request on /dev/cpu_dma_latency (the kernel
 *   honours it while the file stays open), as cyclictest does. A CPU that
 *   halts takes tens to hundreds of microseconds to wake (more in a
 *   virtual machine, whose halted CPU the host must schedule again); one
 *   that polls reacts at once, at the cost of its power.
 *   ORCH_CPU_DMA_LATENCY: the request in microseconds (default 0), or off.
 *
 * - The kernel's tty workers: a tty's bytes, a USB adapter's as a pty's,
 *   reach the reader through flip-buffer work run by the unbound kernel
 *   workers (kworker/u*), ordinary nice-0 threads that wait behind
 *   CPU-bound work (at nice -20 still up to a few ms: the scheduler lets a
 *   running thread finish its slice). They run SCHED_FIFO priority 1,
 *   below the reader, and are put back at the release; a keeper thread
 *   catches workers the kernel starts meanwhile. ORCH_KWORKER_PRIORITY:
 *   fifo (the default), a nice value from -20 to -1 instead, or off.
 *
 * Both need root (the QoS file is root's) or CAP_SYS_NICE (the workers);
 * what was not granted is said, with why.
 */
#include <stddef.h>

/* Takes both (or a reference to them); says what it got in how, e.g.
 * ", CPUs kept from idle states deeper than 0 us (/dev/cpu_dma_latency),
 * the kernel's tty workers at SCHED_FIFO 1". Pair with
 * console_boost_release. */
void console_boost_hold(char *how, size_t len);
void console_boost_release(void);

#endif
