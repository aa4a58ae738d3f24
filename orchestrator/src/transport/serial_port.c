#include "transport/serial_port.h"
#include "transport/console_lock.h"
#include "transport/serial_port_sp.h"
#include <stddef.h>
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <libserialport.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

enum port_kind { PORT_TERMIOS, PORT_LIBSERIALPORT, PORT_TCP, PORT_RFC2217 };

/* telnet (RFC 854) and COM-PORT-OPTION (RFC 2217) */
#define TN_SE 240
#define TN_SB 250
#define TN_WILL 251
#define TN_WONT 252
#define TN_DO 253
#define TN_DONT 254
#define TN_IAC 255
#define TNOPT_BINARY 0
#define TNOPT_SGA 3
#define TNOPT_COMPORT 44
#define CPO_SET_BAUDRATE 1
#define CPO_SET_DATASIZE 2
#define CPO_SET_PARITY 3
#define CPO_SET_STOPSIZE 4
#define CPO_SET_CONTROL 5
#define CPO_SERVER_OFFSET 100

enum tn_state { TN_DATA, TN_GOT_IAC, TN_GOT_OPT, TN_IN_SB, TN_SB_IAC };

struct serial_port {
	enum port_kind kind;
	int fd;
	struct sp_port *sp;
	struct console_lock *lock;  /* held from before the open until after the close */
	char *desc;
	/* telnet receive state */
	enum tn_state tn;
	unsigned char tn_cmd;
	unsigned char sb[64];
	size_t sb_len;
	bool sent_will[256];
	bool sent_do[256];
	bool baud_acked;
	uint32_t baud_reply;
	struct strbuf pending;     /* data that came during the telnet negotiation */
};

static const char *parity_letter(enum serial_port_parity p)
{
	return p == SERIAL_PARITY_ODD ? "O" : p == SERIAL_PARITY_EVEN ? "E" : "N";
}

static void target_line(const struct serial_target *t, int *baud, int *bits, int *stop)
{
	*baud = t->baud > 0 ? t->baud : 115200;
	*bits = t->data_bits > 0 ? t->data_bits : 8;
	*stop = t->stop_bits > 0 ? t->stop_bits : 1;
}

static speed_t baud_constant(int baud)
{
	static const struct { int baud; speed_t code; } table[] = {
		{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
		{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1500000, B1500000 }, { 2000000, B2000000 },
		{ 3000000, B3000000 }, { 4000000, B4000000 },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].baud == baud)
			return table[i].code;
	return B0;
}

static struct serial_port *port_alloc(enum port_kind kind, int fd, char *desc)
{
	struct serial_port *p = xcalloc(1, sizeof(*p));
	p->kind = kind;
	p->fd = fd;
	p->desc = desc;
	return p;
}

static struct serial_port *open_termios(const char *path, const struct serial_target *t,
					char *err, size_t errlen)
{
	int baud, bits, stop;
	target_line(t, &baud, &bits, &stop);
	speed_t speed = baud_constant(baud);
	if (speed == B0) {
		snprintf(err, errlen, "%s: unsupported baud rate %d", path, baud);
		return NULL;
	}
	int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return NULL;
	}
	struct termios tio;
	if (tcgetattr(fd, &tio) < 0) {
		snprintf(err, errlen, "%s: not a serial port (%s)", path, strerror(errno));
		close(fd);
		return NULL;
	}
	cfmakeraw(&tio);
	tio.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | PARODD | CSTOPB | CRTSCTS);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cflag |= bits == 5 ? CS5 : bits == 6 ? CS6 : bits == 7 ? CS7 : CS8;
	if (t->parity != SERIAL_PARITY_NONE)
		tio.c_cflag |= PARENB | (t->parity == SERIAL_PARITY_ODD ? PARODD : 0);
	if (stop == 2)
		tio.c_cflag |= CSTOPB;
	if (t->flow == SERIAL_FLOW_RTSCTS)
		tio.c_cflag |= CRTSCTS;
	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
	if (t->flow == SERIAL_FLOW_XONXOFF)
		tio.c_iflag |= IXON | IXOFF;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	cfsetispeed(&tio, speed);
	cfsetospeed(&tio, speed);
	if (tcsetattr(fd, TCSANOW, &tio) < 0) {
		snprintf(err, errlen, "%s: cannot set line settings: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return port_alloc(PORT_TERMIOS, fd, xasprintf("%s %d %d%s%d", path, baud, bits,
						       parity_letter(t->parity), stop));
}

static struct serial_port *open_libserialport(const char *path, const struct serial_target *t,
					      char *err, size_t errlen)
{
	int baud, bits, stop;
	target_line(t, &baud, &bits, &stop);
	struct sp_port *sp = NULL;
	char *why = NULL;
	if (sp_get_port_by_name(path, &sp) != SP_OK || sp_open(sp, SP_MODE_READ_WRITE) != SP_OK) {
		why = serial_sp_error();
		snprintf(err, errlen, "open %s: %s", path, why);
		free(why);
		sp_free_port(sp);
		return NULL;
	}
	enum sp_parity par = t->parity == SERIAL_PARITY_ODD ? SP_PARITY_ODD :
			     t->parity == SERIAL_PARITY_EVEN ? SP_PARITY_EVEN : SP_PARITY_NONE;
	enum sp_flowcontrol flow = t->flow == SERIAL_FLOW_RTSCTS ? SP_FLOWCONTROL_RTSCTS :
				   t->flow == SERIAL_FLOW_XONXOFF ? SP_FLOWCONTROL_XONXOFF :
				   SP_FLOWCONTROL_NONE;
	int fd = -1;
	if (sp_set_baudrate(sp, baud) != SP_OK || sp_set_bits(sp, bits) != SP_OK ||
	    sp_set_parity(sp, par) != SP_OK || sp_set_stopbits(sp, stop) != SP_OK ||
	    sp_set_flowcontrol(sp, flow) != SP_OK || sp_get_port_handle(sp, &fd) != SP_OK) {
		why = serial_sp_error();
		snprintf(err, errlen, "%s: cannot set %d %d%s%d: %s", path, baud, bits,
			 parity_letter(t->parity), stop, why);
		free(why);
		sp_close(sp);
		sp_free_port(sp);
		return NULL;
	}
	struct serial_port *p = port_alloc(PORT_LIBSERIALPORT, fd,
					   xasprintf("%s %d %d%s%d", path, baud, bits,
						     parity_letter(t->parity), stop));
	p->sp = sp;
	return p;
}

/* ptys (and links to them) go through termios: libserialport cannot open them. */
static bool is_pty(const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return false;
	if (strncmp(real, "/dev/pts/", 9) == 0 || strcmp(real, "/dev/ptmx") == 0)
		return true;
	const char *base = strrchr(real, '/');
	char *sys = xasprintf("/sys/class/tty/%s", base ? base + 1 : real);
	bool absent = access(sys, F_OK) != 0;
	free(sys);
	return absent;
}

static struct serial_port *open_device(const char *path, const struct serial_target *t,
				       char *err, size_t errlen)
{
	if (is_pty(path))
		return open_termios(path, t, err, errlen);
	struct serial_port *p = open_libserialport(path, t, err, errlen);
	if (!p) {
		/* a tty libserialport will not drive may still work through termios */
		char first[256];
		snprintf(first, sizeof(first), "%s", err);
		p = open_termios(path, t, err, errlen);
		if (!p && first[0] && strstr(first, "No such") == NULL)
			snprintf(err, errlen, "%s", first);
	}
	return p;
}

/* --- network --- */

static int split_url(const char *url, const char *scheme, char *host, size_t hostlen,
		     char *port, size_t portlen)
{
	size_t sl = strlen(scheme);
	if (strncmp(url, scheme, sl) != 0)
		return -1;
	const char *h = url + sl;
	const char *colon;
	if (*h == '[') {
		const char *close_br = strchr(h, ']');
		if (!close_br || close_br[1] != ':')
			return -1;
		snprintf(host, hostlen, "%.*s", (int)(close_br - h - 1), h + 1);
		colon = close_br + 1;
	} else {
		colon = strrchr(h, ':');
		if (!colon || colon == h)
			return -1;
		snprintf(host, hostlen, "%.*s", (int)(colon - h), h);
	}
	snprintf(port, portlen, "%s", colon + 1);
	size_t pl = strlen(port);
	if (pl && port[pl - 1] == '/')
		port[--pl] = '\0';
	if (!pl || strspn(port, "0123456789") != pl)
		return -1;
	return 0;
}

static int tcp_connect(const char *host, const char *port, int64_t timeout_ms,
		       char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "resolve %s: %s", host, gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	int64_t deadline = deadline_in_ms(timeout_ms > 0 ? timeout_ms : 10000);
	snprintf(err, errlen, "connect %s:%s: no address", host, port);
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		int e = 0;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			e = errno;
			if (e == EINPROGRESS) {
				e = ETIMEDOUT;
				struct pollfd pfd = { .fd = fd, .events = POLLOUT };
				while (!deadline_expired(deadline) && !interrupt_requested()) {
					int pr = poll(&pfd, 1, deadline_poll_ms(deadline));
					if (pr > 0) {
						socklen_t sl = sizeof(e);
						getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl);
						break;
					}
				}
				if (interrupt_requested())
					e = EINTR;
			}
		}
		if (e != 0) {
			snprintf(err, errlen, "connect %s:%s: %s", host, port, strerror(e));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

static int raw_write(struct serial_port *p, const unsigned char *buf, size_t len,
		     int64_t deadline, char *err, size_t errlen)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(p->fd, buf + off, len - off);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(err, errlen, "write to %s: %s", p->desc, strerror(errno));
			return -1;
		}
		if (deadline_expired(deadline) || interrupt_requested()) {
			snprintf(err, errlen, "write to %s: %s", p->desc,
				 interrupt_requested() ? "interrupted" : "timed out");
			return -1;
		}
		struct pollfd pfd = { .fd = p->fd, .events = POLLOUT };
		poll(&pfd, 1, deadline_poll_ms(deadline));
	}
	return 0;
}

static void tn_send(struct serial_port *p, unsigned char cmd, unsigned char opt)
{
	unsigned char b[3] = { TN_IAC, cmd, opt };
	char e[64];
	raw_write(p, b, 3, deadline_in_ms(1000), e, sizeof(e));
}

static void cpo_send(struct serial_port *p, unsigned char code, const unsigned char *val,
		     size_t n)
{
	unsigned char b[32];
	size_t k = 0;
	b[k++] = TN_IAC;
	b[k++] = TN_SB;
	b[k++] = TNOPT_COMPORT;
	b[k++] = code;
	for (size_t i = 0; i < n; i++) {
		b[k++] = val[i];
		if (val[i] == TN_IAC)
			b[k++] = TN_IAC;
	}
	b[k++] = TN_IAC;
	b[k++] = TN_SE;
	char e[64];
	raw_write(p, b, k, deadline_in_ms(1000), e, sizeof(e));
}

static void tn_negotiate(struct serial_port *p, unsigned char cmd, unsigned char opt)
{
	bool ours = opt == TNOPT_BINARY || opt == TNOPT_SGA || opt == TNOPT_COMPORT;
	if (cmd == TN_DO) {
		if (!p->sent_will[opt]) {
			p->sent_will[opt] = true;
			tn_send(p, ours ? TN_WILL : TN_WONT, opt);
		}
	} else if (cmd == TN_WILL) {
		bool accept = opt == TNOPT_BINARY || opt == TNOPT_SGA;
		if (!p->sent_do[opt]) {
			p->sent_do[opt] = true;
			tn_send(p, accept ? TN_DO : TN_DONT, opt);
		}
	}
}

static void tn_subneg(struct serial_port *p)
{
	if (p->sb_len >= 2 && p->sb[0] == TNOPT_COMPORT &&
	    p->sb[1] == CPO_SET_BAUDRATE + CPO_SERVER_OFFSET && p->sb_len >= 6) {
		p->baud_acked = true;
		p->baud_reply = (uint32_t)p->sb[2] << 24 | (uint32_t)p->sb[3] << 16 |
				(uint32_t)p->sb[4] << 8 | p->sb[5];
	}
}

/* Strips telnet commands from buf in place; returns the data length left. */
static size_t tn_filter(struct serial_port *p, unsigned char *buf, size_t n)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = buf[i];
		switch (p->tn) {
		case TN_DATA:
			if (c == TN_IAC)
				p->tn = TN_GOT_IAC;
			else
				buf[out++] = c;
			break;
		case TN_GOT_IAC:
			if (c == TN_IAC) {
				buf[out++] = c;
				p->tn = TN_DATA;
			} else if (c >= TN_WILL) {
				p->tn_cmd = c;
				p->tn = TN_GOT_OPT;
			} else if (c == TN_SB) {
				p->sb_len = 0;
				p->tn = TN_IN_SB;
			} else {
				p->tn = TN_DATA;
			}
			break;
		case TN_GOT_OPT:
			tn_negotiate(p, p->tn_cmd, c);
			p->tn = TN_DATA;
			break;
		case TN_IN_SB:
			if (c == TN_IAC)
				p->tn = TN_SB_IAC;
			else if (p->sb_len < sizeof(p->sb))
				p->sb[p->sb_len++] = c;
			break;
		case TN_SB_IAC:
			if (c == TN_SE) {
				tn_subneg(p);
				p->tn = TN_DATA;
			} else {
				if (p->sb_len < sizeof(p->sb))
					p->sb[p->sb_len++] = c;
				p->tn = TN_IN_SB;
			}
			break;
		}
	}
	return out;
}

static struct serial_port *open_url(const struct serial_target *t, char *err, size_t errlen)
{
	char host[256], port[16];
	bool telnet = strncmp(t->url, "rfc2217://", 10) == 0;
	if (split_url(t->url, telnet ? "rfc2217://" : "tcp://", host, sizeof(host), port,
		      sizeof(port)) < 0) {
		snprintf(err, errlen, "invalid serial url '%s': expected tcp://HOST:PORT or "
			 "rfc2217://HOST:PORT", t->url);
		return NULL;
	}
	int fd = tcp_connect(host, port, t->connect_timeout_ms, err, errlen);
	if (fd < 0)
		return NULL;
	struct serial_port *p = port_alloc(telnet ? PORT_RFC2217 : PORT_TCP, fd, xstrdup(t->url));
	if (!telnet)
		return p;

	int baud, bits, stop;
	target_line(t, &baud, &bits, &stop);
	p->sent_will[TNOPT_COMPORT] = p->sent_will[TNOPT_BINARY] = p->sent_will[TNOPT_SGA] = true;
	p->sent_do[TNOPT_BINARY] = p->sent_do[TNOPT_SGA] = true;
	tn_send(p, TN_WILL, TNOPT_COMPORT);
	tn_send(p, TN_WILL, TNOPT_BINARY);
	tn_send(p, TN_DO, TNOPT_BINARY);
	tn_send(p, TN_WILL, TNOPT_SGA);
	tn_send(p, TN_DO, TNOPT_SGA);
	unsigned char b4[4] = { (unsigned char)(baud >> 24), (unsigned char)(baud >> 16),
				(unsigned char)(baud >> 8), (unsigned char)baud };
	cpo_send(p, CPO_SET_BAUDRATE, b4, 4);
	unsigned char v = (unsigned char)bits;
	cpo_send(p, CPO_SET_DATASIZE, &v, 1);
	v = t->parity == SERIAL_PARITY_ODD ? 2 : t->parity == SERIAL_PARITY_EVEN ? 3 : 1;
	cpo_send(p, CPO_SET_PARITY, &v, 1);
	v = stop == 2 ? 2 : 1;
	cpo_send(p, CPO_SET_STOPSIZE, &v, 1);
	v = t->flow == SERIAL_FLOW_RTSCTS ? 3 : t->flow == SERIAL_FLOW_XONXOFF ? 2 : 1;
	cpo_send(p, CPO_SET_CONTROL, &v, 1);
	free(p->desc);
	p->desc = xasprintf("%s %d %d%s%d", t->url, baud, bits, parity_letter(t->parity), stop);
	/* answer the server's negotiation (it may hold data until then) and
	 * wait briefly for the baud rate to be acknowledged */
	int64_t deadline = deadline_in_ms(2000);
	while (!p->baud_acked && !deadline_expired(deadline) && !interrupt_requested()) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		if (poll(&pfd, 1, deadline_poll_ms(deadline)) <= 0)
			continue;
		unsigned char buf[512];
		ssize_t n = read(p->fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			snprintf(err, errlen, "%s: connection closed during telnet negotiation%s%.120s",
				 t->url, p->pending.len ? ": " : "", strbuf_str(&p->pending));
			serial_port_close(p);
			return NULL;
		}
		if (n > 0) {
			size_t k = tn_filter(p, buf, (size_t)n);
			strbuf_append(&p->pending, (const char *)buf, k);
		}
	}
	return p;
}

/* --- common --- */

/* The lock first: a refused opener never touches the holder's line settings. */
struct serial_port *serial_port_open(const struct serial_target *t, char *err, size_t errlen)
{
	struct console_lock *lock = NULL;
	char *usb_path = NULL;
	int lr;
	if (t->port && *t->port) {
		lr = console_lock_device(t->port, &lock, err, errlen);
	} else if (t->usb && *t->usb) {
		if (serial_port_find_usb(t->usb, &usb_path, err, errlen) < 0)
			return NULL;
		lr = console_lock_device(usb_path, &lock, err, errlen);
	} else if (t->url && *t->url) {
		lr = console_lock_url(t->url, &lock, err, errlen);
	} else {
		snprintf(err, errlen, "no serial port, usb or url given");
		return NULL;
	}
	struct serial_port *p = NULL;
	if (lr == 0) {
		if (t->port && *t->port)
			p = open_device(t->port, t, err, errlen);
		else if (usb_path)
			p = open_libserialport(usb_path, t, err, errlen);
		else
			p = open_url(t, err, errlen);
	}
	free(usb_path);
	if (!p) {
		console_lock_release(lock);
		errno = lr == CONSOLE_LOCK_BUSY ? EBUSY : EIO;
		return NULL;
	}
	p->lock = lock;
	return p;
}

void serial_port_close(struct serial_port *p)
{
	if (!p)
		return;
	if (p->sp) {
		sp_close(p->sp);
		sp_free_port(p->sp);
	} else if (p->fd >= 0) {
		close(p->fd);
	}
	strbuf_release(&p->pending);
	console_lock_release(p->lock);
	free(p->desc);
	free(p);
}

int serial_port_fd(const struct serial_port *p)
{
	return p->fd;
}

const char *serial_port_describe(const struct serial_port *p)
{
	return p ? p->desc : "?";
}

bool serial_port_pending(const struct serial_port *p)
{
	return p->pending.len > 0;
}

ssize_t serial_port_read(struct serial_port *p, void *buf, size_t len, char *err, size_t errlen)
{
	ssize_t n;
	if (p->pending.len > 0) {
		size_t k = p->pending.len < len ? p->pending.len : len;
		memcpy(buf, p->pending.buf, k);
		/* console bytes may contain NULs: move them, never copy as a string */
		memmove(p->pending.buf, p->pending.buf + k, p->pending.len - k);
		p->pending.len -= k;
		p->pending.buf[p->pending.len] = '\0';
		return (ssize_t)k;
	}
	if (p->kind == PORT_LIBSERIALPORT) {
		enum sp_return r = sp_nonblocking_read(p->sp, buf, len);
		if (r < 0) {
			char *why = serial_sp_error();
			snprintf(err, errlen, "read %s: %s", p->desc, why);
			free(why);
			return -1;
		}
		n = r;
		if (n == 0) {
			/* a removed USB adapter reads 0 forever: look for POLLHUP */
			struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
			if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) {
				snprintf(err, errlen, "%s: device gone", p->desc);
				return -1;
			}
		}
		return n;
	}
	n = read(p->fd, buf, len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		snprintf(err, errlen, "%s: %s", p->desc,
			 errno == EIO ? "hung up (the other end closed or the device is gone)"
				      : strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: %s", p->desc,
			 p->kind == PORT_TERMIOS ? "hung up" : "connection closed by peer");
		return -1;
	}
	if (p->kind == PORT_RFC2217)
		n = (ssize_t)tn_filter(p, buf, (size_t)n);
	return n;
}

int serial_port_wait(struct serial_port *p, int timeout_ms, char *err, size_t errlen)
{
	int64_t deadline = deadline_in_ms(timeout_ms > 0 ? timeout_ms : 1);
	for (;;) {
		if (p->pending.len > 0)
			return 1;
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		int r = poll(&pfd, 1, deadline_poll_ms(deadline));
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll %s: %s", p->desc, strerror(errno));
			return -1;
		}
		if (deadline_expired(deadline))
			return 0;
	}
}

int serial_port_write(struct serial_port *p, const void *buf, size_t len, int64_t timeout_ms,
		      char *err, size_t errlen)
{
	int64_t deadline = deadline_in_ms(timeout_ms > 0 ? timeout_ms : 10000);
	const unsigned char *b = buf;
	if (p->kind == PORT_LIBSERIALPORT) {
		int64_t left = deadline == DEADLINE_NONE ? 10000 : deadline - clock_mono_ms();
		enum sp_return r = sp_blocking_write(p->sp, b, len,
						     (unsigned)(left > 0 ? left : 1));
		if (r < 0 || (size_t)r != len) {
			char *why = r < 0 ? serial_sp_error() : xstrdup("timed out");
			snprintf(err, errlen, "write to %s: %s", p->desc, why);
			free(why);
			return -1;
		}
		return 0;
	}
	if (p->kind != PORT_RFC2217)
		return raw_write(p, b, len, deadline, err, errlen);
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		if (b[i] != TN_IAC)
			continue;
		if (raw_write(p, b + start, i + 1 - start, deadline, err, errlen) < 0)
			return -1;
		start = i;   /* the IAC is sent again: doubled */
	}
	return raw_write(p, b + start, len - start, deadline, err, errlen);
}

int serial_port_probe(const struct serial_target *t, char *err, size_t errlen)
{
	struct serial_port *p = serial_port_open(t, err, errlen);
	if (!p)
		return -1;
	serial_port_close(p);
	return 0;
}
