/* A joined run: the plan queued once, controllers registered, the wait
 * for work or the end, the merged run published. */
#include "coord/join_int.h"
#include "result/result_json.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <openssl/evp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOIN_POLL_MS 250

struct db_rows *join_qc(struct coord_db *c, const char *sql, int n, const char *const *p,
			char *err, size_t errlen)
{
	struct db_rows *r = NULL;
	return coord_db_run(c, sql, p, n, &r, err, errlen) == 0 ? r : NULL;
}

struct db_rows *join_q(struct join *j, const char *sql, int n, const char *const *p, char *err,
		       size_t errlen)
{
	return join_qc(j->db, sql, n, p, err, errlen);
}

bool join_q_ok(struct join *j, const char *sql, int n, const char *const *p, char *err,
	       size_t errlen)
{
	return coord_db_run(j->db, sql, p, n, NULL, err, errlen) == 0;
}

const char *join_cell(const struct db_rows *r, int row, int col)
{
	const char *v = db_cell(r, row, col);
	return v ? v : "";
}

/* The plan as text: one "board\ttest" line per item, in plan order. */
static void plan_sha(const struct plan *p, char hex[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		abort();   /* out of memory: libcrypto's sha256 is always there */
	for (size_t b = 0; b < p->n_boards; b++)
		for (size_t i = 0; i < p->boards[b].n_items; i++) {
			const struct plan_item *it = &p->boards[b].items[i];
			EVP_DigestUpdate(ctx, it->board->name, strlen(it->board->name));
			EVP_DigestUpdate(ctx, "\t", 1);
			EVP_DigestUpdate(ctx, it->test->name, strlen(it->test->name));
			EVP_DigestUpdate(ctx, "\n", 1);
		}
	EVP_DigestFinal_ex(ctx, d, &len);
	EVP_MD_CTX_free(ctx);
	for (unsigned int i = 0; i < 32 && i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* A PostgreSQL text[] literal of the board's controllers, or NULL (any). */
static char *controllers_literal(const struct board *b)
{
	if (!b->n_controllers)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_putc(&sb, '{');
	for (size_t i = 0; i < b->n_controllers; i++) {
		strbuf_puts(&sb, i ? ",\"" : "\"");
		for (const char *c = b->controllers[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				strbuf_putc(&sb, '\\');
			strbuf_putc(&sb, *c);
		}
		strbuf_putc(&sb, '"');
	}
	strbuf_putc(&sb, '}');
	return strbuf_detach(&sb);
}

struct create_args {
	struct join *j;
	const char *scenario;
	char sha[65];
	bool mismatch;
	char *err;
	size_t errlen;
};

static int queue_plan(struct coord_db *c, struct create_args *a)
{
	const struct plan *p = a->j->plan;
	for (size_t b = 0; b < p->n_boards; b++) {
		char idx[24], seq[24];
		snprintf(idx, sizeof(idx), "%zu", b);
		char *ctl = controllers_literal(p->boards[b].board);
		const char *pu[] = { a->j->name, idx, p->boards[b].board->name, ctl };
		struct db_rows *r = join_qc(c, "INSERT INTO orch_unit (run, idx, board, controllers) "
					       "VALUES ($1, $2::int, $3, $4::text[])", 4, pu, a->err,
					    a->errlen);
		free(ctl);
		if (!r)
			return -1;
		db_rows_free(r);
		for (size_t i = 0; i < p->boards[b].n_items; i++) {
			snprintf(seq, sizeof(seq), "%zu", i);
			const char *pi[] = { a->j->name, idx, seq, p->boards[b].board->name,
					     p->boards[b].items[i].test->name };
			r = join_qc(c, "INSERT INTO orch_item (run, unit, seq, board, test) "
					     "VALUES ($1, $2::int, $3::int, $4, $5)", 5, pi, a->err,
					  a->errlen);
			if (!r)
				return -1;
			db_rows_free(r);
		}
	}
	return 0;
}

static int create_tx(struct coord_db *c, void *arg)
{
	struct create_args *a = arg;
	const char *p[] = { a->j->name, a->scenario, a->sha };
	struct db_rows *r = join_qc(c, "INSERT INTO orch_run (name, scenario, plan_sha) VALUES "
				       "($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING name",
				    3, p, a->err, a->errlen);
	if (!r)
		return -1;
	bool created = r->nrows == 1;
	db_rows_free(r);
	if (created)
		return queue_plan(c, a);
	r = join_qc(c, "SELECT plan_sha, scenario FROM orch_run WHERE name = $1", 1, p, a->err,
			  a->errlen);
	if (!r)
		return -1;
	a->mismatch = strcmp(join_cell(r, 0, 0), a->sha) != 0;
	if (a->mismatch)
		snprintf(a->err, a->errlen, "run '%s' was started with another plan (scenario %s): "
			 "the same scenario, inventory, -l and --repeat on every controller, or "
			 "another --join name", a->j->name, join_cell(r, 0, 1));
	db_rows_free(r);
	return a->mismatch ? -1 : 0;
}


/* Registers this controller under its name: 1, or 0 when a live
 * controller has that name, or JOIN_EDB. */
static int register_as(struct join *j, const char *name, char *err, size_t errlen)
{
	const char *p[] = { j->name, name, j->host, j->folder, j->reach };
	struct db_rows *r = join_q(j, "INSERT INTO orch_controller AS c (run, name, backend_pid, backend_start,"
			   " host, folder, reach) SELECT $1, $2, pid, backend_start, $3, $4, $5 FROM"
			   " pg_stat_activity WHERE pid = pg_backend_pid() ON CONFLICT (run, name) DO"
			   " UPDATE SET backend_pid = excluded.backend_pid, backend_start ="
			   " excluded.backend_start, host = excluded.host, folder = excluded.folder,"
			   " reach = excluded.reach WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a"
			   " WHERE a.pid = c.backend_pid AND a.backend_start = c.backend_start)"
			   " RETURNING name", 5, p, err, errlen);
	if (!r)
		return JOIN_EDB;
	int n = r->nrows;
	db_rows_free(r);
	return n == 1;
}

/* Registers this controller. A name given with --controller that a live
 * controller has is a usage error; a host name gets a suffix instead. */
static int register_controller(struct join *j, char *err, size_t errlen)
{
	for (int k = 1; k < 100; k++) {
		char *name = k == 1 ? xstrdup(j->controller) : xasprintf("%s-%d", j->reach, k);
		int got = register_as(j, name, err, errlen);
		if (got == 1) {
			free(j->controller);
			j->controller = name;
			return 0;
		}
		free(name);
		if (got < 0)
			return got;
		if (j->name_given)
			break;
	}
	snprintf(err, errlen, "controller '%s' has already joined run '%s' and is still running; "
		 "give each controller its own --controller NAME", j->controller, j->name);
	return JOIN_EUSAGE;
}

int join_open(struct coord_db *db, const struct plan *p, const char *scenario,
	      const struct join_options *o, struct join **out, char *err, size_t errlen)
{
	struct join *j = xcalloc(1, sizeof(*j));
	char host[128] = "?";
	gethostname(host, sizeof(host) - 1);
	j->db = db;
	j->plan = p;
	j->name = xstrdup(o->name);
	j->controller = xstrdup(o->controller);
	j->reach = xstrdup(o->controller);
	j->name_given = o->name_given;
	j->host = xstrdup(host);
	j->folder = xstrdup(o->folder);
	j->join_wait_ms = o->join_wait_ms;
	pthread_mutex_init(&j->mu, NULL);
	j->retried = xcalloc(p->n_boards + 1, sizeof(*j->retried));
	j->done = xcalloc(p->n_boards + 1, sizeof(*j->done));
	j->mine = xcalloc(p->n_boards + 1, sizeof(*j->mine));
	for (size_t b = 0; b < p->n_boards; b++) {
		j->done[b] = xcalloc(p->boards[b].n_items + 1, sizeof(**j->done));
		j->mine[b] = xcalloc(p->boards[b].n_items + 1, sizeof(**j->mine));
	}
	struct create_args a = { .j = j, .scenario = scenario, .err = err, .errlen = errlen };
	plan_sha(p, a.sha);
	int ret = coord_db_in_tx(db, create_tx, &a, -1, err, errlen);
	if (ret < 0)
		ret = a.mismatch ? JOIN_EUSAGE : JOIN_EDB;
	else
		ret = register_controller(j, err, errlen);
	if (ret < 0) {
		join_free(j);
		j = NULL;
	}
	*out = j;
	return ret;
}

bool join_requeue_lost(struct join *j, char *err, size_t errlen)
{
	const char *p[] = { j->name };
	struct db_rows *r = join_q(j, "UPDATE orch_unit u SET state = 'queued', claimed_by = NULL, claimed_pid ="
			   " NULL, claimed_start = NULL WHERE run = $1 AND state = 'claimed' AND NOT"
			   " EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = u.claimed_pid AND"
			   " a.backend_start = u.claimed_start) RETURNING board, claimed_by",
			1, p, err, errlen);
	if (!r)
		return false;
	for (int i = 0; i < r->nrows; i++)
		log_warn("join %s: board %s goes back to the queue: the controller that had it "
			 "is gone", j->name, join_cell(r, i, 0));
	db_rows_free(r);
	return true;
}

/* An error result for every unrecorded test of a unit no live controller
 * may take, once the run is older than join_wait_ms; the unit is done. */
static bool give_up_stranded(struct join *j, char *err, size_t errlen)
{
	char wait_s[32];
	snprintf(wait_s, sizeof(wait_s), "%" PRId64 " milliseconds", j->join_wait_ms);
	const char *p[] = { j->name, wait_s };
	struct db_rows *r = join_q(j, "UPDATE orch_unit u SET state = 'done' WHERE run = $1 AND state ="
			   " 'queued' AND (SELECT created FROM orch_run WHERE name = $1) < now() -"
			   " $2::interval AND NOT EXISTS (SELECT 1 FROM orch_controller c JOIN"
			   " pg_stat_activity a ON a.pid = c.backend_pid AND a.backend_start ="
			   " c.backend_start WHERE c.run = u.run AND (u.controllers IS NULL OR c.reach"
			   " = ANY(u.controllers))) RETURNING idx, board, array_to_string(controllers,"
			   " ', ')", 2, p, err, errlen);
	if (!r)
		return false;
	bool ok = true;
	for (int row = 0; ok && row < r->nrows; row++) {
		const char *idx = join_cell(r, row, 0), *board = join_cell(r, row, 1);
		log_warn("join %s: no controller that may take board %s (controllers: %s) joined; "
			 "its tests end as error", j->name, board, join_cell(r, row, 2));
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		tr.board = xstrdup(board);
		tr.exit_code = -1;
		tr.status = STATUS_ERROR;
		test_result_set_message(&tr, "no controller that may take this board (controllers: "
					     "%s) joined the run", join_cell(r, row, 2));
		const char *pi[] = { j->name, idx, NULL };
		struct db_rows *items = join_q(j, "SELECT seq, test FROM orch_item WHERE run = $1 AND unit ="
				       " $2::int AND NOT done", 2, pi, err, errlen);
		for (int k = 0; items && k < items->nrows; k++) {
			free(tr.test);
			tr.test = xstrdup(join_cell(items, k, 1));
			json_t *o = test_result_to_json(&tr);
			char *json = json_dumps(o, JSON_COMPACT);
			json_decref(o);
			const char *pu[] = { j->name, idx, join_cell(items, k, 0), json };
			ok = join_q_ok(j, "UPDATE orch_item SET done = true, result = $4 WHERE run = $1 AND"
				     " unit = $2::int AND seq = $3::int AND NOT done", 4, pu, err, errlen);
			free(json);
		}
		ok = ok && items;
		db_rows_free(items);
		test_result_release(&tr);
	}
	db_rows_free(r);
	return ok;
}

struct run_state {
	long queued_mine, not_done;
	bool merged, merger_alive;
	int exit_code;
};

static bool read_state(struct join *j, struct run_state *s, char *err, size_t errlen)
{
	const char *p[] = { j->name, j->reach };
	struct db_rows *r = join_q(j, "SELECT (SELECT count(*) FROM orch_unit WHERE run = $1 AND state ="
			   " 'queued' AND (controllers IS NULL OR $2 = ANY(controllers))), (SELECT"
			   " count(*) FROM orch_unit WHERE run = $1 AND state <> 'done'), exit_code,"
			   " merged_by IS NOT NULL, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE"
			   " a.pid = merger_pid AND a.backend_start = merger_start) FROM orch_run"
			   " WHERE name = $1", 2, p, err, errlen);
	if (!r)
		return false;
	bool ok = r->nrows == 1;
	if (ok) {
		s->queued_mine = atol(join_cell(r, 0, 0));
		s->not_done = atol(join_cell(r, 0, 1));
		s->exit_code = !db_cell(r, 0, 2) ? -1 : atoi(join_cell(r, 0, 2));
		s->merged = !strcmp(join_cell(r, 0, 3), "t");
		s->merger_alive = !strcmp(join_cell(r, 0, 4), "t");
	} else {
		snprintf(err, errlen, "run '%s' is gone from the database", j->name);
	}
	db_rows_free(r);
	return ok;
}

/* Becomes the merger unless a live controller already is. */
static int try_merge(struct join *j, char *err, size_t errlen)
{
	const char *p[] = { j->name, j->controller };
	struct db_rows *r = join_q(j, "UPDATE orch_run SET merged_by = $2, merger_pid = pg_backend_pid(),"
			   " merger_start = (SELECT backend_start FROM pg_stat_activity WHERE pid ="
			   " pg_backend_pid()) WHERE name = $1 AND exit_code IS NULL AND (merged_by IS"
			   " NULL OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid ="
			   " merger_pid AND a.backend_start = merger_start)) RETURNING name", 2, p,
			err, errlen);
	if (!r)
		return -1;
	int got = r->nrows == 1;
	db_rows_free(r);
	return got;
}

enum join_state join_wait(struct join *j, int *exit_code, char *err, size_t errlen)
{
	for (;;) {
		if (interrupt_requested())
			return JOIN_INTERRUPTED;
		struct run_state s;
		if (!join_requeue_lost(j, err, errlen) || !read_state(j, &s, err, errlen))
			return JOIN_FAILED;
		if (s.exit_code >= 0) {
			*exit_code = s.exit_code;
			return JOIN_DONE;
		}
		if (s.queued_mine > 0)
			return JOIN_MORE;
		if (s.not_done == 0 && (!s.merged || !s.merger_alive)) {
			int got = try_merge(j, err, errlen);
			if (got < 0)
				return JOIN_FAILED;
			if (got)
				return JOIN_MERGE;
		}
		if (s.not_done > 0 && j->join_wait_ms >= 0 && !give_up_stranded(j, err, errlen))
			return JOIN_FAILED;
		struct timespec ts = { 0, JOIN_POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
}

int join_publish(struct join *j, int exit_code, const char *folder, char *err, size_t errlen)
{
	char code[16];
	snprintf(code, sizeof(code), "%d", exit_code);
	char *where = xasprintf("%s:%s", j->host, folder);
	const char *p[] = { j->name, code, where };
	bool ok = join_q_ok(j, "UPDATE orch_run SET exit_code = $2::int, merged_folder = $3 WHERE name ="
			  " $1", 3, p, err, errlen);
	free(where);
	return ok ? 0 : -1;
}

static char *one_value(struct join *j, const char *sql)
{
	const char *p[] = { j->name };
	char err[256];
	struct db_rows *r = join_q(j, sql, 1, p, err, sizeof(err));
	char *v = r && r->nrows == 1 && !!db_cell(r, 0, 0) ? xstrdup(join_cell(r, 0, 0))
								    : NULL;
	db_rows_free(r);
	return v;
}

char *join_merged_folder(struct join *j)
{
	return one_value(j, "SELECT merged_folder FROM orch_run WHERE name = $1");
}

const char *join_controller_name(const struct join *j)
{
	return j->controller;
}

char *join_controllers(struct join *j)
{
	char *v = one_value(j, "SELECT string_agg(name, ', ' ORDER BY name) FROM orch_controller "
			       "WHERE run = $1");
	return v ? v : xstrdup("");
}

void join_free(struct join *j)
{
	if (!j)
		return;
	for (size_t b = 0; b < j->plan->n_boards; b++) {
		free(j->done[b]);
		free(j->mine[b]);
	}
	free(j->done);
	free(j->mine);
	free(j->reach);
	free(j->retried);
	free(j->name);
	free(j->controller);
	free(j->host);
	free(j->folder);
	pthread_mutex_destroy(&j->mu);
	free(j);
}
