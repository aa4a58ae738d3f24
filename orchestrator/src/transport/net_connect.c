#include "transport/net_connect.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One lookup, shared by the caller and the thread doing it; freed by
 * whichever of the two lets go last. */
struct lookup {
	pthread_mutex_t mu;
	pthread_cond_t cv;         /* CLOCK_MONOTONIC */
	int refs;
	bool done;
	int rc;                    /* getaddrinfo's */
	struct addrinfo *res;
	char *host;
	char port[8];
};

static void lookup_unref(struct lookup *l)
{
	pthread_mutex_lock(&l->mu);
	int refs = --l->refs;
	pthread_mutex_unlock(&l->mu);
	if (refs > 0)
		return;
	if (l->res)
		freeaddrinfo(l->res);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	free(l->host);
	free(l);
}

static void *lookup_thread(void *arg)
{
	struct lookup *l = arg;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(l->host, l->port, &hints, &res);
	pthread_mutex_lock(&l->mu);
	l->rc = rc;
	l->res = res;
	l->done = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	lookup_unref(l);
	return NULL;
}

static struct lookup *lookup_new(const char *host, unsigned int port)
{
	struct lookup *l = xcalloc(1, sizeof(*l));
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&l->mu, NULL);
	l->refs = 2;
	l->host = xstrdup(host);
	snprintf(l->port, sizeof(l->port), "%u", port);
	return l;
}

/* Starts the lookup thread with every signal blocked (the handlers run on
 * the threads that wait). 0, or -1 when no thread could be started. */
static int lookup_start(struct lookup *l)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, &attr, lookup_thread, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc == 0 ? 0 : -1;
}

/* Waits for l until dl or Ctrl-C: 0 when it finished, else the error. */
static int lookup_wait(struct lookup *l, int64_t dl)
{
	int ret = 0;
	pthread_mutex_lock(&l->mu);
	while (!l->done) {
		if (interrupt_requested()) {
			ret = NET_CONNECT_INTERRUPTED;
			break;
		}
		if (deadline_expired(dl)) {
			ret = NET_CONNECT_TIMEOUT;
			break;
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		long ns = until.tv_nsec + (long)deadline_poll_ms(dl) * 1000000L;
		until.tv_sec += ns / 1000000000L;
		until.tv_nsec = ns % 1000000000L;
		pthread_cond_timedwait(&l->cv, &l->mu, &until);
	}
	pthread_mutex_unlock(&l->mu);
	return ret;
}

/* host's addresses into *res (caller frees with freeaddrinfo), bounded by
 * dl and Ctrl-C. 0, or an enum net_connect_error with err set. */
static int resolve(const char *host, unsigned int port, int64_t dl, struct addrinfo **res,
		   char *err, size_t errlen)
{
	char ps[8];
	snprintf(ps, sizeof(ps), "%u", port);
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	if (getaddrinfo(host, ps, &hints, res) == 0)
		return 0;   /* an address: nothing to look up */
	int64_t t0 = clock_mono_ms();
	struct lookup *l = lookup_new(host, port);
	if (lookup_start(l) < 0) {
		l->refs = 1;
		lookup_unref(l);
		snprintf(err, errlen, "cannot resolve '%s': cannot start a thread", host);
		return NET_CONNECT_RESOLVE;
	}
	int ret = lookup_wait(l, dl);
	if (ret == NET_CONNECT_INTERRUPTED) {
		snprintf(err, errlen, "looking up '%s': interrupted", host);
	} else if (ret == NET_CONNECT_TIMEOUT) {
		snprintf(err, errlen, "cannot resolve '%s': no answer within %lld ms (the name "
			 "server does not answer)", host, (long long)(clock_mono_ms() - t0));
	} else if (l->rc != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(l->rc));
		ret = NET_CONNECT_RESOLVE;
	} else {
		*res = l->res;   /* the thread has let go: no lock needed */
		l->res = NULL;
	}
	lookup_unref(l);
	return ret;
}

/* Connects one address before dl. Returns the socket, or an enum
 * net_connect_error with *sys_errno set for a refusal. */
static int connect_one(const struct addrinfo *ai, int64_t dl, int *sys_errno)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			ai->ai_protocol);
	if (fd < 0) {
		*sys_errno = errno;
		return NET_CONNECT_REFUSED;
	}
	int ret = NET_CONNECT_REFUSED;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		*sys_errno = errno;
		goto fail;
	}
	for (;;) {
		if (interrupt_requested()) {
			ret = NET_CONNECT_INTERRUPTED;
			goto fail;
		}
		if (deadline_expired(dl)) {
			ret = NET_CONNECT_TIMEOUT;
			goto fail;
		}
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		if (poll(&pf, 1, deadline_poll_ms(dl)) > 0)
			break;
	}
	int so = 0;
	socklen_t len = sizeof(so);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) == 0 && so == 0)
		return fd;
	*sys_errno = so ? so : errno;
fail:
	close(fd);
	return ret;
}

int net_connect(const char *host, unsigned int port, int64_t dl, char *err, size_t errlen)
{
	int64_t t0 = clock_mono_ms();
	struct addrinfo *res = NULL;
	int ret = resolve(host, port, dl, &res, err, errlen);
	if (ret < 0)
		return ret;
	int sys_errno = ECONNREFUSED;
	ret = NET_CONNECT_REFUSED;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		ret = connect_one(ai, dl, &sys_errno);
		if (ret >= 0 || ret == NET_CONNECT_INTERRUPTED || ret == NET_CONNECT_TIMEOUT)
			break;
	}
	freeaddrinfo(res);
	if (ret == NET_CONNECT_INTERRUPTED)
		snprintf(err, errlen, "interrupted");
	else if (ret == NET_CONNECT_TIMEOUT)
		snprintf(err, errlen, "timed out after %lld ms", (long long)(clock_mono_ms() - t0));
	else if (ret < 0)
		snprintf(err, errlen, "%s", strerror(sys_errno));
	if (ret < 0 && err[0])
		err[0] = (char)(err[0] >= 'A' && err[0] <= 'Z' ? err[0] - 'A' + 'a' : err[0]);
	return ret;
}
