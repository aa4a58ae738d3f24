#ifndef ORCH_TRANSPORT_LOCAL_H
#define ORCH_TRANSPORT_LOCAL_H
/*
 * The local transport: commands run on the controller through /bin/sh -c,
 * each in a new process group (setsid) so a timeout kills all it started.
 */
#include "transport/transport.h"

struct transport *transport_local_new(void);

#endif
