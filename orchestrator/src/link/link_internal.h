#ifndef ORCH_LINK_LINK_INTERNAL_H
#define ORCH_LINK_LINK_INTERNAL_H
/* Shared between the files of the link module only. */
#include "link/board_link.h"

/* Frees the command transport (unless lent to a background step). */
void link_drop_transport(struct board_link *bl);

#endif
