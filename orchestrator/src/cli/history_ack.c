/* orch history ack: record, list and remove acknowledged changes. */
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/history_ack.h"
#include "config/cfg_read.h"
#include "db/db.h"
#include "history/history.h"
#include "result/result_json.h"
#include "util/strbuf.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static const char ack_usage[] =
	"usage: orch history ack SCENARIO METRIC --at RUN --note TEXT [-l BOARD]...\n"
	"       orch history ack --list [SCENARIO]\n"
	"       orch history ack --delete SCENARIO METRIC --at RUN [-l BOARD]...\n"
	"\n"
	"Records that the change of METRIC (NAME or TEST.NAME) at RUN (a run id or\n"
	"label of SCENARIO) is accepted: later runs are judged against the level\n"
	"that starts at RUN, and the reports and orch history show the note.\n"
	"Without -l it holds for every board. Recording the same again replaces the\n"
	"note; --delete removes it; --list shows them.\n"
	"\n"
	"  -o, --runs-dir DIR     the runs folder whose history to use (default: ./runs)\n"
	"      --db URL           postgresql://USER@HOST:PORT/DB or an SQLite file\n"
	"  -l, --limit BOARD      only this board (repeatable)\n"
	"      --at RUN           the run the change starts at\n"
	"  -m, --note TEXT        why it is accepted\n"
	"      --list             list the acknowledged changes (of SCENARIO)\n"
	"      --delete           remove the acknowledged change named\n"
	"  -h, --help             this text\n";

struct ack_options {
	const char *runs_dir;
	const char *db;
	const char **boards;
	size_t n_boards;
	const char *at;
	const char *note;
	const char *scenario;
	const char *metric;
	bool list;
	bool delete;
};

static int ack_parse(int argc, char **argv, struct ack_options *o)
{
	enum { OPT_DB = 256, OPT_AT, OPT_LIST, OPT_DELETE };
	static const struct option longopts[] = {
		{ "runs-dir", required_argument, NULL, 'o' }, { "db", required_argument, NULL, OPT_DB },
		{ "limit", required_argument, NULL, 'l' }, { "at", required_argument, NULL, OPT_AT },
		{ "note", required_argument, NULL, 'm' }, { "list", no_argument, NULL, OPT_LIST },
		{ "delete", no_argument, NULL, OPT_DELETE }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	o->runs_dir = "runs";
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:l:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->runs_dir = optarg; break;
		case OPT_DB: o->db = optarg; break;
		case 'l': cmd_add_arg(&o->boards, &o->n_boards, optarg); break;
		case OPT_AT: o->at = optarg; break;
		case 'm': o->note = optarg; break;
		case OPT_LIST: o->list = true; break;
		case OPT_DELETE: o->delete = true; break;
		case 'h': fputs(ack_usage, stdout); return -1;
		default: return cmd_option_error("history ack", c, argv[optind - 1]);
		}
	}
	int left = argc - optind;
	if (o->list) {
		if (o->delete || o->at || o->note || o->n_boards || left > 1)
			return cmd_usage_error("history ack", "--list takes at most a SCENARIO");
		o->scenario = left ? argv[optind] : NULL;
		return 0;
	}
	if (left != 2)
		return cmd_usage_error("history ack", "give SCENARIO and METRIC (found %d argument%s)",
				       left, left == 1 ? "" : "s");
	o->scenario = argv[optind];
	o->metric = argv[optind + 1];
	if (!o->at)
		return cmd_usage_error("history ack", "--at RUN is missing: the run the change starts at");
	if (o->delete && o->note)
		return cmd_usage_error("history ack", "--delete takes no --note");
	if (!o->delete && (!o->note || !*o->note))
		return cmd_usage_error("history ack", "--note TEXT is missing: say why the change is "
				       "accepted");
	return 0;
}

/* "unknown WHAT 'word' in SCENARIO (did you mean 'x'?)" on stderr. */
static int unknown(const char *what, const char *word, const char *scenario, char **names)
{
	const char *sug = cfg_suggest(word, (const char *const *)names);
	fprintf(stderr, "orch history ack: unknown %s '%s'%s%s%s%s%s\n", what, word,
		scenario ? " in the history of " : "", scenario ? scenario : "",
		sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
	return EXIT_USAGE;
}

static bool has_name(char **names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The names of one kind, or NULL after saying why (the database failed). */
static char **names_of(struct db *db, const char *scenario, enum history_names_of what)
{
	char err[512];
	char **names = NULL;
	if (history_names(db, scenario, what, &names, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch history ack: %s\n", err);
		history_names_free(names);
		return NULL;
	}
	return names;
}

/* o->metric as a's test and metric: "NAME" of every test when a test has
 * a metric NAME, else "TEST.NAME" of that one test. An exit code. */
static int check_metric(struct db *db, const struct ack_options *o, struct history_ack *a)
{
	char **bare = names_of(db, o->scenario, HISTORY_METRICS);
	char **pairs = bare ? names_of(db, o->scenario, HISTORY_TEST_METRICS) : NULL;
	char **tests = pairs ? names_of(db, o->scenario, HISTORY_TESTS) : NULL;
	int rc = tests ? EXIT_OK : EXIT_INFRA;
	if (tests && has_name(bare, o->metric)) {
		a->test = xstrdup("");
		a->metric = xstrdup(o->metric);
	} else if (tests && has_name(pairs, o->metric)) {
		for (size_t i = 0; tests[i] && !a->test; i++) {
			size_t tl = strlen(tests[i]);
			if (!strncmp(o->metric, tests[i], tl) && o->metric[tl] == '.' &&
			    has_name(bare, o->metric + tl + 1)) {
				a->test = xstrdup(tests[i]);
				a->metric = xstrdup(o->metric + tl + 1);
			}
		}
	} else if (tests) {
		size_t nb = 0, np = 0;
		while (bare[nb])
			nb++;
		while (pairs[np])
			np++;
		char **all = xcalloc(nb + np + 1, sizeof(*all));
		memcpy(all, bare, nb * sizeof(*all));
		memcpy(all + nb, pairs, np * sizeof(*all));
		rc = unknown("metric", o->metric, o->scenario, all);
		free(all);
	}
	history_names_free(bare);
	history_names_free(pairs);
	history_names_free(tests);
	return rc;
}

/* Every -l board known to the scenario's history. An exit code. */
static int check_boards(struct db *db, const struct ack_options *o)
{
	if (!o->n_boards)
		return EXIT_OK;
	char **boards = names_of(db, o->scenario, HISTORY_BOARDS);
	int rc = boards ? EXIT_OK : EXIT_INFRA;
	for (size_t i = 0; boards && i < o->n_boards && rc == EXIT_OK; i++)
		if (!has_name(boards, o->boards[i]))
			rc = unknown("board", o->boards[i], o->scenario, boards);
	history_names_free(boards);
	return rc;
}

/* --at RUN as a run id: a run id of the scenario, or the label of one run. */
static int check_run(struct db *db, const struct ack_options *o, struct history_ack *a)
{
	char **ids = names_of(db, o->scenario, HISTORY_RUN_IDS);
	char **labels = ids ? names_of(db, o->scenario, HISTORY_LABELS) : NULL;
	int rc = labels ? EXIT_OK : EXIT_INFRA;
	if (labels && has_name(ids, o->at)) {
		a->run_id = xstrdup(o->at);
	} else if (labels && has_name(labels, o->at)) {
		char err[512];
		int dr = history_run_of_label(db, o->scenario, o->at, &a->run_id, err, sizeof(err));
		if (dr < 0) {
			fprintf(stderr, "orch history ack: %s\n", err);
			rc = dr == DB_EUSAGE ? EXIT_USAGE : EXIT_INFRA;
		}
	} else if (labels) {
		const char *sug = cfg_suggest(o->at, (const char *const *)ids);
		if (!sug)
			sug = cfg_suggest(o->at, (const char *const *)labels);
		fprintf(stderr, "orch history ack: unknown run '%s' in the history of %s%s%s%s; "
			"give a run id or label (orch history %s --format runs lists them)\n", o->at,
			o->scenario, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "",
			o->scenario);
		rc = EXIT_USAGE;
	}
	history_names_free(ids);
	history_names_free(labels);
	return rc;
}

/* The scenario known to the history. An exit code. */
static int check_scenario(struct db *db, const struct ack_options *o)
{
	char **names = names_of(db, NULL, HISTORY_SCENARIOS);
	int rc = names ? EXIT_OK : EXIT_INFRA;
	if (names && !has_name(names, o->scenario)) {
		const char *sug = cfg_suggest(o->scenario, (const char *const *)names);
		fprintf(stderr, "orch history ack: no runs of '%s' in %s%s%s%s\n", o->scenario,
			db_name(db), sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
		rc = EXIT_USAGE;
	}
	history_names_free(names);
	return rc;
}

/* "user@host". */
static char *who_am_i(void)
{
	char host[256] = "";
	struct passwd *pw = getpwuid(getuid());
	gethostname(host, sizeof(host) - 1);
	return xasprintf("%s@%s", pw && pw->pw_name ? pw->pw_name : "?", *host ? host : "?");
}

/* Records, or with --delete removes, the ack for each board of o (or for
 * every board). An exit code. */
static int ack_write(struct db *db, const struct ack_options *o, struct history_ack *a)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	a->scenario = xstrdup(o->scenario);
	a->note = xstrdup(o->note ? o->note : "");
	a->who = who_am_i();
	a->created_us = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
	size_t nb = o->n_boards ? o->n_boards : 1, total = 0;
	for (size_t i = 0; i < nb; i++) {
		char err[512];
		size_t removed = 0;
		free(a->board);
		a->board = xstrdup(o->n_boards ? o->boards[i] : "");
		int rc = o->delete ? history_ack_delete(db, a, &removed, err, sizeof(err))
				   : history_ack_add(db, a, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "orch history ack: %s\n", err);
			return EXIT_INFRA;
		}
		total += removed;
	}
	if (o->delete && !total) {
		fprintf(stderr, "orch history ack: no acknowledged change of %s at %s in %s%s%s "
			"(orch history ack --list %s shows them)\n", o->metric, o->at, o->scenario,
			o->n_boards ? " on " : "", o->n_boards ? o->boards[0] : "", o->scenario);
		return EXIT_USAGE;
	}
	fprintf(stderr, "orch history ack: %s %s at %s (%s)%s\n", o->delete ? "removed" : "recorded",
		o->metric, a->run_id, o->n_boards ? "the boards named" : "every board",
		o->delete ? "" : ": later runs are judged against the level that starts there");
	return EXIT_OK;
}

/* --list: a line per ack. */
static int ack_list(struct db *db, const struct ack_options *o)
{
	char err[512];
	struct history_ack *a = NULL;
	size_t n = 0;
	if (history_ack_list(db, o->scenario, &a, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch history ack: %s\n", err);
		return EXIT_INFRA;
	}
	if (!n)
		fprintf(stderr, "orch history ack: no acknowledged changes%s%s in %s\n",
			o->scenario ? " of " : "", o->scenario ? o->scenario : "", db_name(db));
	for (size_t i = 0; i < n; i++) {
		char *when = result_time_iso(a[i].created_us);
		printf("%s  %s%s%s  %s  at %s  %s  (%s, %s)\n", a[i].scenario, a[i].test,
		       *a[i].test ? "." : "", a[i].metric, *a[i].board ? a[i].board : "every board",
		       a[i].run_id, a[i].note, a[i].who, when ? when : "-");
		free(when);
	}
	history_acks_free(a, n);
	return EXIT_OK;
}

static int ack_run(struct db *db, const struct ack_options *o)
{
	if (o->list)
		return ack_list(db, o);
	struct history_ack a = { 0 };
	int rc = check_scenario(db, o);
	if (rc == EXIT_OK)
		rc = check_metric(db, o, &a);
	if (rc == EXIT_OK)
		rc = check_boards(db, o);
	if (rc == EXIT_OK)
		rc = check_run(db, o, &a);
	if (rc == EXIT_OK)
		rc = ack_write(db, o, &a);
	free(a.scenario);
	free(a.board);
	free(a.test);
	free(a.metric);
	free(a.run_id);
	free(a.note);
	free(a.who);
	return rc;
}

int cmd_history_ack(int argc, char **argv)
{
	struct ack_options o = { 0 };
	int ret = ack_parse(argc, argv, &o);
	if (ret != 0) {
		free(o.boards);
		return ret < 0 ? EXIT_OK : EXIT_USAGE;
	}
	char err[1024];
	struct db *db = NULL;
	char *target = history_target(o.db, o.runs_dir);
	if (history_open(&db, target, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch history ack: %s\n", err);
		ret = EXIT_INFRA;
	} else {
		ret = ack_run(db, &o);
	}
	db_close(db);
	free(target);
	free(o.boards);
	return ret;
}
