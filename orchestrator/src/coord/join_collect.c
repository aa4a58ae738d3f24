/* The merger reads a joined run back: every result, the facts, and the
 * log files of the tests other controllers ran. */
#include "coord/join_int.h"
#include "result/result_json.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
}

/* hex text (encode(data, 'hex')) back to bytes. */
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

/* The files another controller recorded for a test, into the merged run
 * folder under log_dir (BOARD/TEST), written by the store. */
static int write_files(struct join *j, const char *unit, const char *seq, struct store *st,
		       const char *log_dir, char *err, size_t errlen)
{
	const char *p[] = { j->name, unit, seq };
	struct db_rows *r = join_q(j, "SELECT name, encode(data, 'hex') FROM orch_item_file WHERE"
					       " run = $1 AND unit = $2::int AND seq = $3::int", 3, p,
					    err, errlen);
	if (!r)
		return -1;
	int ret = 0;
	for (int i = 0; ret == 0 && i < r->nrows; i++) {
		size_t n = 0;
		char *data = hex_decode(join_cell(r, i, 1), &n);
		char *safe = fs_safe_name(join_cell(r, i, 0));
		char *rel = xasprintf("%s/%s", log_dir, safe);
		ret = store_write_file(st, rel, data, n, err, errlen);
		free(data);
		free(rel);
		free(safe);
	}
	db_rows_free(r);
	return ret;
}

/* The facts other controllers recorded for their boards, into merged. */
static int collect_facts(struct join *j, struct run_result *merged, char *err, size_t errlen)
{
	const char *p[] = { j->name };
	struct db_rows *r = join_q(j, "SELECT board, facts FROM orch_unit WHERE run = $1 AND facts IS NOT NULL"
			   " ORDER BY idx", 1, p, err, errlen);
	if (!r)
		return -1;
	for (int i = 0; i < r->nrows; i++) {
		const char *board = join_cell(r, i, 0);
		json_t *o = json_loads(join_cell(r, i, 1), 0, NULL);
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

int join_collect(struct join *j, struct store *st, struct run_result *merged, char *err,
		 size_t errlen)
{
	if (collect_facts(j, merged, err, errlen) < 0)
		return -1;
	const char *p[] = { j->name };
	struct db_rows *r = join_q(j, "SELECT unit, seq, board, test, result, controller FROM orch_item WHERE"
			   " run = $1 ORDER BY unit, seq", 1, p, err, errlen);
	if (!r)
		return -1;
	int ret = 0;
	for (int i = 0; ret == 0 && i < r->nrows; i++) {
		struct test_result tr;
		memset(&tr, 0, sizeof(tr));
		json_t *o = !db_cell(r, i, 4) ? NULL : json_loads(join_cell(r, i, 4), 0, NULL);
		char jerr[256];
		if (!o || test_result_from_json(o, &tr, jerr, sizeof(jerr)) < 0) {
			test_result_release(&tr);
			memset(&tr, 0, sizeof(tr));
			tr.board = xstrdup(join_cell(r, i, 2));
			tr.test = xstrdup(join_cell(r, i, 3));
			tr.exit_code = -1;
			tr.status = STATUS_ERROR;
			test_result_set_message(&tr, "no result was recorded for this test");
		}
		json_decref(o);
		long unit = atol(join_cell(r, i, 0)), seq = atol(join_cell(r, i, 1));
		bool here = unit >= 0 && (size_t)unit < j->plan->n_boards && seq >= 0 &&
			    (size_t)seq < j->plan->boards[unit].n_items && j->mine[unit][seq];
		if (tr.log_dir && !!db_cell(r, i, 5) && !here)
			ret = write_files(j, join_cell(r, i, 0), join_cell(r, i, 1), st, tr.log_dir,
					  err, errlen);
		run_result_take(merged, &tr);
	}
	db_rows_free(r);
	return ret;
}
