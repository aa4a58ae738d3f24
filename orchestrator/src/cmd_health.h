#ifndef ORCH_CMD_HEALTH_H
#define ORCH_CMD_HEALTH_H
/*
 * The scheduler's health hooks (schedule.h struct schedule_health) over the
 * shared state of lock/board_offline.h: the lock folder of this
 * controller. cmd_run and cmd_boards use it.
 */
#include "schedule/schedule.h"

struct health_state {
	char *dir;                /* the lock folder, or NULL when it could not be made */
};

/* 0, or -1 with err (no lock folder: boards are never taken offline). */
int health_state_open(struct health_state *hs, char *err, size_t errlen);
void health_state_close(struct health_state *hs);
void health_state_hooks(struct health_state *hs, struct schedule_health *h);

#endif
