#include "health/health.h"
#include "db/db.h"
#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_migration health_migs[] = {
	{ 1, "CREATE TABLE board_health (board TEXT PRIMARY KEY,"
	     " offline INTEGER NOT NULL DEFAULT 0, since_us BIGINT, by_name TEXT, reason TEXT,"
	     " manual INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0)" },
};
static const struct db_schema health_schema = { "board_health_schema", health_migs, 1 };

int health_state_open(struct health_state *hs, const char *db_url, char *err, size_t errlen)
{
	memset(hs, 0, sizeof(*hs));
	pthread_mutex_init(&hs->mu, NULL);
	hs->open = true;
	if (!db_url || !*db_url) {
		hs->dir = board_lock_dir(err, errlen);
		return hs->dir ? 0 : -1;
	}
	if (db_open(&hs->db, db_url, err, errlen) < 0)
		return -1;
	if (db_migrate(hs->db, &health_schema, NULL, err, errlen) < 0) {
		db_close(hs->db);
		hs->db = NULL;
		return -1;
	}
	return 0;
}

void health_state_close(struct health_state *hs)
{
	if (!hs->open)
		return;
	free(hs->dir);
	db_close(hs->db);
	pthread_mutex_destroy(&hs->mu);
	memset(hs, 0, sizeof(*hs));
}

static void copy_clean(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
	dst[i] = '\0';
}

static void rec_of_row(const struct db_rows *r, int row, struct board_offline_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	copy_clean(rec->board, sizeof(rec->board), db_cell(r, row, 0));
	rec->since_us = db_cell_int(r, row, 1, 0);
	copy_clean(rec->by, sizeof(rec->by), db_cell(r, row, 2));
	copy_clean(rec->reason, sizeof(rec->reason), db_cell(r, row, 3));
	rec->manual = db_cell_int(r, row, 4, 0) != 0;
}

#define REC_COLS "board, since_us, by_name, reason, manual"

int health_get(struct health_state *hs, const char *board, struct board_offline_rec *rec,
	       char *err, size_t errlen)
{
	if (!hs->db && !hs->dir)
		return 0;
	if (!hs->db)
		return board_offline_get(hs->dir, board, rec, err, errlen);
	struct db_rows *r = NULL;
	struct db_val p[] = { DB_TEXT(board) };
	pthread_mutex_lock(&hs->mu);
	int ret = db_exec(hs->db, "SELECT " REC_COLS " FROM board_health WHERE board = ? AND "
			  "offline = 1", p, 1, &r, err, errlen);
	pthread_mutex_unlock(&hs->mu);
	if (ret < 0)
		return -1;
	ret = r->nrows > 0;
	if (ret)
		rec_of_row(r, 0, rec);
	db_rows_free(r);
	return ret;
}

int health_set(struct health_state *hs, const char *board, const char *reason, bool manual,
	       char *err, size_t errlen)
{
	if (!hs->db && !hs->dir)
		return 0;
	if (!hs->db)
		return board_offline_set(hs->dir, board, reason, manual, err, errlen);
	struct board_holder self;
	board_holder_self(&self, board, NULL);
	char by[200], why[512];
	snprintf(by, sizeof(by), "%s@%s", self.user, self.host);
	copy_clean(why, sizeof(why), reason);
	const char *by_s = by, *why_s = why;
	struct db_val p[] = { DB_TEXT(board), DB_INT(clock_wall_us()), DB_TEXT(by_s),
			      DB_TEXT(why_s), DB_INT(manual) };
	pthread_mutex_lock(&hs->mu);
	int ret = db_exec(hs->db, "INSERT INTO board_health (board, offline, since_us, by_name, "
			  "reason, manual) VALUES (?, 1, ?, ?, ?, ?) ON CONFLICT (board) DO UPDATE "
			  "SET offline = 1, since_us = excluded.since_us, by_name = excluded.by_name, "
			  "reason = excluded.reason, manual = excluded.manual", p, 5, NULL, err, errlen);
	pthread_mutex_unlock(&hs->mu);
	return ret < 0 ? -1 : 0;
}

int health_clear(struct health_state *hs, const char *board, bool *had, char *err,
		 size_t errlen)
{
	*had = false;
	if (!hs->db && !hs->dir)
		return 0;
	if (!hs->db)
		return board_offline_clear(hs->dir, board, had, err, errlen);
	struct board_offline_rec rec;
	int was = health_get(hs, board, &rec, err, errlen);
	if (was < 0)
		return -1;
	*had = was == 1;
	struct db_val p[] = { DB_TEXT(board) };
	pthread_mutex_lock(&hs->mu);
	int ret = db_exec(hs->db, "DELETE FROM board_health WHERE board = ?", p, 1, NULL, err,
			  errlen);
	pthread_mutex_unlock(&hs->mu);
	return ret < 0 ? -1 : 0;
}

long health_list(struct health_state *hs, struct board_offline_rec **out, char *err,
		 size_t errlen)
{
	*out = NULL;
	if (!hs->db && !hs->dir)
		return 0;
	if (!hs->db)
		return board_offline_list(hs->dir, out, err, errlen);
	struct db_rows *r = NULL;
	pthread_mutex_lock(&hs->mu);
	int ret = db_exec(hs->db, "SELECT " REC_COLS " FROM board_health WHERE offline = 1 "
			  "ORDER BY board", NULL, 0, &r, err, errlen);
	pthread_mutex_unlock(&hs->mu);
	if (ret < 0)
		return -1;
	long n = r->nrows;
	*out = xcalloc(n ? (size_t)n : 1, sizeof(**out));
	for (long i = 0; i < n; i++)
		rec_of_row(r, (int)i, &(*out)[i]);
	db_rows_free(r);
	return n;
}

int health_count(struct health_state *hs, const char *board, bool infra, char *err,
		 size_t errlen)
{
	if (!hs->db && !hs->dir)
		return -1;
	if (!hs->db)
		return board_offline_count(hs->dir, board, infra, err, errlen);
	struct db_val p[] = { DB_TEXT(board) };
	struct db_rows *r = NULL;
	int n = -1;
	pthread_mutex_lock(&hs->mu);
	int ret = infra ? db_exec(hs->db, "INSERT INTO board_health (board, errors) VALUES (?, 1) "
				  "ON CONFLICT (board) DO UPDATE SET errors = board_health.errors + 1",
				  p, 1, NULL, err, errlen)
			: db_exec(hs->db, "UPDATE board_health SET errors = 0 WHERE board = ?", p, 1,
				  NULL, err, errlen);
	if (ret >= 0 && infra)
		ret = db_exec(hs->db, "SELECT errors FROM board_health WHERE board = ?", p, 1, &r,
			      err, errlen);
	pthread_mutex_unlock(&hs->mu);
	if (ret >= 0)
		n = infra ? (int)db_cell_int(r, 0, 0, -1) : 0;
	db_rows_free(r);
	return n;
}

static int hs_offline(void *ctx, const struct board *b, char *reason, size_t len,
		      int64_t *since_us)
{
	struct health_state *hs = ctx;
	struct board_offline_rec rec;
	char err[512];
	int r = health_get(hs, b->name, &rec, err, sizeof(err));
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
	char err[512];
	if (health_set(ctx, b->name, reason, false, err, sizeof(err)) < 0)
		log_warn("%s: could not record it offline: %s", b->name, err);
}

static int hs_count(void *ctx, const struct board *b, bool infra)
{
	char err[512];
	int n = health_count(ctx, b->name, infra, err, sizeof(err));
	if (n < 0)
		log_warn("%s: errors in a row not counted: %s", b->name, err);
	return n;
}

void health_state_hooks(struct health_state *hs, struct schedule_health *h)
{
	memset(h, 0, sizeof(*h));
	if (!hs->dir && !hs->db)
		return;
	*h = (struct schedule_health){ hs_offline, hs_set_offline, hs_count, hs };
}
