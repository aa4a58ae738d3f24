#ifndef ORCH_TRANSPORT_SERIAL_PORT_SP_H
#define ORCH_TRANSPORT_SERIAL_PORT_SP_H
/* Shared by the serial port files (transport/ only). */

/* libserialport's last error, without its trailing newline or period;
 * never NULL; the caller frees it. */
char *serial_sp_error(void);

#endif
