/* orch compare RUN_A RUN_B: the per-metric change table between two runs. */
#include "cli/cli.h"
#include "cli/common.h"
#include "compare/compare.h"
#include "compare/compare_multi.h"
#include "result/result_json.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: orch compare RUN_A RUN_B [RUN...] [--threshold PCT] [--judge-single]\n"
		"                    [--format table|json|junit|html]\n"
		"                    [--only-changes]\n"
		"\n"
		"Compares two run folders, A (old) and B (new): every board x test x metric\n"
		"(median of the repeats), every boot phase, and status changes. Boards, tests\n"
		"and metrics on one side only are listed as \"only in A\" / \"only in B\".\n"
		"With three or more runs, every later run is compared with the first: one\n"
		"column per run (its label as the header), each with its change against the\n"
		"first and the verdict.\n"
		"\n"
		"A regression is a worse change of the medians beyond the threshold that is\n"
		"also beyond noise: Welch's t-test on the samples (log scale, outliers\n"
		"dropped) at a two-sided 1%% level. A change the test does not support is\n"
		"\"within noise\". A metric with one sample on a side is \"not judged\"\n"
		"unless --judge-single. pass -> fail is a regression too. The rule and its\n"
		"error rates: docs/compare.md.\n"
		"\n"
		"The table is this command's product, so it goes to stdout (unlike other\n"
		"commands, which print for people on stderr); --format json prints the same\n"
		"rows as JSON on stdout.\n"
		"\n"
		"options:\n"
		"  -t, --threshold PCT   regression threshold in percent (default %g)\n"
		"  -f, --format FORMAT   table (default), json, junit (regressions as\n"
		"                        failed tests, for a CI view), or html (one\n"
		"                        self-contained page)\n"
		"  -c, --only-changes    leave out unchanged rows and rows within noise\n"
		"      --judge-single    judge metrics with one sample on a side: one against\n"
		"                        one by the threshold alone, one against several by\n"
		"                        the spread of the several\n"
		"  -h, --help            this text\n"
		"\n"
		"exit: 0 no regression, 1 at least one regression, 2 usage error or\n"
		"an unreadable run folder\n",
		COMPARE_DEFAULT_THRESHOLD_PCT);
}

/* One side of --format json: where the run is and which run it is. */
static json_t *side_json(const char *path, const struct run_result *r)
{
	return json_pack("{s:s, s:s?, s:s?, s:s?, s:b}", "path", path, "scenario", r->scenario,
			 "run_id", r->run_id, "label", r->label, "interrupted", r->interrupted);
}

enum compare_format { FMT_TABLE, FMT_JSON, FMT_JUNIT, FMT_HTML };

/* orch compare RUN1 RUN2 RUN3 ...: every later run against the first. */
static int compare_many(const char *const *paths, size_t n, const struct judge_rule *rule,
			enum compare_format format, bool only_changes)
{
	int ret = EXIT_USAGE;
	struct run_result *runs = xcalloc(n, sizeof(*runs));
	struct compare_multi m;
	memset(&m, 0, sizeof(m));
	char err[512];
	for (size_t k = 0; k < n; k++)
		if (run_result_load(paths[k], &runs[k], err, sizeof(err)) < 0) {
			fprintf(stderr, "orch compare: %s\n", err);
			goto out;
		}
	compare_multi_run(runs, n, rule, &m);
	char *text = NULL;
	if (format == FMT_JSON) {
		json_t *o = compare_multi_json(&m, paths, only_changes);
		char *j = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(o);
		text = xasprintf("%s\n", j);
		free(j);
	} else if (format == FMT_JUNIT) {
		text = compare_multi_junit(&m);
	} else if (format == FMT_HTML) {
		text = compare_multi_html(&m, paths, only_changes);
	} else {
		struct strbuf sb = STRBUF_INIT;
		for (size_t k = 0; k < n; k++)
			strbuf_printf(&sb, "%zu: %s (%s)%s\n", k + 1, paths[k], run_result_name(&runs[k]),
				      runs[k].interrupted ? ", interrupted: its results are partial" : "");
		strbuf_putc(&sb, '\n');
		char *table = compare_multi_table(&m, only_changes, log_color_for(STDOUT_FILENO));
		strbuf_puts(&sb, table);
		free(table);
		text = strbuf_detach(&sb);
	}
	fputs(text, stdout);
	free(text);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "orch compare: cannot write the output: %s\n", strerror(errno));
		goto out;
	}
	ret = m.n_regressions ? EXIT_TEST_FAILED : EXIT_OK;
out:
	compare_multi_release(&m);
	for (size_t k = 0; k < n; k++)
		run_result_release(&runs[k]);
	free(runs);
	return ret;
}

/* Prints the comparison of two runs in format on stdout. */
static void print_pair(const struct compare_result *cr, const char *path_a,
		       const struct run_result *a, const char *path_b,
		       const struct run_result *b, enum compare_format format, bool only_changes)
{
	if (format == FMT_JUNIT) {
		char *xml = compare_format_junit(cr, path_a, path_b, b->start_wall_us);
		fputs(xml, stdout);
		free(xml);
	} else if (format == FMT_JSON) {
		json_t *o = compare_to_json(cr, only_changes);
		json_object_set_new(o, "a", side_json(path_a, a));
		json_object_set_new(o, "b", side_json(path_b, b));
		char *summary = compare_format_summary(cr, a, b, only_changes);
		json_object_set_new(o, "summary", json_string(summary));
		free(summary);
		char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(o);
		printf("%s\n", text);
		free(text);
	} else {
		char *table = compare_format_table(cr, only_changes, log_color_for(STDOUT_FILENO));
		char *summary = compare_format_summary(cr, a, b, only_changes);
		/* a run stopped before its end has only some of its tests */
		static const char partial[] = ", interrupted: its results are partial";
		printf("A: %s (%s)%s\nB: %s (%s)%s\n\n%s%s", path_a, run_result_name(a),
		       a->interrupted ? partial : "", path_b, run_result_name(b),
		       b->interrupted ? partial : "", summary, table);
		free(summary);
		free(table);
	}
}

struct compare_options {
	struct judge_rule rule;
	enum compare_format format;
	bool only_changes;
};

static int parse_format(const char *arg, enum compare_format *format)
{
	static const struct {
		const char *name;
		enum compare_format format;
	} formats[] = {
		{ "table", FMT_TABLE }, { "json", FMT_JSON }, { "junit", FMT_JUNIT },
		{ "html", FMT_HTML },
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(arg, formats[i].name)) {
			*format = formats[i].format;
			return -1;
		}
	return cmd_usage_error("compare", "unknown format '%s' (table, json, junit or html)", arg);
}

/* The options into *o, then at least two run folders from argv[optind].
 * -1 to go on, else the exit code to return (EXIT_OK after --help). */
static int parse(int argc, char **argv, struct compare_options *o)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "only-changes", no_argument, NULL, 'c' },
		{ "judge-single", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret = -1;
	optind = 1;
	opterr = 0;
	while (ret < 0 && (opt = getopt_long(argc, argv, ":t:f:ch", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (cmd_parse_percent(optarg, &o->rule.threshold_pct) < 0)
				ret = cmd_usage_error("compare", "bad threshold '%s' (a percentage "
						      "like 5 or 2.5)", optarg);
			break;
		case 'f': ret = parse_format(optarg, &o->format); break;
		case 'c': o->only_changes = true; break;
		case 'J': o->rule.judge_single = true; break;
		case 'h': usage(stdout); ret = EXIT_OK; break;
		default: ret = cmd_option_error("compare", opt, argv[optind - 1]); break;
		}
	}
	if (ret < 0 && argc - optind < 2)
		ret = cmd_usage_error("compare", "needs two run folders, RUN_A and RUN_B");
	return ret;
}

/* orch compare RUN_A RUN_B: the change table of two runs. */
static int compare_two(const char *path_a, const char *path_b, const struct compare_options *o)
{
	int ret = EXIT_USAGE;
	struct run_result a, b;
	struct compare_result cr;
	char err[512];
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&cr, 0, sizeof(cr));
	if (run_result_load(path_a, &a, err, sizeof(err)) < 0 ||
	    run_result_load(path_b, &b, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch compare: %s\n", err);
		goto out;
	}
	compare_runs(&a, &b, &o->rule, &cr);
	print_pair(&cr, path_a, &a, path_b, &b, o->format, o->only_changes);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "orch compare: cannot write the output: %s\n", strerror(errno));
		goto out;
	}
	ret = cr.n_regressions ? EXIT_TEST_FAILED : EXIT_OK;
out:
	compare_result_release(&cr);
	run_result_release(&a);
	run_result_release(&b);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_options o = {
		.rule = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT },
		.format = FMT_TABLE,
	};
	int ret = parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (argc - optind > 2 || o.format == FMT_HTML)
		return compare_many((const char *const *)argv + optind, (size_t)(argc - optind),
				    &o.rule, o.format, o.only_changes);
	return compare_two(argv[optind], argv[optind + 1], &o);
}
