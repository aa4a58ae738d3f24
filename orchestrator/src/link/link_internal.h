#ifndef ORCH_LINK_LINK_INTERNAL_H
#define ORCH_LINK_LINK_INTERNAL_H
/* Shared between the files of the link module only. */
#include "link/board_link.h"

/* Frees the command transport (unless lent to a background step). */
void link_drop_transport(struct board_link *bl);

/* Stops the orphans pending on bl (board_link_set_orphans) through t, a
 * fresh connection: 0 (none pending, or stopped and confirmed gone), or -1
 * with err (the board must not be used). */
int link_stop_orphans(struct board_link *bl, struct transport *t, char *err, size_t errlen);

#endif
