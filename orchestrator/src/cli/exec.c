/* orch exec [-l SEL]... -- COMMAND...: one command on every selected board
 * through its link, in parallel, the output folded as clush -b does. */
#include "cli/adhoc.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/exec_out.h"
#include "util/interrupt.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch exec [-i INVENTORY] [-l SELECTOR]... [-j N] [--timeout DURATION]\n"
	"                 [--json | --no-fold] [--force] [--] COMMAND...\n"
	"\n"
	"Runs COMMAND on every selected board through its link (SSH, a local\n"
	"shell, or its serial console when it has no SSH), up to N boards at once,\n"
	"each under its board lock: a board a run holds, or someone reserved, is\n"
	"skipped naming the holder; an offline board is skipped with its reason.\n"
	"One COMMAND word is a shell command line, run as given by the board's\n"
	"/bin/sh ('ls | wc -l'); several words are a command and its arguments,\n"
	"each quoted once, never split again (orch exec -- echo 'a  b' '$HOME').\n"
	"\n"
	"Output is folded as clush -b does: boards whose output and exit status are\n"
	"the same are printed once under their node set, b[01-28,30-32] (31 boards,\n"
	"exit 0); boards not reached, timed out, held or offline come after, in\n"
	"groups of their own with the reason.\n"
	"\n"
	"  -i, --inventory FILE  boards file (default: $ORCH_INVENTORY)\n"
	"  -l, --limit SELECTOR  boards to run on: names, node sets ('b[01-16]'),\n"
	"                        tag:T, group:G, globs, !NAME, lists (default: all)\n"
	"  -j, --jobs N          boards at once (default: all)\n"
	"      --timeout D       each board's bound, whatever the command prints\n"
	"                        (default 60s); then its process group is stopped\n"
	"      --no-fold         every line as it comes, prefixed 'board: '\n"
	"      --json            one JSON object per board and line: board, state,\n"
	"                        exit_status, signal, stdout, stderr, duration_s, error\n"
	"      --force           run on held boards too (a warning names the holder)\n"
	"  -h, --help            this text\n"
	"\n"
	"Ctrl-C stops the command on every board (its process group); a second\n"
	"Ctrl-C leaves at once. Exit status: 0 every board exited 0, 1 some board\n"
	"exited non-zero, 3 some board was not reached, timed out, held or offline\n"
	"(and none failed), 4 both, 2 usage, 130 interrupted.\n";

struct exec_options {
	const char *inventory;
	const char **sels;
	size_t n_sels;
	int jobs;
	int64_t timeout_ms;
	enum exec_format format;
	bool force;
	char *command;             /* as the board's shell gets it */
};

/* The command line the board's /bin/sh runs: one word as given, several
 * each quoted (caller frees). */
static char *command_text(char **words, int n)
{
	if (n == 1)
		return xstrdup(words[0]);
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_putc(&sb, ' ');
		strbuf_shquote(&sb, words[i]);
	}
	return strbuf_detach(&sb);
}

/* 0 to go on, 1 after --help, else the usage error's exit code. */
static int parse(int argc, char **argv, struct exec_options *o)
{
	enum { OPT_TIMEOUT = 256, OPT_JSON, OPT_NO_FOLD, OPT_FORCE };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-fold", no_argument, NULL, OPT_NO_FOLD },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct exec_options){ .timeout_ms = 60000 };
	optind = 1;
	opterr = 0;
	int c;
	bool json = false, no_fold = false;
	/* '+': the command's own options are not orch's (orch exec uname -r) */
	while ((c = getopt_long(argc, argv, "+:i:l:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l': cmd_add_arg(&o->sels, &o->n_sels, optarg); break;
		case 'j':
			if (cmd_int_option("exec", "-j", optarg, 1, 100000, &o->jobs) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case OPT_TIMEOUT:
			if (units_parse_duration_ms(optarg, &o->timeout_ms) < 0 || o->timeout_ms <= 0)
				return cmd_usage_error("exec", "--timeout takes a duration such as "
							     "30s, found '%s'", optarg);
			break;
		case OPT_JSON: json = true; break;
		case OPT_NO_FOLD: no_fold = true; break;
		case OPT_FORCE: o->force = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return cmd_option_error("exec", c, argv[optind - 1]);
		}
	}
	if (json && no_fold)
		return cmd_usage_error("exec", "--json and --no-fold exclude each other");
	o->format = json ? EXEC_JSON : no_fold ? EXEC_NO_FOLD : EXEC_FOLD;
	if (optind >= argc)
		return cmd_usage_error("exec", "give the COMMAND to run (after --)");
	if (!argv[optind][0] && argc - optind == 1)
		return cmd_usage_error("exec", "the COMMAND is empty");
	o->command = command_text(argv + optind, argc - optind);
	return 0;
}

struct exec_ctx {
	const struct exec_options *o;
};

/* The command on one board; its outcome into ab and its exec_out. */
static void exec_work(struct adhoc_board *ab, struct transport *t, void *ctx)
{
	const struct exec_options *o = ((struct exec_ctx *)ctx)->o;
	struct exec_out *out = ab->data;
	char step_id[24], err[768] = "";
	transport_new_step_id(step_id, sizeof(step_id));
	/* marked, so a run that finds it left behind can stop it; not reaped:
	 * what the person started in the background is theirs */
	struct transport_exec req = { .command = o->command, .timeout_ms = o->timeout_ms,
				      .stdin_fd = -1, .on_output = exec_out_take, .ctx = out,
				      .step_id = step_id, .minimal_env = true };
	struct transport_status st;
	memset(&st, 0, sizeof(st));
	int rc = transport_exec(t, &req, &st, err, sizeof(err));
	exec_out_finish(out);
	out->exit_code = st.exit_code;
	out->signal = st.signal;
	char took[32];
	units_format_duration(o->timeout_ms, took, sizeof(took));
	if (rc < 0) {
		ab->state = interrupt_requested() ? ADHOC_INTERRUPTED : ADHOC_UNREACHABLE;
		snprintf(ab->error, sizeof(ab->error), "%s", err);
	} else if (st.interrupted) {
		ab->state = ADHOC_INTERRUPTED;
		snprintf(ab->error, sizeof(ab->error), "its process group was stopped%s%s",
			 st.stop_note[0] ? ": " : "", st.stop_note);
	} else if (st.timed_out) {
		ab->state = ADHOC_TIMED_OUT;
		snprintf(ab->error, sizeof(ab->error), "timed out after %s; its process group "
			 "was stopped", took);
	} else {
		ab->state = ADHOC_RAN;
		ab->failed = st.exit_code != 0;
	}
}

int cmd_exec(int argc, char **argv)
{
	struct exec_options o;
	int ret = parse(argc, argv, &o);
	if (ret) {
		free(o.sels);
		free(o.command);
		return ret == 1 ? EXIT_OK : ret;
	}
	struct inventory *inv = NULL;
	struct adhoc_board *boards = NULL;
	size_t n = 0;
	ret = adhoc_select("exec", o.inventory, o.sels, o.n_sels, o.timeout_ms, &inv, &boards, &n);
	if (ret != EXIT_OK)
		goto out;
	struct exec_out *outs = xcalloc(n + 1, sizeof(*outs));
	for (size_t i = 0; i < n; i++) {
		exec_out_init(&outs[i], boards[i].board->name, o.format);
		boards[i].data = &outs[i];
	}
	char *note = xasprintf("orch exec %s", o.command);
	struct exec_ctx x = { .o = &o };
	struct adhoc_request rq = { .verb = "exec", .note = note, .jobs = o.jobs,
				    .force = o.force, .work = exec_work, .ctx = &x };
	interrupt_install();
	if (adhoc_run(&rq, inv, boards, n) < 0) {
		fflush(stdout);
		fprintf(stderr, "orch exec: interrupted again; leaving now (the boards' "
				"commands were told to stop)\n");
		_exit(EXIT_INTERRUPTED);
	}
	exec_out_print(boards, n, o.format);
	ret = adhoc_exit_code(boards, n);
	for (size_t i = 0; i < n; i++)
		exec_out_release(&outs[i]);
	free(outs);
	free(note);
out:
	free(boards);
	inventory_free(inv);
	free(o.sels);
	free(o.command);
	return ret;
}
