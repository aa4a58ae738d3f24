/* Acknowledged changes: recorded, removed, listed, and matched to series. */
#include "history/history.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The key columns of a, in the order of the WHERE clause of key_sql. */
#define KEY_SQL "scenario = ? AND board = ? AND test = ? AND metric = ? AND run_id = ?"

static void key_vals(const struct history_ack *a, struct db_val *v)
{
	v[0] = DB_TEXT(or_empty(a->scenario));
	v[1] = DB_TEXT(or_empty(a->board));
	v[2] = DB_TEXT(or_empty(a->test));
	v[3] = DB_TEXT(or_empty(a->metric));
	v[4] = DB_TEXT(or_empty(a->run_id));
}

int history_ack_add(struct db *db, const struct history_ack *a, char *err, size_t errlen)
{
	struct db_val v[8];
	key_vals(a, v);
	v[5] = DB_TEXT(or_empty(a->note));
	v[6] = DB_TEXT(a->who);
	v[7] = DB_INT(a->created_us);
	int rc = db_begin(db, err, errlen);
	if (rc == 0)
		rc = db_exec(db, "DELETE FROM history_ack WHERE " KEY_SQL, v, 5, NULL, err, errlen);
	if (rc == 0)
		rc = db_exec(db, "INSERT INTO history_ack (scenario, board, test, metric, run_id, note,"
			     " who, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", v, 8, NULL, err, errlen);
	if (rc == 0)
		rc = db_commit(db, err, errlen);
	if (rc < 0)
		db_rollback(db);
	return rc;
}

int history_ack_delete(struct db *db, const struct history_ack *a, size_t *removed, char *err,
		       size_t errlen)
{
	struct db_val v[5];
	key_vals(a, v);
	*removed = 0;
	int rc = db_exec(db, "DELETE FROM history_ack WHERE " KEY_SQL, v, 5, NULL, err, errlen);
	if (rc == 0)
		*removed = (size_t)db_changes(db);
	return rc;
}

int history_ack_list(struct db *db, const char *scenario, struct history_ack **out, size_t *n,
		     char *err, size_t errlen)
{
	struct db_val v[] = { DB_TEXT(scenario) };
	struct db_rows *r = NULL;
	*out = NULL;
	*n = 0;
	int rc = db_exec(db, scenario
			 ? "SELECT scenario, board, test, metric, run_id, note, who, created_us FROM"
			   " history_ack WHERE scenario = ? ORDER BY scenario, metric, test, board,"
			   " created_us"
			 : "SELECT scenario, board, test, metric, run_id, note, who, created_us FROM"
			   " history_ack ORDER BY scenario, metric, test, board, created_us",
			 v, scenario ? 1 : 0, &r, err, errlen);
	if (rc < 0)
		return rc;
	struct history_ack *a = xcalloc(r->nrows ? (size_t)r->nrows : 1, sizeof(*a));
	for (int i = 0; i < r->nrows; i++) {
		char **f[] = { &a[i].scenario, &a[i].board, &a[i].test, &a[i].metric, &a[i].run_id,
			       &a[i].note, &a[i].who };
		for (int c = 0; c < 7; c++)
			*f[c] = xstrdup(or_empty(db_cell(r, i, c)));
		a[i].created_us = db_cell_int(r, i, 7, 0);
	}
	*out = a;
	*n = (size_t)r->nrows;
	db_rows_free(r);
	return 0;
}

void history_acks_free(struct history_ack *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++) {
		free(a[i].scenario);
		free(a[i].board);
		free(a[i].test);
		free(a[i].metric);
		free(a[i].run_id);
		free(a[i].note);
		free(a[i].who);
	}
	free(a);
}

bool history_ack_matches(const struct history_ack *a, const struct history_series *s)
{
	return !strcmp(a->metric, s->metric) && (!*a->board || !strcmp(a->board, s->board)) &&
	       (!*a->test || !strcmp(a->test, s->test));
}

static const char *const names_sql[] = {
	[HISTORY_SCENARIOS] = "SELECT DISTINCT scenario, NULL FROM history_run ORDER BY 1",
	[HISTORY_BOARDS] = "SELECT DISTINCT m.board, NULL FROM history_metric m JOIN history_run r"
			   " ON m.run = r.id WHERE r.scenario = ? ORDER BY 1",
	[HISTORY_TESTS] = "SELECT DISTINCT m.test, NULL FROM history_metric m JOIN history_run r"
			  " ON m.run = r.id WHERE r.scenario = ? ORDER BY 1",
	[HISTORY_METRICS] = "SELECT DISTINCT m.metric, NULL FROM history_metric m JOIN history_run r"
			    " ON m.run = r.id WHERE r.scenario = ? ORDER BY 1",
	[HISTORY_TEST_METRICS] = "SELECT DISTINCT m.test, m.metric FROM history_metric m"
				 " JOIN history_run r ON m.run = r.id WHERE r.scenario = ?"
				 " ORDER BY 1, 2",
	[HISTORY_RUN_IDS] = "SELECT run_id, NULL FROM history_run WHERE scenario = ?"
			    " ORDER BY start_us, id",
	[HISTORY_LABELS] = "SELECT label, NULL FROM history_run WHERE scenario = ? AND label IS NOT NULL"
			   " ORDER BY start_us, id",
};

static void names_add(char ***v, size_t *n, char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name)) {
			free(name);
			return;
		}
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = name;
	(*v)[*n] = NULL;
}

int history_names(struct db *db, const char *scenario, enum history_names_of what, char ***out,
		  char *err, size_t errlen)
{
	struct db_val v[] = { DB_TEXT(scenario ? scenario : "") };
	struct db_rows *r = NULL;
	size_t n = 0;
	*out = xcalloc(1, sizeof(**out));
	int rc = db_exec(db, names_sql[what], v, what == HISTORY_SCENARIOS ? 0 : 1, &r, err, errlen);
	for (int i = 0; rc == 0 && i < r->nrows; i++) {
		const char *a = db_cell(r, i, 0), *b = db_cell(r, i, 1);
		if (!a)
			continue;
		if (what == HISTORY_TEST_METRICS && b) {
			names_add(out, &n, xasprintf("%s.%s", a, b));
		} else {
			names_add(out, &n, xstrdup(a));
		}
	}
	db_rows_free(r);
	return rc;
}

void history_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

int history_run_of_label(struct db *db, const char *scenario, const char *label, char **run_id,
			 char *err, size_t errlen)
{
	struct db_val v[] = { DB_TEXT(scenario), DB_TEXT(label) };
	struct db_rows *r = NULL;
	*run_id = NULL;
	int rc = db_exec(db, "SELECT run_id FROM history_run WHERE scenario = ? AND label = ?"
			 " ORDER BY start_us, id", v, 2, &r, err, errlen);
	if (rc == 0 && r->nrows == 1) {
		*run_id = xstrdup(db_cell(r, 0, 0));
	} else if (rc == 0) {
		struct strbuf sb = STRBUF_INIT;
		for (int i = 0; i < r->nrows && i < 5; i++)
			strbuf_printf(&sb, "%s%s", i ? ", " : "", db_cell(r, i, 0));
		snprintf(err, errlen, "label '%s' names %d runs of %s (%s%s); give a run id", label,
			 r->nrows, scenario, strbuf_str(&sb), r->nrows > 5 ? ", ..." : "");
		strbuf_release(&sb);
		rc = DB_EUSAGE;
	}
	db_rows_free(r);
	return rc;
}
