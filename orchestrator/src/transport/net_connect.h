#ifndef ORCH_TRANSPORT_NET_CONNECT_H
#define ORCH_TRANSPORT_NET_CONNECT_H
/*
 * A TCP connection to a host name or address, bounded as a whole (name
 * lookup and TCP connect) by one deadline and by Ctrl-C. getaddrinfo()
 * cannot be bounded (a resolver that never answers holds it for its own
 * timeouts, 10 s and more), so a name is looked up on a detached thread of
 * its own that the caller waits for in DEADLINE_TICK_MS steps and leaves
 * behind when the deadline passes or Ctrl-C comes (it frees its own memory
 * when the lookup ends). Numeric addresses are parsed at once, no thread.
 * The ssh transport connects with this and hands the socket to libssh.
 */
#include <stddef.h>
#include <stdint.h>

enum net_connect_error {
	NET_CONNECT_OK = 0,
	NET_CONNECT_RESOLVE = -1,      /* the name does not resolve */
	NET_CONNECT_REFUSED = -2,      /* every address refused or was unreachable */
	NET_CONNECT_TIMEOUT = -3,      /* the deadline passed (lookup or connect) */
	NET_CONNECT_INTERRUPTED = -4,  /* Ctrl-C */
};

/*
 * Connects to host:port before dl (CLOCK_MONOTONIC ms, util/deadline.h),
 * trying every address the name has in turn. Returns a connected,
 * non-blocking, close-on-exec socket (the caller owns it), or one of
 * enum net_connect_error with a message in err ("cannot resolve 'x': timed
 * out after 2000 ms", "connection refused", ...).
 */
int net_connect(const char *host, unsigned int port, int64_t dl, char *err, size_t errlen);

#endif
