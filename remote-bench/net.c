/*
 * remote-bench-net: TCP stream throughput and small UDP packet rate between
 * two hosts, the numbers iperf3/netperf give. One side runs --server, the
 * other --client HOST. The server serves one session and exits; it also
 * exits when no client comes (or a client goes quiet) for --idle-timeout.
 *
 * Session protocol (text lines on one TCP control connection):
 *   C: "RB1 tcp MS"        S: "ok"  C opens a second TCP connection to the
 *                          same port, sends for MS ms, shuts it down;
 *                          S: "tcp BYTES NS" (bytes received after the first
 *                          read, in the NS from that read to EOF)
 *   C: "RB1 udp MS SIZE"   S: "ok"  (UDP bound on the same address and port)
 *                          C sends SIZE-byte datagrams for MS ms, then
 *   C: "done SENT"         S: "udp RECEIVED NS" (first to last datagram)
 *   C: "bye"               S exits.
 * Metrics are the receiver's figures; the client prints them.
 *
 * UDP as iperf3 -u -b 0 does it, call for call, because at an unlimited rate
 * the figure is the speed of the slower end's loop, so the loops must be
 * the reference's for the figures to compare on any board: the client
 * waits for writability (poll) once per burst of 10 datagrams and stamps
 * each with the time and a sequence number (12 bytes, network order) just
 * before its send; the server waits for readiness (poll) before every read
 * and reads one datagram per wake-up, reading the clock for each.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define NET_TCP_BUF (128 * 1024)
#define NET_UDP_MAX 65507
#define NET_UDP_BURST 10 /* datagrams per writability wait, iperf3's multisend */

struct net_opts {
	const char *server_bind;
	const char *client_host;
	int server;
	const char *port;
	double seconds;
	double idle_timeout;
	double connect_timeout;
	unsigned long udp_size;
	int do_tcp, do_udp;
};

static char net_buf[NET_TCP_BUF];

/* Waits for `events` on fd for at most `seconds`; returns 1 ready, 0 timed
 * out, -1 error. */
static int net_wait(int fd, short events, double seconds)
{
	struct pollfd p = { .fd = fd, .events = events };
	double end = rb_now() + seconds, left;
	int r;

	for (;;) {
		left = end - rb_now();
		if (left < 0)
			left = 0;
		r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r;
		return 1;
	}
}

static int net_send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int net_send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int net_send_line(int fd, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return -1;
	line[n++] = '\n';
	return net_send_all(fd, line, (size_t)n);
}

/* Reads one control line (without the newline) within `seconds`. Returns 0,
 * or -1 on error, timeout (errno ETIMEDOUT) or EOF (errno ECONNRESET). */
static int net_read_line(int fd, char *line, size_t len, double seconds)
{
	double end = rb_now() + seconds;
	size_t used = 0;
	ssize_t n;
	char c;

	for (;;) {
		int r = net_wait(fd, POLLIN, end - rb_now());

		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = recv(fd, &c, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (c == '\n')
			break;
		if (used + 1 >= len) {
			errno = EPROTO;
			return -1;
		}
		line[used++] = c;
	}
	line[used] = '\0';
	return 0;
}

/* ---- server ---- */

static int net_listen(const struct net_opts *o)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, one = 1, r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	r = getaddrinfo(o->server_bind, o->port, &hints, &res);
	if (r != 0) {
		rb_error("cannot resolve --bind %s: %s", o->server_bind, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 4) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		rb_error("cannot listen on %s port %s: %s", o->server_bind, o->port, strerror(errno));
	return fd;
}

static int net_accept(int lfd, double seconds)
{
	int fd, r = net_wait(lfd, POLLIN, seconds);

	if (r <= 0) {
		if (r == 0)
			errno = ETIMEDOUT;
		return -1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

static int net_serve_tcp(int lfd, int cfd, unsigned long ms, const struct net_opts *o)
{
	double limit = (double)ms / 1000 + o->idle_timeout, t0 = 0, t1;
	unsigned long long bytes = 0;
	ssize_t n;
	int dfd, r;

	if (net_send_line(cfd, "ok") < 0)
		return -1;
	dfd = net_accept(lfd, o->idle_timeout);
	if (dfd < 0)
		return -1;
	for (;;) {
		r = net_wait(dfd, POLLIN, limit);
		if (r <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			close(dfd);
			return -1;
		}
		n = recv(dfd, net_buf, sizeof(net_buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(dfd);
			return -1;
		}
		if (n == 0)
			break;
		/* The clock starts at the first read; what that read returned
		 * arrived before it, so it is not counted (as udp_pps counts the
		 * n - 1 intervals between n datagrams). */
		if (t0 == 0)
			t0 = rb_now();
		else
			bytes += (unsigned long long)n;
	}
	t1 = rb_now();
	close(dfd);
	return net_send_line(cfd, "tcp %llu %.0f", bytes, bytes ? (t1 - t0) * 1e9 : 0.0);
}

static int net_serve_udp(int cfd, unsigned long ms, unsigned long size, const struct net_opts *o)
{
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	struct pollfd p[2];
	unsigned long long recvd = 0;
	double t0 = 0, t1 = 0, drain_end = 0, end;
	char line[128];
	int ufd, r, ret = -1;
	ssize_t n;

	if (getsockname(cfd, (struct sockaddr *)&local, &llen) < 0)
		return -1;
	ufd = socket(local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ufd < 0)
		return -1;
	/* The system's default receive buffer, as iperf3 without -w: a
	 * larger one absorbs the stalls of a slow reader that iperf3 loses. */
	if (bind(ufd, (struct sockaddr *)&local, llen) < 0)
		goto out;
	if (net_send_line(cfd, "ok") < 0)
		goto out;
	end = rb_now() + (double)ms / 1000 + o->idle_timeout;
	p[0].fd = ufd;
	p[0].events = POLLIN;
	p[1].fd = cfd;
	p[1].events = POLLIN;
	for (;;) {
		double now = rb_now(), until = drain_end ? drain_end : end;

		if (now >= until)
			break;
		r = poll(p, 2, (int)((until - now) * 1000) + 1);
		if (r < 0 && errno != EINTR)
			goto out;
		if (r > 0 && (p[0].revents & POLLIN)) {
			/* One datagram per wake-up, as iperf3's server reads one
			 * per select(). */
			n = recv(ufd, net_buf, sizeof(net_buf), 0);
			now = rb_now();
			if (n >= 0 && (unsigned long)n == size) {
				t1 = now;
				if (recvd++ == 0)
					t0 = t1;
			}
		}
		if (r > 0 && !drain_end && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			/* "done SENT": keep reading what is still queued for a moment. */
			if (net_read_line(cfd, line, sizeof(line), 1.0) < 0 || strncmp(line, "done ", 5))
				goto out;
			drain_end = rb_now() + 0.2;
			p[1].fd = -1;
		}
	}
	if (!drain_end) {
		errno = ETIMEDOUT;
		goto out;
	}
	ret = net_send_line(cfd, "udp %llu %.0f", recvd, (t1 - t0) * 1e9);
out:
	close(ufd);
	return ret;
}

static int net_server(const struct net_opts *o)
{
	uint64_t v[2];
	char line[128];
	int lfd, cfd = -1, ret = 1;

	lfd = net_listen(o);
	if (lfd < 0)
		return 1;
	rb_note("listening on %s port %s", o->server_bind, o->port);
	cfd = net_accept(lfd, o->idle_timeout);
	if (cfd < 0) {
		rb_error("no client within %.0f s: %s", o->idle_timeout, strerror(errno));
		goto out;
	}
	for (;;) {
		if (net_read_line(cfd, line, sizeof(line), o->idle_timeout) < 0) {
			if (errno == ECONNRESET) {
				ret = 0;
				break;
			}
			rb_error("control connection: %s", strerror(errno));
			break;
		}
		if (strcmp(line, "bye") == 0) {
			ret = 0;
			break;
		}
		if (strncmp(line, "RB1 tcp ", 8) == 0 && rb_parse_u64_list(line + 8, v, 1) == 0 &&
		    v[0] <= 3600000) {
			if (net_serve_tcp(lfd, cfd, (unsigned long)v[0], o) < 0) {
				rb_error("tcp test: %s", strerror(errno));
				break;
			}
		} else if (strncmp(line, "RB1 udp ", 8) == 0 && rb_parse_u64_list(line + 8, v, 2) == 0 &&
			   v[0] <= 3600000 && v[1] >= 1 && v[1] <= NET_UDP_MAX) {
			if (net_serve_udp(cfd, (unsigned long)v[0], (unsigned long)v[1], o) < 0) {
				rb_error("udp test: %s", strerror(errno));
				break;
			}
		} else {
			net_send_line(cfd, "error unknown request");
			rb_error("unknown request '%s'", line);
			break;
		}
	}
	rb_note("session over");
out:
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	return ret;
}

/* ---- client ---- */

/* Connects to the server, retrying refused connections (the server may be
 * starting) until --connect-timeout. */
static int net_connect(const struct net_opts *o, int type)
{
	struct addrinfo hints, *res, *ai;
	double end = rb_now() + o->connect_timeout;
	struct timeval tv = { .tv_sec = 10 + (time_t)o->idle_timeout };
	int fd = -1, r, err = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = type;
	hints.ai_flags = AI_NUMERICSERV;
	r = getaddrinfo(o->client_host, o->port, &hints, &res);
	if (r != 0) {
		rb_error("cannot resolve %s: %s", o->client_host, gai_strerror(r));
		return -1;
	}
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				err = errno;
				continue;
			}
			/* Bounds connect() and every later blocking send on this
			 * socket: a stalled server cannot hang the client. */
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
				goto done;
			err = errno;
			close(fd);
			fd = -1;
		}
		if (rb_now() >= end || (err != ECONNREFUSED && err != ENETUNREACH))
			break;
		usleep(100000);
	}
done:
	freeaddrinfo(res);
	if (fd < 0)
		rb_error("cannot connect to %s port %s: %s", o->client_host, o->port, strerror(err));
	return fd;
}

/* The client's CPU share while it sends (METRIC_cpu, %): this process's
 * user+system time over the sending time, as bonnie++'s %CP. */
static int net_client_tcp(int cfd, const struct net_opts *o)
{
	struct rb_syscpu sys0;
	struct rb_syscpu sys1;
	double cpu0, cpu, t0;
	uint64_t v[2];
	double end;
	char line[128];
	ssize_t n;
	int dfd;

	if (net_send_line(cfd, "RB1 tcp %.0f", o->seconds * 1000) < 0 ||
	    net_read_line(cfd, line, sizeof(line), o->connect_timeout + 5) < 0 ||
	    strcmp(line, "ok") != 0)
		return rb_error("tcp test: server did not accept the request");
	dfd = net_connect(o, SOCK_STREAM);
	if (dfd < 0)
		return 1;
	memset(net_buf, 0x5a, sizeof(net_buf));
	rb_syscpu_sample(&sys0);
	cpu0 = rb_cpu_secs();
	t0 = rb_now();
	end = t0 + o->seconds;
	while (rb_now() < end) {
		n = send(dfd, net_buf, sizeof(net_buf), MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(dfd);
			return rb_error("tcp test: send: %s", strerror(errno));
		}
	}
	cpu = 100.0 * (rb_cpu_secs() - cpu0) / (rb_now() - t0);
	shutdown(dfd, SHUT_WR);
	rb_syscpu_sample(&sys1);
	if (net_read_line(cfd, line, sizeof(line), o->seconds + o->idle_timeout) < 0 ||
	    strncmp(line, "tcp ", 4) != 0 || rb_parse_u64_list(line + 4, v, 2) < 0) {
		close(dfd);
		return rb_error("tcp test: no result from the server");
	}
	close(dfd);
	if (v[0] == 0 || v[1] == 0)
		return rb_error("tcp test: the server received nothing");
	if (rb_emit("net.tcp_stream", (double)v[0] * 8 / ((double)v[1] / 1e9) / 1e6, "Mbit/s",
		    "higher") < 0)
		return 1;
	if (rb_emit("net.tcp_stream_cpu", cpu, "%", "lower") < 0)
		return 1;
	return rb_emit_syscpu("net.tcp_stream", &sys0, &sys1) < 0;
}

/* iperf3's datagram header: seconds, microseconds and a 32-bit sequence
 * number, network order, in the first 12 bytes (as many as fit). */
static void net_udp_stamp(char *buf, unsigned long size, unsigned long long seq)
{
	struct timeval tv;
	uint32_t w[3];

	gettimeofday(&tv, NULL);
	w[0] = htonl((uint32_t)tv.tv_sec);
	w[1] = htonl((uint32_t)tv.tv_usec);
	w[2] = htonl((uint32_t)seq);
	memcpy(buf, w, size < sizeof(w) ? size : sizeof(w));
}

static int net_client_udp(int cfd, const struct net_opts *o)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	unsigned long long sent = 0;
	struct rb_syscpu sys0, sys1;
	uint64_t v[2];
	double end, cpu0, cpu, t0;
	char line[128];
	ssize_t n;
	int ufd, ret, i;

	if (getpeername(cfd, (struct sockaddr *)&peer, &plen) < 0)
		return rb_error("udp test: %s", strerror(errno));
	if (net_send_line(cfd, "RB1 udp %.0f %lu", o->seconds * 1000, o->udp_size) < 0 ||
	    net_read_line(cfd, line, sizeof(line), o->connect_timeout + 5) < 0 ||
	    strcmp(line, "ok") != 0)
		return rb_error("udp test: server did not accept the request");
	ufd = socket(peer.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ufd < 0 || connect(ufd, (struct sockaddr *)&peer, plen) < 0) {
		ret = rb_error("udp test: %s", strerror(errno));
		goto out;
	}
	memset(net_buf, 0x33, o->udp_size);
	rb_syscpu_sample(&sys0);
	cpu0 = rb_cpu_secs();
	t0 = rb_now();
	end = t0 + o->seconds;
	while (rb_now() < end) {
		if (net_wait(ufd, POLLOUT, end - rb_now()) < 0) {
			ret = rb_error("udp test: poll: %s", strerror(errno));
			goto out;
		}
		for (i = 0; i < NET_UDP_BURST; i++) {
			net_udp_stamp(net_buf, o->udp_size, sent + 1);
			n = send(ufd, net_buf, o->udp_size, 0);
			if (n == (ssize_t)o->udp_size)
				sent++;
			else if (n < 0 && errno != EINTR && errno != ENOBUFS &&
				 errno != ECONNREFUSED && errno != EAGAIN) {
				ret = rb_error("udp test: send: %s", strerror(errno));
				goto out;
			}
		}
	}
	cpu = 100.0 * (rb_cpu_secs() - cpu0) / (rb_now() - t0);
	rb_syscpu_sample(&sys1);
	if (net_send_line(cfd, "done %llu", sent) < 0 ||
	    net_read_line(cfd, line, sizeof(line), 5 + o->idle_timeout) < 0 ||
	    strncmp(line, "udp ", 4) != 0 || rb_parse_u64_list(line + 4, v, 2) < 0) {
		ret = rb_error("udp test: no result from the server");
		goto out;
	}
	if (v[0] < 2 || v[1] == 0) {
		ret = rb_error("udp test: the server received %llu of %llu datagrams",
			       (unsigned long long)v[0], sent);
		goto out;
	}
	/* n datagrams span n - 1 intervals between the first and the last. */
	ret = rb_emit("net.udp_pps", (double)(v[0] - 1) / ((double)v[1] / 1e9), "pkt/s", "higher") < 0;
	if (rb_emit("net.udp_loss", sent > v[0] ? 100.0 * (double)(sent - v[0]) / (double)sent : 0.0,
		    "%", "lower") < 0)
		ret = 1;
	if (rb_emit("net.udp_pps_cpu", cpu, "%", "lower") < 0)
		ret = 1;
	if (rb_emit_syscpu("net.udp_pps", &sys0, &sys1) < 0)
		ret = 1;
out:
	if (ufd >= 0)
		close(ufd);
	return ret;
}

static int net_client(const struct net_opts *o)
{
	int cfd, ret = 0;

	cfd = net_connect(o, SOCK_STREAM);
	if (cfd < 0)
		return 1;
	if (o->do_tcp)
		ret |= net_client_tcp(cfd, o);
	if (o->do_udp && ret == 0)
		ret |= net_client_udp(cfd, o);
	net_send_line(cfd, "bye");
	close(cfd);
	return ret ? 1 : 0;
}

static void net_usage(void)
{
	printf("Usage: remote-bench-net --server [OPTIONS]\n"
	       "       remote-bench-net --client HOST [OPTIONS]\n"
	       "Measures TCP stream throughput and small UDP packet rate between two hosts.\n"
	       "The server serves one client session, then exits.\n"
	       "\n"
	       "  --server             wait for one client\n"
	       "  --bind ADDR          server address (default 0.0.0.0; '::' for IPv6)\n"
	       "  --client HOST        run the tests against the server on HOST\n"
	       "  --port PORT          TCP and UDP port (default 5301)\n"
	       "  --time SECONDS       duration of each test (default 1; e.g. 10, 500ms)\n"
	       "  --tests LIST         tcp, udp or tcp,udp (default tcp,udp)\n"
	       "  --udp-size BYTES     UDP payload size (default 64)\n"
	       "  --idle-timeout SECS  server: give up without a client or request (default 60)\n"
	       "  --connect-timeout S  client: keep retrying a refused connect (default 5)\n"
	       "  --help               this text\n"
	       "\n"
	       "The client prints JSON lines: net.tcp_stream (Mbit/s received by the server),\n"
	       "net.udp_pps (datagrams/s received by the server), net.udp_loss (%% lost),\n"
	       "net.tcp_stream_cpu, net.udp_pps_cpu (%% of one CPU the client used sending),\n"
	       "net.tcp_stream_syscpu, net.udp_pps_syscpu (%% of the whole machine busy\n"
	       "meanwhile, from /proc/stat) and its split METRIC_cpu_user, METRIC_cpu_sys,\n"
	       "METRIC_cpu_iowait (%% of every CPU's time).\n");
}

static int net_parse(int argc, char **argv, struct net_opts *o)
{
	static const struct option opts[] = {
		{ "server", no_argument, NULL, 'S' },
		{ "bind", required_argument, NULL, 'B' },
		{ "client", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "time", required_argument, NULL, 't' },
		{ "tests", required_argument, NULL, 'T' },
		{ "udp-size", required_argument, NULL, 'u' },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "connect-timeout", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long port;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			o->server = 1;
			break;
		case 'B':
			o->server_bind = optarg;
			break;
		case 'c':
			o->client_host = optarg;
			break;
		case 'p':
			if (rb_parse_count(optarg, 1, 65535, &port) < 0)
				return rb_usage_error("bad --port '%s' (1 to 65535)", optarg);
			o->port = optarg;
			break;
		case 't':
			if (rb_parse_seconds(optarg, 0.05, 3600, &o->seconds) < 0)
				return rb_usage_error("bad --time '%s' (seconds, 0.05 to 3600)", optarg);
			break;
		case 'T':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp") &&
			    strcmp(optarg, "tcp,udp") && strcmp(optarg, "udp,tcp"))
				return rb_usage_error("bad --tests '%s' (tcp, udp or tcp,udp)", optarg);
			o->do_tcp = strcmp(optarg, "udp") != 0;
			o->do_udp = strcmp(optarg, "tcp") != 0;
			break;
		case 'u':
			if (rb_parse_count(optarg, 1, NET_UDP_MAX, &o->udp_size) < 0)
				return rb_usage_error("bad --udp-size '%s' (1 to %d)", optarg, NET_UDP_MAX);
			break;
		case 'i':
			if (rb_parse_seconds(optarg, 0.1, 86400, &o->idle_timeout) < 0)
				return rb_usage_error("bad --idle-timeout '%s' (seconds)", optarg);
			break;
		case 'C':
			if (rb_parse_seconds(optarg, 0, 3600, &o->connect_timeout) < 0)
				return rb_usage_error("bad --connect-timeout '%s' (seconds)", optarg);
			break;
		case 'h':
			net_usage();
			return -1;
		default:
			return rb_bad_option(argv);
		}
	}
	if (rb_no_operands(argc, argv) != 0)
		return 2;
	if (o->server == !!o->client_host)
		return rb_usage_error("give exactly one of --server and --client HOST");
	return 0;
}

int main(int argc, char **argv)
{
	struct net_opts o = {
		.server_bind = "0.0.0.0", .port = "5301", .seconds = 1.0, .idle_timeout = 60,
		.connect_timeout = 5, .udp_size = 64, .do_tcp = 1, .do_udp = 1,
	};
	int ret;

	rb_init("remote-bench-net");
	ret = net_parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	signal(SIGPIPE, SIG_IGN);
	return o.server ? net_server(&o) : net_client(&o);
}
