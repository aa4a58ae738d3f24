#ifndef ORCH_TRANSPORT_SERIAL_PORT_H
#define ORCH_TRANSPORT_SERIAL_PORT_H
/*
 * A serial console, opened whatever carries it: a character device through
 * termios (ptys, symlinks to them, plain ttys), a real UART or USB adapter
 * through libserialport (also found by USB VID:PID[:SERIAL]), a raw TCP
 * socket as ser2net serves one (tcp://host:port), or a telnet connection
 * with RFC 2217 COM-PORT-OPTION to set the line (rfc2217://host:port).
 *
 * Every kind is read and written the same way: poll serial_port_fd() for
 * input, then serial_port_read(); telnet commands are stripped from the
 * data and 0xFF is escaped on the way out. The port never blocks a caller
 * past the timeout it was given.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum serial_port_parity { SERIAL_PARITY_NONE = 0, SERIAL_PARITY_ODD, SERIAL_PARITY_EVEN };
enum serial_port_flow { SERIAL_FLOW_NONE = 0, SERIAL_FLOW_RTSCTS, SERIAL_FLOW_XONXOFF };

/* What to open: exactly one of port, usb, url (port wins, then usb). */
struct serial_target {
	const char *port;          /* device path (tty, pty, symlink), or NULL */
	const char *usb;           /* "VID:PID[:SERIAL]" (hex), or NULL */
	const char *url;           /* "tcp://host:port" or "rfc2217://host:port", or NULL */
	int baud;                  /* 0: 115200 */
	int data_bits;             /* 0: 8 */
	enum serial_port_parity parity;
	int stop_bits;             /* 0: 1 */
	enum serial_port_flow flow;
	/* serial as a command transport (transport_serial.h) */
	const char *login_user;    /* NULL: "root" */
	int64_t char_delay_us;     /* pause after each character typed; 0: none */
	int64_t connect_timeout_ms;  /* tcp/rfc2217 connect; 0: 10 s */
};

struct serial_port;

/* Opens the console, locked for this process until serial_port_close
 * (console_lock.h: UUCP lock file and flock for devices, a lock file in
 * orch's lock folder for URLs): the port, or NULL with the reason in err
 * ("open /dev/ttyUSB0: no such file or directory", "no USB serial adapter
 * 0403:6001 (seen: 067b:2303 on /dev/ttyUSB0)", "console /dev/ttyUSB0 is
 * in use by pid 812 (picocom /dev/ttyUSB0) (...)") and errno EBUSY when
 * another process holds the console, EIO otherwise. */
struct serial_port *serial_port_open(const struct serial_target *t, char *err, size_t errlen);
void serial_port_close(struct serial_port *p);   /* accepts NULL */

/* The descriptor to poll for input (POLLIN). */
int serial_port_fd(const struct serial_port *p);
/* "/dev/ttyUSB0 115200 8N1", "tcp://127.0.0.1:7001": for messages; owned by p. */
const char *serial_port_describe(const struct serial_port *p);

/*
 * Reads what is there without blocking. Returns the number of data bytes
 * (> 0), 0 when nothing is available now (poll again; telnet commands alone
 * give 0), or -1 when the port is gone (closed by the peer, device removed,
 * hung up) or failed, with the reason in err.
 */
ssize_t serial_port_read(struct serial_port *p, void *buf, size_t len, char *err, size_t errlen);
/* Whether data already read from the socket waits for serial_port_read
 * (poll says nothing about it). */
bool serial_port_pending(const struct serial_port *p);
/* Waits for input at most timeout_ms (and at most DEADLINE_TICK_MS per poll;
 * after a second Ctrl-C at most until the hurry deadline): 1 when readable,
 * 0 on timeout, -1 on error. A Ctrl-C does not end the wait: a caller that
 * stops on one waits a tick at a time (a stop still reads the board's
 * answer after Ctrl-C). */
int serial_port_wait(struct serial_port *p, int timeout_ms, char *err, size_t errlen);
/* Writes all of buf within timeout_ms: 0, or -1 with the reason in err. */
int serial_port_write(struct serial_port *p, const void *buf, size_t len, int64_t timeout_ms,
		      char *err, size_t errlen);

/* Opens and closes the port: 0 when it can be opened, -1 with why not.
 * For `orch boards --check`. */
int serial_port_probe(const struct serial_target *t, char *err, size_t errlen);

/* One serial port seen by libserialport (`orch ports`); strings owned. */
struct serial_port_info {
	char *name;                /* "/dev/ttyUSB0" */
	char *description;
	char *transport;           /* "native", "usb", "bluetooth" */
	int usb_vid;               /* -1 when not USB */
	int usb_pid;
	char *manufacturer;        /* NULL when unknown */
	char *product;
	char *serial;
	char *by_id;               /* a /dev/serial/by-id link to it, or NULL */
};

/* Every port libserialport enumerates: 0 with *out (free with
 * serial_port_list_free) and *n (possibly 0), or -1 with the reason. */
int serial_port_list(struct serial_port_info **out, size_t *n, char *err, size_t errlen);
void serial_port_list_free(struct serial_port_info *list, size_t n);

/* The device path of the USB adapter matching "VID:PID[:SERIAL]": 0 and
 * *path (caller frees), or -1 with what was seen instead in err. */
int serial_port_find_usb(const char *spec, char **path, char *err, size_t errlen);

#endif
