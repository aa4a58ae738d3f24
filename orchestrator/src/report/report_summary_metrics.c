/* The summary's figures: a line per test x metric across its boards
 * ("disk dd.write: median 950 MB/s, 902-999 MB/s over 64 boards; low b17
 * 902 MB/s"), with the change against the baseline in compare/range.h's
 * words; a test measured on one board has its figures packed on a few
 * lines. Every number a test measured is in the text. */
#include "report/report_text.h"
#include "report/summary_int.h"
#include "compare/range.h"
#include "util/stats.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_WRAP 100
#define METRICS_MAX_LINE 400
/* boards named as outside the others, on each side */
#define METRICS_MAX_OUTLIERS 4

/* One figure of one board: a metric, or a phase's instant (m NULL). */
struct figure {
	const char *board;
	const struct metric_result *m;
	const struct phase_result *ph;
	double value;
};

/* A test x metric over the boards that measured it. */
struct series {
	char *name;            /* the metric's, or "phase NAME" */
	const char *unit;
	struct figure *f;
	size_t n;
};

struct test_figures {
	struct series *s;
	size_t n;
	const char **boards;   /* boards with a figure */
	size_t n_boards;
};

static struct series *series_of(struct test_figures *tf, const char *name, const char *unit)
{
	for (size_t i = 0; i < tf->n; i++)
		if (!strcmp(tf->s[i].name, name))
			return &tf->s[i];
	tf->s = xrealloc(tf->s, (tf->n + 1) * sizeof(*tf->s));
	tf->s[tf->n] = (struct series){ .name = xstrdup(name), .unit = unit };
	return &tf->s[tf->n++];
}

static void series_add(struct series *s, struct figure f)
{
	s->f = xrealloc(s->f, (s->n + 1) * sizeof(*s->f));
	s->f[s->n++] = f;
}

static void figures_collect(struct test_figures *tf, const struct summary_run *sr,
			    const char *test)
{
	memset(tf, 0, sizeof(*tf));
	tf->boards = xcalloc(sr->n_boards + 1, sizeof(*tf->boards));
	for (size_t i = 0; i < sr->run->n_results; i++) {
		const struct test_result *tr = &sr->run->results[i];
		if (strcmp(tr->test, test))
			continue;
		bool any = false;
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			series_add(series_of(tf, mr->name, mr->unit),
				   (struct figure){ tr->board, mr, NULL, mr->median });
			any = true;
		}
		for (size_t p = 0; p < tr->n_phases; p++) {
			const struct phase_result *ph = &tr->phases[p];
			if (!ph->reached)
				continue;
			char *name = xasprintf("phase %s", ph->name);
			series_add(series_of(tf, name, "s"),
				   (struct figure){ tr->board, NULL, ph, ph->offset_s });
			free(name);
			any = true;
		}
		if (any && tf->n_boards < sr->n_boards)
			tf->boards[tf->n_boards++] = tr->board;
	}
}

static void figures_release(struct test_figures *tf)
{
	for (size_t i = 0; i < tf->n; i++) {
		free(tf->s[i].name);
		free(tf->s[i].f);
	}
	free(tf->s);
	free(tf->boards);
}

/* One figure alone: "mem.memcpy 25.65 ± 0.29 MiB/s -12.0% regression",
 * "phase login at 21.6s". */
static void figure_put(struct strbuf *sb, const struct series *s, const struct figure *f)
{
	if (f->m) {
		report_fmt_named_metric(sb, f->m);
		return;
	}
	char d[32];
	report_fmt_duration(d, sizeof(d), f->value);
	strbuf_printf(sb, "%s at %s", s->name, d);
}

/* A figure's value alone: "25.65 ± 0.29 MiB/s -12.0% regression". */
static void figure_value(struct strbuf *sb, const struct figure *f)
{
	if (!f->m) {
		valfmt_value(sb, f->value, "s");
		return;
	}
	report_fmt_metric(sb, f->m);
	if (f->m->change != METRIC_CHANGE_NONE) {
		strbuf_putc(sb, ' ');
		range_metric_change(sb, f->m, NAN);
	}
}

/* A test measured on one board: "TEST on BOARD: a 1 MB/s, b 2 ms, ...",
 * wrapped, every figure of it. */
static void one_board(struct strbuf *sb, const char *test, const struct test_figures *tf)
{
	struct strbuf line = STRBUF_INIT;
	strbuf_printf(&line, "  %s on %s:", test, tf->boards[0]);
	for (size_t i = 0; i < tf->n; i++) {
		struct strbuf one = STRBUF_INIT;
		figure_put(&one, &tf->s[i], &tf->s[i].f[0]);
		/* an acknowledged change is named where its figure is */
		const struct metric_result *m = tf->s[i].f[0].m;
		if (m && m->change != METRIC_CHANGE_NONE && m->verdict.ack_run)
			range_metric_evidence(&one, m);
		char *c = report_clean_line(strbuf_str(&one), METRICS_MAX_LINE);
		if (line.len > 4 && report_width(line.buf) + report_width(c) + 2 > METRICS_WRAP) {
			/* the line that names the test ends with its colon */
			strbuf_printf(sb, "%s%s\n", line.buf, i ? "," : "");
			strbuf_reset(&line);
			strbuf_printf(&line, "    %s", c);
		} else {
			strbuf_printf(&line, "%s %s", i ? "," : "", c);
		}
		free(c);
		strbuf_release(&one);
	}
	strbuf_printf(sb, "%s\n", line.buf);
	strbuf_release(&line);
}

/* "; low b17 902 MB/s, b3 910 MB/s": the boards far from the others
 * (stats_outliers), the farthest first. */
static void outliers(struct strbuf *sb, const struct series *s, double med,
		     const struct valfmt_scale *sc)
{
	double *v = xcalloc(s->n, sizeof(*v));
	size_t *idx = xcalloc(METRICS_MAX_OUTLIERS, sizeof(*idx));
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->f[i].value;
	for (int side = 0; side < 2; side++) {
		size_t k = stats_outliers(v, s->n, med, side, idx, METRICS_MAX_OUTLIERS);
		for (size_t j = 0; j < k; j++) {
			strbuf_printf(sb, "%s%s ", j ? ", " : side ? "; high " : "; low ",
				      s->f[idx[j]].board);
			valfmt_scaled(sb, s->f[idx[j]].value, sc);
			strbuf_printf(sb, "%s%s", *sc->unit ? " " : "", sc->unit);
		}
	}
	free(idx);
	free(v);
}

/* The change against the baseline over the boards: compare/range.h's line
 * for this test x metric, without its "TEST.METRIC: " start. */
static void change_range(struct strbuf *sb, const struct range_lines *rl, const char *test,
			 const struct series *s)
{
	for (size_t i = 0; i < rl->n; i++) {
		const struct range_line *l = &rl->lines[i];
		if (strcmp(l->test, test) || strcmp(l->metric, s->name))
			continue;
		const char *text = l->text + strlen(test) + 1 + strlen(s->name);
		if (!strncmp(text, ": ", 2))
			text += 2;
		strbuf_printf(sb, "; %s", text);
	}
}

/* "  TEST METRIC: median 950 MB/s, 902-999 MB/s over 64 boards; low b17
 * 902; CHANGE" or "  TEST METRIC: 12 on all 64 boards". */
static void across(struct strbuf *sb, const struct summary_run *sr, const struct range_lines *rl,
		   const char *test, const struct series *s)
{
	struct strbuf line = STRBUF_INIT;
	strbuf_printf(&line, "%s %s: ", test, s->name);
	if (s->n == 1) {
		figure_value(&line, &s->f[0]);
		strbuf_printf(&line, " on %s", s->f[0].board);
	} else {
		double *v = xcalloc(s->n, sizeof(*v));
		for (size_t i = 0; i < s->n; i++)
			v[i] = s->f[i].value;
		double med = stats_median(v, s->n), lo, hi;
		stats_min_max(v, s->n, &lo, &hi);
		free(v);
		const char **b = xcalloc(s->n + 1, sizeof(*b));
		for (size_t i = 0; i < s->n; i++)
			b[i] = s->f[i].board;
		char *set = summary_fold_names(b, s->n);
		free(b);
		bool all = s->n == sr->n_boards;
		if (lo == hi) {
			valfmt_value(&line, med, s->unit);
			if (all)
				strbuf_printf(&line, " on all %zu boards", s->n);
			else
				strbuf_printf(&line, " on %s", set);
		} else {
			struct valfmt_scale sc;
			valfmt_scale_for(med, s->unit, &sc);
			strbuf_puts(&line, "median ");
			valfmt_scaled(&line, med, &sc);
			strbuf_printf(&line, "%s%s, ", *sc.unit ? " " : "", sc.unit);
			valfmt_scaled(&line, lo, &sc);
			strbuf_puts(&line, " to ");
			valfmt_scaled(&line, hi, &sc);
			strbuf_printf(&line, "%s%s over ", *sc.unit ? " " : "", sc.unit);
			if (all)
				strbuf_printf(&line, "%zu boards", s->n);
			else
				strbuf_puts(&line, set);
			outliers(&line, s, med, &sc);
		}
		free(set);
		change_range(&line, rl, test, s);
		for (size_t i = 0; i < s->n; i++) {
			const struct metric_result *m = s->f[i].m;
			if (m && m->change != METRIC_CHANGE_NONE && m->verdict.ack_run) {
				strbuf_printf(&line, "; on %s", s->f[i].board);
				range_metric_evidence(&line, m);
				break;
			}
		}
	}
	char *c = report_clean_line(strbuf_str(&line), METRICS_MAX_LINE);
	strbuf_printf(sb, "  %s\n", c);
	free(c);
	strbuf_release(&line);
}

void summary_metrics(struct strbuf *sb, const struct summary_run *sr, bool color)
{
	(void)color;
	struct range_lines rl;
	range_lines_of_run(sr->run, &rl);
	struct strbuf body = STRBUF_INIT;
	for (size_t t = 0; t < sr->n_tests; t++) {
		struct test_figures tf;
		figures_collect(&tf, sr, sr->tests[t]);
		char *test = report_clean_line(sr->tests[t], 60);
		if (tf.n && tf.n_boards == 1) {
			one_board(&body, test, &tf);
			/* what each change was judged against, in words */
			for (size_t i = 0; i < rl.n; i++) {
				if (strcmp(rl.lines[i].test, sr->tests[t]))
					continue;
				char *c = report_clean_line(rl.lines[i].text, METRICS_MAX_LINE);
				strbuf_printf(&body, "    %s\n", c);
				free(c);
			}
		} else
			for (size_t i = 0; i < tf.n; i++)
				across(&body, sr, &rl, test, &tf.s[i]);
		free(test);
		figures_release(&tf);
	}
	if (body.len) {
		char *name = report_clean_line(range_baseline_name(sr->run), 80);
		if (rl.n)
			strbuf_printf(sb, "figures (against %s):\n", name);
		else
			strbuf_puts(sb, "figures:\n");
		strbuf_append(sb, body.buf, body.len);
		free(name);
	}
	strbuf_release(&body);
	range_lines_release(&rl);
}
