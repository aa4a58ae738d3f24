/*
 * serial_port over rfc2217:// against a scripted telnet server on loopback
 * (a thread of this test): console bytes that arrive during the telnet
 * negotiation, NULs included, are handed out whole and in order, however
 * small the reads.
 */
#include "testsupport.h"
#include "transport/serial_port.h"
#include "util/strbuf.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct server {
	int listen_fd;
	int port;
	pthread_t thread;
};

/* Console bytes, then the baud-rate acknowledgement, then nothing until the
 * client leaves. */
static const unsigned char script[] = {
	'b', 'o', 'o', 't', 0, 0, 'x', 0xFF, 0xFF, 'y', 0, '\n',
	0xFF, 250, 44, 101, 0, 1, 0xC2, 0, 0xFF, 240,
};
static const char expect[] = { 'b', 'o', 'o', 't', 0, 0, 'x', (char)0xFF, 'y', 0, '\n' };

static void *serve(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->listen_fd, NULL, NULL);
	if (fd < 0)
		return NULL;
	if (write(fd, script, sizeof(script)) != (ssize_t)sizeof(script)) {
		close(fd);
		return NULL;
	}
	char buf[256];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	while (poll(&pfd, 1, 10000) > 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return NULL;
}

static int setup(void **state)
{
	struct server *s = xcalloc(1, sizeof(*s));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s->listen_fd, 1) < 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&a, &al) < 0 ||
	    pthread_create(&s->thread, NULL, serve, s) != 0) {
		if (s->listen_fd >= 0)
			close(s->listen_fd);
		free(s);
		return -1;
	}
	s->port = ntohs(a.sin_port);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct server *s = *state;
	shutdown(s->listen_fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->listen_fd);
	free(s);
	return 0;
}

static void test_negotiation_bytes_kept(void **state)
{
	struct server *s = *state;
	char *url = xasprintf("rfc2217://127.0.0.1:%d", s->port);
	struct serial_target t = { .url = url, .connect_timeout_ms = 5000 };
	char err[256];
	struct serial_port *p = serial_port_open(&t, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	struct strbuf got = STRBUF_INIT;
	char buf[3];
	for (int i = 0; i < 200 && got.len < sizeof(expect); i++) {
		if (!serial_port_pending(p) && serial_port_wait(p, 100, err, sizeof(err)) <= 0)
			continue;
		ssize_t n = serial_port_read(p, buf, sizeof(buf), err, sizeof(err));
		if (n < 0)
			fail_msg("%s", err);
		strbuf_append(&got, buf, (size_t)n);
	}
	assert_int_equal(got.len, sizeof(expect));
	assert_memory_equal(got.buf, expect, sizeof(expect));
	strbuf_release(&got);
	serial_port_close(p);
	free(url);
}

int main(void)
{
	return TS_RUN_EACH(setup, teardown, test_negotiation_bytes_kept);
}
