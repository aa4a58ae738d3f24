/* orch copy [-l SEL]... [-r] SRC DEST: a file (or a folder) to every
 * selected board, through the push path tests use. */
#include "cli/adhoc.h"
#include "cli/adhoc_files.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "execute/artifact.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch copy [-i INVENTORY] [-l SELECTOR]... [-j N] [-r] [--timeout DURATION]\n"
	"                 [--force] SRC DEST\n"
	"\n"
	"Sends the file SRC (a folder with -r, its tree under DEST) to DEST on every\n"
	"selected board, through the board's link, as a test's push: sent into a\n"
	"part file, checked on the board (POSIX cksum, else sha256sum), renamed into\n"
	"place with SRC's mode; a board that already has the same file (size and\n"
	"SHA-256) is not sent it again. DEST ending in '/' is a folder: the file\n"
	"keeps its name there. Boards held or offline are skipped as by orch exec.\n"
	"\n"
	"  -i, --inventory FILE  boards file (default: $ORCH_INVENTORY)\n"
	"  -l, --limit SELECTOR  boards (names, node sets 'b[01-16]', tag:T, ...)\n"
	"  -j, --jobs N          boards at once (default: all)\n"
	"  -r, --recursive       SRC is a folder: every regular file under it\n"
	"      --timeout D       each board's bound for each file (default 5m)\n"
	"      --force           copy to held boards too (a warning names the holder)\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status as orch exec: 0 copied or already there everywhere, 1 a board\n"
	"refused it, 3 a board not reached, held or offline, 4 both, 2 usage.\n";

struct copy_options {
	const char *inventory;
	const char **sels;
	size_t n_sels;
	int jobs;
	bool recursive, force;
	int64_t timeout_ms;
	const char *src, *dest;
};

static int parse(int argc, char **argv, struct copy_options *o)
{
	enum { OPT_TIMEOUT = 256, OPT_FORCE };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct copy_options){ .timeout_ms = 300000 };
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:l:j:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l': cmd_add_arg(&o->sels, &o->n_sels, optarg); break;
		case 'j':
			if (cmd_int_option("copy", "-j", optarg, 1, 100000, &o->jobs) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case 'r': o->recursive = true; break;
		case OPT_TIMEOUT:
			if (units_parse_duration_ms(optarg, &o->timeout_ms) < 0 || o->timeout_ms <= 0)
				return cmd_usage_error("copy", "--timeout takes a duration such as "
							     "30s, found '%s'", optarg);
			break;
		case OPT_FORCE: o->force = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return cmd_option_error("copy", c, argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("copy", "give SRC and DEST, found %d operand%s",
				       argc - optind, argc - optind == 1 ? "" : "s");
	o->src = argv[optind];
	o->dest = argv[optind + 1];
	if (!*o->dest)
		return cmd_usage_error("copy", "DEST is empty");
	return 0;
}

struct copy_ctx {
	const struct copy_options *o;
	const struct local_files *files;
};

/* What one board got: files sent and files it already had. */
struct copy_board {
	size_t sent, same;
};

static void copy_work(struct adhoc_board *ab, struct transport *t, void *ctx)
{
	const struct copy_ctx *x = ctx;
	struct copy_board *cb = ab->data;
	char err[1024];
	ab->state = ADHOC_RAN;
	for (size_t i = 0; i < x->files->n; i++) {
		const struct local_file *f = &x->files->v[i];
		struct file_push fp = { .src = f->path, .dest = f->dest, .mode = f->mode,
					.timeout_ms = x->o->timeout_ms };
		bool infra = false;
		int rc = artifact_push_file(t, ab->board, &fp, &infra, err, sizeof(err));
		if (rc == 1) {
			cb->same++;
			continue;
		}
		if (rc == 0) {
			cb->sent++;
			continue;
		}
		if (interrupt_requested())
			ab->state = ADHOC_INTERRUPTED;
		else if (infra)
			ab->state = ADHOC_UNREACHABLE;
		else
			ab->failed = true;
		snprintf(ab->error, sizeof(ab->error), "%s", err);
		return;
	}
}

/* "copied", "already there", "copied 3 files, 2 already there"; caller frees. */
static char *board_outcome(const struct adhoc_board *ab, size_t n_files)
{
	const struct copy_board *cb = ab->data;
	if (ab->state != ADHOC_RAN || ab->failed)
		return adhoc_problem_text(ab);
	if (n_files == 1)
		return xstrdup(cb->sent ? "copied" : "already there");
	if (!cb->same)
		return xasprintf("copied %zu files", cb->sent);
	if (!cb->sent)
		return xasprintf("all %zu files already there", cb->same);
	return xasprintf("copied %zu files, %zu already there", cb->sent, cb->same);
}

static void print_outcome(struct adhoc_board *boards, size_t n, size_t n_files)
{
	struct fold f = FOLD_INIT;
	size_t copied = 0, there = 0, other = 0;
	for (size_t i = 0; i < n; i++) {
		const struct copy_board *cb = boards[i].data;
		char *key = board_outcome(&boards[i], n_files);
		fold_add(&f, key, boards[i].board->name, &boards[i]);
		free(key);
		if (boards[i].state != ADHOC_RAN || boards[i].failed)
			other++;
		else if (cb->sent)
			copied++;
		else
			there++;
	}
	fold_sort(&f, FOLD_LARGEST_FIRST);
	for (size_t i = 0; i < f.n; i++) {
		char *what = adhoc_group_what(&f.groups[i]);
		char *h = adhoc_group_header(&f.groups[i], what);
		printf("%s\n", h);
		free(h);
		free(what);
	}
	printf("copied to %zu, already there on %zu", copied, there);
	if (other)
		printf(", not on %zu", other);
	printf("\n");
	fflush(stdout);
	fold_release(&f);
}

int cmd_copy(int argc, char **argv)
{
	struct copy_options o;
	struct local_files files = { 0 };
	int ret = parse(argc, argv, &o);
	if (ret) {
		free(o.sels);
		return ret == 1 ? EXIT_OK : ret;
	}
	struct inventory *inv = NULL;
	struct adhoc_board *boards = NULL;
	size_t n = 0;
	ret = local_files_list(o.src, o.dest, o.recursive, &files);
	if (ret == EXIT_OK)
		ret = adhoc_select("copy", o.inventory, o.sels, o.n_sels, o.timeout_ms, &inv,
				   &boards, &n);
	if (ret != EXIT_OK)
		goto out;
	struct copy_board *cbs = xcalloc(n + 1, sizeof(*cbs));
	for (size_t i = 0; i < n; i++)
		boards[i].data = &cbs[i];
	char *note = xasprintf("orch copy %s %s", o.src, o.dest);
	struct copy_ctx x = { .o = &o, .files = &files };
	struct adhoc_request rq = { .verb = "copy", .note = note, .jobs = o.jobs,
				    .force = o.force, .work = copy_work, .ctx = &x };
	interrupt_install();
	if (adhoc_run(&rq, inv, boards, n) < 0) {
		fprintf(stderr, "orch copy: interrupted again; leaving now\n");
		_exit(EXIT_INTERRUPTED);
	}
	print_outcome(boards, n, files.n);
	ret = adhoc_exit_code(boards, n);
	free(cbs);
	free(note);
out:
	local_files_release(&files);
	free(boards);
	inventory_free(inv);
	free(o.sels);
	return ret;
}
