/* orch history: the nights of a scenario from the history database, and
 * importing run folders into it. */
#include "cmd.h"
#include "config/config.h"
#include "cmd_common.h"
#include "history/history.h"
#include "result/result_json.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

static const char usage_text[] =
	"usage: orch history SCENARIO [options]\n"
	"       orch history import RUNS_DIR [--rebuild] [--db URL]\n"
	"\n"
	"Prints, per board and metric, the last runs of SCENARIO with their labels,\n"
	"from the history every orch run writes (RUNS_DIR/orch-history.sqlite, or\n"
	"the PostgreSQL database of --db / $ORCH_DB). A lasting step is marked at the\n"
	"run where it appeared. 'import' indexes existing run folders (again);\n"
	"--rebuild forgets the history first and rebuilds it from the folders.\n"
	"\n"
	"  -o, --runs-dir DIR     the runs folder whose history to read (default: ./runs)\n"
	"      --db URL           postgresql://USER@HOST:PORT/DB or an SQLite file\n"
	"  -l, --limit BOARD      only this board (repeatable)\n"
	"      --metric M         only this metric (NAME or TEST.NAME)\n"
	"      --last N           the last N runs per metric (default 10; 0: all)\n"
	"      --threshold PCT    smallest step worth marking (default 5)\n"
	"      --format F         text (default), csv or json, on stdout\n"
	"  -h, --help             this text\n";

struct history_options {
	const char *runs_dir;
	const char *db;
	const char **boards;
	size_t n_boards;
	const char *metric;
	int last;
	double threshold;
	const char *format;
	bool rebuild;
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

static int parse_options(int argc, char **argv, struct history_options *o)
{
	enum { OPT_DB = 256, OPT_METRIC, OPT_LAST, OPT_FORMAT, OPT_REBUILD, OPT_THRESHOLD };
	static const struct option longopts[] = {
		{ "runs-dir", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "limit", required_argument, NULL, 'l' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "rebuild", no_argument, NULL, OPT_REBUILD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	o->runs_dir = "runs";
	o->last = HISTORY_DEFAULT_LAST;
	o->threshold = 5;
	o->format = "text";
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->runs_dir = optarg; break;
		case OPT_DB: o->db = optarg; break;
		case 'l':
			cmd_add_arg(&o->boards, &o->n_boards, optarg);
			break;
		case OPT_METRIC: o->metric = optarg; break;
		case OPT_LAST:
			if (cmd_parse_int(optarg, 0, 100000, &o->last) < 0)
				return cmd_usage_error("history", "--last takes a number >= 0, found '%s'", optarg);
			break;
		case OPT_THRESHOLD:
			if (cmd_parse_percent(optarg, &o->threshold) < 0)
				return cmd_usage_error("history", "--threshold takes a percentage, found '%s'",
						       optarg);
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return cmd_usage_error("history", "--format takes text, csv or json, found '%s'",
						       optarg);
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

/* Where the most recent lasting step of s is, or (size_t)-1. */
static size_t series_step(const struct history_series *s, double threshold, struct history_step *st)
{
	double *v = xcalloc(s->n + 1, sizeof(*v));
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->points[i].value;
	size_t at = history_find_step(v, s->n, s->higher_is_better, threshold, st) ? st->at : (size_t)-1;
	free(v);
	return at;
}

static void print_text(const struct history_series *s, size_t n, double threshold)
{
	for (size_t i = 0; i < n; i++) {
		const struct history_series *hs = &s[i];
		struct history_step st;
		size_t at = series_step(hs, threshold, &st);
		printf("%s%s  %s  %s%s%s%s (%s is better), last %zu run%s\n", i ? "\n" : "", hs->board,
		       hs->test, hs->metric, *hs->unit ? " [" : "", hs->unit, *hs->unit ? "]" : "",
		       hs->higher_is_better ? "higher" : "lower", hs->n, hs->n == 1 ? "" : "s");
		size_t lw = 5;
		for (size_t k = 0; k < hs->n; k++)
			if (hs->points[k].label && strlen(hs->points[k].label) > lw)
				lw = strlen(hs->points[k].label);
		printf("  %-16s  %-15s  %-*s  %12s  %8s  %s\n", "START (UTC)", "RUN", (int)lw, "LABEL",
		       "VALUE", "CHANGE", "N");
		for (size_t k = 0; k < hs->n; k++) {
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
			if (k == at)
				printf("  <- step: %.1f%% %s from here (%s)", fabs(st.change_pct),
				       st.change_pct < 0 ? "down" : "up", st.worse ? "worse" : "better");
			putchar('\n');
		}
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
		for (size_t k = 0; k < s[i].n; k++) {
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
		       double threshold)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *pts = json_array();
		for (size_t k = 0; k < s[i].n; k++) {
			const struct history_point *p = &s[i].points[k];
			char *when = result_time_iso(p->start_us);
			json_array_append_new(pts, json_pack("{s:s, s:s?, s:s?, s:s?, s:f, s:f, s:i}",
							     "run_id", p->run_id, "label", p->label,
							     "host", p->host, "start", when,
							     "value", p->value, "stddev", p->stddev,
							     "samples", p->n));
			free(when);
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "scenario", scenario,
				      "board", s[i].board, "test", s[i].test, "metric", s[i].metric,
				      "unit", s[i].unit, "better", s[i].higher_is_better ? "higher" : "lower",
				      "runs", pts);
		struct history_step st;
		size_t at = series_step(&s[i], threshold, &st);
		if (at != (size_t)-1)
			json_object_set_new(o, "step", json_pack("{s:s, s:s?, s:f, s:f, s:f, s:b}",
								 "run_id", s[i].points[at].run_id,
								 "label", s[i].points[at].label,
								 "before", st.before, "after", st.after,
								 "change_pct", st.change_pct, "worse", st.worse));
		json_array_append_new(a, o);
	}
	json_dumpf(a, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(a);
}

static int history_show(struct db *db, const struct history_options *o)
{
	char err[512];
	struct history_query q = { .scenario = o->arg, .boards = o->boards, .n_boards = o->n_boards,
				   .metric = o->metric, .last = (size_t)o->last };
	struct history_series *s = NULL;
	size_t n = 0;
	if (history_load(db, &q, &s, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch history: %s\n", err);
		return EXIT_INFRA;
	}
	if (!n && !strcmp(o->format, "text"))
		fprintf(stderr, "orch history: no runs of '%s'%s in %s\n", o->arg,
			o->n_boards || o->metric ? " match" : "", db_name(db));
	if (!strcmp(o->format, "csv"))
		print_csv(o->arg, s, n);
	else if (!strcmp(o->format, "json"))
		print_json(o->arg, s, n, o->threshold);
	else
		print_text(s, n, o->threshold);
	history_series_free(s, n);
	return EXIT_OK;
}

int cmd_history(int argc, char **argv)
{
	struct history_options o = { 0 };
	struct db *db = NULL;
	char err[1024];
	int ret = parse_options(argc, argv, &o);
	if (ret != 0) {
		free(o.boards);
		return ret < 0 ? EXIT_OK : EXIT_USAGE;
	}
	char *target = history_target(o.db, o.import ? o.arg : o.runs_dir);
	if (history_open(&db, target, err, sizeof(err)) < 0) {
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
	free(o.boards);
	return ret;
}
