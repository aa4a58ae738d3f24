#ifndef ORCH_TS_PDUD_H
#define ORCH_TS_PDUD_H
/*
 * Debian's pdudaemon as a test fixture: started on a loopback address with
 * its HTTP or TCP listener and one PDU on the localcmdline driver, whose
 * on and off commands are shell commands of the test's ("%s" in them is
 * the outlet, as the driver substitutes it). Up once it answers a request.
 */
#include <stdbool.h>
#include <sys/types.h>

struct ts_pdud {
	pid_t pid;
	char *conf;      /* DIR/pdudaemon.conf */
	char *log;       /* DIR/pdudaemon.log: its own output */
	char *addr;      /* "HOST:PORT" */
};

/* Skips the file (77) without pdudaemon, curl or socat. Starts pdudaemon
 * with LISTENER ("http" or "tcp") on HOST:PORT and the PDU named PDU;
 * fails the current test, with pdudaemon's output, when it does not
 * answer within 30 s. */
void ts_pdud_start(struct ts_pdud *p, const char *dir, const char *listener, const char *host,
		   int port, const char *pdu, const char *cmd_on, const char *cmd_off);
/* Stops it and frees P's strings; a zeroed P is fine. */
void ts_pdud_stop(struct ts_pdud *p);

/* Polls the file at PATH every 10 ms for at most MS until it holds WANT;
 * whether it did. */
bool ts_file_has(const char *path, const char *want, int ms);

#endif
