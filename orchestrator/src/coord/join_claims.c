/* A joined run's claims: the scheduler takes units from the queue and
 * records each result (with its log files) as it finishes. */
#include "coord/join_int.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Log files larger than this stay where they are: the merged folder gets
 * NAME.where with "HOST:PATH" instead. */
#define JOIN_MAX_FILE (16L << 20)

/* A file's bytes as hex text (bytea's decode(.., 'hex')). */
static char *hex_encode(const char *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[(unsigned char)data[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)data[i] & 15];
	}
	hex[2 * n] = '\0';
	return hex;
}

static long claim(struct join *j, char *err, size_t errlen)
{
	if (!join_requeue_lost(j, err, errlen))
		return -1;
	const char *p[] = { j->name, j->controller, j->reach };
	struct db_rows *r = join_q(j, "UPDATE orch_unit SET state = 'claimed', claimed_by = $2, claimed_pid ="
			   " pg_backend_pid(), claimed_start = (SELECT backend_start FROM"
			   " pg_stat_activity WHERE pid = pg_backend_pid()), claims = claims + 1"
			   " WHERE run = $1 AND state = 'queued' AND idx = (SELECT idx FROM orch_unit"
			   " WHERE run = $1 AND state = 'queued' AND (controllers IS NULL OR $3 ="
			   " ANY(controllers)) ORDER BY idx LIMIT 1 FOR UPDATE SKIP LOCKED)"
			   " RETURNING idx, claims", 3, p, err, errlen);
	if (!r)
		return -1;
	long idx = -1;
	int claims = 0;
	if (r->nrows == 1) {
		idx = atol(join_cell(r, 0, 0));
		claims = atoi(join_cell(r, 0, 1));
	}
	db_rows_free(r);
	if (idx < 0 || (size_t)idx >= j->plan->n_boards)
		return -1;
	char unit[24];
	snprintf(unit, sizeof(unit), "%ld", idx);
	const char *pd[] = { j->name, unit };
	r = join_q(j, "SELECT seq FROM orch_item WHERE run = $1 AND unit = $2::int AND done", 2, pd, err,
	      errlen);
	pthread_mutex_lock(&j->mu);
	j->retried[idx] = claims > 1;
	for (int i = 0; r && i < r->nrows; i++) {
		long seq = atol(join_cell(r, i, 0));
		if (seq >= 0 && (size_t)seq < j->plan->boards[idx].n_items)
			j->done[idx][seq] = true;
	}
	pthread_mutex_unlock(&j->mu);
	db_rows_free(r);
	log_info("join %s: %s takes board %s%s", j->name, j->controller,
		 j->plan->boards[idx].board->name, claims > 1 ? " (again: its controller was lost)" : "");
	return idx;
}

static long claims_next(void *ctx)
{
	struct join *j = ctx;
	char err[512];
	long idx = claim(j, err, sizeof(err));
	if (idx < 0 && err[0] && strstr(err, "database"))
		log_error("join %s: %s", j->name, err);
	return idx;
}

/* Which plan board and item an item is. */
static bool locate(struct join *j, const struct plan_item *item, size_t *b, size_t *i)
{
	for (*b = 0; *b < j->plan->n_boards; (*b)++) {
		const struct plan_board *pb = &j->plan->boards[*b];
		if (item >= pb->items && item < pb->items + pb->n_items) {
			*i = (size_t)(item - pb->items);
			return true;
		}
	}
	return false;
}

static bool claims_wanted(void *ctx, const struct plan_item *item)
{
	struct join *j = ctx;
	size_t b, i;
	if (!locate(j, item, &b, &i))
		return false;
	pthread_mutex_lock(&j->mu);
	bool done = j->done[b][i];
	pthread_mutex_unlock(&j->mu);
	return !done;
}

struct record_args {
	struct join *j;
	const char *unit, *seq, *json, *retried;
	const char *test_dir;
	char *err;
	size_t errlen;
};

/* The regular files of the test's folder, as rows of orch_item_file. */
static int upload_files(struct coord_db *c, struct record_args *a)
{
	DIR *d = a->test_dir ? opendir(a->test_dir) : NULL;
	if (!d)
		return 0;
	int ret = 0;
	for (struct dirent *e; ret == 0 && (e = readdir(d));) {
		char *path = fs_path_join(a->test_dir, e->d_name);
		struct stat st;
		FILE *f = NULL;
		bool regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
		char *name = xstrdup(e->d_name), *data = NULL;
		size_t n = 0;
		if (regular && st.st_size <= JOIN_MAX_FILE && (f = fopen(path, "rb"))) {
			data = xmalloc((size_t)st.st_size + 1);
			n = fread(data, 1, (size_t)st.st_size, f);
			fclose(f);
		} else if (regular) {   /* too big to carry: where it is instead */
			free(name);
			name = xasprintf("%s.where", e->d_name);
			data = xasprintf("%s:%s\n", a->j->host, path);
			n = strlen(data);
		}
		free(path);
		if (!data) {
			free(name);
			continue;
		}
		char *hex = hex_encode(data, n);
		const char *p[] = { a->j->name, a->unit, a->seq, name, hex };
		if (coord_db_run(c, "INSERT INTO orch_item_file (run, unit, seq, name, data) VALUES"
				 " ($1, $2::int, $3::int, $4, decode($5, 'hex')) ON CONFLICT (run, unit,"
				 " seq, name) DO UPDATE SET data = excluded.data", p, 5, NULL, a->err,
				 a->errlen) < 0)
			ret = -1;
		free(hex);
		free(data);
		free(name);
	}
	closedir(d);
	return ret;
}

static int record_tx(struct coord_db *c, void *arg)
{
	struct record_args *a = arg;
	const char *p[] = { a->j->name, a->unit, a->seq, a->json, a->j->controller, a->retried };
	struct db_rows *r = join_qc(c, "UPDATE orch_item i SET done = true, result = $4, controller ="
				       " $5, retried = $6::boolean WHERE run = $1 AND unit = $2::int"
				       " AND seq = $3::int AND NOT done AND EXISTS (SELECT 1 FROM"
				       " orch_unit u WHERE u.run = $1 AND u.idx = $2::int AND"
				       " u.claimed_pid = pg_backend_pid())", 6, p, a->err, a->errlen);
	if (!r)
		return -1;
	bool mine = db_changes(coord_db_sql(c)) == 1;
	db_rows_free(r);
	if (!mine) {
		snprintf(a->err, a->errlen, "the board's claim was lost (the database session "
			 "ended?); the result is kept only in this controller's folder");
		return -1;
	}
	return upload_files(c, a);
}


/* The board's facts as {"NAME": "value", ...}, kept with its unit. */
static void put_facts(struct join *j, size_t b, const struct board_facts *bf)
{
	json_t *o = json_object();
	for (size_t k = 0; k < bf->n; k++)
		json_object_set_new(o, bf->items[k].name, json_string(bf->items[k].value ?
								      bf->items[k].value : ""));
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char unit[24], err[512];
	snprintf(unit, sizeof(unit), "%zu", b);
	const char *p[] = { j->name, unit, text };
	if (!join_q_ok(j, "UPDATE orch_unit SET facts = $3 WHERE run = $1 AND idx = $2::int", 3, p, err,
		  sizeof(err)))
		log_warn("join %s: board facts: %s", j->name, err);
	free(text);
}

static void claims_item_done(void *ctx, const struct plan_item *item, const struct test_result *tr,
			     const struct board_facts *facts)
{
	struct join *j = ctx;
	size_t b, i;
	if (!locate(j, item, &b, &i) || (tr->status == STATUS_SKIP && interrupt_requested()))
		return;   /* interrupted before it ran: it runs elsewhere */
	if (facts)
		put_facts(j, b, facts);
	pthread_mutex_lock(&j->mu);
	bool retried = j->retried[b];
	pthread_mutex_unlock(&j->mu);
	struct test_result copy;
	test_result_copy(&copy, tr);
	free(copy.controller);
	copy.controller = xstrdup(j->controller);
	copy.retried = retried;
	json_t *o = test_result_to_json(&copy);
	char *json = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	test_result_release(&copy);
	char unit[24], seq[24], err[512] = "";
	snprintf(unit, sizeof(unit), "%zu", b);
	snprintf(seq, sizeof(seq), "%zu", i);
	char *dir = tr->log_dir ? fs_path_join(j->folder, tr->log_dir) : NULL;
	struct record_args a = { j, unit, seq, json, retried ? "true" : "false", dir, err,
				 sizeof(err) };
	if (coord_db_in_tx(j->db, record_tx, &a, -1, a.err, a.errlen) < 0)
		log_error("join %s: recording %s/%s: %s", j->name, tr->board, tr->test, err);
	else {
		pthread_mutex_lock(&j->mu);
		j->done[b][i] = true;
		j->mine[b][i] = true;
		pthread_mutex_unlock(&j->mu);
	}
	free(dir);
	free(json);
}

static void claims_board_done(void *ctx, size_t board_index, bool interrupted)
{
	struct join *j = ctx;
	char unit[24], err[512];
	snprintf(unit, sizeof(unit), "%zu", board_index);
	const char *p[] = { j->name, unit };
	const char *sql = interrupted
		? "UPDATE orch_unit SET state = 'queued', claimed_by = NULL, claimed_pid = NULL,"
		  " claimed_start = NULL WHERE run = $1 AND idx = $2::int AND claimed_pid ="
		  " pg_backend_pid() AND EXISTS (SELECT 1 FROM orch_item i WHERE i.run = $1 AND"
		  " i.unit = $2::int AND NOT i.done)"
		: "UPDATE orch_unit SET state = 'done' WHERE run = $1 AND idx = $2::int AND"
		  " claimed_pid = pg_backend_pid()";
	if (!join_q_ok(j, sql, 2, p, err, sizeof(err)))
		log_error("join %s: %s", j->name, err);
	if (interrupted)   /* a board finished before the interrupt is done all the same */
		join_q_ok(j, "UPDATE orch_unit SET state = 'done' WHERE run = $1 AND idx = $2::int AND "
			"claimed_pid = pg_backend_pid() AND state = 'claimed'", 2, p, err, sizeof(err));
}

static int claims_acquire(void *ctx, const struct board *const *boards, size_t n, bool role,
			  char *msg, size_t msglen)
{
	struct join *j = ctx;
	struct plan_claims cl;
	run_locks_schedule_claims(j->locks, &cl);
	return cl.acquire(cl.ctx, boards, n, role, msg, msglen);
}

static void claims_release(void *ctx, const struct board *const *boards, size_t n)
{
	struct join *j = ctx;
	struct plan_claims cl;
	run_locks_schedule_claims(j->locks, &cl);
	cl.release(cl.ctx, boards, n);
}

static bool claims_held(void *ctx, const struct board *board, char *why, size_t len)
{
	struct join *j = ctx;
	return run_locks_held(j->locks, board->name, why, len);
}

void join_schedule_claims(struct join *j, struct run_locks *h, struct plan_claims *cl)
{
	j->locks = h;
	cl->held = claims_held;
	cl->acquire = claims_acquire;
	cl->release = claims_release;
	cl->next_board = claims_next;
	cl->item_wanted = claims_wanted;
	cl->board_done = claims_board_done;
	cl->item_done = claims_item_done;
	cl->ctx = j;
}
