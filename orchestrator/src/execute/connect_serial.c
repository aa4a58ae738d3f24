/* From a board's serial: section to the serial port and transport. */
#include "execute/execute.h"
#include "transport/transport_serial.h"
#include "util/secret.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void board_serial_target(const struct board *b, struct serial_target *t)
{
	const struct board_serial *s = &b->serial;
	memset(t, 0, sizeof(*t));
	t->port = s->port;
	t->usb = s->usb;
	t->url = s->url;
	t->baud = s->baud;
	t->data_bits = s->data_bits;
	t->parity = s->parity == PARITY_ODD ? SERIAL_PARITY_ODD
		  : s->parity == PARITY_EVEN ? SERIAL_PARITY_EVEN : SERIAL_PARITY_NONE;
	t->stop_bits = s->stop_bits;
	t->flow = s->flow == FLOW_RTSCTS ? SERIAL_FLOW_RTSCTS
		: s->flow == FLOW_XONXOFF ? SERIAL_FLOW_XONXOFF : SERIAL_FLOW_NONE;
	t->login_user = s->login_user;
	t->char_delay_us = s->char_delay_us;
}

struct transport *board_connect_serial(const struct board *b, char *err, size_t errlen)
{
	const char *password = NULL;
	if (b->serial.password_env) {
		password = secret_get(b->serial.password_env);
		if (!password) {
			snprintf(err, errlen, "%s: password variable %s is not set", b->name,
				 b->serial.password_env);
			return NULL;
		}
	}
	struct serial_target t;
	board_serial_target(b, &t);
	return transport_serial_new(&t, password, b->name, err, errlen);
}
