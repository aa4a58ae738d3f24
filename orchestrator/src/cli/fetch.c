/* orch fetch [-l SEL]... SRC DIR: a file from every selected board into
 * DIR/BOARD/ (rpdcp's layout), through the fetch path tests use. */
#include "cli/adhoc.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "execute/artifact.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FETCH_MAX_DEFAULT (64ull << 20)

static const char usage_text[] =
	"usage: orch fetch [-i INVENTORY] [-l SELECTOR]... [-j N] [--max-size SIZE]\n"
	"                  [--timeout DURATION] [--force] SRC DIR\n"
	"\n"
	"Brings the file SRC back from every selected board into DIR/BOARD/NAME\n"
	"(NAME: SRC's last part), as a test's fetch: streamed into a part file,\n"
	"checked against the board's sum, renamed into place with the board's\n"
	"mode. A file over the size cap is refused by the board before anything\n"
	"is sent. A DIR/BOARD/NAME that is there already is never overwritten:\n"
	"orch refuses before reaching any board. Boards held or offline are\n"
	"skipped as by orch exec.\n"
	"\n"
	"  -i, --inventory FILE  boards file (default: $ORCH_INVENTORY)\n"
	"  -l, --limit SELECTOR  boards (names, node sets 'b[01-16]', tag:T, ...)\n"
	"  -j, --jobs N          boards at once (default: all)\n"
	"      --max-size SIZE   the cap per board's file (default 64MiB)\n"
	"      --timeout D       each board's bound (default 5m)\n"
	"      --force           fetch from held boards too (a warning names the holder)\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status as orch exec: 0 fetched from every board, 1 a board had no\n"
	"such file or it was over the cap, 3 a board not reached, held or offline,\n"
	"4 both, 2 usage.\n";

struct fetch_options {
	const char *inventory;
	const char **sels;
	size_t n_sels;
	int jobs;
	bool force;
	int64_t timeout_ms;
	uint64_t max;
	const char *src, *dir;
	const char *name;          /* SRC's last part */
};

static int parse(int argc, char **argv, struct fetch_options *o)
{
	enum { OPT_TIMEOUT = 256, OPT_FORCE, OPT_MAX };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-size", required_argument, NULL, OPT_MAX },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct fetch_options){ .timeout_ms = 300000, .max = FETCH_MAX_DEFAULT };
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:l:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l': cmd_add_arg(&o->sels, &o->n_sels, optarg); break;
		case 'j':
			if (cmd_int_option("fetch", "-j", optarg, 1, 100000, &o->jobs) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_MAX:
			if (units_parse_size(optarg, &o->max) < 0 || !o->max)
				return cmd_usage_error("fetch", "--max-size takes a size such as "
							      "64MiB, found '%s'", optarg);
			break;
		case OPT_TIMEOUT:
			if (units_parse_duration_ms(optarg, &o->timeout_ms) < 0 || o->timeout_ms <= 0)
				return cmd_usage_error("fetch", "--timeout takes a duration such as "
							      "30s, found '%s'", optarg);
			break;
		case OPT_FORCE: o->force = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return cmd_option_error("fetch", c, argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("fetch", "give SRC and DIR, found %d operand%s",
				       argc - optind, argc - optind == 1 ? "" : "s");
	o->src = argv[optind];
	o->dir = argv[optind + 1];
	const char *slash = strrchr(o->src, '/');
	o->name = slash ? slash + 1 : o->src;
	if (!*o->name || !strcmp(o->name, ".") || !strcmp(o->name, "..") || !*o->dir)
		return cmd_usage_error("fetch", "SRC names a file on the boards, found '%s'",
				       o->src);
	return 0;
}

/* No board's copy would land on a file that is there already. */
static int check_free(const struct fetch_options *o, const struct adhoc_board *boards, size_t n)
{
	int ret = EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s/%s", o->dir, boards[i].board->name, o->name);
		struct stat st;
		if (lstat(path, &st) == 0) {
			fprintf(stderr, "orch fetch: %s is there already; not overwritten (move it "
				"or give another DIR)\n", path);
			ret = EXIT_USAGE;
		}
		free(path);
	}
	return ret;
}

static void fetch_work(struct adhoc_board *ab, struct transport *t, void *ctx)
{
	const struct fetch_options *o = ctx;
	char *dir = xasprintf("%s/%s", o->dir, ab->board->name);
	char src[4096], dest[1024], err[1024];
	snprintf(src, sizeof(src), "%s", o->src);
	snprintf(dest, sizeof(dest), "%s", o->name);
	struct artifact a = { .src = src, .dest = dest, .mode = -1 };
	bool infra = false;
	ab->state = ADHOC_RAN;
	if (artifact_fetch_max(t, ab->board, &a, dir, o->timeout_ms, o->max, &infra, err,
			       sizeof(err)) < 0) {
		if (interrupt_requested())
			ab->state = ADHOC_INTERRUPTED;
		else if (infra)
			ab->state = ADHOC_UNREACHABLE;
		else
			ab->failed = true;
		snprintf(ab->error, sizeof(ab->error), "%s", err);
	}
	free(dir);
}

static void print_outcome(struct adhoc_board *boards, size_t n, const struct fetch_options *o)
{
	struct fold f = FOLD_INIT;
	size_t got = 0;
	for (size_t i = 0; i < n; i++) {
		bool ok = boards[i].state == ADHOC_RAN && !boards[i].failed;
		char *key = ok ? xasprintf("fetched into %s/BOARD/%s", o->dir, o->name)
			       : adhoc_problem_text(&boards[i]);
		fold_add(&f, key, boards[i].board->name, &boards[i]);
		free(key);
		got += ok;
	}
	fold_sort(&f, FOLD_LARGEST_FIRST);
	for (size_t i = 0; i < f.n; i++) {
		char *what = adhoc_group_what(&f.groups[i]);
		char *h = adhoc_group_header(&f.groups[i], what);
		printf("%s\n", h);
		free(h);
		free(what);
	}
	printf("fetched from %zu of %zu board%s\n", got, n, n == 1 ? "" : "s");
	fflush(stdout);
	fold_release(&f);
}

int cmd_fetch(int argc, char **argv)
{
	struct fetch_options o;
	int ret = parse(argc, argv, &o);
	if (ret) {
		free(o.sels);
		return ret == 1 ? EXIT_OK : ret;
	}
	struct inventory *inv = NULL;
	struct adhoc_board *boards = NULL;
	size_t n = 0;
	char err[512];
	ret = adhoc_select("fetch", o.inventory, o.sels, o.n_sels, o.timeout_ms, &inv, &boards, &n);
	if (ret == EXIT_OK)
		ret = check_free(&o, boards, n);
	if (ret == EXIT_OK && fs_mkdir_p(o.dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch fetch: %s\n", err);
		ret = EXIT_USAGE;
	}
	if (ret != EXIT_OK)
		goto out;
	char *note = xasprintf("orch fetch %s %s", o.src, o.dir);
	struct adhoc_request rq = { .verb = "fetch", .note = note, .jobs = o.jobs,
				    .force = o.force, .work = fetch_work, .ctx = &o };
	interrupt_install();
	if (adhoc_run(&rq, inv, boards, n) < 0) {
		fprintf(stderr, "orch fetch: interrupted again; leaving now\n");
		_exit(EXIT_INTERRUPTED);
	}
	print_outcome(boards, n, &o);
	ret = adhoc_exit_code(boards, n);
	free(note);
out:
	free(boards);
	inventory_free(inv);
	free(o.sels);
	return ret;
}
