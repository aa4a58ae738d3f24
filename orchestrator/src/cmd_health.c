#include "cmd_health.h"
#include "lock/board_offline.h"
#include "lock/boardlock.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int health_state_open(struct health_state *hs, char *err, size_t errlen)
{
	hs->dir = boardlock_dir(err, errlen);
	return hs->dir ? 0 : -1;
}

void health_state_close(struct health_state *hs)
{
	free(hs->dir);
	hs->dir = NULL;
}

static int hs_offline(void *ctx, const struct board *b, char *reason, size_t len,
		      int64_t *since_us)
{
	struct health_state *hs = ctx;
	struct board_offline_rec rec;
	char err[512];
	int r = board_offline_get(hs->dir, b->name, &rec, err, sizeof(err));
	if (r < 0)
		log_warn("%s: health state not read: %s", b->name, err);
	if (r != 1)
		return 0;
	snprintf(reason, len, "%s", rec.reason[0] ? rec.reason : "no reason given");
	*since_us = rec.since_us;
	return 1;
}

static void hs_set_offline(void *ctx, const struct board *b, const char *reason)
{
	struct health_state *hs = ctx;
	char err[512];
	if (board_offline_set(hs->dir, b->name, reason, false, err, sizeof(err)) < 0)
		log_warn("%s: could not record it offline: %s", b->name, err);
}

static int hs_count(void *ctx, const struct board *b, bool infra)
{
	struct health_state *hs = ctx;
	char err[512];
	int n = board_offline_count(hs->dir, b->name, infra, err, sizeof(err));
	if (n < 0)
		log_warn("%s: errors in a row not counted: %s", b->name, err);
	return n;
}

void health_state_hooks(struct health_state *hs, struct schedule_health *h)
{
	memset(h, 0, sizeof(*h));
	if (!hs->dir)
		return;
	*h = (struct schedule_health){ hs_offline, hs_set_offline, hs_count, hs };
}
