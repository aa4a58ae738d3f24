#ifndef ORCH_TRANSPORT_LOCAL_H
#define ORCH_TRANSPORT_LOCAL_H
/*
 * The local transport: commands run on the controller through /bin/sh -c,
 * each below a keeper process of its own, a fork of orch that leads a new
 * session (setsid), so a timeout kills all the command started, and the
 * command's $PPID is the keeper, never orch: a signal a command sends its
 * parent ends the keeper, not the run. The keeper waits for the shell and
 * hands orch its wait status; a keeper killed before its shell ended is
 * told as the status's parent_lost (transport.h) and the command is
 * killed.
 */
#include "transport/transport.h"

struct transport *transport_local_new(void);

#endif
