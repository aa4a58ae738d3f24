/* orch history: the nights of a scenario from the history database, and
 * importing run folders into it. */
#include "cli/cli.h"
#include "config/config.h"
#include "cli/common.h"
#include "cli/history_ack.h"
#include "db/db.h"
#include "history/history.h"
#include "history/history_fold.h"
#include "history/history_html.h"
#include "result/result_json.h"
#include "util/log.h"
#include "util/nodeset.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/valfmt.h"
#include "util/xmltext.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch history SCENARIO [options]\n"
	"       orch history import RUNS_DIR [--rebuild] [--db URL]\n"
	"       orch history ack SCENARIO METRIC --at RUN --note TEXT [-l BOARD]...\n"
	"       orch history ack --list [SCENARIO] | --delete SCENARIO METRIC --at RUN\n"
	"\n"
	"Prints, per test and metric with the boards folded (or per board and\n"
	"metric), the last runs of SCENARIO with their labels,\n"
	"from the history every orch run writes (RUNS_DIR/orch-history.sqlite, or\n"
	"the PostgreSQL database of --db / $ORCH_DB). A step the history's judge\n"
	"finds is marked at the run where it appeared, an accepted one (ack) named.\n"
	"'import' indexes existing run folders (again); --rebuild forgets the runs\n"
	"(not the acks) first and rebuilds them from the folders.\n"
	"\n"
	"  -o, --runs-dir DIR     the runs folder whose history to read\n"
	"                         (default: $ORCH_RUNS_DIR, else ./runs)\n"
	"      --db URL           postgresql://USER@HOST:PORT/DB or an SQLite file\n"
	"  -l, --limit BOARD      only this board, or node set b[01-04] (repeatable);\n"
	"                         a line per board x metric, as --per-board\n"
	"      --per-board        a line per board x metric instead of one per test x\n"
	"                         metric across the boards\n"
	"      --metric M         only this metric (NAME or TEST.NAME)\n"
	"      --last N           the last N runs per metric (default 10; 0: all)\n"
	"      --threshold PCT    smallest step worth marking (default 5)\n"
	"      --settle N         a step either way is the new normal after N runs, as\n"
	"                         orch run --settle N (default: a regression stays one\n"
	"                         until acknowledged, a step for the better after 3)\n"
	"      --format F         text (default: a line per test x metric, the boards\n"
	"                         folded: their median, range and those that differ), runs (every\n"
	"                         run a line), csv, json, or html (one self-contained\n"
	"                         page: the text's rows with a chart each, every board's\n"
	"                         chart under its row), on stdout\n"
	"  -h, --help             this text\n";

struct history_options {
	const char *runs_dir;
	const char *db;
	const char **boards;
	size_t n_boards;
	const char *metric;
	int last;
	struct history_walk_opts walk;
	const char *format;
	bool rebuild;
	bool per_board;
	char **kept;               /* the names of -l's node sets, owned */
	size_t n_kept;
	const char *arg;
	bool import;
};

static bool yaml_name(const char *s)
{
	size_t n = strlen(s);
	return (n > 5 && strcmp(s + n - 5, ".yaml") == 0) || (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

/* orch history nightly.yaml: the scenario file stands for its name (its
 * name:, else the file name); a file that is not there, or not a scenario,
 * is invalid input. 0, or -1 after saying why. */
static int scenario_file_name(struct history_options *o)
{
	static char name[256];
	if (!yaml_name(o->arg) && !strchr(o->arg, '/'))
		return 0;
	struct diag_list diags = DIAG_LIST_INIT;
	struct scenario *sc = NULL;
	if (access(o->arg, R_OK) != 0) {
		fprintf(stderr, "orch history: %s: no such scenario file (give the scenario's name "
			"or its file)\n", o->arg);
		return -1;
	}
	if (scenario_load_partial(o->arg, &sc, &diags) < 0 && !sc) {
		diag_print(&diags, stderr);
		diag_list_release(&diags);
		return -1;
	}
	diag_list_release(&diags);
	snprintf(name, sizeof(name), "%s", sc->name ? sc->name : o->arg);
	scenario_free(sc);
	o->arg = name;
	return 0;
}

static const char *arg_keep(struct history_options *o, const char *name)
{
	o->kept = xrealloc(o->kept, (o->n_kept + 1) * sizeof(*o->kept));
	return o->kept[o->n_kept++] = xstrdup(name);
}

static void options_release(struct history_options *o)
{
	for (size_t i = 0; i < o->n_kept; i++)
		free(o->kept[i]);
	free(o->kept);
	free(o->boards);
}

/* -l BOARD: a name, or a node set (b[01-04],sw1) expanded into its names. */
static int add_boards(struct history_options *o, const char *arg)
{
	size_t n = 0;
	char **parts = nodeset_split_list(arg, &n);
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		char **names = NULL, err[256];
		size_t k = 0;
		if (!nodeset_is_pattern(parts[i])) {
			cmd_add_arg(&o->boards, &o->n_boards, arg_keep(o, parts[i]));
			continue;
		}
		if (nodeset_expand(parts[i], &names, &k, err, sizeof(err)) < 0) {
			ret = cmd_usage_error("history", "-l %s: %s", arg, err);
			continue;
		}
		for (size_t j = 0; j < k; j++)
			cmd_add_arg(&o->boards, &o->n_boards, arg_keep(o, names[j]));
		nodeset_names_free(names);
	}
	nodeset_names_free(parts);
	return ret;
}

static int parse_options(int argc, char **argv, struct history_options *o)
{
	enum { OPT_DB = 256, OPT_METRIC, OPT_LAST, OPT_FORMAT, OPT_REBUILD, OPT_THRESHOLD,
	       OPT_SETTLE, OPT_PER_BOARD };
	static const struct option longopts[] = {
		{ "runs-dir", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "limit", required_argument, NULL, 'l' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "rebuild", no_argument, NULL, OPT_REBUILD },
		{ "per-board", no_argument, NULL, OPT_PER_BOARD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	o->runs_dir = getenv("ORCH_RUNS_DIR");
	if (!o->runs_dir || !*o->runs_dir)
		o->runs_dir = "runs";
	o->last = HISTORY_DEFAULT_LAST;
	o->walk.threshold = 5;
	o->format = "text";
	optind = 1;
	opterr = 0;
	int c, ret;
	while ((c = getopt_long(argc, argv, ":o:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->runs_dir = optarg; break;
		case OPT_DB: o->db = optarg; break;
		case 'l':
			if ((ret = add_boards(o, optarg)))
				return ret;
			o->per_board = true;
			break;
		case OPT_PER_BOARD: o->per_board = true; break;
		case OPT_METRIC: o->metric = optarg; break;
		case OPT_LAST:
			if ((ret = cmd_int_option("history", "--last", optarg, 0, 100000, &o->last)))
				return ret;
			break;
		case OPT_THRESHOLD:
			if ((ret = cmd_percent_option("history", "--threshold", optarg,
						      &o->walk.threshold)))
				return ret;
			break;
		case OPT_SETTLE: {
			int n;
			if ((ret = cmd_int_option("history", "--settle", optarg, 1, 1000, &n)))
				return ret;
			o->walk.settle = (size_t)n;
			break;
		}
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "csv") && strcmp(optarg, "json") &&
			    strcmp(optarg, "runs") && strcmp(optarg, "html"))
				return cmd_usage_error("history", "--format takes text, runs, csv, json or "
						       "html, found '%s'", optarg);
			o->format = optarg;
			break;
		case OPT_REBUILD: o->rebuild = true; break;
		case 'h': fputs(usage_text, stdout); return -1;
		default: return cmd_option_error("history", c, argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind], "import") == 0) {
		o->import = true;
		optind++;
	}
	if (optind != argc - 1)
		return cmd_usage_error("history", "%s", o->import ? "import which folder? give RUNS_DIR"
								  : "give one SCENARIO name");
	o->arg = argv[optind];
	if (!o->import && scenario_file_name(o) < 0)
		return EXIT_USAGE;
	if (o->rebuild && !o->import)
		return cmd_usage_error("history", "--rebuild goes with 'import RUNS_DIR'");
	return 0;
}

static void fmt_start(char *buf, size_t len, long long us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;
	if (!us || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "-");
}

/* Prints a table: a header and rows of nc cells each (cells[0..nc) the
 * header), the columns in right[] right-aligned, the last one unpadded;
 * frees the cells. */
static void print_table(char **cells, size_t rows, size_t nc, const bool *right)
{
	size_t *width = xcalloc(nc, sizeof(*width));
	for (size_t i = 0; i < (rows + 1) * nc; i++)
		if (utf8_width(cells[i]) > width[i % nc])
			width[i % nc] = utf8_width(cells[i]);
	for (size_t r = 0; r <= rows; r++) {
		for (size_t c = 0; c < nc; c++) {
			const char *cell = cells[r * nc + c];
			int cw = (int)width[c] + (int)(strlen(cell) - utf8_width(cell));
			if (c + 1 == nc)
				printf("%s\n", cell);
			else
				printf(right[c] ? "%*s  " : "%-*s  ", cw, cell);
		}
	}
	for (size_t i = 0; i < (rows + 1) * nc; i++)
		free(cells[i]);
	free(width);
}

static char *metric_cell(const char *metric, bool higher_is_better)
{
	return xasprintf("%s (%s better)", metric, higher_is_better ? "higher" : "lower");
}

/* The per-board STEP cell: the lasting step and the accepted change. */
static char *step_cell(const struct history_series *hs, const struct history_walk_opts *w)
{
	struct strbuf sb = STRBUF_INIT;
	struct history_marks mk;
	history_marks_of(hs, w, &mk);
	if (mk.words) {
		strbuf_puts(&sb, mk.words);
	} else if (mk.step) {
		valfmt_pct(&sb, mk.step->j.change_pct);
		const struct history_point *p = &hs->points[mk.step_at];
		strbuf_printf(&sb, " at %s (%s)", p->label ? p->label : p->run_id,
			      mk.step->j.worse ? "worse" : "better");
	}
	if (mk.ack_at != SIZE_MAX) {
		const struct history_point *p = &hs->points[mk.ack_at];
		strbuf_printf(&sb, "%saccepted at %s: %s", mk.step ? "; " : "",
			      p->label ? p->label : p->run_id, p->ack_note);
	}
	if (!mk.step && mk.ack_at == SIZE_MAX)
		strbuf_puts(&sb, "-");
	history_marks_release(&mk);
	return strbuf_detach(&sb);
}

/* --per-board, -l: one line per board x test x metric: how many runs, from
 * which to which, the last value, its change against the run before, the
 * range, and the lasting step when there is one (`--format runs` lists
 * every run). */
static void print_per_board(const struct history_series *s, size_t n,
			    const struct history_walk_opts *w)
{
	static const char *const hdr[] = { "BOARD", "TEST", "METRIC", "RUNS", "FIRST", "LAST",
					   "VALUE", "CHANGE", "RANGE", "STEP" };
	static const bool right[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0, 0 };
	enum { NC = sizeof(hdr) / sizeof(hdr[0]) };
	if (!n)
		return;   /* "no runs of ..." was said on stderr */
	char **cells = xcalloc((n + 1) * NC, sizeof(*cells));
	for (size_t c = 0; c < NC; c++)
		cells[c] = xstrdup(hdr[c]);
	for (size_t i = 0; i < n; i++) {
		const struct history_series *hs = &s[i];
		char **row = &cells[(i + 1) * NC];
		const struct history_point *first = &hs->points[hs->shown_from];
		const struct history_point *last = &hs->points[hs->n - 1];
		double lo = first->value, hi = first->value;
		for (size_t k = hs->shown_from + 1; k < hs->n; k++) {
			lo = fmin(lo, hs->points[k].value);
			hi = fmax(hi, hs->points[k].value);
		}
		struct strbuf sb = STRBUF_INIT;
		row[0] = xstrdup(hs->board);
		row[1] = xstrdup(hs->test);
		row[2] = metric_cell(hs->metric, hs->higher_is_better);
		row[3] = xasprintf("%zu", hs->n - hs->shown_from);
		row[4] = xstrdup(first->label ? first->label : first->run_id);
		row[5] = xstrdup(last->label ? last->label : last->run_id);
		row[6] = valfmt_str(last->value, hs->unit);
		if (hs->n > 1 && hs->points[hs->n - 2].value != 0)
			valfmt_pct(&sb, (last->value - hs->points[hs->n - 2].value) /
					fabs(hs->points[hs->n - 2].value) * 100);
		else
			strbuf_puts(&sb, "-");
		row[7] = strbuf_detach(&sb);
		valfmt_pair(&sb, lo, hi, hs->unit);
		row[8] = strbuf_detach(&sb);
		row[9] = step_cell(hs, w);
	}
	print_table(cells, n, NC, right);
	free(cells);
}

/* The default: one line per test x metric with its boards folded
 * (history/history_fold.h): the boards, runs, first and last run, the
 * median of the boards' last values, the last change across them, the
 * range of every value shown and the boards that differ. */
static void print_folded(const struct history_series *s, size_t n,
			 const struct history_walk_opts *w)
{
	static const char *const hdr[] = { "TEST", "METRIC", "BOARDS", "RUNS", "FIRST", "LAST",
					   "MEDIAN", "CHANGE", "RANGE", "DIFFER" };
	static const bool right[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0, 0 };
	enum { NC = sizeof(hdr) / sizeof(hdr[0]) };
	if (!n)
		return;
	struct history_fold_row *rows = NULL;
	size_t nr = 0;
	history_fold(s, n, w, &rows, &nr);
	char **cells = xcalloc((nr + 1) * NC, sizeof(*cells));
	for (size_t c = 0; c < NC; c++)
		cells[c] = xstrdup(hdr[c]);
	for (size_t i = 0; i < nr; i++) {
		const struct history_fold_row *r = &rows[i];
		char **row = &cells[(i + 1) * NC];
		struct strbuf sb = STRBUF_INIT;
		row[0] = xstrdup(r->test);
		row[1] = metric_cell(r->metric, r->higher_is_better);
		row[2] = xstrdup(r->boards);
		row[3] = r->runs_lo == r->runs_hi ? xasprintf("%zu", r->runs_lo)
						  : xasprintf("%zu-%zu", r->runs_lo, r->runs_hi);
		row[4] = xstrdup(r->first->label ? r->first->label : r->first->run_id);
		row[5] = xstrdup(r->last->label ? r->last->label : r->last->run_id);
		row[6] = valfmt_str(r->median, r->unit);
		if (isnan(r->change_lo)) {
			strbuf_puts(&sb, "-");
		} else {
			valfmt_pct(&sb, r->change_lo);
			if (r->change_hi != r->change_lo) {
				strbuf_puts(&sb, " to ");
				valfmt_pct(&sb, r->change_hi);
			}
		}
		row[7] = strbuf_detach(&sb);
		valfmt_pair(&sb, r->lo, r->hi, r->unit);
		row[8] = strbuf_detach(&sb);
		row[9] = xstrdup(r->differ ? r->differ : "-");
	}
	print_table(cells, nr, NC, right);
	free(cells);
	history_fold_free(rows, nr);
}

/* Every run of each series, a line each (the text before it was compact). */
/* --format html: the page (history/history_html.h) on stdout. */
static void print_html(const char *scenario, const char *db, const struct history_series *s,
		       size_t n, const struct history_walk_opts *w)
{
	struct strbuf sb = STRBUF_INIT;
	history_html_page(&sb, scenario, db, s, n, w);
	fputs(strbuf_str(&sb), stdout);
	strbuf_release(&sb);
}

static void print_runs(const struct history_series *s, size_t n, const struct history_walk_opts *w)
{

	for (size_t i = 0; i < n; i++) {
		const struct history_series *hs = &s[i];
		struct history_marks mk;
		history_marks_of(hs, w, &mk);
		size_t shown = hs->n - hs->shown_from;
		printf("%s%s  %s  %s%s%s%s (%s is better), last %zu run%s\n", i ? "\n" : "", hs->board,
		       hs->test, hs->metric, *hs->unit ? " [" : "", hs->unit, *hs->unit ? "]" : "",
		       hs->higher_is_better ? "higher" : "lower", shown, shown == 1 ? "" : "s");
		size_t lw = 5;
		for (size_t k = hs->shown_from; k < hs->n; k++)
			if (hs->points[k].label && strlen(hs->points[k].label) > lw)
				lw = strlen(hs->points[k].label);
		printf("  %-16s  %-15s  %-*s  %12s  %8s  %s\n", "START (UTC)", "RUN", (int)lw, "LABEL",
		       "VALUE", "CHANGE", "N");
		for (size_t k = hs->shown_from; k < hs->n; k++) {
			const struct history_point *p = &hs->points[k];
			char when[32], change[32] = "";
			fmt_start(when, sizeof(when), p->start_us);
			if (k && hs->points[k - 1].value != 0)
				snprintf(change, sizeof(change), "%+.1f%%",
					 (p->value - hs->points[k - 1].value) / fabs(hs->points[k - 1].value) * 100);
			char *value = valfmt_str(p->value, hs->unit);
			printf("  %-16s  %-15s  %-*s  %12s  %8s  %d", when, p->run_id, (int)lw,
			       p->label ? p->label : "-", value, change, p->n);
			free(value);
			if (k == mk.step_at)
				printf("  <- step: %.1f%% %s from here (%s)", fabs(mk.step->j.change_pct),
				       mk.step->j.change_pct < 0 ? "down" : "up",
				       mk.step->j.worse ? "worse" : "better");
			if (p->ack_note)
				printf("  <- accepted: %s", p->ack_note);
			if (k + 1 == hs->n && mk.words)
				printf("  <- %s", mk.words);
			putchar('\n');
		}
		history_marks_release(&mk);
	}
}

static void csv_field(const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const char *scenario, const struct history_series *s, size_t n)
{
	puts("scenario,board,test,metric,unit,better,run_id,label,host,start,value,stddev,samples");
	for (size_t i = 0; i < n; i++) {
		for (size_t k = s[i].shown_from; k < s[i].n; k++) {
			const struct history_point *p = &s[i].points[k];
			const char *f[] = { scenario, s[i].board, s[i].test, s[i].metric, s[i].unit,
					    s[i].higher_is_better ? "higher" : "lower", p->run_id, p->label,
					    p->host };
			for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
				csv_field(f[j]);
				putchar(',');
			}
			char *when = result_time_iso(p->start_us);
			printf("%s,%.15g,%.15g,%d\n", when ? when : "", p->value, p->stddev, p->n);
			free(when);
		}
	}
}

static void print_json(const char *scenario, const struct history_series *s, size_t n,
		       const struct history_walk_opts *w)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *pts = json_array();
		for (size_t k = s[i].shown_from; k < s[i].n; k++) {
			const struct history_point *p = &s[i].points[k];
			char *when = result_time_iso(p->start_us);
			json_array_append_new(pts, json_pack("{s:s, s:s?, s:s?, s:s?, s:f, s:f, s:i}",
							     "run_id", p->run_id, "label", p->label,
							     "host", p->host, "start", when,
							     "value", p->value, "stddev", p->stddev,
							     "samples", p->n));
			if (p->ack_note)
				json_object_set_new(json_array_get(pts, k - s[i].shown_from), "ack_note",
						    json_string(p->ack_note));
			free(when);
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "scenario", scenario,
				      "board", s[i].board, "test", s[i].test, "metric", s[i].metric,
				      "unit", s[i].unit, "better", s[i].higher_is_better ? "higher" : "lower",
				      "runs", pts);
		struct history_marks mk;
		history_marks_of(&s[i], w, &mk);
		if (mk.step)
			json_object_set_new(o, "step", json_pack("{s:s, s:s?, s:f, s:f, s:f, s:b, s:b, s:I, s:s?}",
								 "run_id", s[i].points[mk.step_at].run_id,
								 "label", s[i].points[mk.step_at].label,
								 "before", mk.step->j.median_a,
								 "after", mk.step->j.median_b,
								 "change_pct", mk.step->j.change_pct,
								 "worse", mk.step->j.worse,
								 "settled", mk.settled,
								 "runs", (json_int_t)mk.step->step_run,
								 "text", mk.words));
		history_marks_release(&mk);
		json_array_append_new(a, o);
	}
	json_dumpf(a, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(a);
}

static int history_show(struct db *db, const struct history_options *o)
{
	char err[512];
	struct history_rule rule = { .settle = o->walk.settle };
	size_t walk = history_walk_points(&rule);
	/* the judge walks back as far as a run's verdict does; the last runs are shown */
	struct history_query q = { .scenario = o->arg, .boards = o->boards, .n_boards = o->n_boards,
				   .metric = o->metric, .last = o->last ? (size_t)o->last + walk : 0 };
	struct history_series *s = NULL;
	size_t n = 0;
	if (history_load(db, &q, &s, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch history: %s\n", err);
		return EXIT_INFRA;
	}
	for (size_t i = 0; o->last && i < n; i++)
		s[i].shown_from = s[i].n > (size_t)o->last ? s[i].n - (size_t)o->last : 0;
	if (!n && !strcmp(o->format, "text"))
		fprintf(stderr, "orch history: no runs of '%s'%s in %s\n", o->arg,
			o->n_boards || o->metric ? " match" : "", db_name(db));
	if (!strcmp(o->format, "csv"))
		print_csv(o->arg, s, n);
	else if (!strcmp(o->format, "json"))
		print_json(o->arg, s, n, &o->walk);
	else if (!strcmp(o->format, "runs"))
		print_runs(s, n, &o->walk);
	else if (!strcmp(o->format, "html"))
		print_html(o->arg, db_name(db), s, n, &o->walk);
	else if (o->per_board)
		print_per_board(s, n, &o->walk);
	else
		print_folded(s, n, &o->walk);
	history_series_free(s, n);
	return EXIT_OK;
}

/* --rebuild forgets the history: an SQLite file that cannot be opened as
 * one (corrupt, not a database) is kept aside as PATH.corrupt and made
 * again, with its -wal and -shm. 0 when it was moved. */
static int set_aside_corrupt(const char *target, const char *why)
{
	if (db_target_is_postgres(target))
		return -1;
	const char *path = strncmp(target, "sqlite:", 7) == 0 ? target + 7 : target;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	char *aside = xasprintf("%s.corrupt", path);
	int rc = rename(path, aside);
	if (rc == 0) {
		fprintf(stderr, "orch history: %s (%s); kept as %s, and made again from the run "
			"folders\n", path, why, aside);
		for (int i = 0; i < 2; i++) {
			char *side = xasprintf("%s%s", path, i ? "-shm" : "-wal");
			unlink(side);
			free(side);
		}
	}
	free(aside);
	return rc;
}

int cmd_history(int argc, char **argv)
{
	struct history_options o = { 0 };
	struct db *db = NULL;
	char err[1024];
	if (argc > 1 && !strcmp(argv[1], "ack"))
		return cmd_history_ack(argc - 1, argv + 1);
	int ret = parse_options(argc, argv, &o);
	if (ret != 0) {
		options_release(&o);
		return ret < 0 ? EXIT_OK : EXIT_USAGE;
	}
	char *target = history_target(o.db, o.import ? o.arg : o.runs_dir);
	int opened = history_open(&db, target, err, sizeof(err));
	if (opened < 0 && o.rebuild && set_aside_corrupt(target, err) == 0)
		opened = history_open(&db, target, err, sizeof(err));
	if (opened < 0) {
		fprintf(stderr, "orch history: %s\n", err);
		ret = EXIT_INFRA;
	} else if (o.import) {
		size_t count = 0;
		if (history_import(db, o.arg, o.rebuild, &count, err, sizeof(err)) < 0) {
			fprintf(stderr, "orch history: import %s: %s\n", o.arg, err);
			ret = EXIT_INFRA;
		}
		fprintf(stderr, "orch history: %zu run%s indexed into %s\n", count, count == 1 ? "" : "s",
			db_name(db));
	} else {
		ret = history_show(db, &o);
	}
	db_close(db);
	free(target);
	options_release(&o);
	return ret;
}
