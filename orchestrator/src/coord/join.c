#include "coord/join.h"
#include "result/result_json.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JOIN_POLL_MS 250
/* Log files larger than this stay where they are: the merged folder gets
 * NAME.where with "HOST:PATH" instead. */
#define JOIN_MAX_FILE (16L << 20)

struct join {
	struct coord_db *db;
	const struct plan *plan;
	char *name, *controller, *host, *folder;
	char *reach;                   /* the name the inventory's controllers: lists */
	bool name_given;
	int64_t join_wait_ms;
	struct run_locks *locks;
	pthread_mutex_t mu;            /* retried, done */
	bool *retried;                 /* per plan board: claimed again after a loss */
	bool **done;                   /* per plan board and item: recorded already */
	bool **mine;                   /* ... recorded by this controller (logs here) */
};

/* One statement: its rows (db_rows_free), or NULL with err. */
static struct db_rows *qc(struct coord_db *c, const char *sql, int n, const char *const *p,
			  char *err, size_t errlen)
{
	struct db_rows *r = NULL;
	return coord_db_run(c, sql, p, n, &r, err, errlen) == 0 ? r : NULL;
}

static struct db_rows *q(struct join *j, const char *sql, int n, const char *const *p, char *err,
			 size_t errlen)
{
	return qc(j->db, sql, n, p, err, errlen);
}

static bool q_ok(struct join *j, const char *sql, int n, const char *const *p, char *err,
		 size_t errlen)
{
	return coord_db_run(j->db, sql, p, n, NULL, err, errlen) == 0;
}

/* A cell's text, "" for NULL. */
static const char *cell(const struct db_rows *r, int row, int col)
{
	const char *v = db_cell(r, row, col);
	return v ? v : "";
}

/* A file's bytes as hex text (bytea's decode(.., 'hex')), and back. */
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

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
}

static char *hex_decode(const char *hex, size_t *n)
{
	size_t len = strlen(hex) / 2;
	char *data = xmalloc(len + 1);
	for (size_t i = 0; i < len; i++)
		data[i] = (char)(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
	data[len] = '\0';
	*n = len;
	return data;
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
		struct db_rows *r = qc(c, "INSERT INTO orch_unit (run, idx, board, controllers) "
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
			r = qc(c, "INSERT INTO orch_item (run, unit, seq, board, test) "
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
	struct db_rows *r = qc(c, "INSERT INTO orch_run (name, scenario, plan_sha) VALUES "
				       "($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING name",
				    3, p, a->err, a->errlen);
	if (!r)
		return -1;
	bool created = r->nrows == 1;
	db_rows_free(r);
	if (created)
		return queue_plan(c, a);
	r = qc(c, "SELECT plan_sha, scenario FROM orch_run WHERE name = $1", 1, p, a->err,
			  a->errlen);
	if (!r)
		return -1;
	a->mismatch = strcmp(cell(r, 0, 0), a->sha) != 0;
	if (a->mismatch)
		snprintf(a->err, a->errlen, "run '%s' was started with another plan (scenario %s): "
			 "the same scenario, inventory, -l and --repeat on every controller, or "
			 "another --join name", a->j->name, cell(r, 0, 1));
	db_rows_free(r);
	return a->mismatch ? -1 : 0;
}


/* Registers this controller under its name: 1, or 0 when a live
 * controller has that name, or JOIN_EDB. */
static int register_as(struct join *j, const char *name, char *err, size_t errlen)
{
	const char *p[] = { j->name, name, j->host, j->folder, j->reach };
	struct db_rows *r = q(j, "INSERT INTO orch_controller AS c (run, name, backend_pid, backend_start,"
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

/* Units claimed by sessions that are gone go back to the queue. */
static bool requeue_lost(struct join *j, char *err, size_t errlen)
{
	const char *p[] = { j->name };
	struct db_rows *r = q(j, "UPDATE orch_unit u SET state = 'queued', claimed_by = NULL, claimed_pid ="
			   " NULL, claimed_start = NULL WHERE run = $1 AND state = 'claimed' AND NOT"
			   " EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = u.claimed_pid AND"
			   " a.backend_start = u.claimed_start) RETURNING board, claimed_by",
			1, p, err, errlen);
	if (!r)
		return false;
	for (int i = 0; i < r->nrows; i++)
		log_warn("join %s: board %s goes back to the queue: the controller that had it "
			 "is gone", j->name, cell(r, i, 0));
	db_rows_free(r);
	return true;
}

static long claim(struct join *j, char *err, size_t errlen)
{
	if (!requeue_lost(j, err, errlen))
		return -1;
	const char *p[] = { j->name, j->controller, j->reach };
	struct db_rows *r = q(j, "UPDATE orch_unit SET state = 'claimed', claimed_by = $2, claimed_pid ="
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
		idx = atol(cell(r, 0, 0));
		claims = atoi(cell(r, 0, 1));
	}
	db_rows_free(r);
	if (idx < 0 || (size_t)idx >= j->plan->n_boards)
		return -1;
	char unit[24];
	snprintf(unit, sizeof(unit), "%ld", idx);
	const char *pd[] = { j->name, unit };
	r = q(j, "SELECT seq FROM orch_item WHERE run = $1 AND unit = $2::int AND done", 2, pd, err,
	      errlen);
	pthread_mutex_lock(&j->mu);
	j->retried[idx] = claims > 1;
	for (int i = 0; r && i < r->nrows; i++) {
		long seq = atol(cell(r, i, 0));
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
	struct db_rows *r = qc(c, "UPDATE orch_item i SET done = true, result = $4, controller ="
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
	if (!q_ok(j, "UPDATE orch_unit SET facts = $3 WHERE run = $1 AND idx = $2::int", 3, p, err,
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
	if (!q_ok(j, sql, 2, p, err, sizeof(err)))
		log_error("join %s: %s", j->name, err);
	if (interrupted)   /* a board finished before the interrupt is done all the same */
		q_ok(j, "UPDATE orch_unit SET state = 'done' WHERE run = $1 AND idx = $2::int AND "
			"claimed_pid = pg_backend_pid() AND state = 'claimed'", 2, p, err, sizeof(err));
}

static int claims_acquire(void *ctx, const struct board *const *boards, size_t n, bool role,
			  char *msg, size_t msglen)
{
	struct join *j = ctx;
	struct schedule_claims cl;
	run_locks_schedule_claims(j->locks, &cl);
	return cl.acquire(cl.ctx, boards, n, role, msg, msglen);
}

static void claims_release(void *ctx, const struct board *const *boards, size_t n)
{
	struct join *j = ctx;
	struct schedule_claims cl;
	run_locks_schedule_claims(j->locks, &cl);
	cl.release(cl.ctx, boards, n);
}

static bool claims_held(void *ctx, const struct board *board, char *why, size_t len)
{
	struct join *j = ctx;
	return run_locks_held(j->locks, board->name, why, len);
}

void join_schedule_claims(struct join *j, struct run_locks *h, struct schedule_claims *cl)
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

/* An error result for every unrecorded test of a unit no live controller
 * may take, once the run is older than join_wait_ms; the unit is done. */
static bool give_up_stranded(struct join *j, char *err, size_t errlen)
{
	char wait_s[32];
	snprintf(wait_s, sizeof(wait_s), "%" PRId64 " milliseconds", j->join_wait_ms);
	const char *p[] = { j->name, wait_s };
	struct db_rows *r = q(j, "UPDATE orch_unit u SET state = 'done' WHERE run = $1 AND state ="
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
		const char *idx = cell(r, row, 0), *board = cell(r, row, 1);
		log_warn("join %s: no controller that may take board %s (controllers: %s) joined; "
			 "its tests end as error", j->name, board, cell(r, row, 2));
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		tr.board = xstrdup(board);
		tr.exit_code = -1;
		tr.status = STATUS_ERROR;
		test_result_set_message(&tr, "no controller that may take this board (controllers: "
					     "%s) joined the run", cell(r, row, 2));
		const char *pi[] = { j->name, idx, NULL };
		struct db_rows *items = q(j, "SELECT seq, test FROM orch_item WHERE run = $1 AND unit ="
				       " $2::int AND NOT done", 2, pi, err, errlen);
		for (int k = 0; items && k < items->nrows; k++) {
			free(tr.test);
			tr.test = xstrdup(cell(items, k, 1));
			json_t *o = test_result_to_json(&tr);
			char *json = json_dumps(o, JSON_COMPACT);
			json_decref(o);
			const char *pu[] = { j->name, idx, cell(items, k, 0), json };
			ok = q_ok(j, "UPDATE orch_item SET done = true, result = $4 WHERE run = $1 AND"
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
	struct db_rows *r = q(j, "SELECT (SELECT count(*) FROM orch_unit WHERE run = $1 AND state ="
			   " 'queued' AND (controllers IS NULL OR $2 = ANY(controllers))), (SELECT"
			   " count(*) FROM orch_unit WHERE run = $1 AND state <> 'done'), exit_code,"
			   " merged_by IS NOT NULL, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE"
			   " a.pid = merger_pid AND a.backend_start = merger_start) FROM orch_run"
			   " WHERE name = $1", 2, p, err, errlen);
	if (!r)
		return false;
	bool ok = r->nrows == 1;
	if (ok) {
		s->queued_mine = atol(cell(r, 0, 0));
		s->not_done = atol(cell(r, 0, 1));
		s->exit_code = !db_cell(r, 0, 2) ? -1 : atoi(cell(r, 0, 2));
		s->merged = !strcmp(cell(r, 0, 3), "t");
		s->merger_alive = !strcmp(cell(r, 0, 4), "t");
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
	struct db_rows *r = q(j, "UPDATE orch_run SET merged_by = $2, merger_pid = pg_backend_pid(),"
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
		if (!requeue_lost(j, err, errlen) || !read_state(j, &s, err, errlen))
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

static int write_files(struct join *j, const char *unit, const char *seq, const char *dir,
		       char *err, size_t errlen)
{
	const char *p[] = { j->name, unit, seq };
	struct db_rows *r = q(j, "SELECT name, encode(data, 'hex') FROM orch_item_file WHERE"
					       " run = $1 AND unit = $2::int AND seq = $3::int", 3, p,
					    err, errlen);
	if (!r)
		return -1;
	int ret = fs_mkdir_p(dir, err, errlen);
	for (int i = 0; ret == 0 && i < r->nrows; i++) {
		size_t n = 0;
		char *data = hex_decode(cell(r, i, 1), &n);
		char *name = xstrdup(cell(r, i, 0));
		char *safe = fs_safe_name(name);
		char *path = fs_path_join(dir, safe);
		ret = fs_replace_file(path, data, n, err, errlen);
		free(data);
		free(path);
		free(safe);
		free(name);
	}
	db_rows_free(r);
	return ret;
}

/* The facts other controllers recorded for their boards, into merged. */
static int collect_facts(struct join *j, struct run_result *merged, char *err, size_t errlen)
{
	const char *p[] = { j->name };
	struct db_rows *r = q(j, "SELECT board, facts FROM orch_unit WHERE run = $1 AND facts IS NOT NULL"
			   " ORDER BY idx", 1, p, err, errlen);
	if (!r)
		return -1;
	for (int i = 0; i < r->nrows; i++) {
		const char *board = cell(r, i, 0);
		json_t *o = json_loads(cell(r, i, 1), 0, NULL);
		if (!o || run_result_facts(merged, board)) {
			json_decref(o);
			continue;   /* this controller's own facts are there already */
		}
		struct board_facts bf = { .board = xstrdup(board) };
		const char *key;
		json_t *v;
		json_object_foreach(o, key, v)
			board_facts_set(&bf, key, json_string_value(v));
		run_result_put_facts(merged, &bf);
		board_facts_release(&bf);
		json_decref(o);
	}
	db_rows_free(r);
	return 0;
}

int join_collect(struct join *j, const char *folder, struct run_result *merged, char *err,
		 size_t errlen)
{
	if (collect_facts(j, merged, err, errlen) < 0)
		return -1;
	const char *p[] = { j->name };
	struct db_rows *r = q(j, "SELECT unit, seq, board, test, result, controller FROM orch_item WHERE"
			   " run = $1 ORDER BY unit, seq", 1, p, err, errlen);
	if (!r)
		return -1;
	int ret = 0;
	for (int i = 0; ret == 0 && i < r->nrows; i++) {
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		json_t *o = !db_cell(r, i, 4) ? NULL : json_loads(cell(r, i, 4), 0, NULL);
		char jerr[256];
		if (!o || test_result_from_json(o, &tr, jerr, sizeof(jerr)) < 0) {
			test_result_release(&tr);
			memset(&tr, 0, sizeof(tr));
			tr.board = xstrdup(cell(r, i, 2));
			tr.test = xstrdup(cell(r, i, 3));
			tr.exit_code = -1;
			tr.status = STATUS_ERROR;
			test_result_set_message(&tr, "no result was recorded for this test");
		}
		json_decref(o);
		long unit = atol(cell(r, i, 0)), seq = atol(cell(r, i, 1));
		bool here = unit >= 0 && (size_t)unit < j->plan->n_boards && seq >= 0 &&
			    (size_t)seq < j->plan->boards[unit].n_items && j->mine[unit][seq];
		if (tr.log_dir && !!db_cell(r, i, 5) && !here) {
			char *dir = fs_path_join(folder, tr.log_dir);
			ret = write_files(j, cell(r, i, 0), cell(r, i, 1), dir, err, errlen);
			free(dir);
		}
		run_result_take(merged, &tr);
	}
	db_rows_free(r);
	return ret;
}

int join_publish(struct join *j, int exit_code, const char *folder, char *err, size_t errlen)
{
	char code[16];
	snprintf(code, sizeof(code), "%d", exit_code);
	char *where = xasprintf("%s:%s", j->host, folder);
	const char *p[] = { j->name, code, where };
	bool ok = q_ok(j, "UPDATE orch_run SET exit_code = $2::int, merged_folder = $3 WHERE name ="
			  " $1", 3, p, err, errlen);
	free(where);
	return ok ? 0 : -1;
}

static char *one_value(struct join *j, const char *sql)
{
	const char *p[] = { j->name };
	char err[256];
	struct db_rows *r = q(j, sql, 1, p, err, sizeof(err));
	char *v = r && r->nrows == 1 && !!db_cell(r, 0, 0) ? xstrdup(cell(r, 0, 0))
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
