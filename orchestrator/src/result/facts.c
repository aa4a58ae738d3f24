/* Board facts and history trends in the result model, and the run's name for people. */
#include "result/result.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void board_facts_set(struct board_facts *bf, const char *name, const char *value)
{
	for (size_t i = 0; i < bf->n; i++) {
		if (strcmp(bf->items[i].name, name) == 0) {
			free(bf->items[i].value);
			bf->items[i].value = xstrdup(value);
			return;
		}
	}
	bf->items = xrealloc(bf->items, (bf->n + 1) * sizeof(*bf->items));
	bf->items[bf->n].name = xstrdup(name);
	bf->items[bf->n].value = xstrdup(value);
	bf->n++;
}

const char *board_facts_get(const struct board_facts *bf, const char *name)
{
	for (size_t i = 0; bf && i < bf->n; i++)
		if (strcmp(bf->items[i].name, name) == 0)
			return bf->items[i].value;
	return NULL;
}

void board_facts_release(struct board_facts *bf)
{
	if (!bf)
		return;
	for (size_t i = 0; i < bf->n; i++) {
		free(bf->items[i].name);
		free(bf->items[i].value);
	}
	free(bf->items);
	free(bf->board);
	memset(bf, 0, sizeof(*bf));
}

void run_result_put_facts(struct run_result *run, struct board_facts *bf)
{
	for (size_t i = 0; i < run->n_facts; i++) {
		if (strcmp(run->facts[i].board, bf->board) == 0) {
			board_facts_release(&run->facts[i]);
			run->facts[i] = *bf;
			memset(bf, 0, sizeof(*bf));
			return;
		}
	}
	run->facts = xrealloc(run->facts, (run->n_facts + 1) * sizeof(*run->facts));
	run->facts[run->n_facts++] = *bf;
	memset(bf, 0, sizeof(*bf));
}

const struct board_facts *run_result_facts(const struct run_result *run, const char *board)
{
	for (size_t i = 0; i < run->n_facts; i++)
		if (strcmp(run->facts[i].board, board) == 0)
			return &run->facts[i];
	return NULL;
}

const char *run_result_name(const struct run_result *run)
{
	if (run->label && *run->label)
		return run->label;
	return run->run_id ? run->run_id : "?";
}

char *run_result_fact_values(const struct run_result *run, const char *fact, size_t *n_distinct)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < run->n_facts; i++) {
		const char *v = board_facts_get(&run->facts[i], fact);
		bool seen = false;
		for (size_t k = 0; v && k < i && !seen; k++) {
			const char *w = board_facts_get(&run->facts[k], fact);
			seen = w && strcmp(v, w) == 0;
		}
		if (!v || seen)
			continue;
		if (n++)
			strbuf_puts(&sb, ", ");
		strbuf_puts(&sb, v);
	}
	if (n_distinct)
		*n_distinct = n;
	return n ? strbuf_detach(&sb) : NULL;
}

struct metric_trend *run_result_add_trend(struct run_result *run, const char *board,
					  const char *test, const char *metric)
{
	run->trends = xrealloc(run->trends, (run->n_trends + 1) * sizeof(*run->trends));
	struct metric_trend *t = &run->trends[run->n_trends++];
	memset(t, 0, sizeof(*t));
	t->board = xstrdup(board);
	t->test = xstrdup(test);
	t->metric = xstrdup(metric);
	return t;
}

void metric_trend_add_point(struct metric_trend *t, const char *run_id, const char *label,
			    double value, bool current)
{
	t->points = xrealloc(t->points, (t->n + 1) * sizeof(*t->points));
	struct trend_point *p = &t->points[t->n++];
	p->run_id = xstrdup(run_id);
	p->label = xstrdup(label);
	p->value = value;
	p->current = current;
}

const struct metric_trend *run_result_find_trend(const struct run_result *run, const char *board,
						 const char *test, const char *metric)
{
	for (size_t i = 0; i < run->n_trends; i++) {
		const struct metric_trend *t = &run->trends[i];
		if (!strcmp(t->board, board) && !strcmp(t->test, test) && !strcmp(t->metric, metric))
			return t;
	}
	return NULL;
}
